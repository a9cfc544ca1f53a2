// `gpusim trace inspect` and `gpusim trace synth` through the real binary: a synthetic log is a
// gpusim output that replays, the same seed gives the same log, and the mistakes people make
// (a foreign --out, a trace of fractions, a mistyped name, no jobs) fail before anything is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

TEST(TraceCli, InspectPrintsTheJobsArrivalsAndDemand) {
  const auto dir = fresh_dir("trace_inspect");
  const auto result = run_gpusim(dir, "trace inspect --workload philly --bins 4");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("workload philly: 82247 jobs (82755 pods, 289 gangs), 15 queues"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("GPU-hours 978078.5; cluster philly: 2490 GPUs on 552 nodes"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("arrivals over 108.90 days (31.5 jobs per hour)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("p50 1144"), std::string::npos) << result.out;
  EXPECT_TRUE(fs::is_empty(dir));  // inspect writes nothing
}

TEST(TraceCli, ASyntheticLogIsReproducibleAndReplays) {
  const auto dir = fresh_dir("trace_synth");
  const char* synth = "trace synth --workload philly --jobs 2000 --load 4 --seed 7 --out synth";
  const auto first = run_gpusim(dir, synth);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string log = slurp(dir / "synth" / "jobs.csv");
  // An earlier synthetic log is gpusim's own output: it is replaced, with the same content.
  const auto second = run_gpusim(dir, synth);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(slurp(dir / "synth" / "jobs.csv"), log);
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2001);
  const auto meta = nlohmann::json::parse(slurp(dir / "synth" / "synth.json"));
  EXPECT_EQ(meta["seed"], 7);
  EXPECT_EQ(meta["source"]["jobs"], 82247);
  const auto replay = run_gpusim(dir, "run --workload synth/jobs.csv --mode replay --policy tiresias --out replay");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "replay" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["cluster"], "philly");
  EXPECT_EQ(summary["policies"][0]["runs"][0]["completed_jobs"], 2000);
}

TEST(TraceCli, MistakesFailBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("trace_mistakes");
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "keep me\n";
  const auto foreign = run_gpusim(dir, "trace synth --workload philly --jobs 10 --out mine");
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("mine"), std::string::npos) << foreign.err;
  EXPECT_EQ(slurp(dir / "mine" / "notes.txt"), "keep me\n");

  const auto fractions = run_gpusim(dir, "trace synth --workload openb:default --jobs 10 --out out");
  EXPECT_EQ(fractions.exit_code, 1);
  EXPECT_NE(fractions.err.find("a synthetic log is fitted to a trace of"), std::string::npos) << fractions.err;
  EXPECT_FALSE(fs::exists(dir / "out"));

  const auto typo = run_gpusim(dir, "trace inspect --workload phily");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("philly"), std::string::npos) << typo.err;

  const auto none = run_gpusim(dir, "trace synth --workload philly --jobs 0 --out out");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace gpusim::testing
