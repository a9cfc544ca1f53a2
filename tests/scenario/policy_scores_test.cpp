// Each policy on the three-node cluster of test_cluster.hpp, with the expected scores worked
// out by hand in the comments (formulas in policies/README.md).
#include <gtest/gtest.h>

#include <array>

#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

using Scores = std::vector<std::int64_t>;

// dot = (cpu_free/128000)(cpu/128000) + (gpu_free/8000)(gpu/8000); score = int(100 (1 - dot/2))
// pod (8 cores, 1 x 500): n0 (32000, 2000): dot = .25*.0625 + .25*.0625 = .03125 -> 98.4375 -> 98
// n1 (64000, 8000): .5*.0625 + 1*.0625 = .09375 -> 95.3125 -> 95
// n2 (16000, 4000): .125*.0625 + .5*.0625 = .0390625 -> 98.046875 -> 98
TEST(DotProduct, HandComputedScores) {
  Bench bench;
  EXPECT_EQ(bench.scores("dot-product", pod(8000, 1, 500)), (Scores{98, 95, 98}));
}

// raw = .5 (cpu_free - cpu)/128000 + .5 (gpu_free - gpu)/8000; score = int(100 (1 - raw))
// pod (8 cores, 1 x 1000): n0: .09375 + .0625 = .15625 -> 84; n1: .21875 + .4375 -> 34;
// n2: .03125 + .1875 -> 78. Min-max: (84-34)*100/50 = 100, 0, (78-34)*100/50 = 88.
TEST(BestFit, HandComputedScoresAreMinMaxNormalised) {
  Bench bench;
  EXPECT_EQ(bench.scores("best-fit", pod(8000, 1, 1000)), (Scores{100, 0, 88}));
}

TEST(BestFit, AllEqualScoresNormaliseToZero) {
  Bench bench;
  auto scorer = bench.plugin<sched::ScorePlugin>("best-fit");
  std::vector<sched::NodeScore> scores{{0, 70}, {1, 70}};
  scorer->normalize(scores);
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 0);
}

// n0 has 300 milli taken on GPU 0 (700 free). Pod 1 x 500:
// n0: fits on the partly used GPU 0: s = 700*100/1000 = 70 -> max(100 - 70/10, 50) = 93
// n1: idle, 8 free GPUs: max(33 - 8, 8) = 25; n2: idle, 4: max(33 - 4, 4) = 29
// A 1-GPU whole pod on n0 needs GPU 1, fully free: max(50 - 1, 33) = 49.
TEST(GpuPacking, HandComputedTiers) {
  Bench bench;
  bench.state.allocate(pod(1000, 1, 300), at(0, {0}));
  EXPECT_EQ(bench.scores("gpu-packing", pod(1000, 1, 500)), (Scores{93, 25, 29}));
  EXPECT_EQ(bench.scores("gpu-packing", pod(1000, 1, 1000)), (Scores{49, 25, 29}));
  EXPECT_EQ(bench.scores("gpu-packing", pod(1000, 0, 0)), (Scores{0, 0, 0}));
}

// After a sharing pod is reserved on n1 (7500 milli left), for another sharing pod:
// n0 empty: 25*(8000-2000)/8000 = 18, +25 = 43; n1 same class only: 25*500/8000 = 1, +75 = 76;
// n2 empty: 25*4000/8000 = 12, +25 = 37. For a 1-GPU pod n1 holds another class only: 1.
TEST(GpuClustering, HandComputedBands) {
  Bench bench;
  auto clustering = bench.plugin<sched::ReservePlugin>("gpu-clustering");
  auto* scorer = dynamic_cast<sched::ScorePlugin*>(clustering.get());
  const auto share = pod(1000, 1, 500);
  bench.state.allocate(share, at(1, {0}));
  ASSERT_TRUE(clustering->reserve(share, at(1, {0})).is_ok());
  const auto score_all = [&](const cluster::PodSpec& p) {
    Scores out;
    for (cluster::NodeIndex n = 0; n < 3; ++n) out.push_back(scorer->score(p, n, bench.state, bench.cycle));
    return out;
  };
  EXPECT_EQ(score_all(pod(1000, 1, 200)), (Scores{43, 76, 37}));
  EXPECT_EQ(score_all(pod(1000, 1, 1000)), (Scores{43, 1, 37}));
  EXPECT_EQ(score_all(pod(1000, 0, 0)), (Scores{0, 0, 0}));
  clustering->unreserve(share, at(1, {0}));
  EXPECT_EQ(score_all(pod(1000, 1, 200))[1], 1 + 25) << "n1 holds no class any more";
}

TEST(KubeScores, LeastAndMostAllocated) {
  Bench bench;
  // pod 8 cores, 1 GiB: n0 cpu (32000-8000)*100/32000 = 75, memory (65536-1024)*100/65536 = 98 -> 86
  EXPECT_EQ(bench.scores("least-allocated", pod(8000, 0, 0))[0], 86);
  // most: cpu 25, memory 1 -> 13
  EXPECT_EQ(bench.scores("most-allocated", pod(8000, 0, 0))[0], 13);
  // balanced: fractions .25 and 1/64: spread = (.25 - .015625)/2 = .1171875 -> 88
  EXPECT_EQ(bench.scores("balanced-allocation", pod(8000, 0, 0))[0], 88);
}

