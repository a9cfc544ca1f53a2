#include <gtest/gtest.h>

#include "sim/metrics/fragmentation.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::metrics {
namespace {

using testing::pod;

TEST(TypicalPods, KeepsTheMostPopularShapesUpToTheThreshold) {
  std::vector<cluster::PodSpec> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(pod(1000, 1, 500));
  for (int i = 0; i < 3; ++i) pods.push_back(pod(2000, 1, 1000));
  pods.push_back(pod(4000, 0, 0));
  // 6 + 3 = 9 of 10 pods: 90% is covered by two shapes, 95% needs all three.
  const auto at90 = typical_pods(pods, 0.90);
  ASSERT_EQ(at90.size(), 2U);
  EXPECT_EQ(at90[0].gpu_milli, 500);
  EXPECT_DOUBLE_EQ(at90[0].probability, 6.0 / 9.0);
  EXPECT_DOUBLE_EQ(at90[1].probability, 3.0 / 9.0);
  const auto at95 = typical_pods(pods, 0.95);
  ASSERT_EQ(at95.size(), 3U);
  EXPECT_DOUBLE_EQ(at95[2].probability, 0.1);
}

TEST(TypicalPods, EqualCountsOrderByLargerCpuFirst) {
  std::vector<cluster::PodSpec> pods{pod(1000, 1, 500), pod(3000, 1, 500), pod(2000, 0, 0)};
  const auto shapes = typical_pods(pods, 1.0);
  ASSERT_EQ(shapes.size(), 3U);
  EXPECT_EQ(shapes[0].cpu_milli, 3000);
  EXPECT_EQ(shapes[1].cpu_milli, 2000);
  EXPECT_EQ(shapes[2].cpu_milli, 1000);
}

// Worked by hand. Workload: 3 x (1 CPU, 1 GPU x 600) and 1 x (2 CPU, 2 GPU x 1000), so
// p = 0.75 and 0.25. Node: 1.5 CPU free, GPUs free [1000, 400, 700, 0]; idle = 2100.
//  shape 1: CPU fits, two GPUs have >= 600 -> Q3; the 400 on GPU 1 is unusable -> Q2 += 0.75*400
//  shape 2: CPU short (2000 > 1500), one fully free GPU of two needed -> Q1 += 0.25*2100
// F = 300 + 525 = 825.
TEST(Fragmentation, HandWorkedNode) {
  std::vector<cluster::PodSpec> pods{pod(1000, 1, 600), pod(1000, 1, 600), pod(1000, 1, 600), pod(2000, 2, 1000)};
  const auto workload = typical_pods(pods, 1.0);
  const std::int32_t free[] = {1000, 400, 700, 0};
  const auto buckets = fragmentation_buckets(workload, {1500, free, 0});
  EXPECT_DOUBLE_EQ(buckets[static_cast<int>(FragBucket::kQ1)], 525.0);
  EXPECT_DOUBLE_EQ(buckets[static_cast<int>(FragBucket::kQ2)], 300.0);
  EXPECT_DOUBLE_EQ(buckets[static_cast<int>(FragBucket::kQ3)], 1275.0);
  EXPECT_DOUBLE_EQ(fragmentation_milli(buckets), 825.0);
}

// CPU-only shapes count all idle GPU milli (XL if the CPU fits, XR if not); a shape whose model
// the node lacks counts it as no-access.
TEST(Fragmentation, CpuOnlyAndInaccessibleShapesCountAllIdleMilli) {
  std::vector<cluster::PodSpec> pods{pod(1000, 0, 0), pod(1000, 1, 500)};
  pods[1].allowed_models.add(1);  // model B only
  const auto workload = typical_pods(pods, 1.0);
  const std::int32_t free[] = {1000, 500};
  const auto buckets = fragmentation_buckets(workload, {500, free, 0});  // model A node, CPU short
  EXPECT_DOUBLE_EQ(buckets[static_cast<int>(FragBucket::kXR)], 750.0);
  EXPECT_DOUBLE_EQ(buckets[static_cast<int>(FragBucket::kNoAccess)], 750.0);
  EXPECT_DOUBLE_EQ(fragmentation_milli(buckets), 1500.0);
}

TEST(Fragmentation, FullNodeHasNone) {
  std::vector<cluster::PodSpec> pods{pod(1000, 1, 600)};
  const auto workload = typical_pods(pods, 1.0);
  const std::int32_t free[] = {0, 0};
  EXPECT_DOUBLE_EQ(fragmentation_milli(workload, {0, free, 0}), 0.0);
}

}  // namespace
}  // namespace gpusim::metrics
