// The FGD paper's Random baseline: one feasible node drawn uniformly scores 100, the rest 0;
// a shared GPU is drawn uniformly among those with room. One plugin serves as both the score
// and the GPU selection, each with its own named random stream.
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"
#include "sim/core/rng.hpp"

namespace gpusim::policy {
namespace {

class RandomPolicy final : public sched::ScorePlugin, public sched::GpuSelector {
 public:
  explicit RandomPolicy(std::uint64_t seed)
      : node_rng_(core::Rng::stream(seed, "random-node")),
        gpu_rng_(core::Rng::stream(seed, "random-gpu")) {}
  std::string_view name() const override { return "random"; }

  void pre_score(const sched::PodSpec&, std::span<const sched::NodeIndex> feasible,
                 const sched::ClusterState&, sched::CycleState& cycle) override {
    cycle.chosen_node = feasible[node_rng_.uniform_below(feasible.size())];
  }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState&,
                     sched::CycleState& cycle) override {
    return static_cast<std::int64_t>(n) == cycle.chosen_node ? sched::kMaxNodeScore
                                                             : sched::kMinNodeScore;
  }

  // Reservoir sampling over the GPUs with room, in index order.
  cluster::GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n,
                         const sched::ClusterState& cluster, const sched::CycleState&) override {
    const auto free = cluster.gpu_milli_free(n);
    if (!pod.shares_gpu()) return first_fit(pod, free);
    cluster::GpuSet set;
    int chosen = -1;
    std::uint64_t seen = 0;
    for (int g = 0; g < static_cast<int>(free.size()); ++g) {
      if (free[g] < pod.gpu_milli) continue;
      if (gpu_rng_.uniform_below(++seen) == 0) chosen = g;
    }
    if (chosen >= 0) set.add(chosen);
    return set;
  }

 private:
  core::Rng node_rng_;
  core::Rng gpu_rng_;
};

}  // namespace

void register_random_score(sched::Registry& registry) {
  registry.add("random", [](const sched::PluginContext& c) { return std::make_unique<RandomPolicy>(c.seed); });
}

}  // namespace gpusim::policy
