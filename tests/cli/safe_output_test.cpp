// --out never destroys what gpusim did not write (issue: safe outputs), through the real binary.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "tests/cli/run_gpusim.hpp"

extern char** environ;

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// A quick run: one policy, one seed, fill mode on the bundled trace.
constexpr const char* kQuickRun = "run --policy bestfit --seed 1 --out ";

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SafeOutput, AUsersFilesSurviveAndTheRunIsRefused) {
  const fs::path dir = fresh_dir("user-files");
  fs::create_directories(dir / "out" / "mywork");
  std::ofstream(dir / "out" / "mywork" / "notes.txt") << "precious\n";
  const CliResult result = run_gpusim(dir, std::string(kQuickRun) + "out/mywork");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("holds files gpusim did not write"), std::string::npos) << result.err;
  EXPECT_EQ(slurp(dir / "out" / "mywork" / "notes.txt"), "precious\n");
  EXPECT_EQ(entries(dir / "out" / "mywork"), std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(entries(dir / "out"), std::vector<std::string>{"mywork"}) << "no staging directory left behind";
}

TEST(SafeOutput, TrailingSlashAndDotSlashNameTheSameDirectoryAndAnEarlierOutputIsReplaced) {
  const fs::path dir = fresh_dir("normalise");
  ASSERT_EQ(run_gpusim(dir, std::string(kQuickRun) + "out/x/").exit_code, 0);
  ASSERT_TRUE(fs::exists(dir / "out" / "x" / "gpusim-manifest.json"));
  const std::string first = slurp(dir / "out" / "x" / "summary.json");
  ASSERT_EQ(run_gpusim(dir, std::string(kQuickRun) + "./out/x").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, "run --policy fgd --seed 2 --out out/x").exit_code, 0);
  EXPECT_NE(slurp(dir / "out" / "x" / "summary.json"), first) << "the third run replaced the output";
  EXPECT_EQ(entries(dir / "out"), std::vector<std::string>{"x"});
  // A file the user adds makes the directory theirs: it is refused from then on.
  std::ofstream(dir / "out" / "x" / "my-analysis.txt") << "mine\n";
  const CliResult refused = run_gpusim(dir, std::string(kQuickRun) + "out/x");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("my-analysis.txt"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "x" / "my-analysis.txt"));
  EXPECT_TRUE(fs::exists(dir / "out" / "x" / "summary.json"));
}

TEST(SafeOutput, EmptyDirectoryIsUsedAndEmptyPathIsAnError) {
  const fs::path dir = fresh_dir("empty");
  fs::create_directories(dir / "empty");
  EXPECT_EQ(run_gpusim(dir, std::string(kQuickRun) + "empty").exit_code, 0);
  EXPECT_TRUE(fs::exists(dir / "empty" / "summary.json"));
  const CliResult empty_path = run_gpusim(dir, std::string(kQuickRun) + "''");
  EXPECT_EQ(empty_path.exit_code, 1);
  EXPECT_NE(empty_path.err.find("--out: empty path"), std::string::npos) << empty_path.err;
}

TEST(SafeOutput, TheWorkingDirectoryAndItsAncestorsAreRefused) {
  const fs::path dir = fresh_dir("cwd");
  std::ofstream(dir / "keep.txt") << "x";
  for (const char* out : {".", "./", "..", "/"}) {
    const CliResult result = run_gpusim(dir, std::string(kQuickRun) + out);
    EXPECT_EQ(result.exit_code, 1) << out;
    EXPECT_TRUE(fs::exists(dir / "keep.txt")) << out;
  }
  // Even when the working directory is empty: replacing it would pull it from under the shell.
  fs::remove(dir / "keep.txt");
  EXPECT_EQ(run_gpusim(dir, std::string(kQuickRun) + ".").exit_code, 1);
}

