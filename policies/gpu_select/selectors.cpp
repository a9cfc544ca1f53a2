// GPU selection inside the chosen node (the FGD artifact's gpuSelMethod): best fit, worst fit or
// kubelet-style first fit (uniform random is the `random` plugin, score/random_score.cpp). Whole-GPU pods always take the lowest-indexed
// fully free GPUs; the methods differ only for pods that share one GPU.
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"
#include "sim/core/check.hpp"

namespace gpusim::policy {
namespace {

using cluster::GpuSet;

GpuSet single(int gpu) {
  GpuSet set;
  if (gpu >= 0) set.add(gpu);
  return set;
}

class TightestFit final : public sched::GpuSelector {
 public:
  explicit TightestFit(bool least) : least_(least) {}
  std::string_view name() const override { return least_ ? "best" : "worst"; }
  GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                const sched::CycleState&) override {
    const auto free = cluster.gpu_milli_free(n);
    if (!pod.shares_gpu()) return first_fit(pod, free);
    return single(tightest_gpu(free, pod.gpu_milli, least_));
  }

 private:
  bool least_;
};

class FirstFit final : public sched::GpuSelector {
 public:
  std::string_view name() const override { return "first-fit"; }
  GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                const sched::CycleState&) override {
    return first_fit(pod, cluster.gpu_milli_free(n));
  }
};

}  // namespace

void register_gpu_selectors(sched::Registry& registry) {
  registry.add("best", [](const sched::PluginContext&) { return std::make_unique<TightestFit>(true); });
  registry.add("worst", [](const sched::PluginContext&) { return std::make_unique<TightestFit>(false); });
  registry.add("first-fit", [](const sched::PluginContext&) { return std::make_unique<FirstFit>(); });
}

}  // namespace gpusim::policy
