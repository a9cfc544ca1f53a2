#pragma once
// The reader of `kind: PriorityClass` objects (scheduling.k8s.io/v1: value, globalDefault) and
// the priority a pod gets from them, after Kubernetes' Priority admission plugin
// (kubernetes/kubernetes plugin/pkg/admission/priority/admission.go): a named class gives its
// value and must exist (the two built-in system classes always do); a pod naming none gets the
// global default's value, else 0. A dumped pod carries spec.priority (the plugin wrote it there):
// when given it is kept, and must equal the value of the class the pod names if that class is
// known. Rules: traces/README.md, "Kubernetes manifests".
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

struct PriorityClass {
  std::int32_t value = 0;
  int line = 0;
};

// The file's classes by name (looked up, never iterated: no hash-order dependence).
struct PriorityClasses {
  std::unordered_map<std::string, PriorityClass> by_name;
  std::optional<std::pair<std::string, std::int32_t>> global_default;

  std::optional<std::int32_t> value(const std::string& name) const {
    // Kubernetes' built-in classes exist in every cluster without a manifest.
    if (name == "system-cluster-critical") return 2'000'000'000;
    if (name == "system-node-critical") return 2'000'001'000;
    const auto it = by_name.find(name);
    if (it == by_name.end()) return std::nullopt;
    return it->second.value;
  }
};

// One PriorityClass object into `classes`: a unique name outside the system- prefix, a value of
// at most 10^9, at most one global default in the file.
void read_priority_class(const Object& object, PriorityClasses& classes);

// A pod spec's priority from spec.priority and spec.priorityClassName (`class_name`, "" when none).
std::int32_t pod_priority(const Fields& spec, const std::string& class_name, const PriorityClasses& classes);

}  // namespace gpusim::traces::k8s
