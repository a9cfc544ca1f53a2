// kube-scheduler's resource scores as gpusim's score plugins:
// - least-allocated and most-allocated: NodeResourcesFit's LeastAllocated and MostAllocated over CPU
//   and memory with weight 1 each, with gpusim's arithmetic from before issue 30 (FitScoring::
//   gpusim_legacy: requests as asked, no non-zero defaults), so that the built-in policies keep their
//   results. node-resources-fit at score (policies/filter/node_resources_fit.cpp) is the faithful
//   NodeResourcesFit, with its args.
// - balanced-allocation: NodeResourcesBalancedAllocation with its args (resources; default cpu and
//   memory), as upstream (policies/score/resource_allocation.hpp).
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/score/balanced_allocation_args.hpp"
#include "policies/score/resource_allocation.hpp"

namespace gpusim::policy {
namespace {

class LegacyResourceScore final : public sched::ScorePlugin {
 public:
  LegacyResourceScore(std::string_view name, ScoringStrategy strategy)
      : name_(name), scorer_(FitScoring{strategy, default_resources(), {}, true}) {}
  std::string_view name() const override { return name_; }
  void pre_score(const sched::PodSpec& pod, std::span<const sched::NodeIndex>, const sched::ClusterState&,
                 sched::CycleState&) override {
    scorer_.prepare(pod);
  }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    return scorer_.score(pod, n, c);
  }

 private:
  std::string_view name_;
  FitScorer scorer_;
};

class BalancedAllocation final : public sched::ScorePlugin {
 public:
  explicit BalancedAllocation(const BalancedAllocationArgs& args) : scorer_(args.resources) {}
  std::string_view name() const override { return "balanced-allocation"; }
  void pre_score(const sched::PodSpec& pod, std::span<const sched::NodeIndex>, const sched::ClusterState&,
                 sched::CycleState&) override {
    scorer_.prepare(pod);
  }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    return scorer_.score(pod, n, c);
  }

 private:
  BalancedScorer scorer_;
};

}  // namespace

void register_kube_scores(sched::Registry& registry) {
  registry.add("least-allocated", [](const sched::PluginContext&) {
    return std::make_unique<LegacyResourceScore>("least-allocated", ScoringStrategy::kLeastAllocated);
  });
  registry.add("most-allocated", [](const sched::PluginContext&) {
    return std::make_unique<LegacyResourceScore>("most-allocated", ScoringStrategy::kMostAllocated);
  });
  registry.add(
      "balanced-allocation",
      [](const sched::PluginContext& context) {
        const auto* args = dynamic_cast<const BalancedAllocationArgs*>(context.args);
        return std::make_unique<BalancedAllocation>(args != nullptr ? *args : BalancedAllocationArgs{});
      },
      read_balanced_allocation_args);
  registry.add_alias("NodeResourcesBalancedAllocation", "balanced-allocation");
}

}  // namespace gpusim::policy
