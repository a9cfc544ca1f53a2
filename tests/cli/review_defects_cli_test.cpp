// The correctness review's defects that show in the gpusim binary (issue "Numbers users can
// trust"), each driven as a user would hit it. Each failed on the code before its fix.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/run_gpusim.hpp"
#include "tests/perf/synthetic_samples.hpp"
#include "sim/perf/calibration.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTimedHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

// Item 4: one 16-GPU pod that fits nowhere, created at 5,000 s, used to report makespan -5000.
TEST(ReviewDefectsCli, NoCompletedPodGivesNullMetricsWithTheReason) {
  const fs::path dir = fresh_dir("no-completion");
  std::ofstream(dir / "pods.csv") << kTimedHeader << "big,1000,1024,16,1000,,LS,Running,5000,6000,5000\n";
  const CliResult result = run_gpusim(dir, "run --mode replay --workload pods.csv --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = slurp(dir / "o" / "summary.json");
  EXPECT_EQ(summary.find("-5000"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"makespan_s\": null"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"makespan_s\": \"no pod ran\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"mean_jct_s\": \"no pod completed\""), std::string::npos) << summary;
  EXPECT_NE(slurp(dir / "o" / "report.md").find("n/a"), std::string::npos);
}

// Item 6: a workload without GPU requests used to make fill loop until memory ran out; a cluster
// without GPUs divided by zero and wrote -nan.
TEST(ReviewDefectsCli, NoGpusToMeasureIsAClearError) {
  const fs::path dir = fresh_dir("no-gpus");
  std::ofstream(dir / "cpu-pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1000,1024,0,0\nb,2000,1024,0,0\n";
  std::ofstream(dir / "cpu-nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,0,\n";
  std::ofstream(dir / "timed.csv") << kTimedHeader << "a,1000,1024,0,0,,LS,Running,0,100,0\n";
  const CliResult no_requests = run_gpusim(dir, "run --workload cpu-pods.csv --out a");
  EXPECT_EQ(no_requests.exit_code, 1);
  EXPECT_NE(no_requests.err.find("no pod requests a GPU"), std::string::npos) << no_requests.err;
  const CliResult no_gpus = run_gpusim(dir, "run --cluster cpu-nodes.csv --out b");
  EXPECT_EQ(no_gpus.exit_code, 1);
  EXPECT_NE(no_gpus.err.find("the cluster has no GPUs"), std::string::npos) << no_gpus.err;
  // Replay on it is well defined, except the GPU allocation, which says why.
  ASSERT_EQ(run_gpusim(dir, "run --mode replay --cluster cpu-nodes.csv --workload timed.csv --out c").exit_code, 0);
  const std::string summary = slurp(dir / "c" / "summary.json");
  EXPECT_EQ(summary.find("nan"), std::string::npos);
  EXPECT_NE(summary.find("\"mean_gpu_allocation_pct\": \"the cluster has no GPUs\""), std::string::npos) << summary;
  EXPECT_FALSE(fs::exists(dir / "a"));
  EXPECT_FALSE(fs::exists(dir / "b"));
}

// Item 7: times that overflow microseconds, in the file or after compression.
TEST(ReviewDefectsCli, TimesOutOfRangeAreInputErrors) {
  const fs::path dir = fresh_dir("time-range");
  std::ofstream(dir / "huge.csv") << kTimedHeader << "p,1000,1024,1,1000,,LS,Running,10000000000000,10000000000001,\n";
  std::ofstream(dir / "late.csv") << kTimedHeader << "p,1000,1024,1,1000,,LS,Running,999999999999,1000000000000,\n";
  const CliResult huge = run_gpusim(dir, "run --mode replay --workload huge.csv --out a");
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_NE(huge.err.find("huge.csv:2: creation_time: 10000000000000 s is out of range"), std::string::npos) << huge.err;
  ASSERT_EQ(run_gpusim(dir, "run --mode replay --workload late.csv --out b").exit_code, 0) << "the largest times are fine";
  const CliResult compressed = run_gpusim(dir, "run --mode replay --time-compression 0.001 --workload late.csv --out c");
  EXPECT_EQ(compressed.exit_code, 1);
  EXPECT_NE(compressed.err.find("out of range"), std::string::npos) << compressed.err;
}

// Item 8: a profile without gpu-fit crashed with an internal error (exit 70). Such a profile was
// gpusim's older profile YAML, now retired: its user is shown the KubeSchedulerConfiguration that
// replaces it, whose NodeResourcesFit checks the GPUs too.
TEST(ReviewDefectsCli, AProfileWithoutGpuFitIsRefusedNotACrash) {
  const fs::path dir = fresh_dir("no-gpu-fit");
  std::ofstream(dir / "p.yaml") << "filter: [node-resources-fit]\nscore:\n  - {name: most-allocated}\ngpuSelection: first-fit\n";
  for (const char* args : {"run --policy p.yaml --out o", "run --config p.yaml --out o", "config check p.yaml"}) {
    const CliResult result = run_gpusim(dir, args);
    EXPECT_EQ(result.exit_code, 1) << args;
    EXPECT_NE(result.err.find("p.yaml: gpusim's own profile YAML is retired"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("filter: [node-resources-fit] in your file, [node-resources-fit, gpu-fit] in the configuration"),
              std::string::npos) << result.err;
    EXPECT_NE(result.err.find("      filter: {enabled: [{name: NodeResourcesFit}]}\n"), std::string::npos) << result.err;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
}

// Item 9: impossible calibration figures and calibrations of unknown models are refused, naming
// the file and the field.
TEST(ReviewDefectsCli, ImpossibleCalibrationsAreRefused) {
  const fs::path dir = fresh_dir("bad-calibration");
  const perf::Calibration good = perf::fit_calibration(synthetic_samples(kTruth, 0.0, 1), "a10", "synthetic");
  nlohmann::json negative = perf::to_json(good);
  negative["terms"][0]["rate_per_s"] = -5.0;
  fs::create_directories(dir / "negative");
  std::ofstream(dir / "negative" / "a10.json") << negative.dump();
  const std::string replay = "run --mode replay --time-compression 100000 --perf-model --calibration-dir ";
  const CliResult bad = run_gpusim(dir, replay + "negative --out a");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("a10.json: terms[0] (memory.dram).rate_per_s: must be a finite number > 0 (got -5)"), std::string::npos)
      << bad.err;
  nlohmann::json unknown = perf::to_json(good);
  unknown["gpu_model"] = "nvidia-l40";
  fs::create_directories(dir / "unknown");
  std::ofstream(dir / "unknown" / "nvidia-l40.json") << unknown.dump();
  const CliResult unknown_model = run_gpusim(dir, replay + "unknown --out b");
  EXPECT_EQ(unknown_model.exit_code, 1);
  EXPECT_NE(unknown_model.err.find("gpu_model: 'nvidia-l40' is not in the GPU catalog"), std::string::npos) << unknown_model.err;
}

}  // namespace
}  // namespace gpusim::testing
