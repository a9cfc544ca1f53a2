// One test per defect of the correctness review (issue "Numbers users can trust") that shows in
// the library; the ones that show in the binary are in tests/cli/review_defects_cli_test.cpp.
// Each failed on the code before its fix.
#include <gtest/gtest.h>

#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/sched/framework.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

// Item 1. A: 8 GPUs, B: 4 GPUs, both model A. The built-in gpu-clustering profile, through the
// framework (not calling reserve() by hand):
//   share pod (500 milli): A scores 25 + 25*0/8000 = 25, B 25 + 25*4000/8000 = 37 -> B.
//   2-GPU pod: with B's class counts (share-gpu only), B is "other classes only":
//   25*(8000-3500)/8000 = 14; A is empty: 25 -> A. Without the counts (Reserve never called) B
//   read as empty: 25 + 14 = 39 -> B.
TEST(ReviewDefects, GpuClusteringBuiltinProfileKeepsItsClassCounts) {
  const cluster::GpuCatalog catalog = two_model_catalog();
  cluster::ClusterState state(catalog, {{"A", 64000, 131072, 8, 0, {}, {}}, {"B", 64000, 131072, 4, 0, {}, {}}});
  const sched::Registry registry = policy::builtin_registry();
  const std::vector<cluster::PodSpec> workload;
  sched::Framework framework(config::builtin_profile("gpu-clustering"), registry, {&catalog, workload, 1, 2}, state);
  const auto share = framework.schedule(pod(1000, 1, 500, "share"));
  ASSERT_TRUE(share);
  EXPECT_EQ(share->node, 1U);
  const auto whole = framework.schedule(pod(1000, 2, 1000, "two-gpus"));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->node, 0U) << "B's share-gpu count was not kept: the Reserve hook did not run";
}

// Item 1, generally: a plugin that implements an extension point its profile leaves off.
TEST(ReviewDefects, APluginOffItsReservePointIsReported) {
  Bench bench;
  sched::Profile profile = config::builtin_profile("gpu-clustering");
  profile.reserve.clear();
  try {
    sched::Framework framework(profile, bench.registry, bench.context(), bench.state);
    FAIL() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plugin 'gpu-clustering' implements reserve"), std::string::npos) << e.what();
  }
}

// Item 8: a profile without gpu-fit used to crash in allocate(); it is refused when built.
TEST(ReviewDefects, AProfileWithoutGpuFitIsRefused) {
  Bench bench;
  sched::Profile profile = config::builtin_profile("bestfit");
  profile.filter = {"node-resources-fit"};
  EXPECT_THROW(sched::Framework(profile, bench.registry, bench.context(), bench.state), core::InputError);
}

// Item 5: nodes of 1, 63 and 64 GPUs take pods on their last GPU; 64 used to be an internal
// error (a shift by 64 is undefined). Since the device limit is 128 (issue 28), nodes across and at
// the end of the set's words do too.
TEST(ReviewDefects, NodesWithUpTo128Gpus) {
  for (const int gpus : {1, 63, 64, 65, 100, 127, 128}) {
    const cluster::GpuCatalog catalog = two_model_catalog();
    cluster::ClusterState state(catalog, {{"big", 1'000'000, 1'000'000, gpus, 0, {}, {}}});
    const cluster::PodSpec whole = pod(1, gpus, 1000);
    cluster::Placement all{0, {}};
    for (int g = 0; g < gpus; ++g) all.gpus.add(g);
    ASSERT_TRUE(state.fits(whole, all)) << gpus;
    state.allocate(whole, all);
    EXPECT_EQ(state.gpus_in_use(), gpus);
    state.release(whole, all);
    const auto last = at(0, {gpus - 1});
    state.allocate(pod(1, 1, 300), last);
    EXPECT_EQ(state.allocated_gpu_milli(), 300);
    state.check_invariants();
    // And through a framework, filling the node GPU by GPU (one pod each: no pod-count limit).
    cluster::NodeSpec big{"big", 1'000'000, 1'000'000, gpus, 0, {}, {}};
    big.max_pods = 0;
    cluster::ClusterState fresh(catalog, {big});
    const sched::Registry registry = policy::builtin_registry();
    const std::vector<cluster::PodSpec> workload;
    sched::Framework framework(config::builtin_profile("bestfit"), registry, {&catalog, workload, 1, 1}, fresh);
    for (int g = 0; g < gpus; ++g) ASSERT_TRUE(framework.schedule(pod(1, 1, 1000))) << gpus << " GPUs, pod " << g;
    EXPECT_FALSE(framework.schedule(pod(1, 1, 1000)));
    fresh.check_invariants();
  }
}

}  // namespace
}  // namespace gpusim::testing
