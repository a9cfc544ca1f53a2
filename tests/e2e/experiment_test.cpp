// End to end on the bundled openb trace: the library API and the gpusim binary.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/experiment/compare.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"
#include "tests/perf/synthetic_samples.hpp"
#include <sys/wait.h>

namespace gpusim::experiment {
namespace {

namespace fs = std::filesystem;

struct Openb {
  cluster::GpuCatalog catalog = cluster::GpuCatalog::load(traces::default_catalog(traces::default_data_root()));
  traces::ClusterSpec nodes = traces::read_openb_nodes(traces::resolve_cluster("openb", traces::default_data_root()), catalog);
  traces::Workload pods = traces::read_openb_pods(traces::resolve_workload("openb:default", traces::default_data_root()), catalog);
  sched::Registry registry = policy::builtin_registry();
  RunInputs inputs() const { return {&catalog, &nodes, &pods, &registry, nullptr, {}}; }
};

const Openb& openb() {
  static const Openb data;  // read once per test binary; immutable
  return data;
}

TEST(FillExperiment, FgdBeatsRandomOnTheBundledTrace) {
  RunConfig config;
  config.seed = 42;
  const RunResult fgd = run_one(openb().inputs(), config::builtin_profile("fgd"), config);
  const RunResult random = run_one(openb().inputs(), config::builtin_profile("random"), config);
  const double fgd_alloc = *fgd.metric("gpu_allocation_pct");
  const double random_alloc = *random.metric("gpu_allocation_pct");
  EXPECT_GT(fgd_alloc, random_alloc + 4.0);
  EXPECT_GT(fgd_alloc, 90.0);
  EXPECT_LE(fgd_alloc, 100.0);
  // The tuned list's requests stop just short of 130% of capacity.
  EXPECT_NEAR(*fgd.metric("arrived_load_pct"), 130.0, 0.2);
  EXPECT_FALSE(fgd.curve.empty());
  EXPECT_EQ(fgd.curve.back().load_pct, 130);
  EXPECT_EQ(fgd.pods.size(), static_cast<std::size_t>(*fgd.metric("arrived_pods")));
}

// Pods that fit nowhere carry kube-scheduler's FitError against the cluster the fill left: on two
// nodes of 2 GPUs and 8 cores, two 2-GPU pods take every GPU, and the third pod, which also asks
// more cores than a node has, is short of both on both nodes.
TEST(FillExperiment, PodsThatFitNowhereCarryTheirFitError) {
  traces::ClusterSpec cluster{"two-nodes", {{"a", 8000, 65536, 2, 0, {}, {}}, {"b", 8000, 65536, 2, 0, {}, {}}}, {}, {}, 0};
  traces::Workload workload;
  workload.source = "three-pods";
  for (const auto& [name, cpu, gpus] : {std::tuple{"two-a", 1000, 2}, std::tuple{"two-b", 1000, 2}, std::tuple{"wide", 16000, 1}}) {
    cluster::PodSpec pod;
    pod.name = name;
    pod.cpu_milli = cpu;
    pod.memory_mib = 1024;
    pod.gpu_count = gpus;
    pod.gpu_milli = 1000;
    workload.pods.push_back(pod);
  }
  const RunInputs inputs{&openb().catalog, &cluster, &workload, &openb().registry, nullptr, {}};
  RunConfig config;
  config.order = FillOrder::kAsListed;
  const RunResult result = run_one(inputs, config::builtin_profile("bestfit"), config);
  ASSERT_EQ(result.pods.size(), 3U);
  EXPECT_EQ(result.pods[0].outcome, PodOutcome::kScheduled);
  EXPECT_EQ(result.pods[0].reason, "");
  EXPECT_EQ(result.pods[2].outcome, PodOutcome::kFailed);
  const std::string fit_error = "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient nvidia.com/gpu.";
  EXPECT_EQ(result.pods[2].reason, fit_error);
  ASSERT_EQ(result.never_ran.size(), 1U);
  EXPECT_EQ(result.never_ran[0].reason, fit_error);
  EXPECT_EQ(result.never_ran[0].pods, 1);
  EXPECT_EQ(result.never_ran[0].causes, (std::vector<std::string>{"Insufficient cpu", "Insufficient nvidia.com/gpu"}));
}

// On the bundled trace every failed pod, and only those, has a FitError over the cluster's nodes,
// and the run's tally counts each of them once.
TEST(FillExperiment, EveryFailedPodOfTheBundledFillHasAFitError) {
  RunConfig config;
  config.seed = 3;
  const RunResult run = run_one(openb().inputs(), config::builtin_profile("gpu-packing"), config);
  const std::string prefix = fmt::format("0/{} nodes are available: ", openb().nodes.nodes.size());
  std::int64_t failed = 0;
  for (const PodRecord& pod : run.pods) {
    if (pod.outcome != PodOutcome::kFailed) {
      EXPECT_EQ(pod.reason, "");
      continue;
    }
    ++failed;
    ASSERT_TRUE(pod.reason.view().starts_with(prefix)) << pod.reason;
    EXPECT_NE(pod.reason.view().find(" Insufficient "), std::string::npos) << pod.reason;
  }
  EXPECT_EQ(failed, static_cast<std::int64_t>(*run.metric("failed_pods")));
  EXPECT_GT(failed, 100);
  std::int64_t tallied = 0;
  for (const NeverRan& entry : run.never_ran) tallied += entry.pods;
  EXPECT_EQ(tallied, failed);
  EXPECT_TRUE(std::is_sorted(run.never_ran.begin(), run.never_ran.end(),
                             [](const NeverRan& a, const NeverRan& b) { return a.reason < b.reason; }));
}

TEST(ReplayExperiment, EveryPodEndsAccordingToItsTracePhase) {
  RunConfig config;
  config.mode = Mode::kReplay;
  config.time_compression = 1000;
  // A quarter of the cluster, so that the compressed arrivals must queue.
  traces::ClusterSpec small = openb().nodes;
  small.nodes.resize(300);
  RunInputs inputs = openb().inputs();
  inputs.cluster = &small;
  const RunResult result = run_one(inputs, config::builtin_profile("fgd"), config);
  EXPECT_EQ(*result.metric("completed_pods") + *result.metric("failed_pods") + *result.metric("withdrawn_pods") +
                *result.metric("deleted_pods") + *result.metric("unscheduled_pods"),
            8152.0);
  std::map<PodOutcome, int> outcomes;
  for (const PodRecord& pod : result.pods) {
    const auto& spec = openb().pods.pods[pod.source_index];
    ++outcomes[pod.outcome];
    const auto waited = spec.deletion_time->micros() - spec.creation_time->micros();
    switch (pod.outcome) {
      case PodOutcome::kCompleted:
      case PodOutcome::kFailed:
        ASSERT_GE(pod.start_us, pod.arrival_us);
        ASSERT_EQ(pod.end_us - pod.start_us, spec.duration->micros());
        ASSERT_EQ(pod.outcome == PodOutcome::kFailed, spec.phase == cluster::TracePhase::kFailed) << spec.name;
        break;
      case PodOutcome::kDeleted:  // trace-Pending, placed here: runs until its owner deleted it
      case PodOutcome::kWithdrawn:  // trace-Pending, still waiting then
        ASSERT_EQ(spec.phase, cluster::TracePhase::kPending) << spec.name;
        ASSERT_EQ(pod.end_us, pod.arrival_us + waited) << spec.name;
        break;
      default:
        ASSERT_NE(spec.phase, cluster::TracePhase::kPending) << "a Pending pod never outlives its deletion";
    }
  }
  EXPECT_EQ(outcomes[PodOutcome::kFailed], 1870) << "every trace-Failed pod ran and failed";
  EXPECT_EQ(outcomes[PodOutcome::kWithdrawn] + outcomes[PodOutcome::kDeleted], 897) << "every trace-Pending pod";
  EXPECT_GT(outcomes[PodOutcome::kWithdrawn], 0) << "some waited in vain on a quarter of the cluster";
  EXPECT_GT(*result.metric("mean_queueing_delay_s"), 0.0) << "compressed arrivals must queue";
  EXPECT_GT(*result.metric("mean_gpu_allocation_pct"), 0.0);
}

TEST(Compare, ParallelRunsEqualSequentialRuns) {
  const std::vector<sched::Profile> profiles{config::builtin_profile("bestfit"), config::builtin_profile("random")};
  const auto seeds = seed_list(7, 2);
  const auto parallel = run_compare(openb().inputs(), profiles, RunConfig{}, seeds, 2);
  const auto sequential = run_compare(openb().inputs(), profiles, RunConfig{}, seeds, 1);
  ASSERT_EQ(parallel.policies.size(), 2U);
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t m = 0; m < parallel.policies[p].metrics.size(); ++m) {
      EXPECT_EQ(parallel.policies[p].metrics[m].mean, sequential.policies[p].metrics[m].mean);
    }
  }
}

