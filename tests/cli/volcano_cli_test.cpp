// Volcano's files through the real binary (`--config`): the bundled Philly ConfigMap and Queues
// replay exactly as `--policy proportion` does (every per-run file byte for byte; summary.json but
// for the policy's name and the input files it records), their notes reach stderr and summary.json,
// and mistakes fail before anything is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kQueues = fs::path(GPUSIM_SOURCE_DIR) / "traces" / "queues";

void philly_slice(const fs::path& dir) {
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly.csv", dir / "slice.csv", 3000);
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly_cluster.csv", dir / "small.csv", 40);
}

TEST(VolcanoCli, TheBundledConfigMapAndQueuesReplayAsProportion) {
  const auto dir = fresh_dir("volcano_equivalence");
  philly_slice(dir);
  const std::string base = "run --workload slice.csv --cluster small.csv --mode replay --time-compression 8 --quiet ";
  const auto builtin = run_gpusim(dir, base + "--policy proportion --out a");
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  const auto volcano = run_gpusim(dir, base + "--config " + (kQueues / "philly-proportion-configmap.yaml").string() +
                                           " --config " + (kQueues / "philly-queues.yaml").string() + " --out b");
  ASSERT_EQ(volcano.exit_code, 0) << volcano.err;
  EXPECT_NE(volcano.err.find("philly-proportion-configmap.yaml: proportion: gpusim lets a queue take GPUs beyond"),
            std::string::npos)
      << volcano.err;
  for (const char* file : {"pods.csv", "jobs.csv", "queues.csv", "timeseries.csv", "earlier-runs.csv"}) {
    const std::string a = slurp(dir / "a" / file);
    EXPECT_FALSE(a.empty()) << file;
    EXPECT_TRUE(a == slurp(dir / "b" / file)) << file;
  }
  auto a = nlohmann::json::parse(slurp(dir / "a" / "summary.json"));
  auto b = nlohmann::json::parse(slurp(dir / "b" / "summary.json"));
  EXPECT_EQ(b["policies"][0]["name"], "volcano-proportion");
  EXPECT_EQ(b["inputs"]["queue_quotas"]["file"], (kQueues / "philly-queues.yaml").string());
  ASSERT_EQ(b["inputs"]["profile_files"].size(), 1u);
  EXPECT_EQ(b["inputs"]["profile_files"][0]["name"], "volcano-proportion");
  EXPECT_EQ(b["inputs"]["profile_files"][0]["notes"].size(), 2u);
  EXPECT_GT(b["policies"][0]["reclaim_evictions"]["mean"].get<double>(), 0);  // the reclaim action ran
  b["policies"][0]["name"] = "proportion";
  b["inputs"].erase("queue_quotas");
  b["inputs"].erase("profile_files");
  b["inputs"].erase("configs");  // every --config file, named with its digest
  EXPECT_EQ(a, b);
}

TEST(VolcanoCli, MistakesFailBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("volcano_mistakes");
  philly_slice(dir);
  std::ofstream(dir / "preempt.conf") << "actions: \"enqueue, allocate, preempt\"\ntiers:\n- plugins:\n  - name: gang\n";
  std::ofstream(dir / "nogang.conf") << "actions: \"allocate, reclaim\"\ntiers:\n- plugins:\n  - name: capacity\n";
  std::ofstream(dir / "two.yaml") << "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: \"6214e9\"\n";
  std::ofstream(dir / "pod.yaml") << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
  const std::string base = "run --workload slice.csv --cluster small.csv --mode replay ";
  const std::string cm = (kQueues / "philly-proportion-configmap.yaml").string();
  const auto preempt = run_gpusim(dir, base + "--config preempt.conf --out a");
  EXPECT_EQ(preempt.exit_code, 1);
  EXPECT_NE(preempt.err.find("preempt.conf:1: actions: preempt is not modelled"), std::string::npos) << preempt.err;
  const auto gangs = run_gpusim(dir, base + "--config nogang.conf --config " + (kQueues / "philly-queues.yaml").string() + " --out b");
  EXPECT_EQ(gangs.exit_code, 1);
  EXPECT_NE(gangs.err.find("nogang.conf: no gang plugin, but the workload has gangs"), std::string::npos) << gangs.err;
  const auto missing = run_gpusim(dir, base + "--config " + cm + " --config two.yaml --out c");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("two.yaml: the workload's queues 11cb48, "), std::string::npos) << missing.err;
  const auto both = run_gpusim(dir, base + "--config " + cm + " --config two.yaml --config two.yaml --out d");
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find("two.yaml: a second file of Volcano Queues (the first: two.yaml)"), std::string::npos) << both.err;
  const auto pod = run_gpusim(dir, base + "--config pod.yaml --out e");
  EXPECT_EQ(pod.exit_code, 1);
  EXPECT_NE(pod.err.find("pod.yaml: not a configuration gpusim reads"), std::string::npos) << pod.err;
  const auto two_policies = run_gpusim(dir, base + "--policy proportion --config " + cm + " --out f");
  EXPECT_EQ(two_policies.exit_code, 2);
  EXPECT_NE(two_policies.err.find("run takes one policy"), std::string::npos) << two_policies.err;
  const auto unused = run_gpusim(dir, base + "--policy drf --config two.yaml --out g");
  EXPECT_EQ(unused.exit_code, 2);
  EXPECT_NE(unused.err.find("two.yaml: Volcano Queues apply to policies with queue quotas"), std::string::npos) << unused.err;
  for (const char* out : {"a", "b", "c", "d", "e", "f", "g"}) EXPECT_FALSE(fs::exists(dir / out)) << out;
}

TEST(VolcanoCli, CompareRunsAConfigurationBesideBuiltInPolicies) {
  const auto dir = fresh_dir("volcano_compare");
  philly_slice(dir);
  const auto r = run_gpusim(dir, "compare --workload slice.csv --cluster small.csv --mode replay --seeds 1 --quiet "
                                 "--policies drf,proportion --config " + (kQueues / "philly-proportion-configmap.yaml").string() +
                                 " --out out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 3u);
  EXPECT_EQ(summary["policies"][2]["name"], "volcano-proportion");
  // Without Queues every queue has weight 1, as the built-in proportion's: the same run.
  EXPECT_EQ(summary["policies"][1]["job_mean_jct_s"], summary["policies"][2]["job_mean_jct_s"]);
}

}  // namespace
}  // namespace gpusim::testing
