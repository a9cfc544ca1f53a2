// percentageOfNodesToScore (Profile::percentage_of_nodes_to_score): kube-scheduler's
// numFeasibleNodesToFind, and a filter stage that stops once it has found that many feasible nodes,
// starting where the last one stopped (nextStartNodeIndex). The score plugin here, defined only in
// this test, scores each node by its index, so the node chosen is the last feasible node found in
// index order and shows which nodes the stage examined.
#include <gtest/gtest.h>

#include "sim/config/profiles.hpp"
#include "sim/sched/nodes_to_score.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

TEST(NodesToScore, FeasibleNodesToFindAsUpstream) {
  using sched::feasible_nodes_to_find;
  EXPECT_EQ(feasible_nodes_to_find(0, 99), 99) << "below 100 nodes: all";
  EXPECT_EQ(feasible_nodes_to_find(10, 50), 50);
  EXPECT_EQ(feasible_nodes_to_find(0, 100), 100) << "100 x (50 - 0) / 100 = 50, raised to 100";
  EXPECT_EQ(feasible_nodes_to_find(0, 250), 120) << "250 x (50 - 2) / 100";
  EXPECT_EQ(feasible_nodes_to_find(0, 1213), 497) << "openb's GPU nodes: 1213 x (50 - 9) / 100";
  EXPECT_EQ(feasible_nodes_to_find(0, 5000), 500) << "5000 x (50 - 40) / 100";
  EXPECT_EQ(feasible_nodes_to_find(0, 10000), 500) << "50 - 80 is below 5 %: 5 %";
  EXPECT_EQ(feasible_nodes_to_find(10, 5000), 500);
  EXPECT_EQ(feasible_nodes_to_find(1, 5000), 100) << "never fewer than 100";
  EXPECT_EQ(feasible_nodes_to_find(100, 5000), 5000);
}

class IndexScore final : public sched::ScorePlugin {
 public:
  std::string_view name() const override { return "node-index"; }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState&, sched::CycleState&) override {
    return n;
  }
};

// 250 CPU nodes of 4 cores; the first `small` of them have half a core, too little for the pod.
struct WideCluster {
  explicit WideCluster(int small) {
    std::vector<cluster::NodeSpec> nodes;
    for (int i = 0; i < 250; ++i) nodes.push_back({"n" + std::to_string(i), i < small ? 500 : 4000, 8192, 0, 0, {}, {}});
    state = std::make_unique<cluster::ClusterState>(catalog, std::move(nodes));
    registry.add("node-index", [](const sched::PluginContext&) { return std::make_unique<IndexScore>(); });
  }
  sched::Framework framework(std::int32_t percentage, bool scored = true) {
    sched::Profile profile = config::builtin_profile("fifo");  // node-index ties
    profile.score = scored ? std::vector<sched::WeightedPlugin>{{"node-index", 1}} : std::vector<sched::WeightedPlugin>{};
    profile.percentage_of_nodes_to_score = percentage;
    return sched::Framework(profile, registry, {&catalog, {}, 1, state->node_count()}, *state);
  }
  cluster::GpuCatalog catalog = two_model_catalog();
  std::unique_ptr<cluster::ClusterState> state;
  sched::Registry registry = policy::builtin_registry();
};

// Adaptive (0) on 250 nodes: 120 to find. The first stage examines nodes 0..119 (best 119) and the
// next starts at 120: 120..239 (best 239); the third 240..249 then 0..109 (best 249).
TEST(NodesToScore, StopsEarlyAndRotatesTheStart) {
  WideCluster wide(0);
  auto framework = wide.framework(0);
  const cluster::PodSpec p = pod(1000, 0, 0);
  EXPECT_EQ(framework.schedule(p)->node, 119U);
  EXPECT_EQ(framework.last_feasible_count(), 120U);
  EXPECT_EQ(framework.schedule(p)->node, 239U);
  EXPECT_EQ(framework.schedule(p)->node, 249U);
  EXPECT_EQ(framework.last_feasible_count(), 120U);
}