// The gpusim binary, as a user runs it.
int gpusim(const std::string& args) {
  const std::string command = std::string(GPUSIM_TEST_BINARY) + " " + args + " > /dev/null 2>&1";
  return std::system(command.c_str());
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(Cli, TwoIdenticalRunsGiveByteIdenticalOutputs) {
  const fs::path dir = fs::path(::testing::TempDir()) / "determinism";
  fs::remove_all(dir);
  for (const char* mode : {"fill", "replay"}) {
    const std::string args = fmt::format("compare --policies fgd,random --seeds 2 --mode {}{} --out ", mode,
                                          std::string(mode) == "replay" ? " --time-compression 500" : "");
    ASSERT_EQ(gpusim(args + (dir / "a").string()), 0);
    ASSERT_EQ(gpusim(args + (dir / "b").string()), 0);
    for (const auto& entry : fs::recursive_directory_iterator(dir / "a")) {
      if (!entry.is_regular_file()) continue;
      const fs::path other = dir / "b" / fs::relative(entry.path(), dir / "a");
      EXPECT_EQ(slurp(entry.path()), slurp(other)) << mode << ": " << entry.path();
    }
    EXPECT_TRUE(fs::exists(dir / "a" / "summary.json"));
    EXPECT_TRUE(fs::exists(dir / "a" / "report.md"));
    EXPECT_TRUE(fs::exists(dir / "a" / "runs" / "fgd" / "seed-42" / "pods.csv"));
    EXPECT_TRUE(fs::exists(dir / "a" / "runs" / "fgd" / "seed-42" / "timeseries.csv"));
  }
}

TEST(Cli, MalformedPodListFailsWithoutOutputs) {
  const fs::path dir = fs::path(::testing::TempDir()) / "malformed";
  fs::create_directories(dir);
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"missing-column.csv", "name,cpu_milli,memory_mib,num_gpu\np,1,1,1\n"},
      {"text-in-number.csv", header + "p,abc,1,1,500,,LS,Running,0,1,0\n"},
      {"negative.csv", header + "p,1000,1,-1,500,,LS,Running,0,1,0\n"}};
  for (const auto& [name, text] : cases) {
    std::ofstream(dir / name) << text;
    const fs::path out = dir / ("out-" + name);
    const std::string err = (dir / (name + ".err")).string();
    const std::string command = std::string(GPUSIM_TEST_BINARY) + " run --policy fgd --workload " +
                                (dir / name).string() + " --out " + out.string() + " 2> " + err;
    EXPECT_NE(std::system(command.c_str()), 0) << name;
    EXPECT_FALSE(fs::exists(out)) << name;
    EXPECT_NE(slurp(err).find(name + ":"), std::string::npos) << slurp(err);
  }
}

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "run ", "compare ", "policies "}) {
    EXPECT_EQ(gpusim(std::string(sub) + "--help"), 0) << sub;
  }
}

}  // namespace
}  // namespace gpusim::experiment

