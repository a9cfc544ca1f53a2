#include "traces/k8s/priority_class_reader.hpp"

#include <fmt/format.h>

#include "traces/k8s/object_meta.hpp"

namespace gpusim::traces::k8s {

void read_priority_class(const Object& object, PriorityClasses& classes) {
  const Fields& fields = object.fields;
  const Meta meta = read_meta(fields);
  if (meta.name.starts_with("system-")) {
    fields.required_map("metadata").fail("name", "the system- prefix is reserved for Kubernetes' built-in classes");
  }
  PriorityClass pc;
  pc.line = object.line;
  // Kubernetes keeps values above 10^9 for its built-in system classes.
  const auto value = fields.integer("value", kInt32Min, 1'000'000'000);
  if (!value) fields.missing("value");
  pc.value = static_cast<std::int32_t>(*value);
  const auto [it, inserted] = classes.by_name.emplace(meta.name, pc);
  if (!inserted) {
    fields.required_map("metadata")
        .fail("name", fmt::format("duplicate PriorityClass name '{}' (first at line {})", meta.name, it->second.line));
  }
  if (fields.boolean("globalDefault").value_or(false)) {
    if (classes.global_default) {
      fields.fail("globalDefault",
                  fmt::format("PriorityClass '{}' is already the global default (Kubernetes allows one)",
                              classes.global_default->first));
    }
    classes.global_default = std::make_pair(meta.name, pc.value);
  }
}

std::int32_t pod_priority(const Fields& spec, const std::string& class_name, const PriorityClasses& classes) {
  const auto explicit_value = spec.integer("priority", kInt32Min, kInt32Max);
  const auto class_value = class_name.empty() ? std::nullopt : classes.value(class_name);
  if (explicit_value) {
    if (class_value && *class_value != *explicit_value) {
      spec.fail("priority", fmt::format("{} differs from PriorityClass '{}' ({}); Kubernetes refuses the pod",
                                        *explicit_value, class_name, *class_value));
    }
    return static_cast<std::int32_t>(*explicit_value);
  }
  if (!class_name.empty()) {
    if (!class_value) {
      spec.fail("priorityClassName",
                fmt::format("unknown PriorityClass '{}' (not in this file; built in: system-cluster-critical, "
                            "system-node-critical)",
                            class_name));
    }
    return *class_value;
  }
  return classes.global_default ? classes.global_default->second : 0;
}

}  // namespace gpusim::traces::k8s
