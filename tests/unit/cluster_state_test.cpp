#include <gtest/gtest.h>

#include "sim/core/check.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::cluster {
namespace {

using testing::at;
using testing::pod;

class ClusterStateTest : public ::testing::Test {
 protected:
  GpuCatalog catalog = testing::two_model_catalog();
  ClusterState state{catalog, testing::three_nodes()};
};

TEST_F(ClusterStateTest, StartsEmpty) {
  EXPECT_EQ(state.total_gpus(), 14);
  EXPECT_EQ(state.allocated_gpu_milli(), 0);
  EXPECT_EQ(state.node_gpu_milli_free(1), 8000);
  state.check_invariants();
}

// The scheduler filters a GPU pod only on nodes this index returns: it must hold every node with
// the share free, and leave out the nodes whose free share, rounded up to GPUs, is short.
TEST_F(ClusterStateTest, NodesWithGpuFreeFollowAllocations) {
  std::vector<std::uint64_t> nodes(state.node_words());
  const auto listed = [&](std::int64_t milli) {
    state.nodes_with_gpu_free(milli, nodes);
    std::vector<int> out;
    for (int n = 0; n < 3; ++n) {
      if ((nodes[0] >> n) & 1U) out.push_back(n);
    }
    return out;
  };
  // Free: n0 2 GPUs, n1 8, n2 4.
  EXPECT_EQ(listed(300), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(listed(3000), (std::vector<int>{1, 2}));
  EXPECT_EQ(listed(8000), (std::vector<int>{1}));
  EXPECT_EQ(listed(9000), (std::vector<int>{}));
  const PodSpec share = pod(4000, 1, 300);
  const PodSpec whole = pod(8000, 4, 1000);
  state.allocate(share, at(2, {0}));   // n2: 3.7 GPUs free, rounded up to 4
  state.allocate(whole, at(1, {0, 1, 2, 3}));  // n1: 4 free
  EXPECT_EQ(listed(3700), (std::vector<int>{1, 2}));
  EXPECT_EQ(listed(4000), (std::vector<int>{1, 2})) << "n2 is a candidate (its filter then says no)";
  EXPECT_EQ(listed(4001), (std::vector<int>{}));
  state.check_invariants();
  state.set_gpu_healthy(1, 7, false);  // an unhealthy GPU leaves the scheduler's view
  EXPECT_EQ(listed(4000), (std::vector<int>{2}));
  state.check_invariants();
  state.release(whole, at(1, {0, 1, 2, 3}));
  EXPECT_EQ(listed(7000), (std::vector<int>{1}));
  state.check_invariants();
}

TEST_F(ClusterStateTest, AllocateAndReleaseKeepTotalsInStep) {
  const PodSpec share = pod(4000, 1, 300);
  const PodSpec whole = pod(8000, 2, 1000);
  state.allocate(share, at(0, {1}));
  state.allocate(whole, at(1, {3, 5}));
  EXPECT_EQ(state.gpu_milli_free(0)[1], 700);
  EXPECT_EQ(state.allocated_gpu_milli(), 2300);
  EXPECT_EQ(state.gpus_in_use(), 3);
  EXPECT_EQ(state.cpu_free(1), 56000);
  state.check_invariants();
  state.release(whole, at(1, {3, 5}));
  state.release(share, at(0, {1}));
  EXPECT_EQ(state.allocated_gpu_milli(), 0);
  EXPECT_EQ(state.gpus_in_use(), 0);
  state.check_invariants();
}

TEST_F(ClusterStateTest, VersionsChangeOnlyOnTheTouchedNode) {
  const auto v0 = state.version(0), v1 = state.version(1);
  state.allocate(pod(1000, 1, 500), at(0, {0}));
  EXPECT_GT(state.version(0), v0);
  EXPECT_EQ(state.version(1), v1);
}

TEST_F(ClusterStateTest, OverAllocationIsRefused) {
  state.allocate(pod(1000, 1, 800), at(0, {0}));
  EXPECT_FALSE(state.fits(pod(1000, 1, 300), at(0, {0})));
  EXPECT_THROW(state.allocate(pod(1000, 1, 300), at(0, {0})), core::InvariantViolation);
  EXPECT_THROW(state.allocate(pod(40000, 0, 0), at(0, {})), core::InvariantViolation) << "CPU beyond capacity";
  EXPECT_THROW(state.allocate(pod(1000, 1, 100), at(2, {4})), core::InvariantViolation) << "GPU index beyond node";
  EXPECT_THROW(state.allocate(pod(1000, 2, 1000), at(1, {0})), core::InvariantViolation) << "fewer GPUs than asked";
  state.check_invariants();
}

TEST_F(ClusterStateTest, ModelConstraintIsEnforced) {
  PodSpec p = pod(1000, 1, 1000);
  p.allowed_models.add(1);  // model B only
  EXPECT_FALSE(state.fits(p, at(0, {0})));
  EXPECT_TRUE(state.fits(p, at(2, {0})));
}

TEST_F(ClusterStateTest, ReleasingWhatWasNeverTakenIsAnError) {
  EXPECT_THROW(state.release(pod(1000, 1, 500), at(0, {0})), core::InvariantViolation);
}

TEST_F(ClusterStateTest, UnhealthyGpuReadsZeroAndTakesNoPods) {
  state.allocate(pod(1000, 1, 400), at(0, {0}));
  state.set_gpu_healthy(0, 0, false);
  EXPECT_EQ(state.gpu_milli_free(0)[0], 0);
  EXPECT_EQ(state.node_gpu_milli_free(0), 1000);
  EXPECT_FALSE(state.fits(pod(1000, 1, 100), at(0, {0})));
  EXPECT_EQ(state.allocated_gpu_milli(), 400) << "the pod already there keeps its share";
  state.check_invariants();
  state.release(pod(1000, 1, 400), at(0, {0}));
  state.set_gpu_healthy(0, 0, true);
  EXPECT_EQ(state.gpu_milli_free(0)[0], 1000);
  EXPECT_EQ(state.node_gpu_milli_free(0), 2000);
  state.check_invariants();
}

// The change log (change_mark, changes_since): every change names its node, in order; a mark older
// than the log keeps is answered with nullopt, so the caller visits every node instead.
TEST_F(ClusterStateTest, ChangeLogListsChangedNodesAndForgetsOldOnes) {
  const std::uint64_t start = state.change_mark();
  PodSpec p;
  p.cpu_milli = 1000;
  p.memory_mib = 1;
  state.allocate(p, {2, {}});
  state.set_present(0, false);
  state.set_present(0, true);
  const auto changes = state.changes_since(start);
  ASSERT_TRUE(changes);
  EXPECT_EQ(std::vector<NodeIndex>(changes->begin(), changes->end()), (std::vector<NodeIndex>{2, 0, 0}));
  EXPECT_TRUE(state.changes_since(state.change_mark())->empty());
  EXPECT_FALSE(state.changes_since(state.change_mark() + 1)) << "a mark from the future";
  // The log holds at most 2 x 3 + 1024 changes: far more drops the oldest.
  for (int i = 0; i < 3000; ++i) state.set_present(1, i % 2 == 1);
  EXPECT_FALSE(state.changes_since(start));
  const std::uint64_t recent = state.change_mark();
  state.set_present(2, false);
  ASSERT_TRUE(state.changes_since(recent));
  EXPECT_EQ(state.changes_since(recent)->size(), 1U);
  EXPECT_EQ(state.changes_since(recent)->front(), 2U);
}

}  // namespace
}  // namespace gpusim::cluster
