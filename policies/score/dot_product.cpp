// DotProd (Tetris-style alignment, FGD paper baseline), the artifact's "merge" and "max"
// variant: node free vector and pod request over (CPU milli, total GPU milli), each divided by
// the largest node's capacity. A larger alignment gives a lower score, so the policy packs.
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/score/artifact_constants.hpp"

namespace gpusim::policy {
namespace {

class DotProduct final : public sched::ScorePlugin {
 public:
  std::string_view name() const override { return "dot-product"; }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    const auto cpu_free = static_cast<double>(c.cpu_free(n));
    if (cpu_free < static_cast<double>(pod.cpu_milli)) return sched::kMinNodeScore;
    double dot = 0;
    dot += (cpu_free / kMaxSpecCpuMilli) * (static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli);
    dot += (static_cast<double>(c.node_gpu_milli_free(n)) / kMaxSpecGpuMilli) *
           (static_cast<double>(pod.total_gpu_milli()) / kMaxSpecGpuMilli);
    const double score = 1.0 - dot / 2.0;
    return static_cast<std::int64_t>(static_cast<double>(sched::kMaxNodeScore) * score);
  }
};

}  // namespace

void register_dot_product(sched::Registry& registry) {
  registry.add("dot-product", [](const sched::PluginContext&) { return std::make_unique<DotProduct>(); });
  registry.add_alias("dotprod", "dot-product");  // the FGD paper's and the policy's name
}

}  // namespace gpusim::policy
