// Kueue's admission and classical preemption on scenarios from Kueue's own integration tests
// (kubernetes-sigs/kueue v0.19.2, test/integration/singlecluster/scheduler/preemption_test.go and
// scheduler_test.go), each with the outcome Kueue's test asserts, and its documented borrowing limit
// and queueing strategies (site/content/en/docs/concepts/cluster_queue.md).
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/kueue_scenario.hpp"

namespace gpusim::k8s::kueue {
namespace {

TEST_F(KueueScenario, ReclaimsWithinTheCohortWhenUnderNominalQuota) {
  // "Should preempt Workloads in the cohort borrowing quota, when the ClusterQueue is using less
  // than nominal quota".
  const std::string preempting = "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n";
  load(flavor("default") + cluster_queue("alpha", "all", {"default:2"}, preempting) + cluster_queue("beta", "all", {"default:2"}) +
       cluster_queue("gamma", "all", {"default:2"}, preempting));
  const WorkloadId alpha_low = submit("alpha-low", "alpha", 1, -1);
  const WorkloadId beta_mid = submit("beta-mid", "beta", 1, 0);
  const WorkloadId beta_high = submit("beta-high", "beta", 4, 1);
  EXPECT_EQ(cycles().admitted.size(), 3U);
  const WorkloadId alpha_mid = submit("alpha-mid", "alpha", 2, 0);
  const Decisions d = cycles();
  ASSERT_EQ(d.preempted.size(), 2U);
  EXPECT_TRUE(d.admitted.empty());
  for (const auto& p : d.preempted) {
    EXPECT_EQ(p.preemptor, alpha_mid);
    if (p.victim == alpha_low) EXPECT_EQ(p.reason, PreemptionReason::kInClusterQueue);
    else EXPECT_TRUE(p.victim == beta_mid && p.reason == PreemptionReason::kInCohortReclamation) << p.victim;
  }
  EXPECT_EQ(admission_->state(beta_high), WorkloadState::kAdmitted);
  // Victims keep their quota until their pods are gone; then the preemptor is admitted.
  EXPECT_TRUE(cycles().admitted.empty());
  gone(alpha_low);
  gone(beta_mid);
  const Decisions after = cycles();
  ASSERT_EQ(after.admitted.size(), 1U);
  EXPECT_EQ(after.admitted[0], alpha_mid);
  EXPECT_TRUE(after.preempted.empty());
  EXPECT_NE(admission_->state(alpha_low), WorkloadState::kAdmitted);
}

TEST_F(KueueScenario, DoesNotReclaimWhenThePreemptorWouldBorrow) {
  // "Should not preempt Workloads in the cohort, if the ClusterQueue requires borrowing".
  const std::string preempting = "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n";
  load(flavor("default") + cluster_queue("alpha", "all", {"default:2"}, preempting) + cluster_queue("beta", "all", {"default:2"}) +
       cluster_queue("gamma", "all", {"default:2"}, preempting));
  submit("alpha-high-1", "alpha", 2, 1);
  submit("beta-low", "beta", 4, -1);
  EXPECT_EQ(cycles().admitted.size(), 2U);
  const WorkloadId second = submit("alpha-high-2", "alpha", 2, 1);
  const Decisions d = cycles();
  EXPECT_TRUE(d.admitted.empty());
  EXPECT_TRUE(d.preempted.empty());
  EXPECT_EQ(admission_->state(second), WorkloadState::kInadmissible);
}

TEST_F(KueueScenario, ALendingLimitKeepsQuotaToReclaim) {
  // "Should be able to preempt when lending limit enabled": prod lends 4 of its 5; dev, using 9,
  // gives back the lower-priority 4 when prod asks 4.
  load(flavor("alpha") +
       cluster_queue("prod-cq", "all", {"alpha:5, lendingLimit: 4"}, "  preemption: {reclaimWithinCohort: Any}\n") +
       cluster_queue("dev-cq", "all", {"alpha:5"}));
  const WorkloadId wl1 = submit("wl-1", "dev-cq", 4, 0);
  const WorkloadId wl2 = submit("wl-2", "dev-cq", 5, 1);
  EXPECT_EQ(cycles().admitted.size(), 2U);
  const WorkloadId wl3 = submit("wl-3", "prod-cq", 4, 0);
  const Decisions d = cycles();
  ASSERT_EQ(d.preempted.size(), 1U);
  EXPECT_EQ(d.preempted[0].victim, wl1);
  EXPECT_EQ(d.preempted[0].reason, PreemptionReason::kInCohortReclamation);
  gone(wl1);
  EXPECT_EQ(cycles().admitted, std::vector<WorkloadId>{wl3});
  EXPECT_EQ(flavor_of(wl3), "alpha");
  EXPECT_EQ(admission_->state(wl2), WorkloadState::kAdmitted);
}

TEST_F(KueueScenario, BorrowWithinCohortPreemptsBelowTheThresholdAndTheVictimFallsBack) {
  // "When most quota is in a shared ClusterQueue in a cohort": a-standard-very-high preempts
  // a-best-effort-low while borrowing (its priority is below the threshold 0), takes flavor one, and
  // the victim comes back on flavor fallback; the b workloads are untouched.
  const std::string policy = "  flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: MayStopSearch}\n"
                             "  preemption:\n    reclaimWithinCohort: LowerPriority\n    borrowWithinCohort:\n"
                             "      policy: LowerPriority\n";
  const std::string standard = policy + "      maxPriorityThreshold: 0\n";
  const std::vector<std::string> quotas{"one:1, borrowingLimit: 10", "fallback:10, borrowingLimit: 0"};
  load(flavor("one") + flavor("fallback") + cluster_queue("a-standard", "all", quotas, standard) +
       cluster_queue("a-best-effort", "all", quotas, policy) + cluster_queue("b-standard", "all", quotas, standard) +
       cluster_queue("b-best-effort", "all", quotas, policy) + cluster_queue("shared", "all", {"one:10", "fallback:0"}));
  const WorkloadId a_low = submit("a-best-effort-low", "a-best-effort", 5, -1);
  const WorkloadId b_low = submit("b-best-effort-low", "b-best-effort", 1, -1);
  const WorkloadId b_high = submit("b-standard-high", "b-standard", 5, 1);
  EXPECT_EQ(cycles().admitted.size(), 3U);
  for (const WorkloadId id : {a_low, b_low, b_high}) EXPECT_EQ(flavor_of(id), "one");
  const WorkloadId a_very_high = submit("a-standard-very-high", "a-standard", 7, 2);
  const Decisions d = cycles();
  ASSERT_EQ(d.preempted.size(), 1U);
  EXPECT_EQ(d.preempted[0].victim, a_low);
  EXPECT_EQ(d.preempted[0].reason, PreemptionReason::kInCohortReclaimWhileBorrowing);
  gone(a_low);
  const Decisions after = cycles();
  EXPECT_EQ(after.admitted.size(), 2U);
  EXPECT_EQ(flavor_of(a_very_high), "one");
  EXPECT_EQ(flavor_of(a_low), "fallback");
  EXPECT_EQ(admission_->state(b_low), WorkloadState::kAdmitted);
  EXPECT_EQ(admission_->state(b_high), WorkloadState::kAdmitted);
}

TEST_F(KueueScenario, AHierarchyGivesItsSubtreeTheAdvantageWhateverThePriority) {
  // "In a multi-level cohort": guaranteed-wl (priority 0) preempts best-effort-wl (priority 1),
  // which borrowed the guaranteed cohort's quota.
  const std::string preempting = "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n";
  load(flavor("default") + "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: root}\n" +
       "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: guaranteed}\nspec:\n  parentName: root\n"
       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: 3}]\n" +
       cluster_queue("best-effort", "root", {"default:0"}, preempting) + cluster_queue("guaranteed", "guaranteed", {"default:0"}, preempting));
  const WorkloadId best = submit("best-effort-wl", "best-effort", 3, 1);
  EXPECT_EQ(cycles().admitted.size(), 1U);
  const WorkloadId guaranteed = submit("guaranteed-wl", "guaranteed", 3, 0);
  const Decisions d = cycles();
  ASSERT_EQ(d.preempted.size(), 1U);
  EXPECT_EQ(d.preempted[0].victim, best);
  EXPECT_EQ(d.preempted[0].reason, PreemptionReason::kInCohortReclamation);
  gone(best);
  EXPECT_EQ(cycles().admitted, std::vector<WorkloadId>{guaranteed});
}

