#include "sim/experiment/replay_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/cluster/cluster_state.hpp"
#include "sim/core/simulation.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/framework.hpp"

namespace gpusim::experiment {
namespace {

using cluster::PodSpec;

enum EventKind : std::uint32_t { kArrive = 1, kFinish = 2, kCycle = 3, kWithdraw = 4 };

// Simulated times stay below this, so that a time plus a duration never overflows int64.
constexpr double kMaxSimulatedMicros = 4e18;

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank on the sorted sample.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

class ReplayRun final : public core::EventHandler {
 public:
  ReplayRun(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config)
      : inputs_(inputs),
        config_(config),
        cluster_(*inputs.catalog, inputs.cluster->nodes),
        framework_(profile, *inputs.registry, inputs.plugin_context(config.seed), cluster_) {}

  RunResult run() {
    const auto& pods = inputs_.workload->pods;
    gpu_offset_.push_back(0);
    for (const auto& node : inputs_.cluster->nodes) gpu_offset_.push_back(gpu_offset_.back() + static_cast<std::size_t>(node.gpu_count));
    pods_on_gpu_.assign(gpu_offset_.back(), 0);
    if (!(config_.time_compression > 0)) throw core::InputError("time compression must be > 0");
    records_.resize(pods.size());
    pending_.reserve(pods.size());
    simulation_.reserve(pods.size() * 2);
    deadline_.assign(pods.size(), core::Time::zero());
    for (std::uint32_t i = 0; i < pods.size(); ++i) {
      if (!pods[i].creation_time || !pods[i].duration) {
        throw core::InputError(fmt::format("{}: pod {} has no creation time or duration; replay needs both",
                                           inputs_.workload->source, pods[i].name));
      }
      const double arrival_us = std::floor(static_cast<double>(pods[i].creation_time->micros()) / config_.time_compression);
      if (!(arrival_us <= kMaxSimulatedMicros)) {
        throw core::InputError(fmt::format("{}: pod {}: creation_time / --time-compression {} is out of range",
                                           inputs_.workload->source, pods[i].name, config_.time_compression));
      }
      const auto arrival = core::Time::from_micros(static_cast<std::int64_t>(arrival_us));
      records_[i].source_index = i;
      records_[i].arrival_us = arrival.micros();
      simulation_.schedule(arrival, core::Phase::kArrival, kArrive, i);
      if (pods[i].phase == cluster::TracePhase::kPending) {
        // Never scheduled in the trace: its owner deleted it after (deletion - creation) of
        // waiting; arrivals are compressed, waiting is not (as run times are not).
        deadline_[i] = arrival + (*pods[i].deletion_time - *pods[i].creation_time);
        simulation_.schedule(deadline_[i], core::Phase::kStateChange, kWithdraw, i);
      }
    }
    simulation_.run(*this);
    cluster_.check_invariants();
    return finish();
  }

  void handle(const core::Event& event) override {
    const auto i = static_cast<std::uint32_t>(event.payload);
    switch (event.kind) {
      case kArrive:
        if (records_[i].outcome == PodOutcome::kWithdrawn) return;  // deleted the instant it was created
        pending_.push_back(i);
        break;
      case kFinish: {
        PodRecord& record = records_[i];
        framework_.release(inputs_.workload->pods[i],
                           {static_cast<cluster::NodeIndex>(record.node), cluster::GpuSet{record.gpus}});
        count_pods(static_cast<cluster::NodeIndex>(record.node), cluster::GpuSet{record.gpus}, -1);
        record.end_us = event.time.micros();
        switch (inputs_.workload->pods[i].phase) {
          case cluster::TracePhase::kFailed: record.outcome = PodOutcome::kFailed; break;
          case cluster::TracePhase::kPending: record.outcome = PodOutcome::kDeleted; break;
          default: record.outcome = PodOutcome::kCompleted; break;
        }
        --running_;
        break;
      }
      case kWithdraw: {
        PodRecord& record = records_[i];
        if (record.outcome != PodOutcome::kPending) return;  // placed before its deadline
        if (const auto it = std::find(pending_.begin(), pending_.end(), i); it != pending_.end()) pending_.erase(it);
        record.outcome = PodOutcome::kWithdrawn;
        record.end_us = event.time.micros();
        break;
      }
      case kCycle:
        cycle_queued_ = false;
        schedule_pending(event.time);
        record_point(event.time);
        return;
      default:
        break;
    }
    // One cycle per timestamp, after every state change and arrival of that instant.
    if (!cycle_queued_) {
      simulation_.schedule(event.time, core::Phase::kSchedule, kCycle);
      cycle_queued_ = true;
    }
  }

