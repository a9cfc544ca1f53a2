#include "sim/cluster/pod_constraints.hpp"

#include "sim/cluster/node.hpp"

#include <algorithm>
#include <charconv>

namespace gpusim::cluster {
namespace {

const std::string* label(const Labels& labels, const std::string& key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<std::int64_t> integer(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool holds(const SelectorRequirement& r, const Labels& labels) {
  const std::string* value = label(labels, r.key);
  const auto listed = [&] { return value != nullptr && std::find(r.values.begin(), r.values.end(), *value) != r.values.end(); };
  switch (r.op) {
    case SelectorOperator::kIn: return listed();
    case SelectorOperator::kNotIn: return !listed();
    case SelectorOperator::kExists: return value != nullptr;
    case SelectorOperator::kDoesNotExist: return value == nullptr;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (value == nullptr || r.values.size() != 1) return false;
      const auto have = integer(*value);
      const auto bound = integer(r.values.front());
      if (!have || !bound) return false;
      return r.op == SelectorOperator::kGt ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

}  // namespace

const char* to_string(GpuResource resource) {
  switch (resource) {
    case GpuResource::kAny: return "any";
    case GpuResource::kNvidiaGpu: return "nvidia.com/gpu";
    case GpuResource::kAlphaNvidiaGpu: return "alpha.kubernetes.io/nvidia-gpu";
    case GpuResource::kNvidiaGpuShared: return "nvidia.com/gpu.shared";
    case GpuResource::kHamiVgpu: return "nvidia.com/gpu with nvidia.com/gpumem or gpucores";
    case GpuResource::kAliyunGpuMem: return "aliyun.com/gpu-mem";
    case GpuResource::kMigProfile: return "nvidia.com/mig-<profile>";
    case GpuResource::kVgpuType: return "nvidia.com/NVIDIA_<vGPU type>";
  }
  return "?";
}

bool serves(GpuResource node, GpuResource pod) {
  if (node == pod || node == GpuResource::kAny || pod == GpuResource::kAny) return true;
  if (node == GpuResource::kHamiVgpu) return pod == GpuResource::kNvidiaGpu;
  if (node == GpuResource::kMigProfile) return pod == GpuResource::kNvidiaGpu;
  return false;
}

bool tolerates(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty()) return t.exists;  // an empty key with Exists tolerates every taint
  if (t.key != taint.key) return false;
  return t.exists || t.value == taint.value;
}

bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) { return tolerates(t, taint); });
}

bool matches(const NodeSelectorTerm& term, const Labels& labels) {
  return std::all_of(term.match_expressions.begin(), term.match_expressions.end(),
                     [&](const SelectorRequirement& r) { return holds(r, labels); });
}

bool node_allowed(const PodConstraints& pod, const Labels& labels) {
  for (const auto& [key, value] : pod.node_selector) {
    const std::string* have = label(labels, key);
    if (have == nullptr || *have != value) return false;
  }
  if (pod.required_terms.empty()) return true;
  return std::any_of(pod.required_terms.begin(), pod.required_terms.end(),
                     [&](const NodeSelectorTerm& term) { return matches(term, labels); });
}

}  // namespace gpusim::cluster
