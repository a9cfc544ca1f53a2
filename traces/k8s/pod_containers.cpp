#include "traces/k8s/pod_containers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "sim/cluster/mig.hpp"
#include "sim/cluster/node.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces::k8s {

using YAML::Node;
using cluster::GpuResource;

namespace {

// requests default to limits (Kubernetes' defaulting), and may not exceed them.
std::int64_t request_or_limit(const std::optional<Fields>& requests, const std::optional<Fields>& limits,
                              const std::string& name, Parsed<std::int64_t> (*convert)(std::string_view), bool& limited,
                              bool& equal) {
  std::optional<std::int64_t> request;
  std::optional<std::int64_t> limit;
  if (limits && limits->has(name)) {
    limit = must(limits->where(), limits->get(name), limits->path(name), convert(quantity_text(*limits, name)));
  }
  if (requests && requests->has(name)) {
    request =
        must(requests->where(), requests->get(name), requests->path(name), convert(quantity_text(*requests, name)));
  }
  if (request && limit && *request > *limit) {
    requests->fail(name, fmt::format("request {} exceeds the limit {} (Kubernetes refuses the pod)",
                                     quantity_text(*requests, name), quantity_text(*limits, name)));
  }
  limited = limit.has_value() && *limit > 0;
  equal = !request || !limit || *request == *limit;
  return request.value_or(limit.value_or(0));
}

// An extended resource such as nvidia.com/gpu: the limit is the ask; a request must equal it.
std::int64_t extended_ask(const std::optional<Fields>& requests, const std::optional<Fields>& limits,
                          const std::string& name, std::int64_t max = cluster::kMaxGpusPerNode) {
  std::optional<std::int64_t> limit;
  if (limits && limits->has(name)) {
    limit = must(limits->where(), limits->get(name), limits->path(name), whole_count(quantity_text(*limits, name), max));
  }
  if (requests && requests->has(name)) {
    const std::int64_t request = must(requests->where(), requests->get(name), requests->path(name),
                                      whole_count(quantity_text(*requests, name), max));
    if (!limit) {
      requests->fail(
          name,
          "a request without a limit (Kubernetes requires limits for extended resources; requests default to them)");
    }
    if (request != *limit) {
      requests->fail(
          name, fmt::format("request {} differs from the limit {} (Kubernetes requires them equal)", request, *limit));
    }
  }
  return limit.value_or(0);
}

constexpr std::array<const char*, 3> kPodGpuNames = {kNvidiaGpu, kAlphaGpu, kNvidiaGpuShared};
// Sharing device plugins' resources (sim/k8s/README.md, "Sharing plugins' own resources"): HAMi's
// per-vGPU asks beside nvidia.com/gpu, gpushare's GiB of one GPU, NVIDIA's MIG profiles under
// strategy mixed.
constexpr const char* kHamiMemory = "nvidia.com/gpumem";
constexpr const char* kHamiMemoryPercent = "nvidia.com/gpumem-percentage";
constexpr const char* kHamiCores = "nvidia.com/gpucores";
constexpr std::string_view kMigPrefix = "nvidia.com/mig-";
// HAMi keeps gpumem in an int32 of MiB (gpushare's GiB: kMaxGpuMemoryGib).
constexpr std::int64_t kMaxGpuMemoryMib = 2147483647;

bool is_mig_name(std::string_view name) { return name.starts_with(kMigPrefix); }
// KubeVirt's GPU device plugin: nvidia.com/ and the driver's mdev type name, whitespace as '_'
// ("NVIDIA A10-12Q" on current drivers, "GRID T4-1Q" on older ones).
bool is_vgpu_name(std::string_view name) {
  return name.starts_with("nvidia.com/NVIDIA_") || name.starts_with("nvidia.com/GRID_");
}

bool is_gpu_name(std::string_view name) {
  return std::find(kPodGpuNames.begin(), kPodGpuNames.end(), name) != kPodGpuNames.end() || is_mig_name(name) ||
         is_vgpu_name(name);
}

GpuResource gpu_resource_named(std::string_view name) {
  if (name == kNvidiaGpu) return GpuResource::kNvidiaGpu;
  if (name == kNvidiaGpuShared) return GpuResource::kNvidiaGpuShared;
  if (is_mig_name(name)) return GpuResource::kMigProfile;
  if (is_vgpu_name(name)) return GpuResource::kVgpuType;
  return GpuResource::kAlphaNvidiaGpu;
}

void note_gpu_name(const Fields& map, const std::string& name, PodFacts& facts) {
  const GpuResource resource = gpu_resource_named(name);
  if (facts.gpu.resource == GpuResource::kAny) {
    facts.gpu = {resource, map.path(name)};
  } else if (facts.gpu.resource != resource) {
    map.fail(name, fmt::format("the pod also asks {} ({}); a pod may ask one GPU resource",
                               cluster::to_string(facts.gpu.resource), facts.gpu.path));
  }
}

// HAMi's per-vGPU asks and gpushare's GiB, which ride beside (HAMi) or instead of (gpushare) a GPU count.
void read_share_asks(int line, const std::string& path, const std::optional<Fields>& limits,
                     const std::optional<Fields>& requests, const cluster::Container& container, bool init,
                     PodFacts& facts) {
  const auto asks = [&](const char* name) { return (limits && limits->has(name)) || (requests && requests->has(name)); };
  const auto holder = [&](const char* name) -> const Fields& { return (limits && limits->has(name)) ? *limits : *requests; };
  ShareFacts share;
  share.path = path + ".resources.limits";
  share.line = line;
  share.gpus = container.gpus;
  share.init = init;
  const bool memory = asks(kHamiMemory);
  const bool percent = asks(kHamiMemoryPercent);
  const bool cores = asks(kHamiCores);
  share.hami_asked = memory || percent || cores;
  if (share.hami_asked) {
    const char* first = memory ? kHamiMemory : percent ? kHamiMemoryPercent : kHamiCores;
    if (container.gpus == 0 || facts.gpu.resource != GpuResource::kNvidiaGpu || !asks(kNvidiaGpu)) {
      holder(first).fail(first, "needs nvidia.com/gpu in the same container (HAMi gives a container without it no GPU)");
    }
    if (memory) {
      share.hami.memory_mib = extended_ask(requests, limits, kHamiMemory, kMaxGpuMemoryMib);
      if (share.hami.memory_mib == 0) holder(kHamiMemory).fail(kHamiMemory, "0 MiB; leave it out for the whole memory");
    }
    if (percent) {
      share.hami.memory_percent = static_cast<std::int32_t>(extended_ask(requests, limits, kHamiMemoryPercent, 100));
    }
    if (cores) share.hami.cores_percent = static_cast<std::int32_t>(extended_ask(requests, limits, kHamiCores, 100));
  }
  // HAMi 2.8: a vGPU asking neither memory nor cores is a whole GPU (100 % cores).
  if (!memory && !percent && !cores) share.hami.cores_percent = 100;
  if (asks(kAliyunGpuMem)) {
    share.gpu_memory_gib = extended_ask(requests, limits, kAliyunGpuMem, kMaxGpuMemoryGib);
    if (share.gpu_memory_gib > 0) {
      const Fields& map = holder(kAliyunGpuMem);
      if (facts.gpu.resource == GpuResource::kAny) {
        facts.gpu = {GpuResource::kAliyunGpuMem, map.path(kAliyunGpuMem)};
      } else if (facts.gpu.resource != GpuResource::kAliyunGpuMem) {
        map.fail(kAliyunGpuMem, fmt::format("the pod also asks {} ({}); a pod may ask one GPU resource",
                                            cluster::to_string(facts.gpu.resource), facts.gpu.path));
      }
    }
  }
  facts.shares.push_back(std::move(share));
}

}  // namespace