// Typical workload: one shape (1 core, 1 x 600). n0 has 100 milli taken on GPU 0: [900, 1000],
// F = 0 (both GPUs still take a 600). score = int(100 sigmoid((F_before - F_after)/1000)).
// Pod 1 x 500: GPU 0 -> [400, 1000], F = 400, int(100 sigmoid(-.4)) = 40;
//              GPU 1 -> [900, 500],  F = 500, int(100 sigmoid(-.5)) = 37. Best: GPU 0, 40.
// Pod 1 x 400: GPU 0 -> [500, 1000], F = 500 -> 37; GPU 1 -> [900, 600], F = 0 -> 50. GPU 1.
// n1 and n2 (idle): one GPU drops to 500 or 600 -> 37 for the 500 pod, 50 for the 400 pod.
TEST(Fgd, HandComputedScoresAndGpuChoice) {
  Bench bench;
  bench.workload = {pod(1000, 1, 600)};
  bench.state.allocate(pod(1000, 1, 100), at(0, {0}));
  auto fgd = bench.plugin<sched::GpuSelector>("fgd");
  auto* scorer = dynamic_cast<sched::ScorePlugin*>(fgd.get());
  const std::vector<cluster::NodeIndex> all{0, 1, 2};
  const auto score_all = [&](const cluster::PodSpec& p) {
    scorer->pre_score(p, all, bench.state, bench.cycle);
    Scores out;
    for (const auto n : all) out.push_back(scorer->score(p, n, bench.state, bench.cycle));
    return out;
  };
  EXPECT_EQ(score_all(pod(1000, 1, 500)), (Scores{40, 37, 37}));
  EXPECT_EQ(fgd->select(pod(1000, 1, 500), 0, bench.state, bench.cycle), at(0, {0}).gpus);
  EXPECT_EQ(score_all(pod(1000, 1, 400)), (Scores{50, 50, 50}));
  EXPECT_EQ(fgd->select(pod(1000, 1, 400), 0, bench.state, bench.cycle), at(0, {1}).gpus);
  // A whole GPU takes the fully free GPU 1: [900, 0] leaves F = 0 -> 50.
  EXPECT_EQ(score_all(pod(1000, 1, 1000))[0], 50);
  EXPECT_EQ(fgd->select(pod(1000, 1, 1000), 0, bench.state, bench.cycle), at(0, {1}).gpus);
  // The cache follows node changes: fill GPU 1 of n0, then the 400 pod must use GPU 0.
  bench.state.allocate(pod(1000, 1, 1000), at(0, {1}));
  EXPECT_EQ(fgd->select(pod(1000, 1, 400), 0, bench.state, bench.cycle), at(0, {0}).gpus);
}

TEST(GpuSelection, BestWorstFirstFit) {
  Bench bench;
  bench.state.allocate(pod(1000, 1, 300), at(1, {2}));  // GPU 2: 700 free
  bench.state.allocate(pod(1000, 1, 600), at(1, {5}));  // GPU 5: 400 free
  const auto pick = [&](const char* name, const cluster::PodSpec& p) {
    return bench.plugin<sched::GpuSelector>(name)->select(p, 1, bench.state, bench.cycle);
  };
  EXPECT_EQ(pick("best", pod(1000, 1, 350)), at(1, {5}).gpus);
  EXPECT_EQ(pick("worst", pod(1000, 1, 350)), at(1, {0}).gpus) << "ties go to the lowest index";
  EXPECT_EQ(pick("first-fit", pod(1000, 1, 350)), at(1, {0}).gpus);
  EXPECT_EQ(pick("best", pod(1000, 2, 1000)), at(1, {0, 1}).gpus) << "whole GPUs: lowest free";
  EXPECT_EQ(pick("best", pod(1000, 1, 500)), at(1, {2}).gpus);
}

TEST(RandomPolicy, PicksOnlyFeasibleNodesAndGpusWithRoom) {
  Bench bench;
  auto random = bench.plugin<sched::ScorePlugin>("random");
  auto* selector = dynamic_cast<sched::GpuSelector*>(random.get());
  bench.state.allocate(pod(1000, 1, 900), at(0, {0}));
  const std::vector<cluster::NodeIndex> feasible{0, 2};
  std::array<int, 3> node_hits{};
  std::array<int, 2> gpu_hits{};
  for (int i = 0; i < 400; ++i) {
    random->pre_score(pod(1000, 1, 500), feasible, bench.state, bench.cycle);
    ++node_hits[static_cast<std::size_t>(bench.cycle.chosen_node)];
    const auto gpus = selector->select(pod(1000, 1, 50), 0, bench.state, bench.cycle);
    ++gpu_hits[gpus.contains(0) ? 0 : 1];
  }
  EXPECT_EQ(node_hits[1], 0);
  EXPECT_NEAR(node_hits[0], 200, 50);
  EXPECT_NEAR(gpu_hits[0], 200, 50) << "both GPUs have room for 50";
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(selector->select(pod(1000, 1, 500), 0, bench.state, bench.cycle), at(0, {1}).gpus);
  }
}

}  // namespace
}  // namespace gpusim::testing
