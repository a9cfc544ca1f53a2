// `gpusim sweep`: every cell is the `gpusim run` it names, byte for byte; the merged groups are
// what `gpusim compare` computes for the same policies and seeds; a threaded run, a resumed one
// and Indexed-Job shards merged later give the same merged bytes; bad sweep files and output
// directories are refused with the file, line and field, and nothing gpusim did not write is removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <fcntl.h>
#include <spawn.h>
#include <csignal>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

#include "sim/cluster/gpu_catalog.hpp"
#include "tests/cli/run_gpusim.hpp"
#include "traces/k8s_manifests.hpp"

extern char** environ;

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = GPUSIM_SOURCE_DIR;

// 40 nodes and 300 pods of openb: a cell takes milliseconds, even under the sanitizers.
fs::path sweep_dir(const std::string& name, const std::string& extra_axes = "") {
  const fs::path dir = fresh_dir(name);
  copy_head(kSource / "traces/sharing/openb-eighth-cluster.csv", dir / "nodes.csv", 40);
  copy_head(kSource / "traces/data/openb/openb_pod_list_default.csv", dir / "pods.csv", 300);
  std::ofstream(dir / "sweep.yaml") << "name: small\n"
                                       "run:\n"
                                       "  mode: fill\n"
                                       "  cluster: nodes.csv\n"
                                       "  workload: pods.csv\n"
                                       "axes:\n"
                                       "  policy: [random, fgd]\n"
                                    << extra_axes
                                    << "  seed: {from: 42, count: 3}\n"
                                       "metrics: [gpu_allocation_pct, unallocated_gpus]\n";
  return dir;
}

std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = slurp(entry.path());
  }
  return files;
}

nlohmann::json json_of(const fs::path& file) { return nlohmann::json::parse(slurp(file)); }

TEST(SweepCli, EachCellIsTheGpusimRunItNamesByteForByte) {
  const fs::path dir = sweep_dir("sweep-cells");
  const CliResult sweep = run_gpusim(dir, "sweep sweep.yaml --out out --quiet");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("6 cells: 6 run, 0 complete before"), std::string::npos) << sweep.out;
  // c0004: the second policy's second seed (the last axis varies fastest).
  const CliResult run = run_gpusim(dir, "run --mode fill --cluster nodes.csv --workload pods.csv --policy fgd --seed 43 --out direct --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(files_of(dir / "out/cells/c0004"), files_of(dir / "direct"));
  const nlohmann::json merged = json_of(dir / "out/merged/summary.json");
  ASSERT_EQ(merged["cells"].size(), 6U);
  for (const auto& cell : merged["cells"]) {
    const nlohmann::json own = json_of(dir / "out/cells" / cell["cell"].get<std::string>() / "summary.json");
    EXPECT_EQ(own["policies"][0]["name"], cell["policy"]);
    EXPECT_EQ(own["seeds"][0].get<std::uint64_t>(), std::stoull(cell["seed"].get<std::string>()));
    EXPECT_EQ(own["policies"][0]["runs"][0]["gpu_allocation_pct"], cell["gpu_allocation_pct"]);
    EXPECT_EQ(own["policies"][0]["runs"][0]["unallocated_gpus"], cell["unallocated_gpus"]);
  }
}

TEST(SweepCli, GroupsEqualCompareOverTheSameSeeds) {
  const fs::path dir = sweep_dir("sweep-compare");
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out out --quiet").exit_code, 0);
  const CliResult compare = run_gpusim(
      dir, "compare --mode fill --cluster nodes.csv --workload pods.csv --policies random,fgd --first-seed 42 --seeds 3 --out cmp --quiet");
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  const nlohmann::json merged = json_of(dir / "out/merged/summary.json");
  const nlohmann::json reference = json_of(dir / "cmp/summary.json");
  ASSERT_EQ(merged["groups"].size(), 2U);
  for (std::size_t p = 0; p < 2; ++p) {
    const auto& group = merged["groups"][p];
    const auto& policy = reference["policies"][p];
    EXPECT_EQ(group["policy"], policy["name"]);
    EXPECT_EQ(group["runs"], 3);
    for (const char* metric : {"gpu_allocation_pct", "unallocated_gpus"}) {
      // The cells' values are summary.json's (6 decimals); compare averages the unrounded ones.
      EXPECT_NEAR(group[metric]["mean"].get<double>(), policy[metric]["mean"].get<double>(), 2e-6) << metric;
      EXPECT_NEAR(group[metric]["std"].get<double>(), policy[metric]["std"].get<double>(), 2e-6) << metric;
    }
  }
}

