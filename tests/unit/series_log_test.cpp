// The compact time series (sim/experiment/series_log.hpp): every point reads back as pushed, across
// chunk boundaries and for values whose differences overflow 64 bits.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "sim/experiment/series_log.hpp"

namespace gpusim::experiment {
namespace {

bool same(const SeriesPoint& a, const SeriesPoint& b) {
  return a.time_us == b.time_us && a.arrived_gpu_milli == b.arrived_gpu_milli && a.allocated_gpu_milli == b.allocated_gpu_milli &&
         a.gpus_in_use == b.gpus_in_use && a.running_pods == b.running_pods && a.pending_pods == b.pending_pods;
}

TEST(SeriesLog, EveryPointReadsBackInOrderAcrossChunks) {
  std::mt19937_64 rng(3);
  std::vector<SeriesPoint> pushed;
  SeriesLog log;
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.begin(), log.end());
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min(), highest = std::numeric_limits<std::int64_t>::max();
  SeriesPoint regular;  // a replay's points; between them, now and then, an extreme one
  for (int i = 0; i < 200'000; ++i) {
    SeriesPoint p;
    if (i % 1000 == 7) {
      // Extremes: differences that wrap around 64 bits, and the widest varints.
      p = {i % 2 == 0 ? lowest : highest, highest, lowest, -1, 0, i % 3 == 0 ? lowest : 1};
    } else {
      regular.time_us += static_cast<std::int64_t>(rng() % 1'000'000);
      regular.allocated_gpu_milli = static_cast<std::int64_t>(rng() % 2'490'000);
      regular.gpus_in_use = static_cast<std::int64_t>(rng() % 2490);
      regular.running_pods += static_cast<std::int64_t>(rng() % 3) - 1;
      regular.pending_pods = static_cast<std::int64_t>(rng() % 50'000) - 25'000;
      p = regular;
    }
    log.push(p);
    pushed.push_back(p);
  }
  ASSERT_EQ(log.size(), pushed.size());
  EXPECT_GT(log.bytes(), SeriesLog::kChunkBytes);  // the test crossed chunks
  std::size_t i = 0;
  for (const SeriesPoint& point : log) {
    ASSERT_LT(i, pushed.size());
    ASSERT_TRUE(same(point, pushed[i])) << "point " << i;
    ++i;
  }
  EXPECT_EQ(i, pushed.size());
  // A copy reads the same; so does a log moved to, and the one moved from is empty.
  const SeriesLog copy = log;
  i = 0;
  for (const SeriesPoint& point : copy) ASSERT_TRUE(same(point, pushed[i++]));
  SeriesLog moved = std::move(log);
  EXPECT_EQ(moved.size(), pushed.size());
  EXPECT_TRUE(log.empty());  // NOLINT(bugprone-use-after-move): a moved-from log is defined empty
  EXPECT_EQ(log.begin(), log.end());
  log.push(pushed[0]);
  EXPECT_TRUE(same(*log.begin(), pushed[0]));
}

TEST(SeriesLog, AReplaySampleTakesAFewBytes) {
  // Points as a replay samples them: time moves on by seconds, the rest by a pod or a GPU.
  SeriesLog log;
  SeriesPoint p{0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 100'000; ++i) {
    p.time_us += 1'000'000 * (1 + i % 600);
    p.allocated_gpu_milli += (i % 2 == 0 ? 1000 : -1000);
    p.gpus_in_use += (i % 2 == 0 ? 1 : -1);
    p.running_pods += (i % 2 == 0 ? 1 : -1);
    log.push(p);
  }
  EXPECT_LE(log.bytes(), 100'000u * 12);  // against 48 bytes as a struct
}

}  // namespace
}  // namespace gpusim::experiment
