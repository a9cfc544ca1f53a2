#include "policies/time_sharing/time_share_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "sim/core/check.hpp"

namespace gpusim::k8s {
namespace {
double quantise(double value) { return std::isinf(value) ? value : std::round(value * 1e9) / 1e9; }
}  // namespace

TimeShareRounds::TimeShareRounds(const sched::Profile& profile, const std::vector<cluster::NodeSpec>& nodes,
                                 const std::vector<cluster::PodSpec>& pods, const perf::JobTypeSpeeds* speeds,
                                 const JobLedger& ledger, std::uint64_t seed)
    : policy_(profile.time_share),
      aware_(profile.heterogeneity_aware),
      themis_fairness_(profile.themis_fairness),
      pods_(pods),
      speeds_(speeds),
      ledger_(ledger),
      rng_(core::Rng::stream(seed, "time-share-rounds")) {
  GPUSIM_CHECK(policy_ != sched::TimeSharePolicy::kNone, "time-share rounds for a profile without a time-share policy");
  // GPU types: Gavel's worker types with a throughput table, else the GPU models, in the order of
  // their first node (worker types: slowest first, as the table lists them).
  cluster::GpuModelId models = 0;
  for (const cluster::NodeSpec& node : nodes) models = std::max<cluster::GpuModelId>(models, node.gpu_model + 1);
  type_of_model_.assign(std::max<std::size_t>(models, 64), kNone);
  if (speeds_ != nullptr) {
    for (std::size_t w = 0; w < traces::kGavelWorkerTypes.size(); ++w) types_.push_back({{}, 0, 0, w});
  }
  for (const cluster::NodeSpec& node : nodes) {
    if (node.gpu_count == 0) continue;
    std::int8_t& type = type_of_model_[node.gpu_model];
    if (type == kNone) {
      if (speeds_ != nullptr) {
        type = static_cast<std::int8_t>(*speeds_->worker_type_of(node.gpu_model));
      } else {
        GPUSIM_CHECK(types_.size() < 64, "more GPU models than types");
        type = static_cast<std::int8_t>(types_.size());
        types_.push_back({});
      }
      types_[static_cast<std::size_t>(type)].models.add(node.gpu_model);
    }
    Type& t = types_[static_cast<std::size_t>(type)];
    t.gpus += node.gpu_count;
    t.largest_node = std::max(t.largest_node, node.gpu_count);
  }
  job_of_row_.resize(pods.size());
  jobs_.resize(pods.size());
  std::vector<std::uint32_t> first_of_gang;
  for (std::uint32_t row = 0; row < pods.size(); ++row) {
    const cluster::PodSpec& pod = pods[row];
    std::uint32_t job = row;
    if (pod.gang != 0) {
      if (first_of_gang.size() <= pod.gang) first_of_gang.resize(pod.gang + 1, UINT32_MAX);
      if (first_of_gang[pod.gang] == UINT32_MAX) first_of_gang[pod.gang] = row;
      job = first_of_gang[pod.gang];
    }
    job_of_row_[row] = job;
    Job& j = jobs_[job];
    j.gpus += pod.gpu_count;
    j.largest_pod = std::max(j.largest_pod, pod.gpu_count);
  }
  // Time sharing covers GPU jobs that some type can hold whole; CPU-only pods are placed as they
  // come, and a job no type can hold never starts.
  for (std::uint32_t row = 0; row < pods.size(); ++row) {
    if (job_of_row_[row] != row || jobs_[row].gpus == 0) continue;
    for (std::size_t t = 0; t < types_.size() && !jobs_[row].plannable; ++t) jobs_[row].plannable = speed(row, t) > 0;
  }
}

void TimeShareRounds::arrive(std::uint32_t job, core::Time now) {
  Job& j = jobs_[job];
  if (j.active || !j.plannable) return;
  if (j.received.empty()) {  // its first pod: it arrived (a recreated job keeps its arrival and rounds)
    j.arrival = now;
    j.received.assign(types_.size(), 0);
  }
  j.active = 1;
  active_.insert(std::lower_bound(active_.begin(), active_.end(), job), job);
  changed_ = true;
}

void TimeShareRounds::started(std::uint32_t job, std::int8_t type) {
  Job& j = jobs_[job];
  if (j.running == type) return;  // another worker of a gang already counted
  j.running = type;
  if (j.planned == type && type != kNone) ++j.received[static_cast<std::size_t>(type)];
}

void TimeShareRounds::leave(std::uint32_t job) {
  Job& j = jobs_[job];
  if (!j.active) return;
  j.active = 0;
  j.running = kNone;
  j.planned = kNone;
  active_.erase(std::lower_bound(active_.begin(), active_.end(), job));
  changed_ = true;
}

double TimeShareRounds::speed(std::uint32_t job, std::size_t type) const {
  const Type& t = types_[type];
  const Job& j = jobs_[job];
  const cluster::PodSpec& pod = pods_[job];
  if (t.gpus < j.gpus || t.largest_node < j.largest_pod) return 0;  // its pods cannot all be placed there
  if (pod.allowed_models.bits != 0 && (pod.allowed_models.bits & t.models.bits) == 0) return 0;
  if (speeds_ != nullptr && pod.job_type >= 0 && t.worker) return speeds_->speed(pod, *t.worker);
  return 1;
}

double TimeShareRounds::remaining_s(std::uint32_t job, core::Time now) const {
  const cluster::PodSpec& pod = pods_[job];
  if (!pod.duration) return 0;
  double left = ledger_.remaining_work(job, *pod.duration).seconds();
  const Job& j = jobs_[job];
  if (ledger_.running(job) && j.running != kNone) {
    left -= static_cast<double>((now - ledger_.running_since(job)).micros()) / 1e6 * speed(job, static_cast<std::size_t>(j.running));
  }
  return std::max(left, 0.0);
}

void TimeShareRounds::plan(core::Time now) {
  ++rounds_;
  for (const std::uint32_t job : active_) jobs_[job].planned = kNone;
  if (policy_ == sched::TimeSharePolicy::kThemis) {
    plan_leases(now);
  } else {
    plan_shares(now);
  }
  // A round counts for a job where it runs in it: here for jobs that keep running on their type,
  // at binding (started()) for the others; a planned job that finds no room gets no round.
  for (const std::uint32_t job : active_) {
    Job& j = jobs_[job];
    ++j.rounds;
    if (j.planned != kNone && j.planned == j.running) ++j.received[static_cast<std::size_t>(j.planned)];
  }
}

double TimeShareRounds::estimated_rho(std::uint32_t job, core::Time now) const {
  const Job& j = jobs_[job];
  const cluster::PodSpec& pod = pods_[job];
  if (!pod.duration || pod.duration->micros() == 0) return 0;
  double best = 0, weighted = 0, gpus = 0;
  for (std::size_t t = 0; t < types_.size(); ++t) {
    const double v = speed(job, t);
    if (v <= 0) continue;
    best = std::max(best, v);
    weighted += types_[t].gpus * v;
    gpus += types_[t].gpus;
  }
  if (best <= 0 || gpus <= 0) return 0;
  // Alone on an equal 1/n share of the GPUs it may use, at their mean speed; shared: what it has
  // waited and run so far, then its remaining work at its best speed from now on.
  const double work_s = static_cast<double>(pod.duration->micros()) / 1e6;
  const double n = static_cast<double>(active_.size());
  const double isolated = work_s / (weighted / gpus) * std::max(1.0, n * j.gpus / gpus);
  const double shared = static_cast<double>((now - j.arrival).micros()) / 1e6 + remaining_s(job, now) / best;
  return shared / isolated;
}

void TimeShareRounds::plan_leases(core::Time now) {
  const std::size_t types = types_.size();
  free_.assign(types, 0);
  for (std::size_t t = 0; t < types; ++t) free_[t] = types_[t].gpus;
  // The auction's visible jobs: the ceil((1 - f) n) with the largest rho, ties by row.
  entries_.clear();
  for (const std::uint32_t job : active_) entries_.push_back({quantise(estimated_rho(job, now)), 0, 0, job});
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return std::tie(b.priority, a.job) < std::tie(a.priority, b.job);
  });
  const auto visible = std::min(entries_.size(), static_cast<std::size_t>(std::max(
      1.0, std::ceil((1 - themis_fairness_) * static_cast<double>(entries_.size()) - 1e-9))));
  // Within the auction, the allocation that most raises the product of the jobs' rho gains is
  // approximated greedily: the largest rho per GPU asked first. Then the leftovers, work-
  // conserving: every other job by rho.
  for (std::size_t i = 0; i < visible; ++i) entries_[i].deficit = quantise(entries_[i].priority / jobs_[entries_[i].job].gpus);
  std::sort(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(visible), [](const Entry& a, const Entry& b) {
    return std::tie(b.deficit, b.priority, a.job) < std::tie(a.deficit, a.priority, b.job);
  });
  for (const Entry& e : entries_) {
    Job& j = jobs_[e.job];
    // Its fastest type with room; among equals the one it runs on, then V100, P100, K80 (or the
    // cluster's models from the last).
    std::int8_t chosen = kNone;
    double chosen_speed = 0;
    for (std::size_t k = 0; k < types; ++k) {
      const std::size_t t = types - 1 - k;
      const double v = speed(e.job, t);
      if (v <= 0 || j.gpus > free_[t]) continue;
      const bool better = v > chosen_speed || (v == chosen_speed && j.running == static_cast<std::int8_t>(t));
      if (chosen == kNone || better) {
        chosen = static_cast<std::int8_t>(t);
        chosen_speed = v;
      }
    }
    if (chosen == kNone) continue;
    free_[static_cast<std::size_t>(chosen)] -= j.gpus;
    j.planned = chosen;
  }
}