TEST(SweepCli, ThreadsResumeAndShardsMergeToTheSameBytes) {
  const fs::path dir = sweep_dir("sweep-modes");
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out one --threads 1 --quiet").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out two --threads 2 --quiet").exit_code, 0);
  EXPECT_EQ(files_of(dir / "one/merged"), files_of(dir / "two/merged"));
  // Resumed: a cell that never committed (its directory absent, as after a kill) runs again; the others are kept.
  fs::remove_all(dir / "two/cells/c0002");
  // What a cell killed outright leaves: its staging directory, removed as the cell runs again. A
  // complete cell's, and a name gpusim does not write, stay.
  // (Process ids above Linux's largest pid_max, so that none runs; this test's own id runs.)
  const std::string alive = fmt::format(".c0002.gpusim-partial-{}", ::getpid());
  for (const std::string leftover : {".c0002.gpusim-partial-2147480001", ".c0002.gpusim-partial-2147480002-1",
                                     ".c0001.gpusim-partial-2147480003", ".c0002.gpusim-partial-mine", alive.c_str()}) {
    fs::create_directories(dir / "two/cells" / leftover);
    std::ofstream(dir / "two/cells" / leftover / "summary.json") << "{}";
  }
  const CliResult resumed = run_gpusim(dir, "sweep sweep.yaml --out two --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("removed 2 staging directories"), std::string::npos) << resumed.err;
  EXPECT_FALSE(fs::exists(dir / "two/cells/.c0002.gpusim-partial-2147480001"));
  EXPECT_FALSE(fs::exists(dir / "two/cells/.c0002.gpusim-partial-2147480002-1"));
  EXPECT_TRUE(fs::exists(dir / "two/cells/.c0001.gpusim-partial-2147480003/summary.json"));
  EXPECT_TRUE(fs::exists(dir / "two/cells/.c0002.gpusim-partial-mine/summary.json"));
  EXPECT_TRUE(fs::exists(dir / "two/cells" / alive / "summary.json"));  // a live process's
  for (const std::string kept : {".c0001.gpusim-partial-2147480003", ".c0002.gpusim-partial-mine", alive.c_str()}) {
    fs::remove_all(dir / "two/cells" / kept);
  }
  EXPECT_NE(resumed.out.find("6 cells: 1 run, 5 complete before"), std::string::npos) << resumed.out;
  EXPECT_EQ(files_of(dir / "one/merged"), files_of(dir / "two/merged"));
  // An Indexed Job's pods: every index a process with JOB_COMPLETION_INDEX set, then the merge.
  // (ctest runs each test in a process of its own, so the variable stays within this one.)
  for (int index = 0; index < 4; ++index) {
    ::setenv("JOB_COMPLETION_INDEX", std::to_string(index).c_str(), 1);
    const CliResult shard = run_gpusim(dir, "sweep sweep.yaml --out shards --shards 4 --quiet");
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    EXPECT_NE(shard.out.find(fmt::format("shard {} of 4: {} cells", index, index < 2 ? 2 : 1)), std::string::npos) << shard.out;
  }
  EXPECT_FALSE(fs::exists(dir / "shards/merged"));
  ::setenv("JOB_COMPLETION_INDEX", "4", 1);
  const CliResult outside = run_gpusim(dir, "sweep sweep.yaml --out shards --shards 4 --quiet");
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("JOB_COMPLETION_INDEX '4' is not an index 0 .. 3"), std::string::npos) << outside.err;
  ::unsetenv("JOB_COMPLETION_INDEX");
  const CliResult merge = run_gpusim(dir, "sweep merge shards");
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_EQ(files_of(dir / "one/merged"), files_of(dir / "shards/merged"));
}

#ifdef GPUSIM_MPIEXEC
// What CI runs: three ranks on a 2-core machine, as root (OpenMPI refuses root without these).
std::string mpirun(int ranks) {
  return fmt::format("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 {} --oversubscribe -np {}", GPUSIM_MPIEXEC, ranks);
}

