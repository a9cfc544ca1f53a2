#pragma once
// What a Kubernetes pod says beyond its total requests: where it may run (nodeSelector, required
// nodeAffinity, tolerations), how its GPUs split over containers, which scheduler and priority
// class it names, and which Job owns it. Pods from openb traces have none (a null pointer in
// PodSpec), so fill runs pay nothing for it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpusim::cluster {

using Labels = std::vector<std::pair<std::string, std::string>>;

// The GPU resource a pod asks or a node's device plugin advertises.
enum class GpuResource : std::uint8_t {
  kAny,             // a trace pod that names none: any GPU node may serve it
  kNvidiaGpu,       // nvidia.com/gpu (device plugins, 1.10+)
  kAlphaNvidiaGpu,  // alpha.kubernetes.io/nvidia-gpu (1.3 kubelet flag, 1.6 Accelerators gate)
  kNvidiaGpuShared, // nvidia.com/gpu.shared (NVIDIA's plugin sharing GPUs with renameByDefault)
  kHamiVgpu,        // nvidia.com/gpu with nvidia.com/gpumem, -percentage or gpucores (HAMi's vGPUs)
  kAliyunGpuMem,    // aliyun.com/gpu-mem, GiB of one GPU (gpushare)
  kMigProfile,      // nvidia.com/mig-<profile> (NVIDIA's plugin, MIG strategy mixed)
  kVgpuType,        // nvidia.com/NVIDIA_<type> (KubeVirt's GPU device plugin: one resource per vGPU type)
};
const char* to_string(GpuResource resource);
// Whether a node advertising `node` serves a pod asking `pod`. HAMi nodes advertise nvidia.com/gpu
// and take plain GPU pods too; gpusim lets MIG mixed nodes take nvidia.com/gpu pods as the
// smallest profile that covers them (sim/k8s/README.md, "MIG").
bool serves(GpuResource node, GpuResource pod);
// Whether a pod asking `r` names a sharing plugin's own resource: replay sets its share of a GPU
// from the nodes (sim/experiment/device_shares.hpp).
inline bool asks_device_share(GpuResource r) {
  return r == GpuResource::kHamiVgpu || r == GpuResource::kAliyunGpuMem || r == GpuResource::kMigProfile;
}

// What a HAMi pod asks of each of its vGPUs (HAMi's GenerateResourceRequests, with its defaults:
// no memory asked is 100 % of it; no memory and no cores asked is 100 % cores too).
struct HamiAsk {
  std::int64_t memory_mib = 0;      // nvidia.com/gpumem; 0: memory_percent of the registered memory
  std::int32_t memory_percent = 100;  // nvidia.com/gpumem-percentage
  std::int32_t cores_percent = 0;   // nvidia.com/gpucores; 0: no share of compute reserved or capped
};

enum class SelectorOperator : std::uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;  // Gt and Lt: one integer
};

// nodeSelectorTerms: a node matches a term when every requirement holds.
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
};

struct Toleration {
  std::string key;       // empty with operator Exists: tolerates every taint
  bool exists = false;   // operator Exists (else Equal)
  std::string value;
  std::string effect;    // empty: every effect
  std::optional<std::int64_t> toleration_seconds;  // NoExecute only
};

struct Container {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t gpus = 0;  // whole GPUs of the pod's GPU resource
};

struct PodConstraints {
  Labels node_selector;                        // every label must be on the node
  std::vector<NodeSelectorTerm> required_terms;  // requiredDuringScheduling...: any term (none: no rule)
  std::vector<Toleration> tolerations;
  std::vector<Container> containers;           // in order; their GPUs are distinct devices
  std::vector<Container> init_containers;      // run one at a time before the containers
  GpuResource gpu_resource = GpuResource::kAny;
  HamiAsk hami;                                // kHamiVgpu: the same for each of its vGPUs
  std::int64_t gpu_memory_gib = 0;             // kAliyunGpuMem: the pod's sum, on one GPU
  std::string mig_profile;                     // kMigProfile: e.g. "1g.10gb"
  std::string vgpu_resource;                   // kVgpuType: the name after nvidia.com/, e.g. "NVIDIA_A10-12Q"
  std::string scheduler_name = "default-scheduler";
  std::string priority_class;                  // "" when none
  std::int32_t job = -1;                       // index into Workload::jobs, -1: no Job
  // A bare `kind: Pod` object: no controller owns it, so nothing recreates it when it fails.
  // Trace rows (openb, Philly, DLRM, native) keep an implicit owner that replaces them.
  bool ownerless = false;
  // Its Job's template says restartPolicy OnFailure: the kubelet restarts a container that failed
  // (OOM-killed, its GPU lost) in place, in the same pod, after its crash-loop back-off.
  bool restart_on_failure = false;
  // Its Job was created with spec.suspend: true: it waits until a controller resumes it (Kueue, when
  // it admits the Job's Workload).
  bool suspended = false;
  // Its object's kueue.x-k8s.io/priority-class label: the Kueue WorkloadPriorityClass that sets its
  // Workload's priority (not the pod's); "" when none. The line is the label's, for messages.
  std::string workload_priority_class;
  int workload_priority_class_line = 0;
  // Its KAI annotation gpu-fraction, in thousandths of one GPU (0: none): the KAI Scheduler gives the
  // pod that share of one GPU, which other pods share (gpu_count 1, gpu_milli the share; any policy
  // but kai refuses it). The line is the annotation's, for messages.
  std::int32_t kai_gpu_fraction_milli = 0;
  int kai_gpu_fraction_line = 0;
};

struct Taint;
// Whether one of `tolerations` tolerates `taint` (Kubernetes' ToleratesTaint).
bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint);
bool tolerates(const Toleration& toleration, const Taint& taint);

// Whether a node with `labels` satisfies a term; Gt/Lt compare integers (a non-integer label
// value never matches, as in Kubernetes).
bool matches(const NodeSelectorTerm& term, const Labels& labels);
// nodeSelector and required node affinity together.
bool node_allowed(const PodConstraints& pod, const Labels& labels);

}  // namespace gpusim::cluster
