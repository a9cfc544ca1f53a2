#include "sim/sched/time_share_lp.hpp"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <limits>
#include <cmath>

#include "sim/core/check.hpp"

namespace gpusim::sched {
namespace {

double coefficient(const TimeShareJob& job, std::size_t type, bool use_speed) {
  const double speed = job.speed[type];
  if (speed <= 0) return 0;
  return use_speed ? speed : 1.0;
}

// Runs CLP's dual simplex on the loaded model (warm from its last basis); true if it found an
// optimum. Every max-min LP is feasible (X = 0, z = 0), so only finish-time bounds can fail.
bool run(ClpSimplex& model) {
  model.dual();
  // Status 1 (primal infeasible) is an answer (a bisection step's bound is out of reach); only a
  // run stopped short (3: iterations, 4: numerical trouble) is tried again with the primal.
  if (model.status() >= 3) model.primal();
  return model.status() == 0;
}

// The simplex leaves shares like 1e-13 where a job has none; a share that small would still give
// the job an infinite priority on a type it never ran on.
void clean(std::vector<double>& shares) {
  for (double& share : shares) {
    if (share < 1e-6) share = 0;
  }
}

}  // namespace

TimeShareLp::TimeShareLp() = default;
TimeShareLp::~TimeShareLp() = default;

double TimeShareLp::solve(TimeShareObjective objective, bool aware, const std::vector<TimeShareJob>& jobs,
                          const std::vector<double>& gpus_of_type, std::vector<double>& shares) {
  const std::size_t types = gpus_of_type.size();
  shares.assign(jobs.size() * types, 0.0);
  if (jobs.empty() || types == 0) return 0;
  // The heterogeneity-agnostic max-min allocation: every policy's reference (z: the smallest
  // scale_j Sum_t X[j][t]).
  std::vector<double> weight(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) weight[j] = jobs[j].scale;
  const double agnostic = max_min(jobs, gpus_of_type, weight, false, shares);
  // Where speed cannot tell the types apart — one type, or every job as fast on every type it can
  // run on as on the reference GPU — the aware max-min objective is the agnostic one times a
  // positive constant (1 / z), so its optima are the same; solving it again would only let the
  // solver pick another of the same optima (a different schedule from the same allocation problem).
  const bool alike = types == 1 || std::all_of(jobs.begin(), jobs.end(), [&](const TimeShareJob& job) {
                       for (std::size_t t = 0; t < types; ++t) {
                         if (coefficient(job, t, true) != coefficient(job, t, false)) return false;
                       }
                       return true;
                     });
  if (objective == TimeShareObjective::kMaxMin && !aware) {
    clean(shares);
    return agnostic;
  }
  // A job's isolated throughput: its agnostic share of time (z / scale), spread over the types it
  // can run on in proportion to their GPUs -- the paper's equal allocation X^equal. (Gavel's code
  // takes the agnostic LP's own allocation, which is not unique: how it splits a job's time across
  // types is the solver's choice, and so would be every job's weight.)
  std::vector<double> isolated(jobs.size(), 0.0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    double gpus = 0, weighted = 0;
    for (std::size_t t = 0; t < types; ++t) {
      const double c = coefficient(jobs[j], t, aware);
      if (c <= 0 || gpus_of_type[t] < jobs[j].scale) continue;
      gpus += gpus_of_type[t];
      weighted += gpus_of_type[t] * c;
    }
    const double time = std::min(1.0, agnostic / jobs[j].scale);
    isolated[j] = gpus > 0 ? std::max(time * weighted / gpus, 1e-9) : 1e-9;
  }
  if (objective == TimeShareObjective::kMaxMin) {
    // Gavel's code multiplies by the scale factor again; with an isolated share that already
    // gives a k-GPU job 1/k of the time, that would count its GPUs twice (and make the aware
    // policy differ from the agnostic one on a cluster where every GPU is alike).
    for (std::size_t j = 0; j < jobs.size(); ++j) weight[j] = 1.0 / isolated[j];
    if (alike) {
      // The agnostic allocation in `shares` is optimal here too: its aware objective.
      clean(shares);
      double z = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        double throughput = 0;
        for (std::size_t t = 0; t < types; ++t) throughput += coefficient(jobs[j], t, true) * shares[j * types + t];
        z = std::min(z, weight[j] * throughput);
      }
      return z;
    }
    const double z = max_min(jobs, gpus_of_type, weight, true, shares);
    clean(shares);
    return z;
  }
  const double rho = finish_time_fair(jobs, gpus_of_type, isolated, aware, shares);
  clean(shares);
  return rho;
}