TEST(SafeOutput, ADirectoryHoldingTheRunsInputsIsRefused) {
  const fs::path dir = fresh_dir("inputs");
  fs::create_directories(dir / "data");
  fs::copy_file(fs::path(GPUSIM_SOURCE_DIR) / "traces/data/openb/openb_node_list_gpu_node.csv", dir / "data" / "nodes.csv");
  const CliResult result = run_gpusim(dir, "run --cluster data/nodes.csv --out data");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("holds this run's input"), std::string::npos) << result.err;
  EXPECT_EQ(entries(dir / "data"), std::vector<std::string>{"nodes.csv"});
}

TEST(SafeOutput, SymbolicLinksAreJudgedByWhatTheyPointTo) {
  const fs::path dir = fresh_dir("links");
  fs::create_directories(dir / "real");
  fs::create_directory_symlink("real", dir / "link");
  ASSERT_EQ(run_gpusim(dir, std::string(kQuickRun) + "link").exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "link")) << "the link itself stays";
  EXPECT_TRUE(fs::exists(dir / "real" / "summary.json"));
  std::ofstream(dir / "real" / "keep.txt") << "x";
  EXPECT_EQ(run_gpusim(dir, std::string(kQuickRun) + "link").exit_code, 1);
  EXPECT_TRUE(fs::exists(dir / "real" / "keep.txt"));
  fs::create_symlink("nowhere", dir / "dangling");
  const CliResult dangling = run_gpusim(dir, std::string(kQuickRun) + "dangling");
  EXPECT_EQ(dangling.exit_code, 1);
  EXPECT_NE(dangling.err.find("does not exist"), std::string::npos) << dangling.err;
}

// An unwritable --out is found before any input is read: with a malformed pod list as well,
// the error is about --out. (How fast that is, is measured in results/, not asserted here.)
TEST(SafeOutput, AnUnwritableOutputFailsBeforeInputsAreReadOrAnythingRuns) {
  const fs::path dir = fresh_dir("unwritable");
  std::ofstream(dir / "bad.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,abc,1,1,500\n";
  std::ofstream(dir / "a-file") << "x";
  for (const char* out : {"/proc/gpusim-cannot-write-here", "a-file/sub", "a-file"}) {
    const CliResult result = run_gpusim(dir, std::string("compare --seeds 100 --workload bad.csv --out ") + out);
    EXPECT_EQ(result.exit_code, 1) << out;
    EXPECT_NE(result.err.find("--out"), std::string::npos) << out << ": " << result.err;
    EXPECT_EQ(result.err.find("bad.csv"), std::string::npos) << out << ": " << result.err;
  }
  EXPECT_EQ(slurp(dir / "a-file"), "x");
}

// SIGINT or SIGTERM in the middle of a long comparison: exit 128 + signal, the older output as it
// was, and no partial directory left.
TEST(SafeOutput, AnInterruptedRunLeavesTheOlderOutputIntact) {
  for (const int signal : {SIGINT, SIGTERM}) {
    const fs::path dir = fresh_dir(fmt::format("interrupt-{}", signal));
    ASSERT_EQ(run_gpusim(dir, "compare --policies bestfit --seeds 1 --out old").exit_code, 0);
    const std::string before = slurp(dir / "old" / "summary.json");
    const std::string out = (dir / "old").string();
    std::vector<std::string> words{GPUSIM_TEST_BINARY, "compare", "--seeds", "2000", "--threads", "1", "--out", out};
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    // Wait until the run has staged its output (the simulation is then under way).
    bool staged = false;
    for (int i = 0; i < 3000 && !staged; ++i) {
      for (const auto& name : entries(dir)) staged |= name.find("gpusim-partial") != std::string::npos;
      if (!staged) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(staged);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_EQ(::kill(pid, signal), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    EXPECT_EQ(slurp(dir / "old" / "summary.json"), before);
    EXPECT_EQ(entries(dir), std::vector<std::string>{"old"});
  }
}

}  // namespace
}  // namespace gpusim::testing
