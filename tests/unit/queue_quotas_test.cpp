// Queue quotas: the book's arithmetic (real capability, deserved GPUs from the quotas or by
// water-filling the weights, reclaim rules). Volcano's Queue reader, which fills them, has its own
// tests (tests/unit/volcano_queues_test.cpp).
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/queue_quotas.hpp"

namespace gpusim::k8s {
namespace {

QueueQuotas quotas_of(std::vector<QueueQuota> queues) {
  QueueQuotas q;
  q.queues = std::move(queues);
  return q;
}

TEST(QuotaBook, RealCapabilityLeavesTheOtherQueuesGuaranteesFree) {
  // 8 GPUs; a: deserved 6, guarantee 2; b: deserved 1, capability 4; c: guarantee 3 (deserved
  // raised to it). Real capabilities: a min(inf, 8 - 5 + 2) = 5, b min(4, 8 - 5) = 3, c 8 - 5 + 3 = 6.
  QueueQuota a, b, c;
  a.deserved_milli = 6000;
  a.guarantee_milli = 2000;
  b.deserved_milli = 1000;
  b.capability_milli = 4000;
  c.guarantee_milli = 3000;
  QuotaBook book(quotas_of({a, b, c}), false, 8000);
  EXPECT_EQ(book.real_capability(0), 5000);
  EXPECT_EQ(book.real_capability(1), 3000);
  EXPECT_EQ(book.real_capability(2), 6000);
  EXPECT_EQ(book.deserved(0), 5000);  // capped by its real capability
  EXPECT_EQ(book.deserved(1), 1000);
  EXPECT_EQ(book.deserved(2), 3000);  // raised to its guarantee
  book.add_held(1, 2500);
  EXPECT_TRUE(book.allocatable(1, 500));
  EXPECT_FALSE(book.allocatable(1, 501));
  EXPECT_FALSE(book.may_reclaim(1, 500));  // b holds more than its deserved 1 already
  EXPECT_TRUE(book.may_take_from(1, 0, 1000));
  EXPECT_TRUE(book.may_take_from(1, 1000, 1000));   // 1.5 left, still above its deserved 1
  EXPECT_FALSE(book.may_take_from(1, 1500, 1000));  // 1 left: no longer above it
  EXPECT_DOUBLE_EQ(book.share(1), 2.5);
}

TEST(QuotaBook, AGuaranteeIsNeverReclaimed) {
  QueueQuota a;
  a.deserved_milli = 1000;
  a.guarantee_milli = 1000;
  QuotaBook book(quotas_of({a, QueueQuota{}}), false, 4000);
  book.add_held(0, 3000);
  EXPECT_TRUE(book.may_take_from(0, 0, 2000));   // 3 - 2 = 1, its guarantee
  EXPECT_FALSE(book.may_take_from(0, 0, 2001));  // would leave it less
  QueueQuota fixed = a;
  fixed.reclaimable = false;
  QuotaBook kept(quotas_of({fixed, QueueQuota{}}), false, 4000);
  kept.add_held(0, 3000);
  EXPECT_FALSE(kept.may_take_from(0, 0, 1000));
}

TEST(QuotaBook, ProportionWaterFillsTheWeightsOverWhatQueuesAsk) {
  // 8 GPUs; weights 1, 3, 4; a asks 10, b asks 1, c asks nothing. Round 1 among a and b (weights
  // 4): a 8 x 1/4 = 2, b min(6, 1) = 1 (met). Round 2: 5 left, all to a: 7.
  QueueQuota a, b, c;
  b.weight = 3;
  c.weight = 4;
  QuotaBook book(quotas_of({a, b, c}), true, 8000);
  book.add_held(0, 4000);
  book.add_waiting(0, 6000);
  book.add_waiting(1, 1000);
  book.refresh();
  EXPECT_EQ(book.deserved(0), 7000);
  EXPECT_EQ(book.deserved(1), 1000);
  EXPECT_EQ(book.deserved(2), 0);
  EXPECT_DOUBLE_EQ(book.share(2), 0.0);
  // c asks 8 now. Round 1 (weights 8): a 1, b min(3, 1) = 1 (met), c 4; round 2: the 2 left go
  // to a and c (weights 5): a +0.4, c +1.6.
  book.add_waiting(2, 8000);
  book.refresh();
  EXPECT_EQ(book.deserved(0), 1400);
  EXPECT_EQ(book.deserved(1), 1000);
  EXPECT_EQ(book.deserved(2), 5600);
}

TEST(QuotaBook, ProportionStartsFromTheGuaranteesAndNeverGivesMoreThanTheCluster) {
  // 6 GPUs, weights 1; c is guaranteed 2 and asks 1, a and b ask 10 each. c keeps its 2 (met);
  // the other 4 go to a and b: 2 each. 6 in all.
  QueueQuota c;
  c.guarantee_milli = 2000;
  QuotaBook book(quotas_of({QueueQuota{}, QueueQuota{}, c}), true, 6000);
  book.add_waiting(0, 10000);
  book.add_waiting(1, 10000);
  book.add_waiting(2, 1000);
  book.refresh();
  EXPECT_EQ(book.deserved(0), 2000);
  EXPECT_EQ(book.deserved(1), 2000);
  EXPECT_EQ(book.deserved(2), 2000);
}

TEST(QuotaBook, GuaranteesBeyondTheClusterAreRefused) {
  QueueQuota a;
  a.guarantee_milli = 3000;
  EXPECT_THROW(QuotaBook(quotas_of({a, a}), false, 5000), core::InputError);
}

TEST(QuotaBook, WithoutQueuesEveryQueueHasVolcanosDefaults) {
  const QueueQuotas none = default_queue_quotas(0);
  ASSERT_EQ(none.queues.size(), 1u);  // Volcano's queue "default"
  const QueueQuotas three = default_queue_quotas(3);
  ASSERT_EQ(three.queues.size(), 3u);
  for (const QueueQuota& q : three.queues) {
    EXPECT_EQ(q.weight, 1);
    EXPECT_TRUE(q.reclaimable);
    EXPECT_FALSE(q.deserved_milli.has_value());
    EXPECT_FALSE(q.capability_milli.has_value());
    EXPECT_EQ(q.guarantee_milli, 0);
  }
  EXPECT_EQ(three.file, "");
}

}  // namespace
}  // namespace gpusim::k8s
