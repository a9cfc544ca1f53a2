// The preemptor's room ceiling (policies/preemption/room_ceiling.hpp): free room plus what the
// victims of the groups a rule may take from hold, per node; a pod fitting no node's ceiling finds
// no victims anywhere.
#include "policies/preemption/room_ceiling.hpp"

#include <gtest/gtest.h>

#include "tests/scenario/test_cluster.hpp"

namespace gpusim::policy {
namespace {

using testing::at;
using testing::pod;

TEST(RoomCeiling, CountsFreeRoomAndOnlyTheVictimsOfTheGroupsTaken) {
  const cluster::GpuCatalog catalog = testing::two_model_catalog();
  cluster::ClusterState state{catalog, testing::three_nodes()};  // GPUs: n0 2, n1 8, n2 4
  // n1 is full: 4 GPUs of group 0 and 4 of group 1; n0 and n2 hold nothing of either.
  const cluster::PodSpec four = pod(1000, 4, 1000);
  state.allocate(four, at(1, {0, 1, 2, 3}));
  state.allocate(four, at(1, {4, 5, 6, 7}));
  RoomCeiling ceiling(3, 2);
  ceiling.add_victim(1, 0, 4, four, 1);
  ceiling.add_victim(1, 1, 4, four, 1);
  const std::uint8_t none[] = {0, 0}, group0[] = {1, 0}, both[] = {1, 1};
  ceiling.measure(state, none);
  EXPECT_TRUE(ceiling.fits_somewhere(pod(1000, 4, 1000))) << "n2 is free";
  EXPECT_FALSE(ceiling.fits_somewhere(pod(1000, 5, 1000)));
  ceiling.measure(state, group0);
  EXPECT_FALSE(ceiling.fits_somewhere(pod(1000, 5, 1000))) << "only 4 of n1's GPUs may be taken";
  ceiling.measure(state, both);
  EXPECT_TRUE(ceiling.fits_somewhere(pod(1000, 8, 1000)));
  // A victim gone (or whose eviction was asked for) no longer counts.
  ceiling.add_victim(1, 1, 4, four, -1);
  ceiling.measure(state, both);
  EXPECT_FALSE(ceiling.fits_somewhere(pod(1000, 8, 1000)));
  // CPU counts as GPUs do: n2 has 16 cores.
  EXPECT_FALSE(ceiling.fits_somewhere(pod(70000, 1, 1000)));
  EXPECT_TRUE(ceiling.fits_somewhere(pod(16000, 1, 1000)));
}

}  // namespace
}  // namespace gpusim::policy
