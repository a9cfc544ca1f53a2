// LoadAwareScheduling (Koordinator, koordinator-sh/koordinator at a7a1b76b,
// pkg/scheduler/plugins/loadaware), on the GPU usage koordlet reports (sim/k8s/koordlet.hpp):
// a filter that rejects nodes whose estimated usage passes a threshold, a score that prefers the
// least used, and the pod-assign cache (Reserve adds a pod, its release removes it) that estimates
// the pods the last report does not show yet. As Koordinator:
// - Filter: every threshold 0: pass. No report for the node: pass. filterExpiredNodeMetrics and
//   a report at least nodeMetricExpirationSeconds old: fail "node(s) nodeMetric expired", or pass
//   with enableScheduleWhenNodeMetricsExpired. Else, per resource with a threshold, usage =
//   round(estimated / capacity x 100); the node fails when usage > threshold.
// - Score: 0 with no report or an expired one; else per resource (capacity - used) x 100 /
//   capacity (0 when used > capacity), weighted mean with the dominant (lowest) score's weight,
//   integer division throughout. No normalisation.
// - Estimated = reported node usage + for each pod assigned to the node, the part of its estimate
//   the report does not show (max(0, estimate - its reported usage)) when the report does not
//   list it, or it was assigned less than one report interval before the report, or
//   estimatedSecondsAfterPodScheduled has not passed at the report + the incoming pod's estimate.
// - A pod's estimate: its asked GPU share x estimatedScalingFactors / 100, rounded (Koordinator's
//   DefaultEstimator on the pod's request; a trace pod's GPU share stands for its
//   koordinator.sh/gpu-core and gpu-memory-ratio requests); a pod asking no GPU: 0.
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "policies/builtin_parts.hpp"
#include "policies/score/load_aware_args.hpp"

namespace gpusim::policy {
namespace {

using sched::Status;
using Usage = std::array<std::int64_t, kUsageResources>;

constexpr const char* kExceeds[kUsageResources] = {"node(s) koordinator.sh/gpu-core usage exceed threshold",
                                                   "node(s) koordinator.sh/gpu-memory-ratio usage exceed threshold"};

class LoadAware final : public sched::FilterPlugin, public sched::ScorePlugin, public sched::ReservePlugin {
 public:
  LoadAware(const LoadAwareArgs& args, const sched::PluginContext& context)
      : args_(args),
        metrics_(context.node_metrics),
        workload_(context.workload),
        assigned_(context.node_count),
        unreported_(context.node_count) {}

  std::string_view name() const override { return "load-aware"; }

  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState&, sched::CycleState&) const override {
    if (std::all_of(std::begin(args_.usage_thresholds), std::end(args_.usage_thresholds), [](std::int64_t t) { return t == 0; })) {
      return Status::ok();
    }
    if (metrics_ == nullptr || !metrics_->of(n).reported) return Status::ok();
    if (args_.filter_expired_node_metrics && expired(n)) {
      return args_.enable_schedule_when_node_metrics_expired ? Status::ok()
                                                             : Status::unschedulable("node(s) nodeMetric expired", "load-aware");
    }
    const Usage used = estimated(pod, n);
    const std::int64_t capacity = metrics_->of(n).capacity_milli;
    if (capacity <= 0) return Status::ok();
    for (std::size_t r = 0; r < kUsageResources; ++r) {
      if (args_.usage_thresholds[r] == 0) continue;
      // As Koordinator: int64(math.Round(used / capacity * 100)) in doubles (std::round rounds
      // halves away from zero, as Go's math.Round; the division's rounding decides exact halves).
      const auto percent = static_cast<std::int64_t>(std::round(static_cast<double>(used[r]) / static_cast<double>(capacity) * 100));
      if (percent > args_.usage_thresholds[r]) return Status::unschedulable(kExceeds[r], "load-aware");
    }
    return Status::ok();
  }

  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState&, sched::CycleState&) override {
    if (metrics_ == nullptr || !metrics_->of(n).reported || expired(n)) return 0;
    std::int64_t weights = args_.dominant_resource_weight;
    for (const std::int64_t w : args_.resource_weights) weights += w;
    if (weights == 0) return 0;
    const Usage used = estimated(pod, n);
    const std::int64_t capacity = metrics_->of(n).capacity_milli;
    std::int64_t total = 0;
    std::int64_t lowest = sched::kMaxNodeScore;
    for (std::size_t r = 0; r < kUsageResources; ++r) {
      const std::int64_t s = capacity <= 0 || used[r] > capacity ? 0 : (capacity - used[r]) * sched::kMaxNodeScore / capacity;
      total += s * args_.resource_weights[r];
      lowest = std::min(lowest, s);
    }
    return (total + lowest * args_.dominant_resource_weight) / weights;
  }

