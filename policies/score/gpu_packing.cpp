// GpuPacking (FGD paper baseline). Preference: fit on GPUs already partly used, then on free
// GPUs of a node that already runs something, then on an idle node (smaller first).
//   idle node (every GPU free):        max(33 - free GPUs, free GPUs)
//   needs k fully free GPUs:           max(50 - k, 33)
//   fits on partly used GPUs:          max(100 - s / 10, 50), s = sum of free percent
// CPU-only pods score 0 everywhere. Integer arithmetic, as the artifact.
#include <algorithm>
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"

namespace gpusim::policy {
namespace {

class GpuPacking final : public sched::ScorePlugin {
 public:
  std::string_view name() const override { return "gpu-packing"; }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    if (!pod.wants_gpu()) return sched::kMinNodeScore;
    const auto free = c.gpu_milli_free(n);
    const std::int64_t gpus = static_cast<std::int64_t>(free.size());
    const std::int64_t fully_free = count_fitting(free, cluster::kMilliPerGpu);
    if (fully_free == gpus) {
      return std::max(sched::kMaxNodeScore / 3 - fully_free, fully_free);
    }
    const cluster::GpuSet chosen = ascending_fit(pod, free);
    if (chosen.empty()) return sched::kMinNodeScore;
    std::int64_t taken_free = 0;
    std::int64_t free_percent = 0;
    for (int g = 0; g < static_cast<int>(free.size()); ++g) {
      if (!chosen.contains(g)) continue;
      if (free[g] == cluster::kMilliPerGpu) ++taken_free;
      free_percent += std::int64_t{free[g]} * 100 / cluster::kMilliPerGpu;
    }
    if (taken_free > 0) return std::max<std::int64_t>(50 - taken_free, 33);
    return std::max<std::int64_t>(100 - free_percent / 10, 50);
  }
};

}  // namespace

void register_gpu_packing(sched::Registry& registry) {
  registry.add("gpu-packing", [](const sched::PluginContext&) { return std::make_unique<GpuPacking>(); });
}

}  // namespace gpusim::policy
