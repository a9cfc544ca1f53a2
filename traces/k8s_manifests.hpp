#pragma once
// Reader for real Kubernetes manifests: Node objects (a cluster) and Pod, Job and PriorityClass
// objects (a workload), as multi-document YAML or a `kind: List` (what `kubectl get -o yaml` and
// `-o json` print; JSON is YAML). Fields, annotations, defaults and notes: traces/README.md,
// "Kubernetes manifests".
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "sim/cluster/gpu_catalog.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces {

// Throw core::InputError ("file:line: field: reason", the line 1-based, the field a dotted path
// such as spec.containers[1].resources.limits.nvidia.com/gpu) on anything they do not understand.
// Defaults applied and ignored parts are stated in the result's notes.
ClusterSpec read_k8s_nodes(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
Workload read_k8s_workload(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
// The same from a file's text; `source` stands for the file in messages (tests, fuzzing).
ClusterSpec parse_k8s_nodes(const std::string& text, const std::string& source, const cluster::GpuCatalog& catalog);
Workload parse_k8s_workload(const std::string& text, const std::string& source, const cluster::GpuCatalog& catalog);

// The catalog model a GPU product name (GFD's nvidia.com/gpu.product, 1.6's
// alpha.kubernetes.io/nvidia-gpu-name, nvidia-smi's name) stands for: an exact catalog id or
// alias; else the one model whose id, name or an alias has the same words (case-insensitive,
// split at anything but letters and digits, "NVIDIA" and "Tesla" dropped); else the one model
// whose words include all of the name's; among several, those whose catalog memory `memory_mib`
// is at most 10% below (GFD's nvidia.com/gpu.memory reports slightly less than the nominal size).
// On failure, `why` says whether nothing or several models matched.
std::optional<cluster::GpuModelId> resolve_gpu_product(std::string_view name, std::optional<std::int64_t> memory_mib,
                                                       const cluster::GpuCatalog& catalog, std::string* why = nullptr);

}  // namespace gpusim::traces