// The share columns X[j][t] (j * types + t) and the rows every policy has: per job a throughput
// row (coefficient weight_j c[j][t]; its bounds are the policy's), per job Sum_t X[j][t] <= 1, per
// type Sum_j scale_j X[j][t] <= GPUs. `cost_of_share`: each share column's objective coefficient
// is its throughput coefficient (else 0). `count` (max-min's classes): how many jobs each row of
// `jobs` stands for, each taking the same share, so that its type rows count its GPUs that often.
void TimeShareLp::load_shares(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                              const std::vector<double>& weight, bool use_speed, bool cost_of_share,
                              const std::vector<double>* count) {
  const std::size_t n = jobs.size();
  const std::size_t types = gpus_of_type.size();
  starts_.assign(1, 0);
  rows_.clear();
  values_.clear();
  column_lower_.assign(n * types, 0.0);
  column_upper_.assign(n * types, 1.0);
  cost_.assign(n * types, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t t = 0; t < types; ++t) {
      const double c = coefficient(jobs[j], t, use_speed);
      if (c <= 0 || gpus_of_type[t] < jobs[j].scale) column_upper_[j * types + t] = 0;  // it cannot run there
      if (cost_of_share) cost_[j * types + t] = c;
      rows_.push_back(static_cast<int>(j));
      values_.push_back(weight[j] * c);
      rows_.push_back(static_cast<int>(n + j));
      values_.push_back(1.0);
      rows_.push_back(static_cast<int>(2 * n + t));
      values_.push_back(jobs[j].scale * (count != nullptr ? (*count)[j] : 1.0));
      starts_.push_back(static_cast<int>(rows_.size()));
    }
  }
  row_lower_.assign(2 * n + types, -COIN_DBL_MAX);
  row_upper_.assign(2 * n + types, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    row_lower_[j] = 0.0;
    row_upper_[j] = COIN_DBL_MAX;
    row_upper_[n + j] = 1.0;
  }
  for (std::size_t t = 0; t < types; ++t) row_upper_[2 * n + t] = gpus_of_type[t];
}

