// Kueue's fair sharing (the Configuration's fairSharing) on the scenarios of Kueue's own integration
// tests (kubernetes-sigs/kueue v0.19.2,
// test/integration/singlecluster/scheduler/fairsharing/fair_sharing_test.go), each reaching the
// outcome and the weighted shares Kueue's test asserts; and the dominant resource share's arithmetic
// (pkg/cache/scheduler/fair_sharing.go).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/unit/kueue_scenario.hpp"

namespace gpusim::k8s::kueue {
namespace {

TEST_F(KueueScenario, FairSharingAdmitsTheQueueWithTheLowerShareWithoutPreempting) {
  // "Preemption is disabled" / "Admits workloads respecting fair share": a 3, b 1 and shared 4 cpu
  // in cohort all.
  load(fair_sharing_configuration() + flavor("default") + cluster_queue("a", "all", {"default:3"}) +
       cluster_queue("b", "all", {"default:1"}) + cluster_queue("shared", "all", {"default:4"}));
  std::vector<WorkloadId> a;
  for (int i = 0; i < 10; ++i) a.push_back(submit("a-" + std::to_string(i), "a", 1, 0));
  settle();
  EXPECT_EQ(admitted_in("a"), 8);
  EXPECT_DOUBLE_EQ(weighted_share("a"), 625.0);  // (8 - 3) borrowed of the cohort's 8
  for (int i = 0; i < 5; ++i) submit("b-" + std::to_string(i), "b", 1, 0);
  settle();
  EXPECT_EQ(admitted_in("b"), 0);  // nothing is preempted
  EXPECT_TRUE(preemptions_.empty());
  // As a's workloads finish one at a time, b (whose share, with the workload, stays lower) takes the
  // quota three times; then a's share is the lower, and a takes it.
  std::size_t finished = 0;
  for (int i = 0; i < 4; ++i) {
    done(a[finished++]);
    settle();
  }
  EXPECT_EQ(admitted_in("a"), 5);
  EXPECT_EQ(admitted_in("b"), 3);
  EXPECT_DOUBLE_EQ(weighted_share("a"), 250.0);
  EXPECT_DOUBLE_EQ(weighted_share("b"), 250.0);
  // Two finish together: one a and one b are admitted.
  done(a[finished++]);
  done(a[finished++]);
  settle();
  EXPECT_EQ(admitted_in("a"), 4);
  EXPECT_EQ(admitted_in("b"), 4);
  EXPECT_DOUBLE_EQ(weighted_share("a"), 125.0);
  EXPECT_DOUBLE_EQ(weighted_share("b"), 375.0);
  EXPECT_EQ(static_cast<std::int64_t>(std::ceil(weighted_share("a"))), 125);  // status.fairSharing.weightedShare
  EXPECT_TRUE(preemptions_.empty());
  // "Shouldn't reserve quota because not enough resources": 10 cpu is more than the cohort's 8.
  const WorkloadId big = submit("big", "a", 10, 0);
  settle();
  EXPECT_EQ(admission_->state(big), WorkloadState::kInadmissible);
  EXPECT_NE(admission_->why_waiting(big).find("insufficient quota for cpu in flavor default"), std::string::npos)
      << admission_->why_waiting(big);
  EXPECT_NE(admission_->why_waiting(big).find("> maximum capacity"), std::string::npos);
}

TEST_F(KueueScenario, FairSharingPreemptsTheQueueWithTheHighestShare) {
  // "Preemption is enabled" / "Admits workloads respecting fair share": a, b, c with 3 cpu each.
  const std::string preempting = "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n";
  load(fair_sharing_configuration() + flavor("default") + cluster_queue("a", "all", {"default:3"}, preempting) +
       cluster_queue("b", "all", {"default:3"}, preempting) + cluster_queue("c", "all", {"default:3"}, preempting));
  for (int i = 0; i < 10; ++i) submit("a-" + std::to_string(i), "a", 1, 0);
  settle();
  EXPECT_EQ(admitted_in("a"), 9);
  EXPECT_NEAR(weighted_share("a"), 6000.0 / 9.0, 1e-9);
  for (int i = 0; i < 5; ++i) submit("b-" + std::to_string(i), "b", 1, 0);
  settle();
  EXPECT_EQ(admitted_in("a"), 5);
  EXPECT_EQ(admitted_in("b"), 4);
  EXPECT_NEAR(weighted_share("a"), 2000.0 / 9.0, 1e-9);
  EXPECT_NEAR(weighted_share("b"), 1000.0 / 9.0, 1e-9);
  // b's first three reclaim what is b's own (within its nominal quota); the fourth wins by fair
  // sharing (b's share with it, 1000/9, is at most a's after losing one, 2000/9).
  int reclaimed = 0, by_fair_sharing = 0;
  for (const auto& p : preemptions_) {
    reclaimed += p.reason == PreemptionReason::kInCohortReclamation ? 1 : 0;
    by_fair_sharing += p.reason == PreemptionReason::kInCohortFairSharing ? 1 : 0;
  }
  EXPECT_EQ(reclaimed, 3);
  EXPECT_EQ(by_fair_sharing, 1);
  submit("c-0", "c", 1, 0);
  settle();
  EXPECT_EQ(admitted_in("a"), 4);
  EXPECT_EQ(admitted_in("b"), 4);
  EXPECT_EQ(admitted_in("c"), 1);
  EXPECT_NEAR(weighted_share("a"), 1000.0 / 9.0, 1e-9);
  EXPECT_NEAR(weighted_share("b"), 1000.0 / 9.0, 1e-9);
  EXPECT_EQ(weighted_share("c"), 0.0);
  EXPECT_EQ(static_cast<std::int64_t>(std::ceil(weighted_share("a"))), 112);
}

TEST_F(KueueScenario, HierarchicalFairSharingAdmitsRoundRobinAcrossCohorts) {
  // "using hierarchical cohorts" / "admits workloads respecting fair share".
  load(fair_sharing_configuration() + flavor("default") + cohort("root", "") + cohort("first-left", "root") +
       cohort("first-right", "root") + cohort("second-left", "first-left") + cohort("second-right", "first-left") +
       cohort("bank", "first-right", "10") + cluster_queue("second-left", "second-left", {"default:2"}) +
       cluster_queue("second-right", "second-right", {"default:2"}));
  EXPECT_EQ(weighted_share("first-left"), 0.0);
  for (int i = 0; i < 5; ++i) {
    submit("l-" + std::to_string(i), "second-left", 1, 0);
    submit("r-" + std::to_string(i), "second-right", 1, 0);
  }
  settle();
  EXPECT_EQ(admitted_in("second-left"), 5);
  EXPECT_EQ(admitted_in("second-right"), 5);
  EXPECT_NEAR(weighted_share("first-left"), 6000.0 / 14.0, 1e-9);
  EXPECT_EQ(weighted_share("first-right"), 0.0);
  EXPECT_EQ(weighted_share("bank"), 0.0);
  // The Cohorts' shares (a ClusterQueue named as its Cohort: the Cohort's is asked by name below).
  const auto& tree = admission_->quotas();
  EXPECT_NEAR(admission_->share(*tree.cohort("second-left")).weighted(), 3000.0 / 14.0, 1e-9);
  EXPECT_NEAR(admission_->share(*tree.cohort("second-right")).weighted(), 3000.0 / 14.0, 1e-9);
}

TEST_F(KueueScenario, HierarchicalFairSharingWithWeightsPreemptsToTheFairShareAtEachLevel) {
  // "using hierarchical cohorts" / "preempts workloads to enforce fair share": 12 cpu at the root;
  // best-effort (weight 0.5) and research {chemistry, physics, llm (weight 2)}.
  const std::string reclaim = "  preemption: {reclaimWithinCohort: LowerPriority}\n";
  load(fair_sharing_configuration() + flavor("default") + cohort("root", "", "12") + cohort("research", "root") +
       cohort("chemistry", "research") + cohort("physics", "research") + cohort("llm", "research", "", "2.0") +
       cohort("best-effort", "root", "", "0.5") + cluster_queue("chemistry-queue", "chemistry", {"default:0"}, reclaim) +
       cluster_queue("physics-queue", "physics", {"default:0"}, reclaim) + cluster_queue("llm-queue", "llm", {"default:0"}, reclaim) +
       cluster_queue("best-effort-queue", "best-effort", {"default:0"}));
  for (int i = 0; i < 6; ++i) {
    submit("be-low-" + std::to_string(i), "best-effort-queue", 1, -1);
    submit("physics-low-" + std::to_string(i), "physics-queue", 1, -1);
  }
  settle();
  EXPECT_DOUBLE_EQ(weighted_share("best-effort"), 1000.0);
  EXPECT_DOUBLE_EQ(weighted_share("physics"), 500.0);
  for (int i = 0; i < 6; ++i) {
    for (const char* cq : {"chemistry-queue", "physics-queue", "llm-queue", "best-effort-queue"}) submit(std::string(cq) + "-high", cq, 1, 100);
  }
  settle();
  int best_effort_preempted = 0, physics_preempted = 0;
  for (const auto& p : preemptions_) {
    const NodeId victim_cq = admission_->spec(p.victim).cluster_queue;
    best_effort_preempted += victim_cq == *admission_->quotas().cluster_queue("best-effort-queue") ? 1 : 0;
    physics_preempted += victim_cq == *admission_->quotas().cluster_queue("physics-queue") ? 1 : 0;
  }
  EXPECT_EQ(best_effort_preempted, 2);
  EXPECT_EQ(physics_preempted, 4);
  EXPECT_NEAR(weighted_share("best-effort"), 4000.0 / 12.0 / 0.5, 1e-9);
  EXPECT_NEAR(weighted_share("research"), 8000.0 / 12.0, 1e-9);
  EXPECT_NEAR(weighted_share("chemistry"), 2000.0 / 12.0, 1e-9);
  EXPECT_NEAR(weighted_share("physics"), 2000.0 / 12.0, 1e-9);
  EXPECT_NEAR(weighted_share("llm"), 4000.0 / 12.0 / 2.0, 1e-9);
  EXPECT_EQ(admitted_in("best-effort-queue"), 4);
  EXPECT_EQ(admitted_in("chemistry-queue"), 2);
  EXPECT_EQ(admitted_in("physics-queue"), 2);
  EXPECT_EQ(admitted_in("llm-queue"), 4);
}

TEST_F(KueueScenario, FairSharingTakesTheFirstCandidateInOrderThatPassesTheStrategy) {
  // a 2, b 2 and an idle lender c 4 cpu in cohort all. a borrows 3 (share 375) with 1, 2 and 2 cpu
  // admitted in that order; b holds its 2 and asks 2 more, borrowing 2 (share 250). Kueue takes a's
  // candidates newest first: without either 2-cpu workload a's share would be 125, below b's, so
  // LessThanOrEqualToFinalShare refuses both (the second by what it uses, untried); without the 1-cpu
  // one it is 250, which passes, and frees enough.
  const std::string reclaim = "  preemption: {reclaimWithinCohort: Any}\n";
  load(fair_sharing_configuration() + flavor("default") + cluster_queue("a", "all", {"default:2"}, reclaim) +
       cluster_queue("b", "all", {"default:2"}, reclaim) + cluster_queue("c", "all", {"default:4"}));
  const WorkloadId small = submit("a-1", "a", 1, 0);
  submit("a-2", "a", 2, 0);
  submit("a-2b", "a", 2, 0);
  settle();
  EXPECT_EQ(admitted_in("a"), 3);
  EXPECT_DOUBLE_EQ(weighted_share("a"), 375.0);
  submit("b-0", "b", 2, 0);
  settle();
  const WorkloadId preemptor = submit("b-1", "b", 2, 0);
  settle();
  ASSERT_EQ(preemptions_.size(), 1u);
  EXPECT_EQ(preemptions_[0].victim, small);
  EXPECT_EQ(preemptions_[0].preemptor, preemptor);
  EXPECT_EQ(preemptions_[0].reason, PreemptionReason::kInCohortFairSharing);
  EXPECT_EQ(admission_->state(preemptor), WorkloadState::kAdmitted);
  // The victim, back in a's queue, would lift a's share to 375, above b's 250: no strategy lets it
  // preempt, and it waits.
  EXPECT_NE(admission_->state(small), WorkloadState::kAdmitted);
  EXPECT_DOUBLE_EQ(weighted_share("a"), 250.0);
  EXPECT_DOUBLE_EQ(weighted_share("b"), 250.0);
}

TEST(KueueDominantResourceShare, AZeroWeightBorrowerRanksAboveEveryFiniteShare) {
  Drs finite;
  finite.ratio = 900;
  finite.weight = 0.5;
  Drs infinite;
  infinite.ratio = 10;
  infinite.weight = 0;
  Drs idle;
  idle.weight = 0;  // weight 0, not borrowing: share 0
  EXPECT_DOUBLE_EQ(finite.weighted(), 1800.0);
  EXPECT_TRUE(std::isinf(infinite.weighted()));
  EXPECT_EQ(idle.weighted(), 0.0);
  EXPECT_EQ(compare(infinite, finite), 1);
  EXPECT_EQ(compare(finite, infinite), -1);
  EXPECT_EQ(compare(idle, finite), -1);
  Drs more_infinite = infinite;
  more_infinite.ratio = 20;
  EXPECT_EQ(compare(more_infinite, infinite), 1);  // among infinite shares, by the unweighted ratio
  EXPECT_EQ(compare(Drs::negative(), idle), -1);
}

}  // namespace
}  // namespace gpusim::k8s::kueue