  Status reserve(const sched::PodSpec& pod, const cluster::Placement& placement) override {
    if (!pod.wants_gpu()) return Status::ok();
    const std::uint32_t row = row_of(pod);
    if (row == kNoRow) return Status::ok();  // not a pod of the workload: nothing to match its release with
    assigned_[placement.node].push_back({row, metrics_ != nullptr ? metrics_->now() : core::Time::zero(), estimate(pod)});
    unreported_[placement.node].valid = false;
    return Status::ok();
  }
  void unreserve(const sched::PodSpec& pod, const cluster::Placement& placement) override {
    if (!pod.wants_gpu()) return;
    auto& list = assigned_[placement.node];
    const std::uint32_t row = row_of(pod);
    if (row == kNoRow) return;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i].row == row) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        unreported_[placement.node].valid = false;
        return;
      }
    }
  }

 private:
  static constexpr std::uint32_t kNoRow = UINT32_MAX;
  struct Assigned {
    std::uint32_t row;  // its trace row
    core::Time at;      // when it was assigned (its PodScheduled time)
    Usage estimate;
  };

  // The pod's trace row: Koordinator keys its cache by pod UID. The scheduler hands Reserve the
  // row's own spec, or a copy it narrowed (Gavel's rounds, Kueue's flavors), which keeps its name.
  std::uint32_t row_of(const sched::PodSpec& pod) const {
    const std::less<const sched::PodSpec*> before;
    if (!workload_.empty() && !before(&pod, workload_.data()) && before(&pod, workload_.data() + workload_.size())) {
      return static_cast<std::uint32_t>(&pod - workload_.data());
    }
    if (rows_by_name_.empty()) {
      for (std::uint32_t row = 0; row < workload_.size(); ++row) rows_by_name_.emplace(workload_[row].name, row);
    }
    const auto it = rows_by_name_.find(pod.name);
    return it == rows_by_name_.end() ? kNoRow : it->second;
  }

  bool expired(sched::NodeIndex n) const {
    return metrics_->now() - metrics_->update_time(n) >= core::Time::from_seconds(args_.node_metric_expiration_seconds);
  }

  Usage estimate(const sched::PodSpec& pod) const {
    Usage out{};
    const std::int64_t asked = pod.wants_gpu() ? pod.asked_gpu_milli() : 0;
    for (std::size_t r = 0; r < kUsageResources; ++r) {
      out[r] = static_cast<std::int64_t>(std::round(static_cast<double>(asked * args_.estimated_scaling_factors[r]) / 100.0));
    }
    return out;
  }

  // Reported usage, the assigned pods the report does not show yet, and the pod's estimate.
  Usage estimated(const sched::PodSpec& pod, sched::NodeIndex n) const {
    const cluster::NodeMetric& metric = metrics_->of(n);
    Usage used = estimate(pod);
    const Usage& unseen = unreported(n);
    used[0] += metric.gpu_core_milli + unseen[0];
    used[1] += metric.gpu_memory_milli + unseen[1];
    return used;
  }

  // The part of the assigned pods' estimates node n's report does not show. It changes only with
  // the report (its update time) and the assigned pods, so it is kept per node until either does:
  // filter and score ask for it for every pod and node.
  const Usage& unreported(sched::NodeIndex n) const {
    const cluster::NodeMetric& metric = metrics_->of(n);
    const core::Time updated = metrics_->update_time(n);
    Unreported& cached = unreported_[n];
    if (cached.valid && cached.updated == updated) return cached.usage;
    cached = {true, updated, {}};
    for (const Assigned& a : assigned_[n]) {
      const cluster::PodUsage* usage = metric.pod(a.row);
      const bool in_window = updated - metric.report_interval < a.at;
      const bool before_deadline = args_.estimated_seconds_after_pod_scheduled &&
                                   a.at + core::Time::from_seconds(*args_.estimated_seconds_after_pod_scheduled) > updated;
      if (usage != nullptr && !in_window && !before_deadline) continue;
      cached.usage[0] += std::max<std::int64_t>(0, a.estimate[0] - (usage != nullptr ? usage->gpu_core_milli : 0));
      cached.usage[1] += std::max<std::int64_t>(0, a.estimate[1] - (usage != nullptr ? usage->gpu_memory_milli : 0));
    }
    return cached.usage;
  }

  LoadAwareArgs args_;
  const cluster::NodeMetrics* metrics_;
  std::span<const cluster::PodSpec> workload_;
  // Trace rows by pod name, built on the first copy Reserve sees (names are unique in a workload).
  mutable std::unordered_map<std::string, std::uint32_t> rows_by_name_;
  std::vector<std::vector<Assigned>> assigned_;  // per node, in assignment order
  struct Unreported {
    bool valid = false;
    core::Time updated = core::Time::zero();
    Usage usage{};
  };
  mutable std::vector<Unreported> unreported_;  // per node: unreported(), until its inputs change
};

}  // namespace

void register_load_aware(sched::Registry& registry) {
  registry.add(
      "load-aware",
      [](const sched::PluginContext& context) {
        const auto* args = dynamic_cast<const LoadAwareArgs*>(context.args);
        return std::make_unique<LoadAware>(args != nullptr ? *args : LoadAwareArgs{}, context);
      },
      read_load_aware_args);
  registry.add_alias("LoadAwareScheduling", "load-aware");
}

}  // namespace gpusim::policy
