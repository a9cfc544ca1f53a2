#pragma once
// The reader of `kind: Pod` objects and of the pod spec a Job's template holds: containers
// (pod_containers.hpp) summed to the pod's effective request as Kubernetes does (init containers
// run one at a time before the others), its QoS class, its asks of a sharing device plugin,
// nodeSelector, affinity and tolerations (pod_placement.hpp), schedulerName, priority
// (priority_class_reader.hpp) and gpusim's time annotations (gpusim.io/arrival, gpusim.io/duration).
// Field rules: traces/README.md, "Workload (kind: Pod, kind: Job, kind: PriorityClass)".
#include <array>
#include <string_view>

#include "sim/cluster/pod.hpp"
#include "sim/cluster/pod_constraints.hpp"
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/k8s/priority_class_reader.hpp"
#include "traces/k8s/workload_builder.hpp"

namespace gpusim::traces::k8s {

// The gpusim annotations a Pod, a Job and a Job's pod template take.
inline constexpr std::array<std::string_view, 2> kPodAnnotations{"gpusim.io/arrival", "gpusim.io/duration"};

struct PodRead {
  cluster::PodSpec pod;  // without its name
  cluster::PodConstraints constraints;
};

// A pod spec (a Pod's, or a Job's template's) with its annotations (for a Job, the Job's
// overlaid by the template's); what it defaults or ignores is added to `tally`, once.
PodRead read_pod_spec(const Fields& spec, const Entries& annotations, const PriorityClasses& classes,
                      WorkloadTally& tally);

// One Pod object (its kind checked by the caller), added to the workload as an ownerless pod.
void read_pod(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder);

}  // namespace gpusim::traces::k8s