 private:
  void schedule_pending(core::Time now) {
    const auto& pods = inputs_.workload->pods;
    const auto& sort = framework_.queue_sort();
    std::stable_sort(pending_.begin(), pending_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return sort.less(pods[a], pods[b]) || (!sort.less(pods[b], pods[a]) && a < b);
    });
    std::size_t kept = 0;
    // Within one cycle free resources only shrink, so a shape that failed once fails again:
    // later pods of that shape skip the (costly) filter pass.
    failed_shapes_.clear();
    for (const std::uint32_t i : pending_) {
      const PodSpec& pod = pods[i];
      const Shape shape{pod.cpu_milli, pod.memory_mib, pod.gpu_count, pod.gpu_milli, pod.allowed_models.bits};
      if (std::find(failed_shapes_.begin(), failed_shapes_.end(), shape) != failed_shapes_.end()) {
        pending_[kept++] = i;
        continue;
      }
      if (const auto placement = framework_.schedule(pod)) {
        PodRecord& record = records_[i];
        record.start_us = now.micros();
        record.node = static_cast<std::int32_t>(placement->node);
        record.gpus = placement->gpus.bits;
        record.outcome = PodOutcome::kScheduled;
        ++running_;
        count_pods(placement->node, placement->gpus, +1);
        const core::Time duration = run_time(i, now, *placement);
        // Starts and durations are each within range, but a long chain of them may not be.
        if (static_cast<double>(now.micros()) + static_cast<double>(duration.micros()) > kMaxSimulatedMicros) {
          throw core::InputError(fmt::format("{}: pod {} would end past the simulated time range ({} us)",
                                             inputs_.workload->source, pod.name, kMaxSimulatedMicros));
        }
        simulation_.schedule(now + duration, core::Phase::kStateChange, kFinish, i);
      } else {
        failed_shapes_.push_back(shape);
        pending_[kept++] = i;
      }
    }
    pending_.resize(kept);
  }

  void count_pods(cluster::NodeIndex node, cluster::GpuSet gpus, int delta) {
    for (int g = 0; g < 64; ++g) {
      if (gpus.contains(g)) pods_on_gpu_[gpu_offset_[node] + static_cast<std::size_t>(g)] += delta;
    }
  }

  // The trace duration, or with a performance model: scaled to the GPU the pod landed on and
  // by the time-slicing overhead of its busiest GPU, both fixed at start. A trace-Pending pod
  // runs until its owner deleted it (its deadline), whatever the GPU.
  core::Time run_time(std::uint32_t i, core::Time now, const cluster::Placement& placement) const {
    const PodSpec& pod = inputs_.workload->pods[i];
    if (pod.phase == cluster::TracePhase::kPending) return deadline_[i] - now;
    if (inputs_.performance == nullptr || !pod.wants_gpu()) return *pod.duration;
    const cluster::GpuModelId model = inputs_.cluster->nodes[placement.node].gpu_model;
    int sharing = 1;
    for (int g = 0; g < 64; ++g) {
      if (placement.gpus.contains(g)) sharing = std::max(sharing, pods_on_gpu_[gpu_offset_[placement.node] + static_cast<std::size_t>(g)]);
    }
    const double factor = inputs_.performance->time_factor(inputs_.job, model) *
                          inputs_.performance->time_slice_factor(model, sharing);
    const double scaled = std::round(static_cast<double>(pod.duration->micros()) * factor);
    if (!(scaled <= kMaxSimulatedMicros)) {
      throw core::InputError(fmt::format("pod {}: run time scaled by the performance model ({}x) is out of range", pod.name, factor));
    }
    return core::Time::from_micros(static_cast<std::int64_t>(scaled));
  }

  void record_point(core::Time now) {
    const std::int64_t allocated = cluster_.allocated_gpu_milli();
    // Integrate allocation over time for the mean.
    allocation_integral_ += static_cast<double>(last_allocated_) * static_cast<double>((now - last_time_).micros());
    last_allocated_ = allocated;
    last_time_ = now;
    if (config_.record_series) {
      series_.push_back({now.micros(), 0, allocated, cluster_.gpus_in_use(), running_,
                         static_cast<std::int64_t>(pending_.size())});
    }
  }