// The cells each rank ran, from rank 0's "6 run on 3 ranks (2, 2, 2 by rank)".
std::vector<int> cells_by_rank(const std::string& out) {
  const auto open = out.find(" ranks (");
  const auto close = out.find(" by rank)");
  std::vector<int> counts;
  if (open == std::string::npos || close == std::string::npos) return counts;
  std::istringstream in(out.substr(open + 8, close - open - 8));
  for (std::string count; std::getline(in, count, ',');) counts.push_back(std::stoi(count));
  return counts;
}

TEST(SweepCli, MpiRanksShareTheCellsAndMergeToTheThreadedBytes) {
  const fs::path dir = sweep_dir("sweep-mpi");
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out threads --threads 2 --quiet").exit_code, 0);
  const CliResult mpi = run_gpusim(dir, "sweep sweep.yaml --out mpi --quiet", mpirun(3));
  ASSERT_EQ(mpi.exit_code, 0) << mpi.err;
  EXPECT_EQ(files_of(dir / "threads/merged"), files_of(dir / "mpi/merged"));
  // Every cell ran once, and not all on one rank: rank 0 handed them out as the ranks asked.
  const std::vector<int> counts = cells_by_rank(mpi.out);
  ASSERT_EQ(counts.size(), 3U) << mpi.out;
  EXPECT_EQ(counts[0] + counts[1] + counts[2], 6) << mpi.out;
  EXPECT_GE(std::count_if(counts.begin(), counts.end(), [](int c) { return c > 0; }), 2) << mpi.out;
  for (const auto& entry : fs::directory_iterator(dir / "mpi/cells")) {
    EXPECT_EQ(files_of(entry.path()), files_of(dir / "threads/cells" / entry.path().filename())) << entry.path();
  }
  // Resumed under MPI: only the missing cell runs.
  fs::remove_all(dir / "mpi/cells/c0005");
  const CliResult resumed = run_gpusim(dir, "sweep sweep.yaml --out mpi --quiet", mpirun(2));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("6 cells: 1 run on 2 ranks"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("5 complete before"), std::string::npos) << resumed.out;
  EXPECT_EQ(files_of(dir / "threads/merged"), files_of(dir / "mpi/merged"));
}

