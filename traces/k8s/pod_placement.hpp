#pragma once
// Where a pod may run: required node affinity (spec.affinity.nodeAffinity's
// requiredDuringSchedulingIgnoredDuringExecution, or Kubernetes 1.6's annotation
// scheduler.alpha.kubernetes.io/affinity holding the same shape as JSON) and tolerations, with
// the API server's value rules (kubernetes/kubernetes pkg/apis/core/validation/validation.go:
// ValidateNodeSelectorRequirement, the tolerations' checks). What is read but not modelled
// (preferred terms, pod affinity) is tallied for a note. Rules: traces/README.md, "Kubernetes
// manifests".
#include <optional>
#include <vector>

#include "sim/cluster/pod_constraints.hpp"
#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

inline constexpr const char* kAlphaAffinity = "scheduler.alpha.kubernetes.io/affinity";

// What a pod's affinity asks that gpusim does not model.
struct AffinityFacts {
  bool preferred = false;
  bool pod_affinity = false;
};

// spec.affinity (or the 1.6 annotation's JSON, the same shape): the required node-affinity terms.
std::vector<cluster::NodeSelectorTerm> read_affinity(const Fields& affinity, AffinityFacts& facts);

// scheduler.alpha.kubernetes.io/affinity among `annotations`, if given: its terms, with errors
// at the annotation's line.
std::optional<std::vector<cluster::NodeSelectorTerm>> alpha_affinity(const Where& where, const Entries& annotations,
                                                                     AffinityFacts& facts);

// spec.tolerations.
std::vector<cluster::Toleration> read_tolerations(const Fields& spec);

}  // namespace gpusim::traces::k8s