void TimeShareRounds::plan_shares(core::Time now) {
  const std::size_t types = types_.size();
  if (changed_) {
    lp_jobs_.resize(active_.size());
    for (std::size_t i = 0; i < active_.size(); ++i) {
      const std::uint32_t job = active_[i];
      sched::TimeShareJob& in = lp_jobs_[i];
      in.scale = jobs_[job].gpus;
      in.speed.resize(types);
      for (std::size_t t = 0; t < types; ++t) in.speed[t] = speed(job, t);
      in.elapsed_s = static_cast<double>((now - jobs_[job].arrival).micros()) / 1e6;
      in.remaining_s = remaining_s(job, now);
    }
    gpus_of_type_.resize(types);
    for (std::size_t t = 0; t < types; ++t) gpus_of_type_[t] = types_[t].gpus;
    const sched::TimeShareObjective objective = policy_ == sched::TimeSharePolicy::kMaxMin
                                                    ? sched::TimeShareObjective::kMaxMin
                                                    : sched::TimeShareObjective::kFinishTimeFair;
    lp_.solve(objective, aware_, lp_jobs_, gpus_of_type_, share_);
    changed_ = false;
  }
  // Types in turn: V100, P100, K80 (with a table), or the cluster's models in reverse order of
  // first appearance; in a fresh random order for policies blind to speed, as Gavel shuffles them.
  type_order_.resize(types);
  for (std::size_t t = 0; t < types; ++t) type_order_[t] = types - 1 - t;
  if (!aware_) rng_.shuffle(std::span<std::size_t>(type_order_));
  free_.assign(types, 0);
  for (std::size_t t = 0; t < types; ++t) free_[t] = types_[t].gpus;
  // First the shares: on each type, the jobs with a share there by priority. Then what is left:
  // jobs without a share on a type may use its idle GPUs, those already running there first (so a
  // spare GPU does not move a job every round).
  for (const bool leftovers : {false, true}) {
    for (const std::size_t t : type_order_) {
      entries_.clear();
      for (std::size_t i = 0; i < active_.size(); ++i) {
        const std::uint32_t job = active_[i];
        const Job& j = jobs_[job];
        if (j.planned != kNone || speed(job, t) <= 0) continue;
        const double x = share_[i * types + t];
        if ((x > 0) == leftovers) continue;
        // Its share of time on t against the share of its rounds it got there since it arrived.
        const double rounds = j.rounds;
        const double got = j.received[t];
        const double priority = leftovers ? (j.running == static_cast<std::int8_t>(t) ? 1 : 0)
                                : got == 0 ? std::numeric_limits<double>::infinity()
                                           : x * rounds / got;
        // Rounded to 1e-9, so that the solver's last-digit noise does not decide between jobs whose
        // shares are equal (the job's row does).
        entries_.push_back({quantise(priority), quantise(x * rounds - got), quantise(x), job});
      }
      std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return std::tie(b.priority, b.deficit, b.share, a.job) < std::tie(a.priority, a.deficit, a.share, b.job);
      });
      for (const Entry& e : entries_) {
        Job& j = jobs_[e.job];
        if (j.gpus > free_[t]) continue;
        free_[t] -= j.gpus;
        j.planned = static_cast<std::int8_t>(t);
      }
    }
  }
}

}  // namespace gpusim::k8s
