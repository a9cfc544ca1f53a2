#pragma once
// A pod as the scheduler sees it: Kubernetes-style requests plus the gpu-milli sharing model
// (each GPU is 1000 milli; a pod asks for `gpu_count` GPUs with `gpu_milli` of each).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/pod_constraints.hpp"
#include "sim/core/time.hpp"

namespace gpusim::cluster {

inline constexpr std::int32_t kMilliPerGpu = 1000;

enum class Qos : std::uint8_t { kUnspecified, kLatencySensitive, kBestEffort, kBurstable, kGuaranteed };

// The pod's phase as the trace recorded it (openb's pod_phase). Replay gives each its own
// meaning (results/README.md): Running/Succeeded pods run their duration; Failed pods run until
// their deletion and count as failed; Pending pods were never scheduled in the trace, wait until
// their deletion at most, and if gpusim places them they run until their deletion.
enum class TracePhase : std::uint8_t { kUnknown, kRunning, kSucceeded, kFailed, kPending };

struct PodSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t gpu_count = 0;   // GPUs requested
  std::int32_t gpu_milli = 0;   // share of each requested GPU, 1..1000; 0 when gpu_count is 0
  // The share of each GPU it keeps busy when it runs alone (the speed model of shared GPUs);
  // 0: its gpu_milli. Differs when a fraction was turned into a request for a whole device.
  std::int32_t gpu_demand_milli = 0;
  // The fraction of a GPU it asked, kept where replay rewrote its gpu_milli (fractionalGpuRequests:
  // one-device turned it into a request for a whole device, HAMi's deviceMemoryScaling into a share
  // of the registered memory); 0: none, its gpu_milli is what it asked. Its memory use on
  // time-slicing, MPS and MIG mixed; the load-aware plugin's estimate of its use.
  std::int32_t asked_fraction_milli = 0;
  GpuModelSet allowed_models;   // empty = any model
  // The device resource it asks when nodes advertise several (MIG mixed: 1 + the instance shape
  // of nvidia.com/mig-<profile>); 0: the node's one GPU resource.
  std::uint8_t device_class = 0;
  Qos qos = Qos::kUnspecified;
  std::int32_t priority = 0;    // higher first; from QoS unless the trace says otherwise
  TracePhase phase = TracePhase::kUnknown;
  std::optional<core::Time> creation_time;
  std::optional<core::Time> deletion_time;
  // How long the pod runs once started (replay mode): deletion minus scheduled time in the
  // trace, or minus creation time for pods the trace never saw scheduled.
  std::optional<core::Time> duration;
  // Kubernetes detail (manifests): placement rules, containers, owner. Null for trace pods.
  std::shared_ptr<const PodConstraints> constraints;
  // A job whose GPUs span several nodes is several pods: those with the same nonzero `gang` are
  // one job, placed all at once or not at all (the scheduler's gang admission) and counted as one
  // job by the job metrics. 0: the pod is a job of its own.
  std::uint32_t gang = 0;
  // The queue (Philly's virtual cluster) it was submitted to: an index into Workload::queues.
  std::uint16_t queue = 0;
  // Its job type in Gavel's throughput table (traces/gavel_table.hpp), -1: none; and the table's
  // scale factor for its job (index into traces::kGavelScales). Set by perf::JobTypeSpeeds.
  std::int16_t job_type = -1;
  std::uint8_t job_scale = 0;
  // Its gang was made by --job-placement scattered from a job of one node's GPUs (traces/
  // job_placement.hpp): in the trace it ran consolidated, so its reference speed is consolidated.
  bool scattered = false;
  // Percent of one RDMA NIC's bandwidth it reserves (Alibaba's DLRM trace; nodes offer
  // NodeSpec::rdma_percent); 0: none.
  std::int32_t rdma_percent = 0;
  // The service it is an instance of (an index into Workload::apps; -1: none) and the most of that
  // service's instances one node may hold (the trace's max_instance_per_node; 0: no limit).
  std::int32_t app = -1;
  std::int32_t max_per_node = 0;

  std::int64_t total_gpu_milli() const { return std::int64_t{gpu_count} * gpu_milli; }
  // The share of GPUs it asked (thousandths of a GPU), as the trace gave it.
  std::int64_t asked_gpu_milli() const { return asked_fraction_milli > 0 ? asked_fraction_milli : total_gpu_milli(); }
  // The share of each of its GPUs it asked, as the trace gave it (1 for whole GPUs), whatever its
  // compute demand.
  double asked_share() const {
    return (asked_fraction_milli > 0 ? asked_fraction_milli : std::min(gpu_milli, kMilliPerGpu)) / double{kMilliPerGpu};
  }
  bool wants_gpu() const { return gpu_count > 0; }
  double gpu_demand() const { return (gpu_demand_milli > 0 ? gpu_demand_milli : gpu_milli) / double{kMilliPerGpu}; }
  // A fraction of one GPU (gpushare-style); such a pod lands on exactly one GPU.
  bool shares_gpu() const { return gpu_count == 1 && gpu_milli < kMilliPerGpu; }
};

const char* to_string(Qos qos);
const char* to_string(TracePhase phase);

}  // namespace gpusim::cluster
