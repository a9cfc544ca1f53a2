#include <gtest/gtest.h>

#include <set>

#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/framework.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

sched::Profile dotprod(sched::TieBreak tie) {
  sched::Profile profile = config::builtin_profile("dotprod");
  profile.tie_break = tie;
  return profile;
}

// DotProd scores n0 and n2 98 for this pod (policy_scores_test): a tie.
TEST(Framework, NodeIndexTieBreakTakesTheLowestIndex) {
  Bench bench;
  sched::Framework framework(dotprod(sched::TieBreak::kNodeIndex), bench.registry, bench.context(), bench.state);
  const auto placement = framework.schedule(pod(8000, 1, 500));
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->node, 0U);
  EXPECT_EQ(placement->gpus, at(0, {0}).gpus);
  EXPECT_EQ(bench.state.allocated_gpu_milli(), 500);
}

TEST(Framework, SeededRankTieBreakDependsOnTheSeedOnly) {
  std::set<cluster::NodeIndex> winners;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Bench a, b;
    sched::Framework fa(dotprod(sched::TieBreak::kSeededRank), a.registry, a.context(seed), a.state);
    sched::Framework fb(dotprod(sched::TieBreak::kSeededRank), b.registry, b.context(seed), b.state);
    const auto pa = fa.schedule(pod(8000, 1, 500));
    const auto pb = fb.schedule(pod(8000, 1, 500));
    ASSERT_TRUE(pa && pb);
    EXPECT_EQ(pa->node, pb->node);
    EXPECT_NE(pa->node, 1U) << "n1 scored lower and must never win";
    winners.insert(pa->node);
  }
  EXPECT_EQ(winners.size(), 2U) << "over 20 seeds both tied nodes should win sometimes";
}

TEST(Framework, ModelConstraintAndCapacityAreRespected) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("fgd"), bench.registry, bench.context(), bench.state);
  cluster::PodSpec only_b = pod(1000, 4, 1000);
  only_b.allowed_models.add(1);
  const auto placement = framework.schedule(only_b);
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->node, 2U);
  EXPECT_FALSE(framework.schedule(only_b)) << "n2's four GPUs are taken";
  EXPECT_EQ(framework.last_outcome(), sched::Outcome::kNoFeasibleNode);
  EXPECT_FALSE(framework.schedule(pod(1000, 16, 1000))) << "no node has 16 GPUs";
  bench.state.check_invariants();
}

TEST(Framework, ReleaseGivesResourcesBack) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("gpu-clustering"), bench.registry, bench.context(), bench.state);
  const auto p = pod(1000, 2, 1000);
  const auto placement = framework.schedule(p);
  ASSERT_TRUE(placement);
  framework.release(p, *placement);
  EXPECT_EQ(bench.state.allocated_gpu_milli(), 0);
  bench.state.check_invariants();
}

TEST(Framework, EveryBuiltinProfileBuildsAndPlacesAPod) {
  for (const auto& name : sched::builtin_profile_names()) {
    Bench bench;
    sched::Framework framework(config::builtin_profile(name), bench.registry, bench.context(), bench.state);
    EXPECT_TRUE(framework.schedule(pod(1000, 1, 500))) << name;
    EXPECT_TRUE(framework.schedule(pod(1000, 0, 0))) << name;
    bench.state.check_invariants();
  }
}

TEST(Framework, UnknownOrMisplacedPluginsAreInputErrors) {
  Bench bench;
  sched::Profile profile = config::builtin_profile("fgd");
  profile.score = {{"no-such-plugin", 1}};
  EXPECT_THROW(sched::Framework(profile, bench.registry, bench.context(), bench.state), core::InputError);
  profile = config::builtin_profile("fgd");
  profile.filter.push_back("best-fit");  // a score plugin, not a filter
  EXPECT_THROW(sched::Framework(profile, bench.registry, bench.context(), bench.state), core::InputError);
}

}  // namespace
}  // namespace gpusim::testing