TEST(SweepCli, MpiErrorsArePrintedOnceAndFailNonZero) {
  const fs::path dir = sweep_dir("sweep-mpi-errors");
  std::string text = slurp(dir / "sweep.yaml");
  // Every rank reads the same bad file: one message, from rank 0.
  std::ofstream(dir / "bad.yaml") << std::string(text).replace(text.find("policy:"), 7, "polcy:");
  const CliResult bad = run_gpusim(dir, "sweep bad.yaml --out out", mpirun(3));
  EXPECT_EQ(bad.exit_code, 1);
  const std::string message = "bad.yaml:7: axes.polcy: 'polcy' is not an option of `gpusim run`";
  ASSERT_NE(bad.err.find(message), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find(message, bad.err.find(message) + 1), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // A cell that fails stops the sweep on every rank; no merge, the completed cells kept.
  std::ofstream(dir / "failing.yaml") << std::string(text).replace(text.find("[random, fgd]"), 13, "[random, nosuchpolicy]");
  const CliResult failing = run_gpusim(dir, "sweep failing.yaml --out failing --quiet", mpirun(3));
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_NE(failing.err.find("unknown policy 'nosuchpolicy'"), std::string::npos) << failing.err;
  EXPECT_FALSE(fs::exists(dir / "failing/merged"));
  // --shards is an Indexed Job's; a usage error under MPI.
  const CliResult shards = run_gpusim(dir, "sweep sweep.yaml --out s --shards 2", mpirun(2));
  EXPECT_EQ(shards.exit_code, 2);
  EXPECT_NE(shards.err.find("--shards is for Indexed Job pods"), std::string::npos) << shards.err;
}
#endif

// A KubeSchedulerConfiguration whose balanced-allocation weight the sweep varies: kube-default's
// profile under a name of its own.
fs::path weights_sweep(const std::string& name, const std::string& path) {
  const fs::path dir = sweep_dir(name);
  std::string profile = slurp(kSource / "policies/profiles/kube-default.yaml");
  profile.replace(profile.find("schedulerName: kube-default"), 27, "schedulerName: balanced-weights");
  std::ofstream(dir / "weights.yaml") << profile;
  std::ofstream(dir / "field.yaml") << "name: weights\n"
                                       "run:\n"
                                       "  mode: fill\n"
                                       "  cluster: nodes.csv\n"
                                       "  workload: pods.csv\n"
                                       "  config: weights.yaml\n"
                                       "axes:\n"
                                       "  balanced-weight:\n"
                                       "    config: weights.yaml\n"
                                       "    path: " << path << "\n"
                                       "    values: [1, 5, 20]\n"
                                       "  seed: {from: 42, count: 2}\n"
                                       "metrics: [gpu_allocation_pct, unallocated_gpus]\n";
  return dir;
}

const char* const kBalancedWeight = "profiles[0].plugins.score.enabled[name=NodeResourcesBalancedAllocation].weight";

TEST(SweepCli, AnAxisOverAConfigurationFieldEditsThatValueAlone) {
  const fs::path dir = weights_sweep("sweep-field", kBalancedWeight);
  const CliResult sweep = run_gpusim(dir, "sweep field.yaml --out out --quiet");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  // Each copy is the file with that one value changed: its comments, flow style and order kept.
  const std::string source = slurp(dir / "weights.yaml");
  const std::string line = "{name: NodeResourcesBalancedAllocation, weight: 1}";
  ASSERT_NE(source.find(line), std::string::npos);
  for (const auto& [variant, weight] : {std::pair{"f0000", "1"}, {"f0001", "5"}, {"f0002", "20"}}) {
    std::string expected = source;
    expected.replace(expected.find(line), line.size(), fmt::format("{{name: NodeResourcesBalancedAllocation, weight: {}}}", weight));
    EXPECT_EQ(slurp(dir / "out/configs" / variant / "weights.yaml"), expected) << variant;
  }
  // c0003 (weight 5, seed 43) is `gpusim run --config` that copy, byte for byte.
  const fs::path copy = fs::absolute(dir / "out/configs/f0001/weights.yaml");
  const CliResult run = run_gpusim(
      dir, fmt::format("run --mode fill --cluster nodes.csv --workload pods.csv --config {} --seed 43 --out direct --quiet", copy.string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(files_of(dir / "out/cells/c0003"), files_of(dir / "direct"));
  // The weight took effect: the groups differ, each its two seeds.
  const nlohmann::json merged = json_of(dir / "out/merged/summary.json");
  ASSERT_EQ(merged["groups"].size(), 3U);
  std::set<double> allocations;
  for (const auto& group : merged["groups"]) {
    EXPECT_EQ(group["runs"], 2);
    allocations.insert(group["gpu_allocation_pct"]["mean"].get<double>());
  }
  EXPECT_EQ(allocations.size(), 3U) << merged["groups"].dump();
  const nlohmann::json record = json_of(dir / "out/gpusim-sweep.json");
  EXPECT_EQ(record["axes"][0]["path"], kBalancedWeight);
  EXPECT_EQ(record["axes"][0]["config"], "weights.yaml");
  // A resumed run finds its copies as it wrote them, through any path to the directory; a
  // configuration file changed since is refused.
  ASSERT_EQ(run_gpusim(dir, "sweep field.yaml --out out --quiet").exit_code, 0);
  fs::create_directory_symlink("out", dir / "link");
  const CliResult linked = run_gpusim(dir, "sweep field.yaml --out link --quiet");
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_NE(linked.out.find("6 cells: 0 run, 6 complete before"), std::string::npos) << linked.out;
  EXPECT_EQ(json_of(dir / "out/gpusim-sweep.json")["cells"][0]["args"][8], "DIR/configs/f0000/weights.yaml");
  // `./weights.yaml` under run names the same file: the copy replaces it.
  std::string spelled = slurp(dir / "field.yaml");
  std::ofstream(dir / "dot.yaml") << spelled.replace(spelled.find("  config: weights.yaml"), 22, "  config: ./weights.yaml");
  const CliResult dot = run_gpusim(dir, "sweep dot.yaml --dry-run");
  EXPECT_EQ(dot.out.find("--config ./weights.yaml"), std::string::npos) << dot.out;
  EXPECT_NE(dot.out.find("--config DIR/configs/f0000/weights.yaml --seed 42"), std::string::npos) << dot.out;
  // So does its absolute path under the axis.
  spelled = slurp(dir / "field.yaml");
  std::ofstream(dir / "abs.yaml") << spelled.replace(spelled.find("    config: weights.yaml"), 24,
                                                     "    config: " + fs::absolute(dir / "weights.yaml").string());
  const CliResult abs = run_gpusim(dir, "sweep abs.yaml --dry-run");
  EXPECT_EQ(abs.out.find("--config weights.yaml"), std::string::npos) << abs.out;
  EXPECT_NE(abs.out.find("--config DIR/configs/f0000/weights.yaml --seed 42"), std::string::npos) << abs.out;
  std::ofstream(dir / "weights.yaml", std::ios::app) << "# changed\n";
  const CliResult changed = run_gpusim(dir, "sweep field.yaml --out out --quiet");
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_NE(changed.err.find("changed since the sweep began"), std::string::npos) << changed.err;
}

TEST(SweepCli, ABadConfigurationFieldAxisNamesTheSweepFileLineAndWhatIsThere) {
  const struct {
    std::string path;
    std::string message;
  } cases[] = {
      {"profiles[0].plugins.score.enabled[name=NoSuchPlugin].weight",
       "field.yaml:8: axes.balanced-weight.path: weights.yaml: no [name=NoSuchPlugin] at profiles[0].plugins.score.enabled (there: a list of 2)"},
      {"profiles[0].plugin", "field.yaml:8: axes.balanced-weight.path: weights.yaml: no plugin at profiles[0] (there: a mapping of schedulerName, plugins)"},
      {"profiles[0].plugins", "weights.yaml: profiles[0].plugins is a mapping of multiPoint, queueSort, filter, score, bind, gpuSelection, not one value"},
      {"profiles[x]", "field.yaml:10: axes.balanced-weight.path: 'profiles[x]': '[x]' is neither a list index [N] nor a match [field=value]"},
      {"profiles..x", "field.yaml:10: axes.balanced-weight.path: 'profiles..x': a '.' with no key on one side"},
  };
  for (const auto& c : cases) {
    const fs::path dir = weights_sweep("sweep-field-bad", c.path);
    const CliResult r = run_gpusim(dir, "sweep field.yaml --out out");
    EXPECT_EQ(r.exit_code, 1) << c.path;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.path << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.path;
  }
  // A file of several documents needs document: N; an axis over a field is not named as an option.
  const fs::path dir = weights_sweep("sweep-field-documents", "spec.x");
  std::ofstream(dir / "weights.yaml", std::ios::app) << "---\nkind: Other\n";
  const CliResult documents = run_gpusim(dir, "sweep field.yaml --out out");
  EXPECT_NE(documents.err.find("weights.yaml holds 2 YAML documents: say which with document: N"), std::string::npos) << documents.err;
  // Text after a document's end, on which yaml-cpp's LoadAll would loop for ever (the fuzzer's find).
  std::ofstream(dir / "weights.yaml") << "{a: 1},\n";
  const CliResult stray = run_gpusim(dir, "sweep field.yaml --out out");
  EXPECT_NE(stray.err.find("field.yaml:8: axes.balanced-weight.path: weights.yaml: line 1: yaml: unexpected text after the end of a document"), std::string::npos) << stray.err;
  std::string text = slurp(dir / "field.yaml");
  std::ofstream(dir / "named.yaml") << text.replace(text.find("balanced-weight:"), 16, "fill-target:");
  const CliResult named = run_gpusim(dir, "sweep named.yaml --out out");
  EXPECT_NE(named.err.find("named.yaml:8: axes.fill-target: 'fill-target' is a `gpusim run` option"), std::string::npos) << named.err;
}

// SIGINT to the sweep alone (not to its process group, as a terminal's Ctrl-C would): the sweep
// passes it on to the running cell, which removes its partial output; the completed cell stays,
// and no further cell starts.
TEST(SweepCli, SigintIsPassedOnToTheRunningCellAndKeepsTheCompletedOnes) {
  const fs::path dir = fresh_dir("sweep-sigint");
  // Philly's FIFO replay: about a second a cell, long enough to be caught running.
  std::ofstream(dir / "sweep.yaml") << "name: sigint\nrun: {mode: replay, workload: philly}\n"
                                       "axes:\n  policy: [fifo]\n  seed: {from: 1, count: 3}\nmetrics: [job_mean_jct_s]\n";
  std::vector<std::string> words{GPUSIM_TEST_BINARY, "sweep", "sweep.yaml", "--out", "out", "--threads", "1", "--quiet"};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (dir / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (dir / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Once the first cell is complete, the second is starting or running.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (!fs::exists(dir / "out/cells/c0000/gpusim-manifest.json") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!fs::exists(dir / "out/cells/c0000/gpusim-manifest.json")) ::kill(pid, SIGKILL);
  ASSERT_TRUE(fs::exists(dir / "out/cells/c0000/gpusim-manifest.json")) << slurp(dir / "stderr");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(dir / "stderr");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir / "out/cells")) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"c0000"});  // no partial output, no staging directory, no third cell
  EXPECT_TRUE(fs::exists(dir / "out/logs/c0001.log"));
  EXPECT_FALSE(fs::exists(dir / "out/logs/c0002.log"));
  EXPECT_FALSE(fs::exists(dir / "out/merged"));
}

TEST(SweepCli, EachMetricIsPlottedAgainstANumericAxisPerPolicy) {
  const fs::path dir = sweep_dir("sweep-plots", "  fill-target: [0.3, 0.6]\n");
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out one --threads 1 --quiet").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out two --threads 2 --quiet").exit_code, 0);
  const std::string report = slurp(dir / "one/merged/report.md");
  EXPECT_NE(report.find("](plots/gpu_allocation_pct-fill-target.svg)"), std::string::npos) << report;
  EXPECT_NE(report.find("](plots/unallocated_gpus-fill-target.svg)"), std::string::npos) << report;
  // One block per policy, a row per fill target: its mean, min and max over the seeds.
  const std::string data = slurp(dir / "one/merged/plots/gpu_allocation_pct-fill-target.dat");
  EXPECT_NE(data.find("# random: fill-target mean min max\n0.3 "), std::string::npos) << data;
  EXPECT_NE(data.find("# fgd: fill-target mean min max\n0.3 "), std::string::npos) << data;
  EXPECT_TRUE(fs::exists(dir / "one/merged/plots/gpu_allocation_pct-fill-target.svg"));
  EXPECT_EQ(files_of(dir / "one/merged"), files_of(dir / "two/merged"));
}

