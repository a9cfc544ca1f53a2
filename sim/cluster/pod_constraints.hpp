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
};
const char* to_string(GpuResource resource);

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
  std::string scheduler_name = "default-scheduler";
  std::string priority_class;                  // "" when none
  std::int32_t job = -1;                       // index into Workload::jobs, -1: a bare pod
};

struct Taint;
// Whether one of `tolerations` tolerates `taint` (Kubernetes' ToleratesTaint).
bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint);

// Whether a node with `labels` satisfies a term; Gt/Lt compare integers (a non-integer label
// value never matches, as in Kubernetes).
bool matches(const NodeSelectorTerm& term, const Labels& labels);
// nodeSelector and required node affinity together.
bool node_allowed(const PodConstraints& pod, const Labels& labels);

}  // namespace gpusim::cluster
