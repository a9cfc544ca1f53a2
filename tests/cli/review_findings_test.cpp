// Defects a second review found in the safe-output and command-line work, each driven through the
// binary as the reviewer did. Each failed before its fix.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/perf/calibration.hpp"
#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"
#include "tests/perf/synthetic_samples.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTimedHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

// A profile's name becomes runs/<name>/: a name like "/tmp/x" or "../x" wrote outside --out.
TEST(ReviewFindings, APolicyNameIsNeverAPath) {
  const fs::path dir = fresh_dir("policy-name-path");
  for (const std::string& name : {(dir / "victim").string(), std::string("../../escaped"), std::string("a/b")}) {
    std::ofstream(dir / "evil.yaml") << gpusim::testing::placement_policy(name, "{name: best-fit}");
    const CliResult result = run_gpusim(dir, "compare --policies evil.yaml --seeds 1 --out o");
    EXPECT_EQ(result.exit_code, 1) << name;
    EXPECT_NE(result.err.find("evil.yaml:5: profiles[0].schedulerName:"), std::string::npos) << result.err;
  }
  EXPECT_FALSE(fs::exists(dir / "victim"));
  EXPECT_FALSE(fs::exists(dir / "o"));
}

// An old output whose manifest was edited to list "../x", or that holds a symbolic link, is not
// gpusim's: nothing outside it may be deleted.
TEST(ReviewFindings, EditedManifestsAndLinksNeverDeleteOutsideTheOutput) {
  const fs::path dir = fresh_dir("manifest-escape");
  fs::create_directories(dir / "ext");
  std::ofstream(dir / "ext" / "file") << "precious";
  ASSERT_EQ(run_gpusim(dir, "run --seed 1 --out o").exit_code, 0);
  const auto edit_manifest = [&](const std::vector<std::string>& extra) {
    auto manifest = nlohmann::json::parse(slurp(dir / "o" / "gpusim-manifest.json"));
    for (const auto& entry : extra) manifest["files"].push_back(entry);
    std::ofstream(dir / "o" / "gpusim-manifest.json") << manifest.dump();
  };
  // A link into ext/, and the manifest claiming the file behind it.
  fs::create_directory_symlink(dir / "ext", dir / "o" / "sub");
  edit_manifest({"sub/file", "../ext"});
  EXPECT_EQ(run_gpusim(dir, "run --seed 2 --out o").exit_code, 1);
  EXPECT_EQ(slurp(dir / "ext" / "file"), "precious");
  // Without the link, "../ext/file" in the manifest alone.
  fs::remove(dir / "o" / "sub");
  edit_manifest({"../ext/file"});
  EXPECT_EQ(run_gpusim(dir, "run --seed 2 --out o").exit_code, 1);
  EXPECT_EQ(slurp(dir / "ext" / "file"), "precious");
  // An absolute path in the manifest.
  edit_manifest({(dir / "ext" / "file").string()});
  EXPECT_EQ(run_gpusim(dir, "run --seed 2 --out o").exit_code, 1);
  EXPECT_EQ(slurp(dir / "ext" / "file"), "precious");
}

// validate named its output after the calibration's gpu_model: "../escaped" wrote outside --out-dir.
TEST(ReviewFindings, CalibrationModelIdsAreNeverPaths) {
  const fs::path dir = fresh_dir("model-id-path");
  nlohmann::json cal = perf::to_json(perf::fit_calibration(synthetic_samples(kTruth, 0.0, 1), "a10", "synthetic"));
  cal["gpu_model"] = "../escaped";
  std::ofstream(dir / "cal.json") << cal.dump();
  const CliResult result = run_gpusim(dir, "validate --calibration cal.json --out-dir v/sub");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("gpu_model: '../escaped' is not a catalog id"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir / "v" / "escaped-validation.md"));
  // calibrate files only under catalog ids.
  std::ofstream(dir / "samples.json") << synthetic_samples(kTruth, 0.002, 1).dump();
  const CliResult unknown = run_gpusim(dir, "calibrate --from-samples samples.json --gpu-model ../x --out-dir c");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown GPU model '../x'"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(dir / "c")) << "nothing created: the model is checked before measuring";
  // Aliases resolve to the catalog id.
  ASSERT_EQ(run_gpusim(dir, "calibrate --from-samples samples.json --gpu-model A10 --out-dir c").exit_code, 0);
  EXPECT_TRUE(fs::exists(dir / "c" / "a10.json"));
}