// Jobs the LP cannot tell apart -- the same GPUs, the same coefficient on every type, the same
// weight -- are one class, solved as one row of shares that each of its jobs takes. Swapping two
// such jobs maps an allocation to one as good, so averaging over the swaps turns any optimum into
// one where they share alike: the class LP's optimum is the full LP's. It has a row per class
// (tens on Philly) instead of per job (thousands in flight at 4 times its rate), and what it gives
// each class does not depend on the jobs' order, where the full LP's vertex gave identical jobs
// different shares by their column's place in the matrix.
double TimeShareLp::max_min(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                            const std::vector<double>& weight, bool use_speed, std::vector<double>& shares) {
  const std::size_t n = jobs.size();
  const std::size_t types = gpus_of_type.size();
  // Classes in the order of their keys (GPUs, weight, then the coefficients), so that the class
  // LP is the same whatever order the jobs came in.
  order_.resize(n);
  for (std::size_t j = 0; j < n; ++j) order_[j] = j;
  const auto key_less = [&](std::size_t a, std::size_t b) {
    if (jobs[a].scale != jobs[b].scale) return jobs[a].scale < jobs[b].scale;
    if (weight[a] != weight[b]) return weight[a] < weight[b];
    for (std::size_t t = 0; t < types; ++t) {
      const double ca = coefficient(jobs[a], t, use_speed), cb = coefficient(jobs[b], t, use_speed);
      if (ca != cb) return ca < cb;
    }
    return false;
  };
  std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return key_less(a, b) || (!key_less(b, a) && a < b); });
  class_of_.resize(n);
  class_jobs_.clear();
  class_weight_.clear();
  class_count_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = order_[i];
    if (i == 0 || key_less(order_[i - 1], j)) {
      class_jobs_.push_back(jobs[j]);
      class_weight_.push_back(weight[j]);
      class_count_.push_back(0);
    }
    class_of_[j] = class_jobs_.size() - 1;
    class_count_.back() += 1;
  }
  const std::size_t k = class_jobs_.size();
  const std::size_t columns = k * types + 1;
  load_shares(class_jobs_, gpus_of_type, class_weight_, use_speed, false, &class_count_);
  // Second to z, a reward for every GPU-second used, so that the optimum does not leave a type idle
  // while it crowds another: at most 1e-7 of z is traded for it.
  double gpus = 0;
  for (const double g : gpus_of_type) gpus += g;
  const double reward = 1e-7 / std::max(gpus, 1.0);
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t t = 0; t < types; ++t) cost_[c * types + t] = reward * class_jobs_[c].scale * class_count_[c];
  }
  for (std::size_t c = 0; c < k; ++c) {
    rows_.push_back(static_cast<int>(c));
    values_.push_back(-1.0);
  }
  starts_.push_back(static_cast<int>(rows_.size()));
  column_lower_.push_back(0.0);
  column_upper_.push_back(COIN_DBL_MAX);
  cost_.push_back(1.0);
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(columns), static_cast<int>(2 * k + types), starts_.data(), rows_.data(), values_.data(),
                    column_lower_.data(), column_upper_.data(), cost_.data(), row_lower_.data(), row_upper_.data());
  model.setOptimizationDirection(-1);  // maximise z
  ++solves_;
  GPUSIM_CHECK(run(model), "CLP failed on a max-min time-share LP");
  const double* x = model.primalColumnSolution();
  // A class's shares go to its jobs, laid out where possible: the class's amount on each type is
  // cut, type after type, into its jobs' equal pieces in their order, so that all but a job per type
  // boundary run on one type (a job with time on two types moves between them from round to round).
  //  - By throughput: each job gets the class's throughput theta = Sum_t c_t x_t; a piece u on type
  //    t takes u / c_t of its time, within its one unit only if theta <= c_t on every type used.
  //  - Else by time: each job gets the class's time s = Sum_t x_t, so its throughput is c_t s on a
  //    type alone; every job still meets the optimum z if weight c_t s >= z on every type used.
  //  - Else every job takes the class's shares.
  // Either layout keeps each type's total, so the objective and the GPUs used are the class LP's.
  const double z = x[k * types];
  const auto share_of = [&](std::size_t c, std::size_t t) { return std::clamp(x[c * types + t], 0.0, 1.0); };
  layout_.assign(k, Layout::kShares);
  need_.assign(k, 0.0);
  for (std::size_t c = 0; c < k; ++c) {
    const TimeShareJob& job = class_jobs_[c];
    double theta = 0, time = 0;
    for (std::size_t t = 0; t < types; ++t) {
      theta += coefficient(job, t, use_speed) * share_of(c, t);
      time += share_of(c, t);
    }
    bool by_throughput = true, by_time = true;
    for (std::size_t t = 0; t < types; ++t) {
      if (share_of(c, t) <= 0) continue;
      const double speed = coefficient(job, t, use_speed);
      by_throughput = by_throughput && theta <= speed * (1 + 1e-12);
      by_time = by_time && class_weight_[c] * speed * time >= z * (1 - 1e-9);
    }
    layout_[c] = by_throughput ? Layout::kThroughput : by_time ? Layout::kTime : Layout::kShares;
    need_[c] = by_throughput ? theta : time;
  }
  // The amount of a class's piece on type t, per unit of the job's time there.
  const auto per_time = [&](std::size_t c, std::size_t t) {
    return layout_[c] == Layout::kThroughput ? coefficient(class_jobs_[c], t, use_speed) : 1.0;
  };
  wrap_type_.assign(k, 0);
  wrap_left_.assign(k, 0.0);
  for (std::size_t c = 0; c < k; ++c) wrap_left_[c] = class_count_[c] * per_time(c, 0) * share_of(c, 0);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t c = class_of_[j];
    double* share = &shares[j * types];
    for (std::size_t t = 0; t < types; ++t) share[t] = layout_[c] == Layout::kShares ? share_of(c, t) : 0.0;
    if (layout_[c] == Layout::kShares) continue;
    double need = need_[c];
    while (need > 1e-12 && wrap_type_[c] < types) {
      const std::size_t t = wrap_type_[c];
      const double take = std::min(need, wrap_left_[c]);
      if (take > 0) {
        share[t] = std::min(1.0, share[t] + take / per_time(c, t));
        need -= take;
        wrap_left_[c] -= take;
      }
      // The next type once this one is used up (to rounding: the last job takes what is left).
      if (wrap_left_[c] > 1e-12 || t + 1 == types) break;
      ++wrap_type_[c];
      wrap_left_[c] = class_count_[c] * per_time(c, t + 1) * share_of(c, t + 1);
    }
  }
  return z;
}

