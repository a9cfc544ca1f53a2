// Max-min's LP is solved over classes of interchangeable jobs (sim/sched/time_share_lp.cpp). These
// tests hold it to the per-job LP it replaces, solved here with CLP directly: the same optimum,
// an allocation the per-job LP accepts, and shares that depend on what a job asks, not on where
// it stands in the list.
#include <gtest/gtest.h>

#include <ClpSimplex.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sim/sched/time_share_lp.hpp"

namespace gpusim {
namespace {

// The coefficient of job j's share on type t: its speed (aware) or 1 (agnostic) where it can run.
double coefficient(const sched::TimeShareJob& job, std::size_t t, const std::vector<double>& gpus, bool aware) {
  if (job.speed[t] <= 0 || gpus[t] < job.scale) return 0;
  return aware ? job.speed[t] : 1.0;
}

// The max-min LP with a column per job and type: maximise z plus the small reward per GPU-second
// the simulator adds, s.t. weight_j Sum_t c[j][t] X[j][t] >= z, Sum_t X[j][t] <= 1, Sum_j scale_j
// X[j][t] <= GPUs of t; X[j][t] = 0 where the job cannot run. Returns z.
double per_job_optimum(const std::vector<sched::TimeShareJob>& jobs, const std::vector<double>& gpus,
                       const std::vector<double>& weight, bool aware) {
  const int n = static_cast<int>(jobs.size());
  const int types = static_cast<int>(gpus.size());
  ClpSimplex model;
  model.setLogLevel(0);
  model.resize(2 * n + types, 0);
  for (int j = 0; j < n; ++j) {
    model.setRowLower(j, 0.0);
    model.setRowUpper(j, COIN_DBL_MAX);
    model.setRowLower(n + j, -COIN_DBL_MAX);
    model.setRowUpper(n + j, 1.0);
  }
  for (int t = 0; t < types; ++t) {
    model.setRowLower(2 * n + t, -COIN_DBL_MAX);
    model.setRowUpper(2 * n + t, gpus[static_cast<std::size_t>(t)]);
  }
  const double reward = 1e-7 / std::accumulate(gpus.begin(), gpus.end(), 0.0);
  for (int j = 0; j < n; ++j) {
    const sched::TimeShareJob& job = jobs[static_cast<std::size_t>(j)];
    for (int t = 0; t < types; ++t) {
      const double c = coefficient(job, static_cast<std::size_t>(t), gpus, aware);
      const int rows[] = {j, n + j, 2 * n + t};
      const double values[] = {weight[static_cast<std::size_t>(j)] * c, 1.0, static_cast<double>(job.scale)};
      model.addColumn(3, rows, values, 0.0, c > 0 ? 1.0 : 0.0, reward * job.scale);
    }
  }
  std::vector<int> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  const std::vector<double> minus_one(static_cast<std::size_t>(n), -1.0);
  model.addColumn(n, rows.data(), minus_one.data(), 0.0, COIN_DBL_MAX, 1.0);
  model.setOptimizationDirection(-1);
  model.dual();
  EXPECT_EQ(model.status(), 0);
  return model.primalColumnSolution()[n * types];
}

// The weights of the aware LP, as its documentation defines them: 1 over the job's throughput on
// its agnostic share of time (z' / scale), spread over the types it can run on by their GPUs.
std::vector<double> aware_weights(const std::vector<sched::TimeShareJob>& jobs, const std::vector<double>& gpus, double agnostic) {
  std::vector<double> weight;
  for (const sched::TimeShareJob& job : jobs) {
    double on = 0, weighted = 0;
    for (std::size_t t = 0; t < gpus.size(); ++t) {
      const double c = coefficient(job, t, gpus, true);
      if (c <= 0) continue;
      on += gpus[t];
      weighted += gpus[t] * c;
    }
    const double time = std::min(1.0, agnostic / job.scale);
    weight.push_back(1.0 / std::max(time * weighted / on, 1e-9));
  }
  return weight;
}

std::vector<double> scales(const std::vector<sched::TimeShareJob>& jobs) {
  std::vector<double> weight;
  for (const sched::TimeShareJob& job : jobs) weight.push_back(job.scale);
  return weight;
}

// Jobs as on the bundled Philly cluster: 1-2 GPU jobs run on both types (2-GPU P100 nodes, 8-GPU
// P40 nodes), larger ones only on the P40s.
std::vector<sched::TimeShareJob> philly_like_jobs(std::mt19937& rng, int n) {
  const int scales[] = {1, 1, 1, 1, 2, 2, 4, 8, 16};
  std::vector<sched::TimeShareJob> jobs;
  for (int j = 0; j < n; ++j) {
    const int scale = scales[rng() % std::size(scales)];
    jobs.push_back({scale, {scale <= 2 ? 1.0 : 0.0, 1.0}, 0, 0});
  }
  return jobs;
}

// The allocation is one the per-job LP accepts at objective z: within each type's GPUs and each
// job's time, nothing where a job cannot run, and every job's weighted throughput at least z.
void expect_feasible(const std::vector<sched::TimeShareJob>& jobs, const std::vector<double>& gpus, const std::vector<double>& weight,
                     bool aware, const std::vector<double>& shares, double z) {
  const std::size_t types = gpus.size();
  std::vector<double> used(types, 0.0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    double time = 0, throughput = 0;
    for (std::size_t t = 0; t < types; ++t) {
      const double x = shares[j * types + t];
      const double c = coefficient(jobs[j], t, gpus, aware);
      if (c <= 0) {
        EXPECT_EQ(x, 0.0) << "job " << j << " type " << t;
      }
      time += x;
      throughput += c * x;
      used[t] += jobs[j].scale * x;
    }
    EXPECT_LE(time, 1 + 1e-7) << "job " << j;
    EXPECT_GE(weight[j] * throughput, z * (1 - 1e-5)) << "job " << j;
  }
  for (std::size_t t = 0; t < types; ++t) EXPECT_LE(used[t], gpus[t] + 1e-6) << "type " << t;
}

// Jobs on Gavel's three types (K80, P100, V100 by speed), with speeds from a handful of job
// types, some unable to run on a type, and 1-8 GPUs.
std::vector<sched::TimeShareJob> gavel_like_jobs(std::mt19937& rng, int n) {
  const std::vector<std::vector<double>> kinds{{0.3, 0.6, 1.0}, {0.5, 0.8, 1.0}, {0.1, 0.5, 1.0}, {0.0, 0.7, 1.0}, {0.9, 1.0, 1.0}};
  const int scales_of[] = {1, 1, 1, 2, 2, 4, 8};
  std::vector<sched::TimeShareJob> jobs;
  for (int j = 0; j < n; ++j) {
    jobs.push_back({scales_of[rng() % std::size(scales_of)], kinds[rng() % kinds.size()], 0, 0});
  }
  return jobs;
}

TEST(TimeShareClasses, TheClassLpReachesThePerJobOptimumWithAnAllocationItAccepts) {
  std::mt19937 rng(7);
  // The agnostic LP on the Philly cluster, from underloaded (spare GPUs beyond every job's share)
  // to 3,000 jobs in flight.
  const std::vector<double> philly{642, 1848};
  for (const int n : {5, 60, 400, 1500, 3000}) {
    const std::vector<sched::TimeShareJob> jobs = philly_like_jobs(rng, n);
    sched::TimeShareLp lp;
    std::vector<double> shares;
    const double z = lp.solve(sched::TimeShareObjective::kMaxMin, false, jobs, philly, shares);
    EXPECT_NEAR(z, per_job_optimum(jobs, philly, scales(jobs), false), 1e-7 * std::max(1.0, z)) << n << " jobs";
    expect_feasible(jobs, philly, scales(jobs), false, shares, z);
  }
  // The aware LP on Gavel's types, speeds telling them apart, against the per-job LP with the
  // weights its documentation gives.
  const std::vector<double> gavel{64, 96, 96};
  for (const int n : {3, 40, 120, 400, 1200}) {
    const std::vector<sched::TimeShareJob> jobs = gavel_like_jobs(rng, n);
    sched::TimeShareLp lp;
    std::vector<double> shares;
    const double agnostic = per_job_optimum(jobs, gavel, scales(jobs), false);
    const std::vector<double> weight = aware_weights(jobs, gavel, agnostic);
    const double z = lp.solve(sched::TimeShareObjective::kMaxMin, true, jobs, gavel, shares);
    EXPECT_NEAR(z, per_job_optimum(jobs, gavel, weight, true), 1e-6 * std::max(1.0, z)) << n << " jobs, aware";
    expect_feasible(jobs, gavel, weight, true, shares, z);
  }
}

TEST(TimeShareClasses, AlikeJobsGetAlikeThroughputsWhereverTheyStand) {
  std::mt19937 rng(11);
  const std::vector<double> gpus{642, 1848};
  std::vector<sched::TimeShareJob> jobs = philly_like_jobs(rng, 800);
  // Speeds that tell the types apart, so that the aware policy solves its own LP too.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (j % 3 == 0 && jobs[j].speed[0] > 0) jobs[j].speed[0] = 0.5;
  }
  const std::size_t n = jobs.size(), types = gpus.size();
  for (const bool aware : {false, true}) {
    sched::TimeShareLp lp;
    std::vector<double> shares, reversed_shares;
    (void)lp.solve(sched::TimeShareObjective::kMaxMin, aware, jobs, gpus, shares);
    const std::vector<sched::TimeShareJob> reversed(jobs.rbegin(), jobs.rend());
    (void)lp.solve(sched::TimeShareObjective::kMaxMin, aware, reversed, gpus, reversed_shares);
    {
      sched::TimeShareLp fresh;
      std::vector<double> agnostic_shares;
      const double agnostic = fresh.solve(sched::TimeShareObjective::kMaxMin, false, jobs, gpus, agnostic_shares);
      const std::vector<double> weight = aware ? aware_weights(jobs, gpus, agnostic) : scales(jobs);
      sched::TimeShareLp again;
      std::vector<double> again_shares;
      expect_feasible(jobs, gpus, weight, aware, shares, again.solve(sched::TimeShareObjective::kMaxMin, aware, jobs, gpus, again_shares));
    }
    // Per class of alike jobs (named by its first job): its time on each type in both orders, how
    // many of its jobs have time on more than one type, and whether all took the first's shares.
    std::vector<std::size_t> first(n);
    std::vector<std::vector<double>> time(n, std::vector<double>(types, 0.0)), reversed_time = time;
    std::vector<int> split(n, 0);
    std::vector<bool> all_alike(n, true);
    const auto throughput = [&](const std::vector<double>& x, std::size_t at, std::size_t job) {
      double sum = 0;
      for (std::size_t t = 0; t < types; ++t) sum += (aware ? jobs[job].speed[t] : 1.0) * x[at * types + t];
      return sum;
    };
    for (std::size_t j = 0; j < n; ++j) {
      first[j] = j;
      for (std::size_t k = 0; k < j; ++k) {
        if (jobs[k].scale == jobs[j].scale && jobs[k].speed == jobs[j].speed) {
          first[j] = k;
          break;
        }
      }
      const std::size_t c = first[j];
      int on = 0;
      double total = 0;
      for (std::size_t t = 0; t < types; ++t) {
        const double x = shares[j * types + t];
        time[c][t] += x;
        reversed_time[c][t] += reversed_shares[(n - 1 - j) * types + t];
        on += x > 0 ? 1 : 0;
        total += x;
        if (x != shares[c * types + t]) all_alike[c] = false;
      }
      split[c] += on > 1 ? 1 : 0;
      EXPECT_LE(total, 1 + 1e-9) << "job " << j;
      // Every job of a class as fast as the first, in either order.
      EXPECT_NEAR(throughput(shares, j, j), throughput(shares, c, c), 1e-9) << "job " << j << (aware ? " aware" : "");
      EXPECT_NEAR(throughput(reversed_shares, n - 1 - j, j), throughput(shares, c, c), 1e-9) << "job " << j;
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (first[c] != c) continue;
      for (std::size_t t = 0; t < types; ++t) EXPECT_NEAR(time[c][t], reversed_time[c][t], 1e-9) << "class " << c;
      // Laid out by type (all but a job per type boundary on one type), or every job alike.
      EXPECT_TRUE(split[c] <= static_cast<int>(types) - 1 || all_alike[c]) << "class " << c;
      // Where a job runs as fast everywhere (always, to the agnostic policy), the layout holds.
      const bool same_speed = !aware || jobs[c].speed[0] == 0 || jobs[c].speed[0] == jobs[c].speed[1];
      if (same_speed) {
        EXPECT_LE(split[c], static_cast<int>(types) - 1) << "class " << c;
      }
    }
  }
}

}  // namespace
}  // namespace gpusim