TEST(SweepCli, MergeRefusesASweepWithCellsMissing) {
  const fs::path dir = sweep_dir("sweep-missing");
  ::setenv("JOB_COMPLETION_INDEX", "0", 1);
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out shards --shards 2 --quiet").exit_code, 0);
  ::unsetenv("JOB_COMPLETION_INDEX");
  const CliResult merge = run_gpusim(dir, "sweep merge shards");
  EXPECT_EQ(merge.exit_code, 1);
  EXPECT_NE(merge.err.find("3 of 6 cells are not complete (first: c0001)"), std::string::npos) << merge.err;
}

TEST(SweepCli, DryRunListsTheCellsAndWritesNothing) {
  const fs::path dir = sweep_dir("sweep-dry");
  const CliResult dry = run_gpusim(dir, "sweep sweep.yaml --dry-run --out out");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("# sweep small: 6 cells"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("c0005  gpusim run --mode fill --cluster nodes.csv --workload pods.csv --policy fgd --seed 44 --out out/cells/c0005 --quiet"),
            std::string::npos) << dry.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(SweepCli, BadSweepFilesNameFileLineAndField) {
  const fs::path dir = fresh_dir("sweep-bad");
  const auto error_of = [&](const std::string& text) {
    std::ofstream(dir / "bad.yaml") << text;
    const CliResult r = run_gpusim(dir, "sweep bad.yaml --out out");
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_FALSE(fs::exists(dir / "out")) << text;
    return r.err;
  };
  EXPECT_NE(error_of("name: x\naxes:\n  polcy: [random]\nmetrics: [a]\n")
                .find("bad.yaml:3: axes.polcy: 'polcy' is not an option of `gpusim run`"), std::string::npos);
  EXPECT_NE(error_of("name: x\nrun:\n  out: elsewhere\naxes:\n  policy: [random]\nmetrics: [a]\n")
                .find("bad.yaml:3: run.out: 'out' is the sweep's to set"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxes:\n  policy: [random, random]\nmetrics: [a]\n")
                .find("bad.yaml:3: axes.policy[1]: 'random' is listed twice"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxes:\n  seed: {from: 1, cout: 3}\nmetrics: [a]\n")
                .find("bad.yaml:3: axes.seed.cout: unknown field (known: from, count)"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxes:\n  policy: [random]\n").find("bad.yaml:1: metrics: missing"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxis:\n  policy: [random]\nmetrics: [a]\n")
                .find("bad.yaml:2: axis: unknown field (known: name, run, axes, metrics)"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxes:\n  policy: [random\n").find("bad.yaml:"), std::string::npos);
  EXPECT_NE(error_of("name: x\nrun:\n  policy: [random, fgd]\naxes:\n  seed: [1]\nmetrics: [a]\n")
                .find("bad.yaml:3: run.policy: 'policy' takes one value; a list of them belongs under axes"), std::string::npos);
  EXPECT_NE(error_of("name: x\nrun:\n  perf-model: yes\naxes:\n  seed: [1]\nmetrics: [a]\n")
                .find("bad.yaml:3: run.perf-model: 'perf-model' is a flag: true or false"), std::string::npos);
  EXPECT_NE(error_of("name: x\naxes:\n  perf-model: [true, false]\nmetrics: [a]\n")
                .find("bad.yaml:3: axes.perf-model: 'perf-model' is a flag; an axis needs values"), std::string::npos);
  EXPECT_NE(error_of("name: x\nrun:\n  fill-target: \"\"\naxes:\n  seed: [1]\nmetrics: [a]\n")
                .find("bad.yaml:3: run.fill-target: an empty value"), std::string::npos);
  // Aliases to one long range: refused at the second axis, before billions of values are held (the
  // fuzzer's find: 40 such lines took 429 MB).
  EXPECT_NE(error_of("name: x\naxes:\n  seed: &a {from: 1, count: 100000}\n  k1: {config: c, path: p, values: *a}\n"
                     "  k2: {config: c, path: p, values: *a}\nmetrics: [a]\n")
                .find("bad.yaml:3: axes: 10000000000 cells: more than 10^7"), std::string::npos);
  // A flag set true is the bare option; false leaves it out.
  std::ofstream(dir / "flags.yaml") << "name: x\nrun:\n  mode: replay\n  perf-model: true\n  free-preemption: false\naxes:\n  seed: [1]\nmetrics: [a]\n";
  const CliResult flags = run_gpusim(dir, "sweep flags.yaml --dry-run");
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_NE(flags.out.find("gpusim run --mode replay --perf-model --seed 1 --out"), std::string::npos) << flags.out;
  // A record of the wrong shape is bad input, not a crash.
  fs::create_directories(dir / "shaped");
  std::ofstream(dir / "shaped/gpusim-sweep.json") << "{\"cells\": \"abc\", \"axes\": [], \"metrics\": []}\n";
  const CliResult shaped = run_gpusim(dir, "sweep merge shaped");
  EXPECT_EQ(shaped.exit_code, 1) << shaped.err;
  EXPECT_NE(shaped.err.find("gpusim-sweep.json: not a record gpusim sweep wrote"), std::string::npos) << shaped.err;
}

TEST(SweepCli, AMetricNoCellHasIsNamedWithTheSweepFilesLine) {
  const fs::path dir = sweep_dir("sweep-metric");
  std::string text = slurp(dir / "sweep.yaml");
  text.replace(text.find("unallocated_gpus"), 16, "unallocated_gpu");
  std::ofstream(dir / "sweep.yaml") << text;
  const CliResult r = run_gpusim(dir, "sweep sweep.yaml --out out --quiet --threads 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sweep.yaml:9: metrics: 'unallocated_gpu' is not in cell c0000's summary.json"), std::string::npos) << r.err;
  // Found once the first cell ran, not after all six.
  EXPECT_NE(r.err.find("found once the first cell ran"), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out/cells"), fs::directory_iterator{}), 1);
  EXPECT_FALSE(fs::exists(dir / "out/merged"));
  // gpusim sweep merge still names it, from any cell.
  const CliResult merge = run_gpusim(dir, "sweep merge out");
  EXPECT_NE(merge.err.find("cells are not complete"), std::string::npos) << merge.err;
}

TEST(SweepCli, OutputsGpusimDidNotWriteAreNeverTouched) {
  const fs::path dir = sweep_dir("sweep-foreign");
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine/notes.txt") << "keep me\n";
  const CliResult foreign = run_gpusim(dir, "sweep sweep.yaml --out mine --quiet");
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("not empty and not a gpusim sweep directory"), std::string::npos) << foreign.err;
  EXPECT_EQ(files_of(dir / "mine").size(), 1U);
  // Another sweep's directory: refused, not mixed.
  ASSERT_EQ(run_gpusim(dir, "sweep sweep.yaml --out out --quiet").exit_code, 0);
  std::string text = slurp(dir / "sweep.yaml");
  text.replace(text.find("count: 3"), 8, "count: 2");
  std::ofstream(dir / "other.yaml") << text;
  const CliResult other = run_gpusim(dir, "sweep other.yaml --out out --quiet");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("holds another sweep"), std::string::npos) << other.err;
  // A cell directory holding a file of someone else's: that cell fails (gpusim run refuses it), the file stays.
  fs::remove_all(dir / "out/cells/c0001");
  fs::create_directories(dir / "out/cells/c0001");
  std::ofstream(dir / "out/cells/c0001/notes.txt") << "keep me\n";
  const CliResult cell = run_gpusim(dir, "sweep sweep.yaml --out out --quiet");
  EXPECT_EQ(cell.exit_code, 1);
  EXPECT_NE(cell.err.find("1 cell failed; completed cells are kept"), std::string::npos) << cell.err;
  EXPECT_TRUE(fs::exists(dir / "out/cells/c0001/notes.txt"));
}

TEST(SweepCli, TheIndexedJobManifestReadsBackAsOneIndexedJob) {
  const fs::path dir = sweep_dir("sweep-job");
  const CliResult job = run_gpusim(dir, "sweep sweep.yaml --emit-job --shards 3 --parallelism 2 --image registry.example/gpusim:1");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const YAML::Node doc = YAML::Load(job.out);
  EXPECT_EQ(doc["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(doc["spec"]["completions"].as<int>(), 3);
  const YAML::Node container = doc["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["image"].as<std::string>(), "registry.example/gpusim:1");
  EXPECT_EQ(container["image"].Tag(), "!");  // quoted: a string even where it reads as a number
  // Pod i's hostname is the Job's name, '-' and i: at most 63 characters however long the sweep's name.
  std::ofstream(dir / "long.yaml") << "name: " << std::string(120, 'A') << "\naxes:\n  seed: [1]\nmetrics: [a]\n";
  const CliResult long_name = run_gpusim(dir, "sweep long.yaml --emit-job --shards 100 --image 1.5");
  ASSERT_EQ(long_name.exit_code, 0) << long_name.err;
  const YAML::Node long_doc = YAML::Load(long_name.out);
  EXPECT_EQ(long_doc["metadata"]["name"].as<std::string>().size() + 1 + 2, 63U);
  EXPECT_EQ(long_doc["spec"]["template"]["spec"]["containers"][0]["image"].Tag(), "!");
  const YAML::Node command = container["command"];
  EXPECT_EQ(command[2].as<std::string>(), "sweep.yaml");
  EXPECT_EQ(command[6].as<std::string>(), "3");  // --shards: a string, as a container's arguments are
  // The project's own manifest reader takes it as a Job of 3 completions, 2 at a time, with the pods' requests.
  const auto catalog = cluster::GpuCatalog::load(kSource / "sim/cluster/gpu_catalog.json");
  const traces::Workload workload = traces::parse_k8s_workload(job.out, "job.yaml", catalog);
  ASSERT_EQ(workload.jobs.size(), 1U);
  EXPECT_EQ(workload.jobs[0].name, "gpusim-sweep-small");
  EXPECT_EQ(workload.jobs[0].completions, 3);
  EXPECT_EQ(workload.jobs[0].parallelism, 2);
  ASSERT_FALSE(workload.pods.empty());
  EXPECT_EQ(workload.pods[0].cpu_milli, 1000);
  const CliResult no_shards = run_gpusim(dir, "sweep sweep.yaml --emit-job");
  EXPECT_EQ(no_shards.exit_code, 2);
  EXPECT_NE(no_shards.err.find("--emit-job needs --shards K"), std::string::npos) << no_shards.err;
}

}  // namespace
}  // namespace gpusim::testing
