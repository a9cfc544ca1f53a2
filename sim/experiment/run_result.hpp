#pragma once
// The outcome of one run: named scalar metrics (in a fixed order), per-pod records, a time
// series and, in fill mode, the allocation curve against arrived load.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/gpu_set.hpp"
#include "sim/experiment/reason_text.hpp"
#include "sim/experiment/run_config.hpp"
#include "sim/experiment/series_log.hpp"
#include "sim/k8s/queue_series.hpp"

namespace gpusim::experiment {

// fill: scheduled, or failed (fit nowhere, dropped). replay: completed (ran its duration), failed
// (a trace-Failed pod, ran until its failure), withdrawn (a trace-Pending pod still waiting at its
// deletion), deleted (a trace-Pending pod gpusim placed; it ran until its deletion), pending
// (still waiting when no event is left), held-at-end (bound, admitted or running when no event is
// left: its node was lost for good, say) or unschedulable (no node could ever take it: larger than
// any node; it never entered the queue).
enum class PodOutcome : std::uint8_t { kScheduled, kFailed, kPending, kCompleted, kWithdrawn, kDeleted, kHeldAtEnd, kUnschedulable };
const char* to_string(PodOutcome outcome);

struct PodRecord {
  std::uint32_t source_index = 0;  // row of the workload it came from
  std::uint32_t clone = 0;         // 0: the original; k: the k-th copy added to reach the load
  std::int64_t arrival_us = 0;
  std::int64_t start_us = -1;
  std::int64_t end_us = -1;
  std::int32_t node = -1;
  cluster::GpuSet gpus;            // its GPU (device) indices
  PodOutcome outcome = PodOutcome::kPending;
  // Replay: pod objects created for the row (its owner's replacements included), why the last
  // one ended when not by itself ("" otherwise), and each container's GPUs (pods with container
  // detail only).
  std::uint32_t attempts = 1;
  std::int64_t bound_us = -1;     // the last pod's binding and admission (replay)
  // Replay: the first start of any of the row's pod objects (start_us is the last one's), and the
  // run time of all of them (they differ when pods were preempted, evicted or failed and replaced).
  std::int64_t first_start_us = -1;
  std::int64_t run_us = 0;
  std::int64_t admitted_us = -1;
  // Replay: why the last pod object ended when not by itself. A pod that never ran (fill: failed;
  // replay: pending or unschedulable at the end): why, as kube-scheduler's FitError or gpusim's
  // words for another wait (sim/experiment/never_ran.hpp). "" otherwise.
  ReasonText reason;
  std::vector<cluster::GpuSet> container_gpus;
  // The share of each GPU replay gave a pod that asked a sharing plugin's own resource (gpumem,
  // aliyun.com/gpu-mem, a MIG profile: 1000 per instance); -1: the workload's gpu_milli.
  std::int32_t gpu_milli = -1;
  // The share of each physical GPU it holds or runs at where that differs from gpu_milli: a
  // fraction on a time-slicing or MPS replica (its demand), a MIG instance (the instance's share
  // of the SMs), HAMi's gpucores; -1: gpu_milli.
  std::int32_t gpu_share_milli = -1;
};

// Replay: a run of a row's pod object before its last one (preempted, evicted, or failed and
// replaced): where and from when to when its containers ran (end -1: never ended).
struct EarlierRun {
  std::uint32_t row = 0;
  std::int32_t node = -1;
  cluster::GpuSet gpus;
  std::int64_t start_us = 0;
  std::int64_t end_us = -1;
};

// How a replay's node advertises its GPUs: its device-plugin model and the devices each physical
// GPU is (time-slicing and MPS replicas, MIG instance slots); device d is on GPU d / per_gpu.
struct NodeDevices {
  const char* plugin = "";
  std::int32_t per_gpu = 1;
};

// Fill mode: mean GPU allocation (%) over the arrivals whose arrived load rounds to `load_pct`.
struct CurvePoint {
  int load_pct = 0;
  double allocation_pct = 0;
};

// One job's outcome (jobs.csv).
struct JobRecord {
  std::uint32_t first_pod = 0;  // the row of its first pod in the workload
  std::int32_t pods = 1;
  std::int32_t gpus = 0;
  std::uint16_t queue = 0;
  std::int64_t arrival_us = 0;
  std::int64_t start_us = -1;  // its first pod's start (gang pods start together)
  std::int64_t end_us = -1;    // its last pod's end, if all completed
  std::int64_t run_us = 0;     // its run time in the trace
  std::int64_t run_gpu_us = 0;  // GPUs x the time its pods ran, every run counted
  bool completed = false;
};

// One queue's figures (queues.csv), over its completed jobs.
struct QueueSummary {
  std::string name;
  std::int64_t jobs = 0;
  std::int64_t completed = 0;
  double gpu_hours = 0;
  double mean_jct_s = 0;
  double p95_jct_s = 0;
  double mean_queueing_s = 0;
  double mean_slowdown = 0;
};

// Pods that never ran, by reason: the reason as pods.csv gives it, what summary.json's
// never_ran_by_reason counts it under (a FitError's reasons without node counts), and how many.
struct NeverRan {
  std::string reason;
  std::vector<std::string> causes;
  std::int64_t pods = 0;
};

struct RunResult {
  std::string policy;
  RunConfig config;
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<PodRecord> pods;
  SeriesLog series;
  std::vector<CurvePoint> curve;
  // Traces of jobs with queues or gangs (Philly): one record per job and a table per queue
  // (sim/experiment/job_metrics.hpp); empty otherwise.
  std::vector<JobRecord> jobs;
  std::vector<QueueSummary> queues;
  // Replay: the runs pods.csv's one row per pod cannot show (earlier-runs.csv), by row, then start.
  std::vector<EarlierRun> earlier_runs;
  // Replay: one entry per node (nodes.csv); empty in fill mode (one device per GPU, no plugin).
  std::vector<NodeDevices> node_devices;
  std::vector<NeverRan> never_ran;  // sorted by reason (bytes)
  // Replay under a policy with queues of its own (Kueue, KAI): their series (queue-series.csv).
  k8s::QueueSeries queue_series;
  // Metrics this run cannot define (NaN in `metrics`, null in summary.json), with the reason.
  std::vector<std::pair<std::string, std::string>> undefined;

  // Not inlined: inlined into a caller whose headers were precompiled, GCC 12 reports memcpy bounds
  // a moved name cannot have (-Warray-bounds, -Wstringop-overread; GCC bug 105329's kind).
  [[gnu::noinline]] void set(std::string name, double value) { metrics.emplace_back(std::move(name), value); }
  [[gnu::noinline]] void set_undefined(std::string name, std::string reason) {
    undefined.emplace_back(name, std::move(reason));
    metrics.emplace_back(std::move(name), std::numeric_limits<double>::quiet_NaN());
  }
  std::optional<double> metric(const std::string& name) const {
    for (const auto& [key, value] : metrics) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
};

}  // namespace gpusim::experiment
