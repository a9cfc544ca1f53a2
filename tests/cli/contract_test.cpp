// The command-line contract (README, `gpusim --help`): exit codes, range checks, options that do
// not apply to the mode, one spelling of names, and messages that say what is wrong.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/run_gpusim.hpp"
#include "tests/perf/synthetic_samples.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* args;
  int exit_code;
  const char* message;  // a part of stderr
};

void expect_cases(const fs::path& dir, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    const CliResult result = run_gpusim(dir, c.args);
    EXPECT_EQ(result.exit_code, c.exit_code) << c.args << "\n" << result.err;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << c.args << "\n" << result.err;
    EXPECT_EQ(result.err.find("terminate"), std::string::npos) << c.args;
  }
}

TEST(CliContract, UsageErrorsExitWithTwo) {
  const fs::path dir = fresh_dir("usage");
  expect_cases(dir, {
                        {"run --no-such-option --out o", 2, "no-such-option"},
                        {"frobnicate", 2, "unknown command 'frobnicate' (commands: run, compare"},
                        {"run", 2, "--out is required"},
                        {"run --seed -1 --out o", 2, "-1 is negative"},
                        {"run --seed 99999999999999999999 --out o", 2, "out of range"},
                        {"run --seed 1.5 --out o", 2, "is not a seed"},
                        {"compare --first-seed 9223372036854775807 --seeds 2 --out o", 2, "runs past the largest seed"},
                        {"compare --seeds 0 --out o", 2, "--seeds"},
                        {"compare --threads -1 --out o", 2, "--threads"},
                        {"run --fill-target nan --out o", 2, "out of range"},
                        {"run --fill-target 0 --out o", 2, "out of range"},
                        {"run --mode replay --fill-target 1.2 --out o", 2, "--fill-target applies to --mode fill only"},
                        {"run --time-compression 10 --out o", 2, "--time-compression applies to --mode replay only"},
                        {"run --perf-model --out o", 2, "--perf-model applies to --mode replay only"},
                        {"run --fragmentation-every 600 --out o", 2, "--fragmentation-every applies to --mode replay only"},
                        {"run --mode replay --fragmentation-every 0 --out o", 2, "--fragmentation-every"},
                        {"run --mode replay --reference-gpu A10 --out o", 2, "--reference-gpu applies only with --perf-model"},
                        {"run --policy fgd,bestfit --out o", 2, "--policy takes one policy"},
                        {"calibrate --device -1", 2, "--device"},
                    });
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST(CliContract, BadInputExitsWithOneAndSaysWhatIsWrong) {
  const fs::path dir = fresh_dir("bad-input");
  fs::create_directories(dir / "folder");
  expect_cases(dir, {
                        {"run --policy nope --out o", 1, "unknown policy 'nope'"},
                        {"run --policy missing.yaml --out o", 1, "missing.yaml: no such file (expected the KubeSchedulerConfiguration)"},
                        {"run --workload nothing.csv --out o", 1, "nothing.csv: no such file"},
                        {"run --workload folder --out o", 1, "folder: is a directory, expected the pod list"},
                        {"run --cluster folder --out o", 1, "folder: is a directory, expected the node list"},
                        {"run --catalog folder --out o", 1, "folder: is a directory, expected the GPU catalog"},
                        {"run --workload openb:nope --out o", 1, "unknown bundled workload 'openb:nope'"},
                        {"compare --policies fgd,FGD --out o", 1, "names the policy 'fgd' a second time"},
                        {"compare --policies fgd,,bestfit --out o", 1, "empty name"},
                        {"run --mode replay --perf-model --reference-gpu X100 --out o", 1, "catalog ids: k80,"},
                        {"run --mode replay --perf-model --calibration-dir nowhere --out o", 1, "nowhere: no such directory"},
                    });
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST(CliContract, PaperNamesMapToPoliciesInAnyCase) {
  const fs::path dir = fresh_dir("names");
  for (const char* name : {"FGD", "BestFit", "DotProd", "GpuClustering", "gpu_packing", "Random", "dot-product"}) {
    const fs::path out = dir / name;
    ASSERT_EQ(run_gpusim(dir, fmt::format("run --seed 3 --policy {} --out {}", name, out.string())).exit_code, 0) << name;
  }
  // The canonical name is what the outputs say.
  EXPECT_NE(slurp(dir / "BestFit" / "summary.json").find("\"name\": \"bestfit\""), std::string::npos);
  EXPECT_NE(slurp(dir / "dot-product" / "summary.json").find("\"name\": \"dotprod\""), std::string::npos);
  EXPECT_EQ(slurp(dir / "DotProd" / "summary.json"), slurp(dir / "dot-product" / "summary.json"));
}

TEST(CliContract, HelpListsTheExitCodes) {
  const fs::path dir = fresh_dir("help");
  const std::string command = std::string("cd '") + dir.string() + "' && " + GPUSIM_TEST_BINARY + " --help > help.txt";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string help = slurp(dir / "help.txt");
  for (const char* code : {"0 success", "1 bad input", "2 usage", "3 no GPU", "70 internal error", "130 SIGINT"}) {
    EXPECT_NE(help.find(code), std::string::npos) << code;
  }
}

TEST(CliContract, CalibrateNeverReplacesAFileItDidNotWrite) {
  const fs::path dir = fresh_dir("calibrate-foreign");
  fs::create_directories(dir / "cal");
  std::ofstream(dir / "cal" / "h100-sxm5-80gb.json") << "{\"mine\": true}\n";
  std::ofstream(dir / "samples.json") << synthetic_samples(kTruth, 0.002, 1).dump();
  const CliResult result = run_gpusim(dir, "calibrate --from-samples samples.json --gpu-model h100-sxm5-80gb --out-dir cal");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("was not written by gpusim"), std::string::npos) << result.err;
  EXPECT_EQ(slurp(dir / "cal" / "h100-sxm5-80gb.json"), "{\"mine\": true}\n");
}

}  // namespace
}  // namespace gpusim::testing

namespace gpusim::testing {
namespace {

// A blank line or a comment in a trace is a counted skip: on stderr and in summary.json.
TEST(CliContract, SkippedTraceLinesAreReported) {
  const fs::path dir = fresh_dir("skipped-lines");
  std::ofstream(dir / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                     "p0,1000,1024,1,500\n\n# paused here\np1,1000,1024,1,1000\n";
  const CliResult result = run_gpusim(dir, "run --workload pods.csv --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("pods.csv: skipped 2 blank or comment lines"), std::string::npos) << result.err;
  EXPECT_NE(slurp(dir / "o" / "summary.json").find("\"workload_skipped_lines\": 2"), std::string::npos);
}

}  // namespace
}  // namespace gpusim::testing
