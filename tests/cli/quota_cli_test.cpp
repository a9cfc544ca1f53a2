// Queue quotas through the real binary: the quota policies run side by side on a slice of the
// Philly log with Volcano Queue objects, the file is recorded in summary.json, `trace inspect`
// lists the queues, and mistakes (no Queues for capacity, a queue the trace lacks, quotas for a
// policy without them, the retired --queue-quotas) fail before anything is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// The Philly log's first 3,000 jobs (11 virtual clusters; 6214e9 has 2,386 of them).
void philly_slice(const fs::path& dir) {
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly.csv", dir / "slice.csv", 3000);
}

TEST(QuotaCli, TheQuotaPoliciesRunSideBySideWithTheFileRecorded) {
  const auto dir = fresh_dir("quota_compare");
  philly_slice(dir);
  // Every virtual cluster of the log a Queue deserving 10 GPUs, but two.
  std::ofstream queues(dir / "quotas.yaml");
  for (const char* name : {"11cb48", "6214e9", "6c71a0", "ee9e8c", "103959", "0e4a51", "b436b2", "2869ce", "7f04ca",
                           "e13805", "ed69ec", "51b7ef", "925e2b", "795a4c", "23dbec"}) {
    const std::string spec = std::string(name) == "6214e9"   ? "deserved: {nvidia.com/gpu: 100}, guarantee: {resource: {nvidia.com/gpu: 50}}"
                             : std::string(name) == "11cb48" ? "deserved: {nvidia.com/gpu: 100}, capability: {nvidia.com/gpu: 150}"
                                                             : "deserved: {nvidia.com/gpu: 10}";
    queues << "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: \"" << name << "\"}\nspec: {"
           << spec << "}\n";
  }
  queues.close();
  // The Philly-like cluster's first 40 nodes (182 GPUs): the slice then queues, and quotas matter.
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly_cluster.csv", dir / "small.csv", 40);
  const auto r = run_gpusim(dir, "compare --workload slice.csv --cluster small.csv --mode replay --seeds 1 "
                                 "--policies drf,proportion,capacity --config quotas.yaml --out out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 3u);
  EXPECT_EQ(summary["inputs"]["queue_quotas"]["file"], "quotas.yaml");
  EXPECT_FALSE(summary["policies"][0].contains("reclaim_evictions"));  // drf has no quotas
  for (int p = 1; p <= 2; ++p) {
    const auto& policy = summary["policies"][p];
    ASSERT_TRUE(policy.contains("reclaim_evictions")) << policy["name"];
    // Queues borrowed and were made to give back (the mechanism ran), and each such eviction is
    // counted as a preemption.
    EXPECT_GT(policy["reclaim_evictions"]["mean"].get<double>(), 0) << policy["name"];
    EXPECT_EQ(policy["reclaim_evictions"]["mean"], policy["preemptions"]["mean"]) << policy["name"];
  }
  EXPECT_EQ(summary["policies"][2]["name"], "capacity");
}

TEST(QuotaCli, TraceInspectListsTheQueuesAndTheirShares) {
  const auto dir = fresh_dir("quota_inspect");
  const auto r = run_gpusim(dir, "trace inspect --workload philly");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("queues: jobs, GPU-hours, share of the GPU-hours, that share of the cluster's 2490 GPUs"),
            std::string::npos)
      << r.out;
  // The largest queue: 26.19 % of the GPU-hours, 652.0 GPUs (philly-capacity-queues.yaml's 652).
  EXPECT_NE(r.out.find("  ee9e8c              1511     256112.2   26.19 %    652.0"), std::string::npos) << r.out;
}

TEST(QuotaCli, MistakesFailBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("quota_mistakes");
  philly_slice(dir);
  std::ofstream(dir / "typo.yaml") << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: \"6214e8\"}\n"
                                      "spec: {deserved: {nvidia.com/gpu: 10}}\n";
  const std::string base = "run --workload slice.csv --mode replay ";
  const auto no_file = run_gpusim(dir, base + "--policy capacity --out a");
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("policy 'capacity' needs Volcano Queue objects in --config"), std::string::npos) << no_file.err;
  EXPECT_NE(no_file.err.find("--config traces/queues/philly-capacity-queues.yaml"), std::string::npos) << no_file.err;
  const auto missing = run_gpusim(dir, base + "--policy capacity --config nosuch.yaml --out b");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("nosuch.yaml: no such file"), std::string::npos) << missing.err;
  // A Queue for a queue the trace lacks, and none for the ones it has: Volcano would leave their jobs pending.
  const auto typo = run_gpusim(dir, base + "--policy capacity --config typo.yaml --out c");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("typo.yaml: the workload's queues 11cb48, "), std::string::npos) << typo.err;
  const auto unused = run_gpusim(dir, base + "--policy drf --config typo.yaml --out d");
  EXPECT_EQ(unused.exit_code, 2);
  EXPECT_NE(unused.err.find("typo.yaml: Volcano Queues apply to policies with queue quotas"), std::string::npos) << unused.err;
  // The retired option names the file that replaces the bundled quotas, and a Queue's lines.
  const auto retired = run_gpusim(dir, base + "--policy capacity --queue-quotas philly --out f");
  EXPECT_EQ(retired.exit_code, 2);
  EXPECT_NE(retired.err.find("--queue-quotas is gone: queue quotas are Volcano Queue objects"), std::string::npos) << retired.err;
  EXPECT_NE(retired.err.find("--config traces/queues/philly-capacity-queues.yaml"), std::string::npos) << retired.err;
  EXPECT_NE(retired.err.find("    deserved: {nvidia.com/gpu: 8}"), std::string::npos) << retired.err;
  const auto help = run_gpusim(dir, "run --help");
  EXPECT_EQ(help.out.find("--queue-quotas"), std::string::npos) << help.out;
  const auto fill = run_gpusim(dir, "run --workload slice.csv --policy proportion --out e");
  EXPECT_EQ(fill.exit_code, 2);
  for (const char* out : {"a", "b", "c", "d", "e", "f"}) EXPECT_FALSE(fs::exists(dir / out)) << out;
}

}  // namespace
}  // namespace gpusim::testing