TEST_F(KueueScenario, StrictFifoHoldsTheQueueBehindItsHeadBestEffortDoesNot) {
  // concepts/cluster_queue.md, queueingStrategy: a head that does not fit blocks the workloads
  // behind it under StrictFIFO; under BestEffortFIFO they are tried.
  for (const char* strategy : {"StrictFIFO", "BestEffortFIFO"}) {
    load(flavor("default") + cluster_queue("cq", "", {"default:4"}, std::string("  queueingStrategy: ") + strategy + "\n"));
    submit("big", "cq", 3, 0);
    EXPECT_EQ(cycles().admitted.size(), 1U);
    const WorkloadId head = submit("too-big", "cq", 2, 0);
    const WorkloadId small = submit("small", "cq", 1, 0);
    cycles();
    const bool strict = std::string(strategy) == "StrictFIFO";
    EXPECT_EQ(admission_->state(small), strict ? WorkloadState::kPending : WorkloadState::kAdmitted) << strategy;
    EXPECT_EQ(admission_->state(head), strict ? WorkloadState::kPending : WorkloadState::kInadmissible) << strategy;
    EXPECT_NE(admission_->waiting_reason(head).find("insufficient unused quota for cpu in flavor default, 1000 more needed"), std::string::npos)
        << admission_->waiting_reason(head);
  }
}