cluster::Container read_container(const Where& where, const Node& node, const std::string& path, bool init,
                                  PodFacts& facts) {
  const Fields c(where, node, path);
  cluster::Container out;
  out.name = c.required_string("name");
  if (!dns_label(out.name)) {
    c.fail("name", fmt::format("'{}' is not a valid container name (lower-case letters, digits and '-', at most 63)",
                               out.name));
  }
  const auto [it, inserted] = facts.container_names.emplace(out.name, where.line(node));
  if (!inserted) c.fail("name", fmt::format("duplicate container name '{}' (first at line {})", out.name, it->second));
  if (init && c.has("restartPolicy")) {
    c.fail("restartPolicy", "sidecar init containers (restartPolicy Always) are not modelled");
  }
  const auto resources = c.map("resources");
  const std::optional<Fields> limits = resources ? resources->map("limits") : std::nullopt;
  const std::optional<Fields> requests = resources ? resources->map("requests") : std::nullopt;
  bool cpu_limited = false;
  bool cpu_equal = true;
  bool memory_limited = false;
  bool memory_equal = true;
  out.cpu_milli = request_or_limit(requests, limits, "cpu", cpu_millicores, cpu_limited, cpu_equal);
  out.memory_mib = request_or_limit(requests, limits, "memory", memory_mib, memory_limited, memory_equal);
  facts.qos.any = facts.qos.any || out.cpu_milli > 0 || out.memory_mib > 0 || cpu_limited || memory_limited;
  facts.qos.guaranteed = facts.qos.guaranteed && cpu_limited && memory_limited && cpu_equal && memory_equal;

  bool asked_gpu_name = false;
  for (const auto* map : {&limits, &requests}) {
    if (!*map) continue;
    for (const auto& kv : (*map)->node()) {
      const std::string& name = kv.first.Scalar();
      if (name == "cpu" || name == "memory") continue;
      if (name == kHamiMemory || name == kHamiMemoryPercent || name == kHamiCores || name == kAliyunGpuMem) continue;
      if (is_gpu_name(name)) {
        if (asked_gpu_name) continue;  // the same name in requests (any other failed below)
        asked_gpu_name = true;
        // Any other GPU resource in either map, MIG profiles and gpushare's memory included.
        for (const auto* other_map : {&limits, &requests}) {
          if (!*other_map) continue;
          for (const auto& other : (*other_map)->node()) {
            const std::string& other_name = other.first.Scalar();
            if (other_name == name || (!is_gpu_name(other_name) && other_name != kAliyunGpuMem)) continue;
            (*other_map)->fail(other_name, fmt::format("the container also asks {}; a pod may ask one GPU resource", name));
          }
        }
        if (is_mig_name(name)) {
          const std::string profile = name.substr(kMigPrefix.size());
          if (!cluster::is_mig_profile_name(profile)) {
            (*map)->fail(name, fmt::format("'{}' is not a MIG profile of any GPU in the catalog ({})", profile,
                                           cluster::all_mig_profile_names()));
          }
          if (!facts.mig_profile.empty() && facts.mig_profile != profile) {
            (*map)->fail(name, fmt::format("the pod also asks nvidia.com/mig-{} ({}); a pod may ask one GPU resource",
                                           facts.mig_profile, facts.gpu.path));
          }
        }
        if (is_vgpu_name(name)) {
          const std::string resource = name.substr(std::string_view("nvidia.com/").size());
          if (!facts.vgpu_resource.empty() && facts.vgpu_resource != resource) {
            (*map)->fail(name, fmt::format("the pod also asks nvidia.com/{} ({}); a pod may ask one GPU resource",
                                           facts.vgpu_resource, facts.gpu.path));
          }
        }
        const std::int64_t gpus = extended_ask(requests, limits, name);
        out.gpus = static_cast<std::int32_t>(gpus);
        if (gpus > 0) {
          note_gpu_name(**map, name, facts);
          if (is_mig_name(name)) facts.mig_profile = name.substr(kMigPrefix.size());
          if (is_vgpu_name(name)) facts.vgpu_resource = name.substr(std::string_view("nvidia.com/").size());
        }
        continue;
      }
      must((*map)->where(), kv.second, (*map)->path(name), parse_quantity(quantity_text(**map, name)));
      if (std::find(facts.unmodelled.begin(), facts.unmodelled.end(), name) == facts.unmodelled.end()) {
        facts.unmodelled.push_back(name);
      }
    }
  }
  read_share_asks(where.line(node), path, limits, requests, out, init, facts);
  return out;
}

}  // namespace gpusim::traces::k8s
