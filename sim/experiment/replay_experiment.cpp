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

enum EventKind : std::uint32_t { kArrive = 1, kFinish = 2, kCycle = 3 };

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
    for (std::uint32_t i = 0; i < pods.size(); ++i) {
      if (!pods[i].creation_time || !pods[i].duration) {
        throw core::InputError(fmt::format("{}: pod {} has no creation time or duration; replay needs both",
                                           inputs_.workload->source, pods[i].name));
      }
      const auto arrival = core::Time::from_micros(static_cast<std::int64_t>(
          std::floor(static_cast<double>(pods[i].creation_time->micros()) / config_.time_compression)));
      records_[i].source_index = i;
      records_[i].arrival_us = arrival.micros();
      simulation_.schedule(arrival, core::Phase::kArrival, kArrive, i);
    }
    simulation_.run(*this);
    cluster_.check_invariants();
    return finish();
  }

  void handle(const core::Event& event) override {
    const auto i = static_cast<std::uint32_t>(event.payload);
    switch (event.kind) {
      case kArrive:
        pending_.push_back(i);
        break;
      case kFinish: {
        PodRecord& record = records_[i];
        framework_.release(inputs_.workload->pods[i],
                           {static_cast<cluster::NodeIndex>(record.node), cluster::GpuSet{record.gpus}});
        count_pods(static_cast<cluster::NodeIndex>(record.node), cluster::GpuSet{record.gpus}, -1);
        record.end_us = event.time.micros();
        record.outcome = PodOutcome::kCompleted;
        --running_;
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
        simulation_.schedule(now + run_time(pod, *placement), core::Phase::kStateChange, kFinish, i);
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
  // by the time-slicing overhead of its busiest GPU, both fixed at start.
  core::Time run_time(const PodSpec& pod, const cluster::Placement& placement) const {
    if (inputs_.performance == nullptr || !pod.wants_gpu()) return *pod.duration;
    const cluster::GpuModelId model = inputs_.cluster->nodes[placement.node].gpu_model;
    int sharing = 1;
    for (int g = 0; g < 64; ++g) {
      if (placement.gpus.contains(g)) sharing = std::max(sharing, pods_on_gpu_[gpu_offset_[placement.node] + static_cast<std::size_t>(g)]);
    }
    const double factor = inputs_.performance->time_factor(inputs_.job, model) *
                          inputs_.performance->time_slice_factor(model, sharing);
    return core::Time::from_micros(static_cast<std::int64_t>(std::llround(static_cast<double>(pod.duration->micros()) * factor)));
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
    std::int64_t first_arrival = INT64_MAX, last_end = 0;
    double busy_gpu_seconds = 0;
    for (PodRecord& record : records_) {
      if (record.outcome == PodOutcome::kCompleted) {
        busy_gpu_seconds += static_cast<double>(inputs_.workload->pods[record.source_index].total_gpu_milli()) / 1000.0 *
                            static_cast<double>(record.end_us - record.start_us) / 1e6;
      }
      first_arrival = std::min(first_arrival, record.arrival_us);
      if (record.outcome == PodOutcome::kCompleted) {
        jct.push_back(static_cast<double>(record.end_us - record.arrival_us) / 1e6);
        wait.push_back(static_cast<double>(record.start_us - record.arrival_us) / 1e6);
        last_end = std::max(last_end, record.end_us);
      }
    }
    const auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (const double x : v) sum += x;
      return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
    };
    const double span_us = static_cast<double>(last_end - first_arrival);
    result.set("completed_pods", static_cast<double>(jct.size()));
    result.set("unscheduled_pods", static_cast<double>(pending_.size()));
    result.set("mean_jct_s", mean(jct));
    result.set("p50_jct_s", percentile(jct, 0.50));
    result.set("p95_jct_s", percentile(jct, 0.95));
    result.set("mean_queueing_delay_s", mean(wait));
    result.set("p95_queueing_delay_s", percentile(wait, 0.95));
    result.set("max_queueing_delay_s", wait.empty() ? 0.0 : *std::max_element(wait.begin(), wait.end()));
    result.set("makespan_s", span_us / 1e6);
    result.set("gpu_hours", busy_gpu_seconds / 3600.0);
    result.set("mean_gpu_allocation_pct",
               span_us > 0 ? allocation_integral_ * 100.0 / (span_us * static_cast<double>(cluster_.total_gpu_milli())) : 0.0);
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