TEST_F(KueueScenario, ABorrowingLimitAndATaintedFlavorBoundWhatIsAdmitted) {
  // team-a: 9 CPUs and borrowingLimit 1 in a cohort with team-b's 12: at most 10 (cluster_queue.md).
  load(flavor("default") + flavor("spot", "spec:\n  nodeTaints: [{key: spot, value: 'true', effect: NoSchedule}]\n") +
       cluster_queue("team-a-cq", "team-ab", {"default:9, borrowingLimit: 1"}) + cluster_queue("team-b-cq", "team-ab", {"default:12"}) +
       cluster_queue("spot-cq", "", {"spot:8"}));
  const WorkloadId first = submit("a-1", "team-a-cq", 6, 0);
  const WorkloadId second = submit("a-2", "team-a-cq", 5, 0);
  cycles();
  EXPECT_EQ(admission_->state(first), WorkloadState::kAdmitted);
  EXPECT_EQ(admission_->state(second), WorkloadState::kInadmissible);  // 11 > 10
  const WorkloadId fits = submit("a-3", "team-a-cq", 4, 0);
  EXPECT_EQ(cycles().admitted, std::vector<WorkloadId>{fits});
  // A flavor whose taint the pod does not tolerate is never assigned.
  const WorkloadId untolerated = submit("spot-1", "spot-cq", 1, 0);
  cycles();
  EXPECT_EQ(admission_->state(untolerated), WorkloadState::kInadmissible);
  EXPECT_NE(admission_->waiting_reason(untolerated).find("flavor spot doesn't match"), std::string::npos);
  // Finishing a workload frees quota in the cohort tree: what waited aside is tried again.
  done(first);
  EXPECT_EQ(cycles().admitted, std::vector<WorkloadId>{second});
}

}  // namespace
}  // namespace gpusim::k8s::kueue
