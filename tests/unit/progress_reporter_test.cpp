// Progress lines: what they say about the runs' slots, and how the reporter writes them (a live
// line rewritten in place and erased at the end, or plain lines).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/core/run_progress.hpp"
#include "sim/io/progress_reporter.hpp"

namespace gpusim::io {
namespace {

constexpr std::int64_t kDay = 86'400'000'000;

constexpr std::int64_t kSecond = 1'000'000'000;  // in the slots' nanoseconds

void set(core::RunProgress& run, core::RunProgress::State state, std::int64_t simulated_us = 0, std::int64_t span_us = 0,
         std::int64_t started_ns = 0, std::int64_t finished_ns = 0) {
  run.state = state;
  run.simulated_us = simulated_us;
  run.span_us = span_us;
  run.started_ns = started_ns;
  run.finished_ns = finished_ns;
}

// Everything written to a temporary FILE*.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

TEST(ProgressReporter, SnapshotCountsRunsAndTheRunningOnesSimulatedTime) {
  std::vector<core::RunProgress> runs(5);
  set(runs[0], core::RunProgress::kDone, 0, 0, 1 * kSecond, 11 * kSecond);  // took 10 s
  // At 21 s: ran 20 s for a quarter of its span, so 60 s to go.
  set(runs[1], core::RunProgress::kRunning, 10 * kDay, 40 * kDay, 1 * kSecond);
  set(runs[2], core::RunProgress::kRunning, 30 * kDay, 40 * kDay, 11 * kSecond);
  set(runs[3], core::RunProgress::kRunning, 39 * kDay, 40 * kDay, 11 * kSecond);
  const ProgressSnapshot s = take_snapshot(runs, 21 * kSecond);
  EXPECT_EQ(s.total, 5U);
  EXPECT_EQ(s.done, 1U);
  EXPECT_EQ(s.running, 3U);
  EXPECT_EQ(s.simulated_min_us, 10 * kDay);
  EXPECT_EQ(s.simulated_max_us, 39 * kDay);
  EXPECT_EQ(s.span_us, 40 * kDay);
  // The slowest running run decides: the waiting one (10 s, as the run done) fits beside it.
  EXPECT_NEAR(s.seconds_left, 60, 1e-9);
  // A run past its span (a queue that outlasts the trace): no estimate.
  set(runs[3], core::RunProgress::kRunning, 50 * kDay, 40 * kDay, 11 * kSecond);
  EXPECT_TRUE(std::isnan(take_snapshot(runs, 21 * kSecond).seconds_left));
}

TEST(ProgressReporter, WaitingRunsShareTheRunningRunsThreads) {
  std::vector<core::RunProgress> runs(14);
  set(runs[0], core::RunProgress::kDone, 0, 0, 1 * kSecond, 11 * kSecond);
  set(runs[1], core::RunProgress::kDone, 0, 0, 1 * kSecond, 11 * kSecond);
  // Half way after 5 s: 5 s left each.
  set(runs[2], core::RunProgress::kRunning, 50, 100, 11 * kSecond);
  set(runs[3], core::RunProgress::kRunning, 50, 100, 11 * kSecond);
  // Ten runs of 10 s on two threads, after the running ones' 5 s each.
  EXPECT_NEAR(take_snapshot(runs, 16 * kSecond).seconds_left, (5 + 5 + 10 * 10) / 2.0, 1e-9);
  // Nothing done, the running run's span unknown: nothing to go on.
  std::vector<core::RunProgress> fresh(2);
  set(fresh[0], core::RunProgress::kRunning, 50, 0, 11 * kSecond);
  EXPECT_TRUE(std::isnan(take_snapshot(fresh, 16 * kSecond).seconds_left));
}

TEST(ProgressReporter, LineSaysRunsDoneSimulatedTimeElapsedAndTimeLeft) {
  const ProgressStyle style;
  ProgressSnapshot s{35, 12, 7, 10 * kDay + 2 * kDay / 10, 30 * kDay + kDay / 10, 45 * kDay, 168};
  EXPECT_EQ(progress_line(s, 112, style),
            "gpusim: 12/35 runs done, 7 running (simulated 10.2-30.1 of 45.0 d); 1 min 52 s elapsed, about 2 min 48 s left");
  // One run, short times in seconds; a replay whose queue outlasts its trace.
  s = {1, 0, 1, 45'000'000, 45'000'000, 60'000'000, 3};
  EXPECT_EQ(progress_line(s, 9, style), "gpusim: 0/1 runs done, 1 running (simulated 45 of 60 s); 9 s elapsed, about 3 s left");
  s = {1, 0, 1, 90'000'000, 90'000'000, 60'000'000, std::nan("")};
  EXPECT_EQ(progress_line(s, 3, style), "gpusim: 0/1 runs done, 1 running (simulated 90 s, past the 60 s expected); 3 s elapsed");
  // No span known, nothing done yet: no estimate.
  s = {2, 0, 2, 3'600'000'000, 6'600'000'000, 0, std::nan("")};
  EXPECT_EQ(progress_line(s, 4, style), "gpusim: 0/2 runs done, 2 running (simulated 60.0-110.0 min); 4 s elapsed");
  // Nothing posted yet: no simulated time.
  s = {1, 0, 1, 0, 0, 0, std::nan("")};
  EXPECT_EQ(progress_line(s, 0, style), "gpusim: 0/1 runs done, 1 running; 0 s elapsed");
  s = {2, 0, 2, 3'600'000'000, 6'600'000'000, 0, std::nan("")};
  // In the first second, no estimate either.
  s.seconds_left = 100;
  EXPECT_EQ(progress_line(s, 0.4, style), "gpusim: 0/2 runs done, 2 running (simulated 60.0-110.0 min); 0 s elapsed");
  // gpusim-calib's style: families, no simulated time, no estimate.
  ProgressStyle families;
  families.program = "gpusim-calib";
  families.noun = "benchmark families";
  families.simulated_time = false;
  families.time_left = false;
  s = {4, 1, 1, 0, 0, 0, 10};
  EXPECT_EQ(progress_line(s, 3725, families), "gpusim-calib: 1/4 benchmark families done, 1 running; 1 h 2 min elapsed");
}

TEST(ProgressReporter, WallTimeReadsAsPeopleReadIt) {
  EXPECT_EQ(wall_time(0.4), "0 s");
  EXPECT_EQ(wall_time(59.4), "59 s");
  EXPECT_EQ(wall_time(60), "1 min 0 s");
  EXPECT_EQ(wall_time(3599), "59 min 59 s");
  EXPECT_EQ(wall_time(7380), "2 h 3 min");
}

TEST(ProgressReporter, PlainLinesEndWithTheLastOneWhenTheRunsTookTheInterval) {
  std::vector<core::RunProgress> runs(2);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressStyle style;
    style.plain_every = std::chrono::milliseconds(0);  // a line at every look
    ProgressReporter reporter(runs, style, out);
    set(runs[0], core::RunProgress::kDone);
    set(runs[1], core::RunProgress::kDone);
    reporter.finish();
  }
  const std::string text = contents(out);
  EXPECT_TRUE(text.starts_with("gpusim: 0/2 runs done") || text.starts_with("gpusim: 1/2 runs done") ||
              text.starts_with("gpusim: 2/2 runs done"))
      << text;
  EXPECT_NE(text.find("gpusim: 2/2 runs done in 0 s\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << "plain lines are never rewritten";
  std::fclose(out);
}

TEST(ProgressReporter, ShortRunsPrintNoPlainLineAndAnErrorNoLastLine) {
  std::vector<core::RunProgress> runs(1);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressReporter reporter(runs, ProgressStyle{}, out);  // a line every 10 s
    set(runs[0], core::RunProgress::kDone);
    reporter.finish();
  }
  {
    ProgressStyle style;
    style.plain_every = std::chrono::milliseconds(0);
    ProgressReporter reporter(runs, style, out);
    // No finish(): the runs ended with an error.
  }
  const std::string text = contents(out);
  EXPECT_EQ(text.find("done in"), std::string::npos) << text;
  std::fclose(out);
}

TEST(ProgressReporter, LiveLineIsRewrittenCutToTheTerminalAndErased) {
  std::vector<core::RunProgress> runs(3);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressStyle style;
    style.live = true;
    style.columns = 20;
    ProgressReporter reporter(runs, style, out);
    reporter.say("gpusim-calib: gemm (3 of 4) ...");
    reporter.finish();
  }
  const std::string text = contents(out);
  // Drawn at once, 19 columns at most; what was said stays on a line of its own. The thread may
  // draw before or after say(), so what is checked is the order: every drawing is erased before
  // anything else is written, and the last one before the reporter ends.
  EXPECT_NE(text.find("\rgpusim: 0/3 runs do\033[K"), std::string::npos) << text;
  const std::size_t said = text.find("gpusim-calib: gemm (3 of 4) ...\n");
  ASSERT_NE(said, std::string::npos) << text;
  const std::size_t first_draw = text.find("\rgpusim: ");
  if (first_draw < said) {
    EXPECT_EQ(text.substr(said - 4, 4), "\r\033[K") << "erased before the text: " << text;
  }
  const std::size_t last_draw = text.rfind("\rgpusim: ");
  EXPECT_NE(text.find("\r\033[K", last_draw + 1), std::string::npos) << "the last drawing is erased: " << text;
  EXPECT_EQ(text.find("done in"), std::string::npos) << "a terminal keeps only the results";
  std::fclose(out);
}

}  // namespace
}  // namespace gpusim::io