// Nodes rejected by the filters count as examined: with nodes 0..49 too small, the first stage walks
// 0..169 (50 rejected, 120 feasible: best 169); the second 170..249 (80), 0..49 (rejected) and
// 50..89 (40): best 249, next start (170 + 80 + 50 + 40) mod 250 = 90; the third 90..209: best 209.
TEST(NodesToScore, RejectedNodesMoveTheStartToo) {
  WideCluster wide(50);
  auto framework = wide.framework(0);
  const cluster::PodSpec p = pod(1000, 0, 0);
  EXPECT_EQ(framework.schedule(p)->node, 169U);
  EXPECT_EQ(framework.schedule(p)->node, 249U);
  EXPECT_EQ(framework.schedule(p)->node, 209U);
}

// 100 (the built-in profiles): every node, every time.
TEST(NodesToScore, HundredPercentExaminesEveryNode) {
  WideCluster wide(50);
  auto framework = wide.framework(100);
  const cluster::PodSpec p = pod(1000, 0, 0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(framework.schedule(p)->node, 249U);
    EXPECT_EQ(framework.last_feasible_count(), 200U);
  }
}

// Without a score plugin kube-scheduler looks for one feasible node: the first from the start.
TEST(NodesToScore, WithoutScoringOneNodeIsFound) {
  WideCluster wide(50);
  auto framework = wide.framework(0, false);
  const cluster::PodSpec p = pod(1000, 0, 0);
  EXPECT_EQ(framework.schedule(p)->node, 50U);
  EXPECT_EQ(framework.schedule(p)->node, 51U);
}

// Absent nodes are not counted among the nodes (the snapshot) nor found: with 150 of the 250 present
// 150 x (50 - 1) / 100 = 73 is raised to 100; nodes 0..99 are absent, so the first stage finds 100..199.
TEST(NodesToScore, AbsentNodesAreSkipped) {
  WideCluster wide(0);
  for (cluster::NodeIndex n = 0; n < 100; ++n) wide.state->set_present(n, false);
  EXPECT_EQ(wide.state->present_count(), 150U);
  auto framework = wide.framework(0);
  EXPECT_EQ(framework.schedule(pod(1000, 0, 0))->node, 199U);
  EXPECT_EQ(framework.last_feasible_count(), 100U);
  wide.state->check_invariants();
}

// Below 100 nodes every node is found whatever the percentage: the GPU pods of a bin-packing
// profile (whose filter stage skips nodes without room through the GPU index) land where they land
// with 100, though each stage starts elsewhere.
TEST(NodesToScore, SmallClustersFindEveryNode) {
  Bench with_adaptive, with_all;
  sched::Profile adaptive = config::builtin_profile("binpack");
  adaptive.percentage_of_nodes_to_score = 0;
  sched::Framework a(adaptive, with_adaptive.registry, with_adaptive.context(), with_adaptive.state);
  sched::Framework b(config::builtin_profile("binpack"), with_all.registry, with_all.context(), with_all.state);
  for (const auto& p : {pod(4000, 1, 1000), pod(2000, 2, 1000), pod(1000, 1, 500), pod(8000, 4, 1000), pod(1000, 1, 250)}) {
    const auto pa = a.schedule(p);
    const auto pb = b.schedule(p);
    ASSERT_EQ(pa.has_value(), pb.has_value());
    if (pa) {
      EXPECT_EQ(*pa, *pb);
    }
    EXPECT_EQ(a.last_feasible_count(), b.last_feasible_count());
  }
}

// A profile without score plugins looks for one feasible node whatever the percentage (upstream's
// numFeasibleNodesToFind returns 1 then): at 100 too, the first feasible node from the rotating start.
TEST(NodesToScore, NoScorePluginFindsOneNodeAtEveryPercentage) {
  Bench bench;
  sched::Profile profile = config::builtin_profile("fifo");
  profile.score.clear();
  sched::Framework framework(profile, bench.registry, bench.context(), bench.state);
  EXPECT_EQ(framework.schedule(pod(1000, 1, 0))->node, 0U);
  EXPECT_EQ(framework.last_feasible_count(), 1U);
  EXPECT_EQ(framework.schedule(pod(1000, 1, 0))->node, 1U) << "the next search starts after the node examined";
}

}  // namespace
}  // namespace gpusim::testing