  RunResult finish() {
    RunResult result;
    result.policy = framework_.profile().name;
    result.config = config_;
    std::vector<double> jct, wait;
    std::int64_t first_arrival = INT64_MAX, last_end = INT64_MIN;
    double busy_gpu_seconds = 0, failed_gpu_seconds = 0;
    std::int64_t failed = 0, withdrawn = 0, deleted = 0;
    for (PodRecord& record : records_) {
      first_arrival = std::min(first_arrival, record.arrival_us);
      const bool ran = record.outcome == PodOutcome::kCompleted || record.outcome == PodOutcome::kFailed ||
                       record.outcome == PodOutcome::kDeleted;
      if (ran) {
        const double gpu_seconds = static_cast<double>(inputs_.workload->pods[record.source_index].total_gpu_milli()) /
                                   1000.0 * static_cast<double>(record.end_us - record.start_us) / 1e6;
        busy_gpu_seconds += gpu_seconds;
        if (record.outcome == PodOutcome::kFailed) failed_gpu_seconds += gpu_seconds;
        last_end = std::max(last_end, record.end_us);
      }
      failed += record.outcome == PodOutcome::kFailed;
      withdrawn += record.outcome == PodOutcome::kWithdrawn;
      deleted += record.outcome == PodOutcome::kDeleted;
      if (record.outcome == PodOutcome::kCompleted) {
        jct.push_back(static_cast<double>(record.end_us - record.arrival_us) / 1e6);
        wait.push_back(static_cast<double>(record.start_us - record.arrival_us) / 1e6);
      }
    }
    const auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (const double x : v) sum += x;
      return sum / static_cast<double>(v.size());
    };
    result.set("completed_pods", static_cast<double>(jct.size()));
    result.set("failed_pods", static_cast<double>(failed));
    result.set("withdrawn_pods", static_cast<double>(withdrawn));
    result.set("deleted_pods", static_cast<double>(deleted));
    result.set("unscheduled_pods", static_cast<double>(pending_.size()));
    // Undefined metrics are reported as such (null in summary.json), never as a made-up number.
    const auto set_over_completed = [&](const char* name, const std::vector<double>& values, double value) {
      if (values.empty()) result.set_undefined(name, "no pod completed");
      else result.set(name, value);
    };
    set_over_completed("mean_jct_s", jct, jct.empty() ? 0 : mean(jct));
    set_over_completed("p50_jct_s", jct, percentile(jct, 0.50));
    set_over_completed("p95_jct_s", jct, percentile(jct, 0.95));
    set_over_completed("mean_queueing_delay_s", wait, wait.empty() ? 0 : mean(wait));
    set_over_completed("p95_queueing_delay_s", wait, percentile(wait, 0.95));
    set_over_completed("max_queueing_delay_s", wait, wait.empty() ? 0 : *std::max_element(wait.begin(), wait.end()));
    const bool any_ran = last_end != INT64_MIN;
    const double span_us = any_ran ? static_cast<double>(last_end - first_arrival) : 0.0;
    if (any_ran) result.set("makespan_s", span_us / 1e6);
    else result.set_undefined("makespan_s", "no pod ran");
    result.set("gpu_hours", busy_gpu_seconds / 3600.0);
    result.set("failed_gpu_hours", failed_gpu_seconds / 3600.0);
    if (cluster_.total_gpu_milli() == 0) result.set_undefined("mean_gpu_allocation_pct", "the cluster has no GPUs");
    else if (!(span_us > 0)) result.set_undefined("mean_gpu_allocation_pct", "no pod ran for any time");
    else result.set("mean_gpu_allocation_pct", allocation_integral_ * 100.0 / (span_us * static_cast<double>(cluster_.total_gpu_milli())));
    if (config_.record_pods) result.pods = std::move(records_);
    result.series = std::move(series_);
    return result;
  }

  const RunInputs& inputs_;
  RunConfig config_;
  cluster::ClusterState cluster_;
  sched::Framework framework_;
  core::Simulation simulation_;
  std::vector<PodRecord> records_;
  std::vector<std::uint32_t> pending_;
  std::vector<core::Time> deadline_;  // trace-Pending pods: when their owner deleted them
  struct Shape {
    std::int64_t cpu, memory;
    std::int32_t gpus, milli;
    std::uint64_t models;
    bool operator==(const Shape&) const = default;
  };
  std::vector<Shape> failed_shapes_;
  std::vector<std::size_t> gpu_offset_;  // first global GPU index of each node
  std::vector<int> pods_on_gpu_;         // pods running on each GPU
  std::vector<SeriesPoint> series_;
  bool cycle_queued_ = false;
  std::int64_t running_ = 0;
  std::int64_t last_allocated_ = 0;
  core::Time last_time_ = core::Time::zero();
  double allocation_integral_ = 0;
};

}  // namespace

RunResult run_replay(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config) {
  ReplayRun run(inputs, profile, config);
  return run.run();
}

}  // namespace gpusim::experiment