namespace gpusim::experiment {
namespace {

TEST(ReplayWithPerformanceModel, RunTimesScaleWithTheGpuTheyLandOn) {
  const auto model = perf::PerformanceModel::from_calibrations(openb().catalog, {});
  RunInputs inputs = openb().inputs();
  inputs.performance = &model;
  inputs.job = {*openb().catalog.find("V100M32"), 0.5, perf::Precision::kFp32};
  RunConfig config;
  config.mode = Mode::kReplay;
  config.time_compression = 100000;
  const RunResult result = run_one(inputs, config::builtin_profile("fgd"), config);
  int checked = 0;
  for (const PodRecord& pod : result.pods) {
    const auto& spec = openb().pods.pods[pod.source_index];
    if ((pod.outcome != PodOutcome::kCompleted && pod.outcome != PodOutcome::kFailed) || !spec.wants_gpu()) continue;
    const auto gpu_model = openb().nodes.nodes[static_cast<std::size_t>(pod.node)].gpu_model;
    const double expected = static_cast<double>(spec.duration->micros()) * model.time_factor(inputs.job, gpu_model);
    ASSERT_NEAR(static_cast<double>(pod.end_us - pod.start_us), expected, 1.0);
    ++checked;
  }
  EXPECT_GT(checked, 6000);  // the GPU pods that ran their trace duration: Running, Succeeded, Failed
}

TEST(Cli, CalibrateFromSamplesAndValidate) {
  const fs::path dir = fs::path(::testing::TempDir()) / "calibrate";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "samples.json") << testing::synthetic_samples(testing::kTruth, 0.002, 2).dump();
  ASSERT_EQ(gpusim(fmt::format("calibrate --from-samples {} --gpu-model h100-sxm5-80gb --out-dir {}",
                               (dir / "samples.json").string(), (dir / "out").string())), 0);
  ASSERT_TRUE(fs::exists(dir / "out" / "h100-sxm5-80gb.json"));
  ASSERT_TRUE(fs::exists(dir / "out" / "h100-sxm5-80gb-validation.md"));
  EXPECT_NE(slurp(dir / "out" / "h100-sxm5-80gb-validation.md").find("| memory.dram |"), std::string::npos);
  ASSERT_EQ(gpusim(fmt::format("validate --calibration {} --out-dir {}", (dir / "out" / "h100-sxm5-80gb.json").string(),
                               (dir / "validated").string())), 0);
  EXPECT_EQ(slurp(dir / "out" / "h100-sxm5-80gb-validation.md"), slurp(dir / "validated" / "h100-sxm5-80gb-validation.md"));
  // The calibration feeds replay: figures for the H100 now come from the file.
  const fs::path out = dir / "replay";
  ASSERT_EQ(gpusim(fmt::format("run --mode replay --time-compression 100000 --perf-model --calibration-dir {} --out {}",
                               (dir / "out").string(), out.string())), 0);
  EXPECT_NE(slurp(out / "performance_model.json").find("calibration h100-sxm5-80gb"), std::string::npos);
}

// On a machine without a GPU (CI) calibrate must say so and write nothing; on one with a GPU
// it runs a quick calibration.
TEST(Cli, CalibrateReportsAMissingGpu) {
  const fs::path dir = fs::path(::testing::TempDir()) / "calibrate-nogpu";
  fs::remove_all(dir);
  const std::string err = (fs::path(::testing::TempDir()) / "calibrate.err").string();
  const std::string command = std::string(GPUSIM_TEST_BINARY) + " calibrate --quick --sweeps 1 --out-dir " + dir.string() +
                              " > /dev/null 2> " + err;
  const int status = std::system(command.c_str());
  if (WEXITSTATUS(status) == 3) {
    // Either the harness found no GPU, or this build has no harness (CUDA off).
    const std::string message = slurp(err);
    EXPECT_TRUE(message.find("no GPU present") != std::string::npos ||
                message.find("built without CUDA") != std::string::npos) << message;
    EXPECT_FALSE(fs::exists(dir));
  } else {
    EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(err);
  }
}

}  // namespace
}  // namespace gpusim::experiment
