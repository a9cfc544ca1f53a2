// The KAI Scheduler's fair-share division on the figures its documentation and its own unit tests
// give (kai-scheduler/KAI-Scheduler: docs/scheduling-deep-dive/README.md, cmd/fairshare-simulator/
// README.md, pkg/scheduler/plugins/proportion/resource_division/resource_division_test.go).
#include <gtest/gtest.h>

#include <vector>

#include "sim/k8s/kai_fair_share.hpp"

namespace gpusim::k8s::kai {
namespace {

QueueShareInput queue(const char* name, double quota, double weight, double request, std::int32_t priority = 100,
                      double limit = kUnlimited, std::int32_t parent = -1) {
  QueueShareInput q;
  q.name = name;
  q.quota = quota;
  q.over_quota_weight = weight;
  q.request = request;
  q.priority = priority;
  q.limit = limit;
  q.parent = parent;
  return q;
}

TEST(KaiFairShare, QuotasFirstThenTheSurplusByPriorityThenWeight) {
  // 10 GPUs: Vision (priority 2, quota 2, weight 2), LLM (2, 2, 1), Data Processing (1, 3, 1). The
  // quotas take 7; the 3 left go to the priority-2 tier, 2:1.
  const auto shares = fair_shares(10, 1, {queue("vision", 2, 2, 10, 2), queue("llm", 2, 1, 10, 2), queue("data", 3, 1, 10, 1)});
  EXPECT_EQ(shares, (std::vector<double>{4, 3, 3}));
}

TEST(KaiFairShare, TheSurplusByOverQuotaWeight) {
  // fairshare-simulator's example: 100 GPUs, deserved 10 each, weights 3 and 1, both ask 100.
  EXPECT_EQ(fair_shares(100, 1, {queue("q1", 10, 3, 100), queue("q2", 10, 1, 100)}), (std::vector<double>{70, 30}));
}

TEST(KaiFairShare, ALimitCapsAShareAndTheRestGoesOnInRounds) {
  // "Request more than total with different Over Quota": 1000 GPUs; quotas 250 and 150, weights 1 and 2.
  EXPECT_EQ(fair_shares(1000, 1, {queue("q1", 250, 1, 5000), queue("q2", 150, 2, 5000)}), (std::vector<double>{450, 550}));
  // The same with q2 limited to 400: it is satisfied in the first round, and q1 takes the rest in a second.
  EXPECT_EQ(fair_shares(1000, 1, {queue("q1", 250, 1, 5000), queue("q2", 150, 2, 5000, 100, 400)}), (std::vector<double>{600, 400}));
}

TEST(KaiFairShare, AFractionLeftOverGoesAsAWholeUnitToTheOlderQueue) {
  // "divide last remaining GPU": 5 GPUs, quotas 2, weights 2, both ask 3: each is offered 0.5, rounded
  // down to 0; the residue pass gives the last GPU to the first queue.
  EXPECT_EQ(fair_shares(5, 1, {queue("1", 2, 2, 3), queue("2", 2, 2, 3)}), (std::vector<double>{3, 2}));
}

TEST(KaiFairShare, FractionalRequestsAreMetExactly) {
  // "fractional fair share": 45 GPUs; requests 32.55, 9.5 and 1.65 (the last limited to 2).
  const auto shares = fair_shares(45, 1, {queue("a", 0, 1, 32.55), queue("b", 0, 1, 9.5), queue("c", 0, 1, 1.65, 100, 2)});
  EXPECT_DOUBLE_EQ(shares[0], 32.55);
  EXPECT_DOUBLE_EQ(shares[1], 9.5);
  EXPECT_DOUBLE_EQ(shares[2], 1.65);
}

TEST(KaiFairShare, ChildrenDivideTheirParentsFairShare) {
  // Two departments (quota 0, weights 1 and 3) over 8 GPUs, each asking more than all; the second's
  // two projects (quota 1 each, weights 1 and 1) split its 6: 1 + 2 each.
  const std::vector<QueueShareInput> queues{queue("dept-a", 0, 1, 0), queue("dept-b", 0, 3, 0), queue("a1", 0, 1, 20, 100, kUnlimited, 0),
                                            queue("b1", 1, 1, 20, 100, kUnlimited, 1), queue("b2", 1, 1, 20, 100, kUnlimited, 1)};
  EXPECT_EQ(fair_shares(8, 1, queues), (std::vector<double>{2, 6, 2, 3, 3}));
  // A queue whose limit is left out (0) gets nothing, whatever its quota.
  EXPECT_EQ(fair_shares(8, 1, {queue("capped", 4, 1, 8, 100, 0), queue("open", 0, 1, 8)}), (std::vector<double>{0, 8}));
}

TEST(KaiFairShare, HistoricalUsageShiftsTheSurplus) {
  // Time-based fairness (k = 1): equal weights, but the first queue used half the cluster lately and
  // the second nothing: s = max(0, 0.5 + (0.5 - 0.5)) = 0.5 and 0.5 + (0.5 - 0) = 1.
  std::vector<QueueShareInput> queues{queue("heavy", 0, 1, 16), queue("light", 0, 1, 16)};
  queues[0].usage = 0.5;
  EXPECT_EQ(fair_shares(15, 1, queues), (std::vector<double>{5, 10}));
  EXPECT_EQ(fair_shares(15, 0, queues), (std::vector<double>{8, 7}));
}

}  // namespace
}  // namespace gpusim::k8s::kai