// The shared rows, the throughput rows bounded below by bound_j(c) (set per step); objective:
// total throughput Sum c X (so the allocation at the optimum uses what the bounds leave).
double TimeShareLp::finish_time_fair(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                                     const std::vector<double>& isolated, bool use_speed, std::vector<double>& shares) {
  const std::size_t n = jobs.size();
  const std::size_t types = gpus_of_type.size();
  const std::size_t columns = n * types;
  load_shares(jobs, gpus_of_type, std::vector<double>(n, 1.0), use_speed, true, nullptr);
  // rho_j <= c  <=>  thr_j >= remaining_j / (c * isolated_time_j - elapsed_j), where
  // isolated_time_j = elapsed_j + remaining_j / isolated_j; any c <= elapsed_j / isolated_time_j fails.
  std::vector<double> isolated_time(n);
  double low = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double remaining = std::max(jobs[j].remaining_s, 0.0);
    isolated_time[j] = jobs[j].elapsed_s + remaining / isolated[j];
    // A job with nothing left has met any bound (its row asks nothing).
    if (remaining > 0) low = std::max(low, jobs[j].elapsed_s / isolated_time[j]);
  }
  const auto set_bounds = [&](double c) {
    for (std::size_t j = 0; j < n; ++j) {
      const double remaining = std::max(jobs[j].remaining_s, 0.0);
      const double slack = c * isolated_time[j] - jobs[j].elapsed_s;
      row_lower_[j] = remaining <= 0 ? 0.0 : slack > 0 ? remaining / slack : 1e20;  // 1e20: unreachable, so infeasible
    }
  };
  // The equal allocation X^equal meets c = 1 when every job can run on every type; otherwise the
  // bound doubles until the LP is feasible (a job confined to a scarce type may not reach rho 1).
  double high = 1.0;
  set_bounds(high);
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(columns), static_cast<int>(2 * n + types), starts_.data(), rows_.data(), values_.data(),
                    column_lower_.data(), column_upper_.data(), cost_.data(), row_lower_.data(), row_upper_.data());
  model.setOptimizationDirection(-1);
  ++solves_;
  while (!run(model)) {
    if (high >= 1e6) return high;  // hopeless: the agnostic max-min allocation in `shares` stands
    low = high;
    high *= 2;
    set_bounds(high);
    for (std::size_t j = 0; j < n; ++j) model.setRowLower(static_cast<int>(j), row_lower_[j]);
    ++solves_;
  }
  std::copy(model.primalColumnSolution(), model.primalColumnSolution() + columns, shares.begin());
  const auto feasible = [&](double c) {
    set_bounds(c);
    for (std::size_t j = 0; j < n; ++j) model.setRowLower(static_cast<int>(j), row_lower_[j]);
    ++solves_;
    if (!run(model)) return false;
    std::copy(model.primalColumnSolution(), model.primalColumnSolution() + columns, shares.begin());
    return true;
  };
  // The last solve's optimum is usually close (a round changes few jobs): bracket it within 1%
  // first, then bisect to half a percent of rho. Each step only moves the job rows' lower bounds,
  // and the dual simplex starts from the last basis.
  if (last_rho_ > low && last_rho_ * 1.01 < high) {
    if (feasible(last_rho_ * 1.01)) {
      high = last_rho_ * 1.01;
      if (last_rho_ * 0.99 > low) {
        if (feasible(last_rho_ * 0.99)) {
          high = last_rho_ * 0.99;
        } else {
          low = last_rho_ * 0.99;
        }
      }
    } else {
      low = last_rho_ * 1.01;
    }
  }
  while (high - low > std::max(0.005 * high, 1e-6)) {
    const double mid = (low + high) / 2;
    if (feasible(mid)) {
      high = mid;
    } else {
      low = mid;
    }
  }
  // `shares` holds the allocation of the last feasible step, which is at `high`.
  last_rho_ = high;
  for (double& share : shares) share = std::clamp(share, 0.0, 1.0);
  return high;
}

}  // namespace gpusim::sched
