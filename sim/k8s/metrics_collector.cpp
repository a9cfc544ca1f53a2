#include "sim/k8s/metrics_collector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/metrics/sample_stats.hpp"

namespace gpusim::k8s {
namespace {

constexpr std::uint32_t kFragmentationTick = 1;  // tag 0: the end-of-instant allocation sample

using experiment::PodOutcome;

double percentile(std::vector<double> values, double q) { return metrics::percentile_in_place(values, q); }

double mean(const std::vector<double>& values) { return metrics::sample_mean(values); }

PodOutcome outcome_of(const PodObject& pod) {
  switch (pod.phase) {
    case PodPhase::kPending: return pod.reason == Reason::kUnschedulable ? PodOutcome::kUnschedulable : PodOutcome::kPending;
    case PodPhase::kDeleted: return PodOutcome::kWithdrawn;
    case PodPhase::kSucceeded: return PodOutcome::kCompleted;
    case PodPhase::kFailed: return pod.reason == Reason::kDeletedByOwner ? PodOutcome::kDeleted : PodOutcome::kFailed;
    case PodPhase::kBound:
    case PodPhase::kAdmitted:
    case PodPhase::kRunning: return PodOutcome::kHeldAtEnd;  // no event left to end it
  }
  return PodOutcome::kPending;
}

}  // namespace

MetricsCollector::MetricsCollector(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth,
                                   const traces::Workload& workload, const WorkloadTimes& times,
                                   const experiment::RunConfig& config, const KubeSettings& settings,
                                   const DeviceChooser& devices)
    : bus_(bus), api_(api), truth_(truth), workload_(workload), times_(times), config_(config), settings_(settings), devices_(devices) {
  ran_.reserve(workload.pods.size());
  gpu_offset_.push_back(0);
  for (cluster::NodeIndex n = 0; n < truth.node_count(); ++n) {
    gpu_offset_.push_back(gpu_offset_.back() + static_cast<std::size_t>(truth.node(n).gpu_count));
  }
  unhealthy_since_.assign(gpu_offset_.back(), -1);
  node_lost_at_.assign(truth.node_count(), core::Time::zero());
  node_down_.assign(truth.node_count(), 0);
  for (std::uint32_t n = 0; n < devices.node_count(); ++n) mig_nodes_ |= devices.setup(n).model == DevicePluginModel::kMig;
  if (config.fragmentation_every_s > 0 && !mig_nodes_) {
    // The pods as the scheduler sees them (fractions asked as one device, if so).
    typical_ = metrics::typical_pods(workload.pods);
    for (const core::Time t : times.arrival) last_arrival_ = std::max(last_arrival_, t);
    first_arrival_ = times.arrival.empty() ? core::Time::zero() : *std::min_element(times.arrival.begin(), times.arrival.end());
    bus_.set_timer(*this, kFragmentationTick, 0, core::Time::from_seconds(config.fragmentation_every_s), core::Phase::kMetrics);
  }
}

void MetricsCollector::sample_fragmentation(core::Time now) {
  double fragmented = 0;
  for (cluster::NodeIndex n = 0; n < truth_.node_count(); ++n) {
    if (truth_.node(n).gpu_count == 0) continue;
    fragmented += metrics::fragmentation_milli(typical_, {truth_.cpu_free(n), truth_.gpu_milli_free(n), truth_.node(n).gpu_model});
  }
  const auto idle = static_cast<double>(truth_.total_gpu_milli() - truth_.allocated_gpu_milli());
  fragmentation_.push_back({now.micros(), fragmented, idle});
  // On while pods may still arrive or run; a later tick would only see the emptied cluster.
  if (now < last_arrival_ || running_ > 0) {
    bus_.set_timer(*this, kFragmentationTick, 0, now + core::Time::from_seconds(config_.fragmentation_every_s),
                   core::Phase::kMetrics);
  }
}

void MetricsCollector::on_message(const Message& message, core::Time now) {
  if (message.topic != Topic::kCycleDone) last_event_ = now;  // a scheduling cycle changes nothing by itself
  switch (message.topic) {
    case Topic::kPodCreated:
      ++pending_;
      break;
    case Topic::kPodBound:
      if (api_.pod(message.pod).phase == PodPhase::kDeleted) break;  // a binding the API server refused
      --pending_;
      break;
    case Topic::kPodDeleted:
      // Only a pod still in the queue leaves it here (one refused at admission had left already).
      if (message.pod != kNoPod && api_.pod(message.pod).node < 0) --pending_;
      break;
    case Topic::kPodRunning:
      if (ran_.size() <= message.pod) ran_.resize(message.pod + 1, 0);
      ran_[message.pod] = 1;
      ++running_;
      break;
    case Topic::kContainerFailed:
      // restartPolicy OnFailure: a container killed by its GPU's fatal XID loses its work, though its
      // pod lives on (one that fails as it starts on a GPU still lost had none).
      if (message.reason == Reason::kGpuLost && message.value == 1) {
        ++gpu_lost_pods_;
        lost_gpu_seconds_ += message.gpus.size() * (now - api_.pod(message.pod).container_started).seconds();
      }
      break;
    case Topic::kPodTerminated: {
      const bool ran = message.pod < ran_.size() && ran_[message.pod];
      if (ran) --running_;
      if (message.reason == Reason::kUnexpectedAdmissionError) ++admission_failures_;
      if (message.reason == Reason::kGpuLost) {
        ++gpu_lost_pods_;
        if (ran) lost_gpu_seconds_ += message.gpus.size() * (now - api_.pod(message.pod).container_started).seconds();
      }
      if (message.reason == Reason::kEvicted || message.reason == Reason::kNodeLost ||
          message.reason == Reason::kNodeRemoved) {
        ++node_lost_pods_;
        evicted_ += message.reason == Reason::kEvicted;
        // Work done since it started is lost when the node went down (or now, if it was removed).
        const core::Time lost_at = node_lost_at_[message.node];
        const PodObject& pod = api_.pod(message.pod);
        if (ran && lost_at > pod.running) {
          node_lost_gpu_seconds_ += pods_at(pod.source).gpu_count * (lost_at - pod.running).seconds();
        }
      }
      break;
    }
    case Topic::kNodeLost:
      if (!node_down_[message.node]) node_lost_at_[message.node] = now;
      node_down_[message.node] = 1;
      break;
    case Topic::kNodeRemoved:
      // A node lost before its removal lost its pods' work when it went down.
      if (!node_down_[message.node]) node_lost_at_[message.node] = now;
      node_down_[message.node] = 1;
      break;
    case Topic::kNodeRecovered:
    case Topic::kNodeJoined:
      node_down_[message.node] = 0;
      break;
    case Topic::kPodAdmitted:
      dirty_ = true;
      if (sample_requested_at_ != now) {
        sample_requested_at_ = now;
        bus_.set_timer(*this, 0, 0, now, core::Phase::kMetrics);
      }
      if (message.gpus.size() >= 2) {
        if (const topology::Topology* topology = devices_.topology_of(message.node)) {
          ++placements_by_link_[static_cast<std::size_t>(topology->worst_link(message.gpus))];
        }
      }
      break;
    case Topic::kGpuEvent:
      gpu_event(message, now);
      break;
    case Topic::kGpusReleased:
      terminated_gpu_seconds_ += message.gpus.size() * (now - api_.pod(message.pod).ended).seconds();
      sample(now);
      break;
    case Topic::kCycleDone:
      sample(now);
      break;
    default:
      break;
  }
}

void MetricsCollector::gpu_event(const Message& message, core::Time now) {
  const auto xid = static_cast<int>(message.value);
  const auto listed = [](const std::vector<int>& xids, int x) { return std::find(xids.begin(), xids.end(), x) != xids.end(); };
  if (xid != 0 && listed(settings_.ignored_xids, xid)) return;
  message.gpus.for_each([&](int g) {
    std::int64_t& since = unhealthy_since_[gpu_offset_[message.node] + static_cast<std::size_t>(g)];
    if (xid == 0 && since >= 0) {
      unhealthy_gpu_seconds_ += static_cast<double>(now.micros() - since) / 1e6;
      since = -1;
    } else if (xid != 0 && since < 0) {
      ++gpu_failures_;
      since = now.micros();
    }
  });
}

// The allocation integral from time 0 to `end`: samples after the makespan's end (GPUs a 1.6 kubelet
// still held, pods killed before they ran) fall outside the mean. Summed sample by sample in time order
// from an allocation of 0 at time 0, as the samples were taken.
double MetricsCollector::integral_until(std::int64_t end) const {
  double integral = 0;
  std::int64_t allocated = 0, since = 0;
  bool any = false;
  for (const experiment::SeriesPoint& point : series_) {
    if (point.time_us > end) break;
    integral += static_cast<double>(allocated) * static_cast<double>(point.time_us - since);
    allocated = point.allocated_gpu_milli;
    since = point.time_us;
    any = true;
  }
  if (!any) return 0;
  return integral + static_cast<double>(allocated) * static_cast<double>(end - since);
}

// The samples up to the makespan's end: the mean share of idle GPU milli that the typical pods
// could not use (FGD's fragmentation rate, as fill mode reports it at its end) and the mean
// fragmented GPUs.
void MetricsCollector::fragmentation_metrics(experiment::RunResult& result, std::int64_t end_us) const {
  if (mig_nodes_) {
    for (const char* name : {"mean_fragmentation_pct", "mean_fragmented_gpus"}) {
      result.set_undefined(name, "FGD fragmentation is defined on GPU milli; MIG instances are devices of several sizes");
    }
    return;
  }
  double pct = 0, gpus = 0;
  std::size_t samples = 0;
  for (const FragmentationSample& f : fragmentation_) {
    if (f.time_us < first_arrival_.micros()) continue;  // before the makespan
    if (f.time_us > end_us) break;
    pct += f.idle_milli > 0 ? f.fragmented_milli * 100.0 / f.idle_milli : 0.0;
    gpus += f.fragmented_milli / cluster::kMilliPerGpu;
    ++samples;
  }
  result.set("fragmentation_samples", static_cast<double>(samples));
  if (samples == 0) {
    for (const char* name : {"mean_fragmentation_pct", "mean_fragmented_gpus"}) {
      result.set_undefined(name, "no fragmentation sample fell within the makespan");
    }
    return;
  }
  result.set("mean_fragmentation_pct", pct / static_cast<double>(samples));
  result.set("mean_fragmented_gpus", gpus / static_cast<double>(samples));
}

void MetricsCollector::on_timer(std::uint32_t tag, std::uint64_t, core::Time now) {
  if (tag == kFragmentationTick) {
    sample_fragmentation(now);
    return;
  }
  if (dirty_) sample(now);
}

void MetricsCollector::sample(core::Time now) {
  dirty_ = false;
  last_time_ = now;
  series_.push({now.micros(), 0, truth_.allocated_gpu_milli(), truth_.gpus_in_use(), running_, pending_});
}

experiment::RunResult MetricsCollector::finish(std::string policy, const Counts& counts,
                                               const std::function<std::vector<cluster::GpuSet>(PodId)>& containers) {
  experiment::RunResult result;
  result.policy = std::move(policy);
  result.config = config_;
  const std::size_t sources = workload_.pods.size();
  std::vector<experiment::PodRecord> records(sources);
  std::vector<double> jct, wait;
  std::int64_t first_arrival = INT64_MAX, last_end = INT64_MIN;
  double busy_gpu_seconds = 0, failed_gpu_seconds = 0;
  std::int64_t failed = 0, withdrawn = 0, deleted = 0, unscheduled = 0;
  // A row's arrival is its first pod's creation (replacements share the row; a Job's later pods
  // are created when earlier ones succeed), or its trace arrival if it was never created.
  for (std::uint32_t s = 0; s < sources; ++s) records[s].arrival_us = times_.arrival[s].micros();
  for (PodId id = 0; id < api_.pod_count(); ++id) {
    if (api_.pod(id).attempt == 0) records[api_.pod(id).source].arrival_us = api_.pod(id).created.micros();
  }
  for (PodId id = 0; id < api_.pod_count(); ++id) {
    const PodObject& pod = api_.pod(id);
    if (id >= ran_.size() || !ran_[id]) continue;
    experiment::PodRecord& record = records[pod.source];
    if (record.first_start_us < 0 || pod.running.micros() < record.first_start_us) record.first_start_us = pod.running.micros();
    if (pod.phase == PodPhase::kSucceeded || pod.phase == PodPhase::kFailed) record.run_us += (pod.ended - pod.running).micros();
  }
  for (std::uint32_t s = 0; s < sources; ++s) {
    const PodId latest = api_.latest(s);
    records[s].attempts = latest == kNoPod ? 0 : api_.pod(latest).attempt + 1;
    if (latest == kNoPod) continue;
    const PodObject& pod = api_.pod(latest);
    if (pod.node >= 0) records[s].bound_us = pod.bound.micros();
    if (pod.was_admitted) records[s].admitted_us = pod.admitted.micros();
    const Reason reason = pod.reason;
    if (reason != Reason::kSucceeded && reason != Reason::kNone) records[s].reason = to_string(reason);
    for (const cluster::GpuSet gpus : containers(latest)) records[s].container_gpus.push_back(gpus);
  }
  for (std::uint32_t s = 0; s < sources; ++s) {
    experiment::PodRecord& record = records[s];
    record.source_index = s;
    const cluster::PodSpec& spec = pods_at(s);
    if (spec.constraints != nullptr && cluster::asks_device_share(spec.constraints->gpu_resource)) {
      record.gpu_milli = spec.gpu_milli;
    }
    if (spec.gpu_demand_milli > 0 && spec.gpu_demand_milli != spec.gpu_milli) record.gpu_share_milli = spec.gpu_demand_milli;
    const PodId latest = api_.latest(s);
    if (latest == kNoPod) {
      // Deleted by its owner the instant it was created: it never entered the queue.
      record.outcome = PodOutcome::kWithdrawn;
      record.end_us = times_.deadline[s].micros();
      continue;
    }
    const PodObject& pod = api_.pod(latest);
    record.outcome = outcome_of(pod);
    const bool started = latest < ran_.size() && ran_[latest];
    const bool waiting = record.outcome == PodOutcome::kPending || record.outcome == PodOutcome::kUnschedulable;
    if (!waiting && record.outcome != PodOutcome::kWithdrawn) {
      // A pod refused at admission or killed before its containers ran has no start.
      if (started) record.start_us = pod.running.micros();
      record.node = pod.node;
      record.gpus = pod.gpus;
    }
    // Held at the end: no end (it never ended); its GPU time counts until the run's last event.
    if (!waiting && record.outcome != PodOutcome::kHeldAtEnd) record.end_us = pod.ended.micros();
    if (record.outcome == PodOutcome::kUnschedulable) record.reason = to_string(Reason::kUnschedulable);
  }
  // The run's end for pods still held: the last pod or node change seen (a timer that fires after
  // it and changes nothing, such as a finished Job's deadline, does not lengthen their hold).
  const std::int64_t run_end_us = last_event_.micros();
  std::int64_t held = 0, unschedulable_at_arrival = 0;
  double held_gpu_seconds = 0;
  for (experiment::PodRecord& record : records) {
    first_arrival = std::min(first_arrival, record.arrival_us);
    const bool ran = record.start_us >= 0 && (record.outcome == PodOutcome::kCompleted ||
                                              record.outcome == PodOutcome::kFailed || record.outcome == PodOutcome::kDeleted);
    // Every run of the row counts: a preempted, evicted, or failed and replaced pod's earlier runs
    // held GPUs too.
    std::int64_t run_us = record.run_us > 0 ? record.run_us : ran ? record.end_us - record.start_us : 0;
    const double gpus = static_cast<double>(workload_.pods[record.source_index].total_gpu_milli()) / 1000.0;
    if (record.outcome == PodOutcome::kHeldAtEnd) {
      // Its earlier runs (record.run_us) and the one still going at the end.
      ++held;
      const std::int64_t held_us = record.start_us >= 0 ? run_end_us - record.start_us : 0;
      run_us = record.run_us + held_us;
      held_gpu_seconds += gpus * static_cast<double>(held_us) / 1e6;
    }
    unschedulable_at_arrival += record.outcome == PodOutcome::kUnschedulable;
    const double gpu_seconds = gpus * static_cast<double>(run_us) / 1e6;
    busy_gpu_seconds += gpu_seconds;
    if (record.outcome == PodOutcome::kFailed) failed_gpu_seconds += gpu_seconds;
    if (ran) last_end = std::max(last_end, record.end_us);
    failed += record.outcome == PodOutcome::kFailed;
    withdrawn += record.outcome == PodOutcome::kWithdrawn;
    deleted += record.outcome == PodOutcome::kDeleted;
    unscheduled += record.outcome == PodOutcome::kPending;
    if (record.outcome == PodOutcome::kCompleted) {
      jct.push_back(static_cast<double>(record.end_us - record.arrival_us) / 1e6);
      // Queueing ends at the first start (a replaced pod's later waits show in its JCT).
      const std::int64_t first = record.first_start_us >= 0 ? record.first_start_us : record.start_us;
      wait.push_back(static_cast<double>(first - record.arrival_us) / 1e6);
    }
  }
  result.set("completed_pods", static_cast<double>(jct.size()));
  result.set("failed_pods", static_cast<double>(failed));
  result.set("withdrawn_pods", static_cast<double>(withdrawn));
  result.set("deleted_pods", static_cast<double>(deleted));
  result.set("unscheduled_pods", static_cast<double>(unscheduled));
  result.set("unschedulable_pods", static_cast<double>(unschedulable_at_arrival));
  result.set("held_at_end_pods", static_cast<double>(held));
  result.set("held_at_end_gpu_hours", held_gpu_seconds / 3600.0);
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
  if (any_ran) last_end_ = core::Time::from_micros(last_end);
  const double span_us = any_ran ? static_cast<double>(last_end - first_arrival) : 0.0;
  if (any_ran) result.set("makespan_s", span_us / 1e6);
  else result.set_undefined("makespan_s", "no pod ran");
  result.set("gpu_hours", busy_gpu_seconds / 3600.0);
  result.set("failed_gpu_hours", failed_gpu_seconds / 3600.0);
  if (truth_.total_gpu_milli() == 0) result.set_undefined("mean_gpu_allocation_pct", "the cluster has no GPUs");
  else if (!(span_us > 0)) result.set_undefined("mean_gpu_allocation_pct", "no pod ran for any time");
  else result.set("mean_gpu_allocation_pct", integral_until(last_end) * 100.0 / (span_us * static_cast<double>(truth_.total_gpu_milli())));
  kubernetes_metrics(result, counts, any_ran ? core::Time::from_micros(last_end) : last_time_);
  if (config_.fragmentation_every_s > 0) fragmentation_metrics(result, any_ran ? last_end : 0);
  if (config_.record_pods) result.pods = std::move(records);
  if (config_.record_series) result.series = std::move(series_);
  return result;
}

void MetricsCollector::kubernetes_metrics(experiment::RunResult& result, const Counts& counts, core::Time end) {
  result.set("scheduling_attempts", static_cast<double>(counts.scheduling_attempts));
  result.set("admission_failures", static_cast<double>(admission_failures_));
  result.set("pods_recreated", static_cast<double>(counts.pods_recreated));
  result.set("pods_given_up", static_cast<double>(counts.pods_given_up));
  if (!workload_.jobs.empty()) {
    result.set("jobs_succeeded", static_cast<double>(counts.jobs_succeeded));
    result.set("jobs_failed_backoff_limit", static_cast<double>(counts.jobs_failed[0]));
    result.set("jobs_failed_deadline", static_cast<double>(counts.jobs_failed[1]));
    result.set("jobs_failed_pod_failure_policy", static_cast<double>(counts.jobs_failed[2]));
    result.set("container_restarts", static_cast<double>(counts.container_restarts));
  }
  // Creation to Running, over pods that reached Running: time in the scheduling queue, from
  // binding to admission, waiting for a replacement after admission failures, and from admission
  // to the containers running. The parts add up to the whole.
  // Each row's parts are kept aside until it reaches Running, so that rows which never do (still
  // pending, given up) count in neither the whole nor its parts.
  struct Parts {
    core::Time first_created, last_failed;
    double queueing = 0, binding = 0, retries = 0;
    bool reached = false;
  };
  std::vector<Parts> parts(workload_.pods.size());
  double queueing = 0, binding = 0, retries = 0, start = 0, total = 0;
  std::int64_t started = 0;
  for (PodId id = 0; id < api_.pod_count(); ++id) {
    const PodObject& pod = api_.pod(id);
    Parts& row = parts[pod.source];
    if (row.reached) continue;
    if (pod.attempt == 0) row.first_created = pod.created;
    else row.retries += (pod.created - row.last_failed).seconds();
    if (pod.node >= 0) row.queueing += (pod.bound - pod.created).seconds();
    const bool ran = id < ran_.size() && ran_[id];
    if (!ran) {
      if (pod.node >= 0 && pod.phase == PodPhase::kFailed) {
        row.binding += (pod.ended - pod.bound).seconds();
        row.last_failed = pod.ended;
      }
      continue;
    }
    row.reached = true;
    ++started;
    queueing += row.queueing;
    binding += row.binding + (pod.admitted - pod.bound).seconds();
    retries += row.retries;
    start += (pod.running - pod.admitted).seconds();
    total += (pod.running - row.first_created).seconds();
  }
  const auto per_pod = [&](const char* name, double sum) {
    if (started == 0) result.set_undefined(name, "no pod reached Running");
    else result.set(name, sum / static_cast<double>(started));
  };
  per_pod("mean_time_to_running_s", total);
  per_pod("mean_ttr_queueing_s", queueing);
  per_pod("mean_ttr_binding_s", binding);
  per_pod("mean_ttr_admission_retries_s", retries);
  per_pod("mean_ttr_start_s", start);
  result.set("terminated_pod_gpu_hours", terminated_gpu_seconds_ / 3600.0);
  result.set("gpu_failures", static_cast<double>(gpu_failures_));
  result.set("pods_lost_to_gpu_failures", static_cast<double>(gpu_lost_pods_));
  result.set("gpu_hours_lost_to_failures", lost_gpu_seconds_ / 3600.0);
  result.set("pods_evicted", static_cast<double>(evicted_));
  result.set("pods_lost_to_node_failures", static_cast<double>(node_lost_pods_));
  result.set("gpu_hours_lost_to_node_failures", node_lost_gpu_seconds_ / 3600.0);
  double unhealthy = unhealthy_gpu_seconds_;
  for (const std::int64_t since : unhealthy_since_) {
    if (since >= 0 && end.micros() > since) unhealthy += static_cast<double>(end.micros() - since) / 1e6;
  }
  result.set("unhealthy_gpu_hours", unhealthy / 3600.0);
  std::int64_t multi = 0;
  for (const std::int64_t n : placements_by_link_) multi += n;
  result.set("multi_gpu_placements_with_topology", static_cast<double>(multi));
  for (std::size_t c = 0; c < placements_by_link_.size(); ++c) {
    result.set(std::string("placements_worst_link_") + topology::to_string(static_cast<topology::LinkClass>(c)),
               static_cast<double>(placements_by_link_[c]));
  }
  if (multi == 0) {
    result.set_undefined("cross_cpu_placement_pct", "no multi-GPU pod was placed on a node with a known topology");
  } else {
    result.set("cross_cpu_placement_pct", 100.0 * static_cast<double>(placements_by_link_[0]) / static_cast<double>(multi));
  }
}

// MIG nodes: their GPUs, the pods that finished on instances and how much slower they ran than
// alone on a whole GPU, and (memory model on) the pods that outgrew their instance's memory.
void MetricsCollector::add_mig_metrics(experiment::RunResult& result, const SharingReport& report) {
  result.set("mig_gpus", static_cast<double>(report.mig_gpus));
  const std::vector<double>& slow = report.mig_slowdowns;
  result.set("mig_pods_finished", static_cast<double>(slow.size()));
  if (slow.empty()) {
    for (const char* name : {"mig_mean_slowdown", "mig_p95_slowdown", "mig_max_slowdown"}) {
      result.set_undefined(name, "no pod finished on a MIG instance");
    }
  } else {
    result.set("mig_mean_slowdown", mean(slow));
    result.set("mig_p95_slowdown", percentile(slow, 0.95));
    result.set("mig_max_slowdown", *std::max_element(slow.begin(), slow.end()));
  }
  if (report.mig_span_s > 0) {
    result.set("mig_compute_allocated_pct", report.mig_slice_seconds * 100.0 / (7.0 * static_cast<double>(report.mig_gpus) * report.mig_span_s));
  } else {
    result.set_undefined("mig_compute_allocated_pct", "no time passed");
  }
  result.set("mig_reconfigurations", static_cast<double>(report.mig_reconfigurations));
  result.set("mig_reconfiguration_gpu_hours", report.mig_reconfiguration_gpu_s / 3600.0);
  if (report.memory_model && !report.any) {
    result.set("overrunning_pods", static_cast<double>(report.overrunning_pods));
    result.set("oom_kills", static_cast<double>(report.oom_kills));
    result.set("oom_neighbours_killed", static_cast<double>(report.oom_neighbours));
    result.set("oom_run_hours_lost", report.oom_run_hours_lost);
  }
}

void MetricsCollector::add_sharing_metrics(experiment::RunResult& result, const SharingReport& report) {
  if (report.mig_gpus > 0) add_mig_metrics(result, report);
  if (!report.any) return;
  const SharedProgress::Totals& t = report.totals;
  double gpu_s = 0;
  for (const double s : t.gpu_s_by_pods) gpu_s += s;
  result.set("shared_physical_gpus", static_cast<double>(report.physical_gpus));
  result.set("shared_busy_gpu_hours", t.busy_gpu_s / 3600.0);
  if (gpu_s > 0) result.set("shared_busy_pct", t.busy_gpu_s * 100.0 / gpu_s);
  else result.set_undefined("shared_busy_pct", "no time passed");
  // Physical GPUs holding at least one pod, as a share of the sharing GPUs' time (allocation
  // counts replicas, so it cannot be compared with whole GPUs).
  if (gpu_s > 0) result.set("shared_gpus_in_use_pct", (gpu_s - t.gpu_s_by_pods[0]) * 100.0 / gpu_s);
  else result.set_undefined("shared_gpus_in_use_pct", "no time passed");
  result.set("context_switch_gpu_hours", t.switch_gpu_s / 3600.0);
  for (int k = 0; k < SharedProgress::kCorunnerBuckets; ++k) {
    const std::string name = k + 1 == SharedProgress::kCorunnerBuckets ? fmt::format("shared_gpu_hours_{}plus_pods", k)
                                                                        : fmt::format("shared_gpu_hours_{}_pods", k);
    result.set(name, t.gpu_s_by_pods[static_cast<std::size_t>(k)] / 3600.0);
  }
  const std::vector<double>& slow = report.slowdowns;
  result.set("shared_pods_finished", static_cast<double>(slow.size()));
  result.set("shared_pods_with_corunners", static_cast<double>(report.pods_with_corunners));
  if (report.measured_pairs) {
    result.set("shared_pods_with_measured_pair", static_cast<double>(report.pods_with_measured_pair));
    result.set("shared_measured_pair_gpu_hours", t.measured_pair_gpu_s / 3600.0);
  }
  if (slow.empty()) {
    for (const char* name : {"mean_slowdown", "p95_slowdown", "max_slowdown"}) result.set_undefined(name, "no pod finished on a shared GPU");
  } else {
    result.set("mean_slowdown", mean(slow));
    result.set("p95_slowdown", percentile(slow, 0.95));
    result.set("max_slowdown", *std::max_element(slow.begin(), slow.end()));
  }
  result.set("multi_replica_refused", static_cast<double>(report.refused_multi_replica));
  result.set("multi_replica_split_across_gpus", static_cast<double>(report.split_across_gpus));
  result.set("multi_replica_on_one_gpu", static_cast<double>(report.stacked_on_one_gpu));
  if (report.memory_model) {
    result.set("overrunning_pods", static_cast<double>(report.overrunning_pods));
    result.set("oom_kills", static_cast<double>(report.oom_kills));
    result.set("oom_neighbours_killed", static_cast<double>(report.oom_neighbours));
    result.set("oom_run_hours_lost", report.oom_run_hours_lost);
  }
  result.set("sharing_time_slice_overhead", report.time_slice_overhead);
  result.set("sharing_stream_capacity", report.stream_capacity);
}

}  // namespace gpusim::k8s