// A foreign file where calibrate writes, of any shape, is refused with exit 1 (it was exit 70).
TEST(ReviewFindings, ForeignFilesOfAnyShapeAreRefusedByCalibrate) {
  const fs::path dir = fresh_dir("calibrate-foreign-shapes");
  std::ofstream(dir / "samples.json") << synthetic_samples(kTruth, 0.002, 1).dump();
  for (const char* content : {"my notes\n", "[1,2]\n", "\"text\"\n", "{\"schema\": 3}\n"}) {
    fs::remove_all(dir / "cal");
    fs::create_directories(dir / "cal");
    std::ofstream(dir / "cal" / "a10.json") << content;
    const CliResult result = run_gpusim(dir, "calibrate --from-samples samples.json --gpu-model a10 --out-dir cal");
    EXPECT_EQ(result.exit_code, 1) << content << result.err;
    EXPECT_EQ(slurp(dir / "cal" / "a10.json"), content);
  }
  // No GPU, nested --out-dir: every directory it made is removed again.
  const CliResult no_gpu = run_gpusim(dir, "calibrate --quick --sweeps 1 --out-dir ca/cb/cc");
  if (no_gpu.exit_code == 3) {
    EXPECT_FALSE(fs::exists(dir / "ca"));
  }
}

// Names that are not UTF-8 went into summary.json and crashed the JSON writer (exit 70).
TEST(ReviewFindings, NonUtf8InputNamesDoNotCrash) {
  const fs::path dir = fresh_dir("non-utf8");
  fs::copy_file(fs::path(GPUSIM_SOURCE_DIR) / "traces/data/openb/openb_node_list_gpu_node.csv", dir / "n\xff.csv");
  const CliResult result = run_gpusim(dir, "run --cluster \"$(printf 'n\\377.csv')\" --out o");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir / "o" / "summary.json"));
}

// Each start and duration was in range, but a chain of 12 pods of 10^12 s on one GPU overflowed
// (exit 70, signed overflow).
TEST(ReviewFindings, ChainsPastTheTimeRangeAreInputErrors) {
  const fs::path dir = fresh_dir("time-chain");
  std::ofstream(dir / "one.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,1,V100M32\n";
  std::ofstream pods(dir / "chain.csv");
  pods << kTimedHeader;
  for (int i = 0; i < 12; ++i) pods << fmt::format("p{},1000,1024,1,1000,,LS,Running,0,1000000000000,0\n", i);
  pods.close();
  const CliResult result = run_gpusim(dir, "run --mode replay --cluster one.csv --workload chain.csv --out o");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("past the simulated time range"), std::string::npos) << result.err;
}

// A list that ends before the target has no headline at the target (it used to report the final
// allocation as if it were); a first pod larger than the target means nothing arrives: an error.
TEST(ReviewFindings, FillHeadlineIsUndefinedWhenTheTargetIsNeverReached) {
  const fs::path dir = fresh_dir("target-never-reached");
  ASSERT_EQ(run_gpusim(dir, "run --order as-listed --out o").exit_code, 0);
  const std::string summary = slurp(dir / "o" / "summary.json");
  EXPECT_NE(summary.find("\"gpu_allocation_pct\": null"), std::string::npos);
  EXPECT_NE(summary.find("never reached the fill target (130%)"), std::string::npos) << summary.substr(0, 3000);
  EXPECT_NE(summary.find("\"final_gpu_allocation_pct\": 9"), std::string::npos);
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,8,V100M32\n";
  std::ofstream(dir / "big.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nbig,1000,1024,8,1000\nsmall,1000,1024,1,1000\n";
  const CliResult big = run_gpusim(dir, "run --cluster nodes.csv --workload big.csv --order as-listed --fill-target 0.5 --out b");
  EXPECT_EQ(big.exit_code, 1);
  EXPECT_NE(big.err.find("nothing would arrive"), std::string::npos) << big.err;
}

// JSON integers beyond int (1e300) were converted with undefined behaviour.
TEST(ReviewFindings, HugeJsonIntegersAreInputErrors) {
  const fs::path dir = fresh_dir("huge-json");
  nlohmann::json cal = perf::to_json(perf::fit_calibration(synthetic_samples(kTruth, 0.0, 1), "a10", "synthetic"));
  cal["sharing"][0]["n"][0] = 1e300;
  fs::create_directories(dir / "cal");
  std::ofstream(dir / "cal" / "a10.json") << cal.dump();
  const CliResult result = run_gpusim(dir, "run --mode replay --time-compression 100000 --perf-model --calibration-dir cal --out o");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("sharing n: out of range"), std::string::npos) << result.err;
}

// Comment lines may come before the header too; both kinds are counted.
TEST(ReviewFindings, CommentsBeforeTheHeaderAreSkippedAndCounted) {
  const fs::path dir = fresh_dir("comment-header");
  std::ofstream(dir / "nodes.csv") << "# exported from my cluster\n\nsn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,8,V100M32\n";
  const CliResult result = run_gpusim(dir, "run --cluster nodes.csv --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(slurp(dir / "o" / "summary.json").find("\"cluster_skipped_lines\": 2"), std::string::npos);
}

}  // namespace
}  // namespace gpusim::testing
