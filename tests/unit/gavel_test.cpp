// Gavel's throughput table reader, the job-type runtime model and the time-share LPs (CLP), with
// allocations worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/core/status.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "sim/sched/time_share_lp.hpp"
#include "traces/gavel_table.hpp"

namespace gpusim {
namespace {

const char* kTable = R"json({
  "k80": {"('ResNet-50 (batch size 64)', 1)": {"null": 0.5, "('LM (batch size 5)', 1)": [0.1, 0.2]},
          "('LM (batch size 5)', 1)": {"null": 2.0},
          "('LM (batch size 5)', 2)": {"null": 0.0}},
  "v100": {"('ResNet-50 (batch size 64)', 1)": {"null": 2.0},
           "('LM (batch size 5)', 1)": {"null": 4.0},
           "('LM (batch size 5)', 2)": {"null": 7.0}},
  "v100_unconsolidated": {"('LM (batch size 5)', 2)": {"null": 5.0}}
})json";

TEST(GavelTable, ReadsThroughputsAloneByTypeScaleAndPlacement) {
  const auto table = traces::parse_gavel_throughputs(kTable, "t.json");
  ASSERT_EQ(table.job_types.size(), 2u);
  EXPECT_EQ(table.job_types[0].name, "LM (batch size 5)");  // sorted by name
  EXPECT_EQ(table.job_types[1].name, "ResNet-50 (batch size 64)");
  const auto& lm = table.job_types[0];
  EXPECT_EQ(lm.rate(0, 0, false), 2.0);
  EXPECT_EQ(lm.rate(0, 2, false), 4.0);
  EXPECT_EQ(lm.rate(0, 2, true), 4.0);  // one GPU is one server: the figure stands for both
  EXPECT_EQ(lm.rate(1, 2, false), 7.0);
  EXPECT_EQ(lm.rate(1, 2, true), 5.0);
  EXPECT_EQ(lm.rate(1, 0, false), 0.0);  // cannot run
  EXPECT_EQ(lm.rate(0, 1, false), 0.0);  // no p100 figures
}

TEST(GavelTable, ScaleFactorIsTheLargestNotAboveTheJobsGpus) {
  EXPECT_EQ(traces::gavel_scale_index(1), 0u);
  EXPECT_EQ(traces::gavel_scale_index(3), 1u);
  EXPECT_EQ(traces::gavel_scale_index(4), 2u);
  EXPECT_EQ(traces::gavel_scale_index(7), 2u);
  EXPECT_EQ(traces::gavel_scale_index(64), 3u);
}

void expect_error(const std::string& text, const std::string& part) {
  try {
    (void)traces::parse_gavel_throughputs(text, "t.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("t.json", 0), 0u) << e.what();
  }
}

TEST(GavelTable, BadInputNamesTheFileAndEntry) {
  expect_error("{", "invalid JSON");
  expect_error("[]", "expected an object");
  expect_error(R"json({"a100": {}})json", "a100: unknown worker type");
  expect_error(R"json({"k80": {"ResNet": {"null": 1}}})json", "k80 / ResNet: job key");
  expect_error(R"json({"k80": {"('ResNet', 3)": {"null": 1}}})json", "scale factor of 1, 2, 4 or 8");
  expect_error(R"json({"k80": {"('ResNet', 1)": {"x": 1}}})json", "under \"null\"");
  expect_error(R"json({"k80": {"('ResNet', 1)": {"null": -1}}})json", "k80 / ('ResNet', 1) / null: throughput");
  expect_error(R"json({"k80": {"('ResNet', 1)": {"null": "fast"}}})json", "throughput must be a number");
  expect_error(R"json({"k80": {}})json", "no job types");
}

// Two job types side by side on one V100: A keeps 0.6 of its 2 steps/s beside B, B 0.75 of its 4
// beside A; two A's cannot share (0: out of memory). B has spread 2-GPU figures beside A.
const char* kPairs = R"json({
  "v100": {"('A', 1)": {"null": 2.0, "('B', 1)": [1.2, 3.0], "('A', 1)": [0.0, 0.0]},
           "('B', 1)": {"null": 4.0, "('A', 1)": [3.0, 1.2], "('B', 1)": [2.2, 2.2]},
           "('A', 2)": {"null": 3.0, "('B', 2)": [1.5, 3.5]},
           "('B', 2)": {"null": 6.0, "('A', 2)": [3.5, 1.5]}},
  "v100_unconsolidated": {"('B', 2)": {"null": 5.0, "('A', 2)": [2.0, 1.0]}}
})json";

TEST(GavelTable, ReadsCoLocationFiguresByPartner) {
  const auto table = traces::parse_gavel_throughputs(kPairs, "pairs.json");
  ASSERT_EQ(table.job_types.size(), 2u);
  const auto& a = table.job_types[0];
  const auto& b = table.job_types[1];
  EXPECT_EQ(a.colocated_rate(0, 2, false, 1), 1.2);  // A beside B on one V100
  EXPECT_EQ(b.colocated_rate(0, 2, false, 0), 3.0);
  EXPECT_EQ(a.colocated_rate(0, 2, false, 0), 0.0);  // A beside A: cannot run
  EXPECT_EQ(b.colocated_rate(0, 2, false, 1), 2.2);
  EXPECT_EQ(a.colocated_rate(0, 2, true, 1), 1.2);   // one GPU is one server
  EXPECT_EQ(b.colocated_rate(1, 2, false, 0), 3.5);  // 2 GPUs, consolidated
  EXPECT_EQ(b.colocated_rate(1, 2, true, 0), 2.0);   // 2 GPUs spread over servers
  EXPECT_EQ(a.colocated_rate(1, 2, true, 1), 0.0);   // no spread figure for A
  EXPECT_EQ(a.colocated_rate(0, 0, false, 1), 0.0);  // no K80 figures at all
}

TEST(GavelTable, BadCoLocationEntriesNameTheEntry) {
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "('A', 2)": [1, 1]}}})json",
               "v100 / ('A', 1) / ('A', 2): a co-location key must be \"('<job type>', 1)\"");
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "B": [1, 1]}}})json", "v100 / ('A', 1) / B: a co-location key");
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "('A', 1)": 1}}})json", "expected [steps/s of this job");
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "('A', 1)": [1, -2]}}})json", "(got [1,-2])");
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "('A', 1)": [1]}}})json", "expected [steps/s");
  expect_error(R"json({"v100": {"('A', 1)": {"null": 1, "('Z', 1)": [1, 1]}}})json",
               "v100 / ('A', 1) / ('Z', 1): the other job's type is not in the table");
}

TEST(JobTypeSpeeds, APairRunsAtItsCoLocationFigureOverItsFigureAlone) {
  const auto catalog = cluster::GpuCatalog::from_models({{"v100-pcie", "V100", {}, 16384, 0, 0, 0, 0, ""}});
  const perf::JobTypeSpeeds speeds(traces::parse_gavel_throughputs(kPairs, "pairs.json"), catalog);
  cluster::PodSpec a, b;
  a.gpu_count = b.gpu_count = 1;
  a.job_type = 0;
  b.job_type = 1;
  const auto a1 = speeds.pair_class(a, 2, false);
  const auto b1 = speeds.pair_class(b, 2, false);
  EXPECT_DOUBLE_EQ(speeds.colocated_speed(a1, b1), 1.2 / 2.0);
  EXPECT_DOUBLE_EQ(speeds.colocated_speed(b1, a1), 3.0 / 4.0);
  EXPECT_EQ(speeds.colocated_speed(a1, a1), 0.0);  // the pair cannot run: no figure
  EXPECT_EQ(speeds.colocated_speed(b1, b1), 2.2 / 4.0);
  EXPECT_EQ(speeds.colocated_speed(a1, -1), 0.0);  // the other has no job type
  // Scale factors must match: the table pairs only jobs of one scale.
  b.gpu_count = 2;
  b.job_scale = 1;
  const auto b2 = speeds.pair_class(b, 2, false);
  EXPECT_EQ(speeds.colocated_speed(a1, b2), 0.0);
  // Spread over servers: the spread figures where the table has both, else the consolidated ones.
  a.gpu_count = 2;
  a.job_scale = 1;
  EXPECT_DOUBLE_EQ(speeds.colocated_speed(speeds.pair_class(b, 2, true), speeds.pair_class(a, 2, true)), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(speeds.colocated_speed(speeds.pair_class(a, 2, true), speeds.pair_class(b, 2, true)), 1.5 / 3.0);
  // Never faster than alone: a figure above the job's own is capped at 1.
  const char* faster = R"json({"v100": {"('A', 1)": {"null": 2.0, "('A', 1)": [2.5, 2.5]}}})json";
  const perf::JobTypeSpeeds fast(traces::parse_gavel_throughputs(faster, "f.json"), catalog);
  cluster::PodSpec c;
  c.gpu_count = 1;
  c.job_type = 0;
  EXPECT_EQ(fast.colocated_speed(fast.pair_class(c, 2, false), fast.pair_class(c, 2, false)), 1.0);
}

TEST(GavelTable, BundledTableHasGavelsTypes) {
  const auto table = traces::load_gavel_throughputs(std::string(GPUSIM_SOURCE_DIR) + "/traces/data/gavel/simulation_throughputs.json");
  EXPECT_EQ(table.job_types.size(), 26u);
  // ResNet-50 (batch size 64) alone on one GPU: K80 0.62, P100 2.62, V100 4.39 steps/s (traces README).
  const auto it = std::find_if(table.job_types.begin(), table.job_types.end(),
                               [](const traces::GavelJobType& t) { return t.name == "ResNet-50 (batch size 64)"; });
  ASSERT_NE(it, table.job_types.end());
  EXPECT_NEAR(it->rate(0, 0, false), 0.62, 0.005);
  EXPECT_NEAR(it->rate(0, 1, false), 2.62, 0.005);
  EXPECT_NEAR(it->rate(0, 2, false), 4.39, 0.005);
  // Beside LM (batch size 5) on a V100: 3.09 steps/s (the file's entry, both ways round).
  const auto lm = std::find_if(table.job_types.begin(), table.job_types.end(),
                               [](const traces::GavelJobType& t) { return t.name == "LM (batch size 5)"; });
  ASSERT_NE(lm, table.job_types.end());
  const auto lm_index = static_cast<std::size_t>(lm - table.job_types.begin());
  const auto resnet_index = static_cast<std::size_t>(it - table.job_types.begin());
  EXPECT_NEAR(it->colocated_rate(0, 2, false, lm_index), 3.088, 0.001);
  EXPECT_NEAR(lm->colocated_rate(0, 2, false, resnet_index), 37.795, 0.001);
}

TEST(JobTypeSpeeds, ARunTakesTheTablesRatioToAV100) {
  const auto catalog = cluster::GpuCatalog::from_models(
      {{"k80", "K80", {}, 12288, 0, 0, 0, 0, ""}, {"v100-pcie", "V100", {}, 16384, 0, 0, 0, 0, ""}, {"t4", "T4", {}, 16384, 0, 0, 0, 0, ""}});
  const perf::JobTypeSpeeds speeds(traces::parse_gavel_throughputs(kTable, "t.json"), catalog);
  EXPECT_EQ(speeds.worker_type_of(0), std::optional<std::size_t>(0));
  EXPECT_EQ(speeds.worker_type_of(1), std::optional<std::size_t>(2));
  EXPECT_FALSE(speeds.worker_type_of(2).has_value());
  cluster::PodSpec pod;
  pod.gpu_count = 1;
  pod.job_type = 1;  // ResNet-50: 0.5 steps/s on a K80, 2 on a V100
  EXPECT_DOUBLE_EQ(speeds.speed(pod, 0), 0.25);
  EXPECT_DOUBLE_EQ(speeds.time_factor(pod, 0), 4.0);
  EXPECT_DOUBLE_EQ(speeds.time_factor(pod, 1), 1.0);
  // A T4 node has no column in the table.
  const std::vector<cluster::NodeSpec> nodes{{"t", 1000, 1000, 1, 2, {}, {}, false}};
  EXPECT_THROW(speeds.check_cluster(nodes), core::InputError);
}

TEST(JobTypeSpeeds, AScatteredJobRunsAtTheUnconsolidatedFigureOnlyWhenSpread) {
  const auto catalog = cluster::GpuCatalog::from_models(
      {{"k80", "K80", {}, 12288, 0, 0, 0, 0, ""}, {"v100-pcie", "V100", {}, 16384, 0, 0, 0, 0, ""}});
  const perf::JobTypeSpeeds speeds(traces::parse_gavel_throughputs(kTable, "t.json"), catalog);
  cluster::PodSpec pod;
  pod.gpu_count = 1;
  pod.gang = 3;
  pod.scattered = true;  // a 2-GPU job of one server in the trace, split by --job-placement scattered
  pod.job_type = 0;      // LM: 7 steps/s on two V100s of one server, 5 spread over two
  pod.job_scale = 1;
  EXPECT_DOUBLE_EQ(speeds.time_factor(pod, 1, false), 1.0);
  EXPECT_DOUBLE_EQ(speeds.time_factor(pod, 1, true), 7.0 / 5.0);
  // A gang of the trace ran spread: spread is its reference, and one server would not be faster
  // than the trace says (the reference is spread too).
  pod.scattered = false;
  EXPECT_DOUBLE_EQ(speeds.time_factor(pod, 1, true), 1.0);
}

TEST(JobTypeSpeeds, TypesAreDrawnAmongThoseThatRunEverywhereAndGangsShareOne) {
  const auto catalog = cluster::GpuCatalog::from_models({{"k80", "K80", {}, 12288, 0, 0, 0, 0, ""}, {"v100-pcie", "V100", {}, 16384, 0, 0, 0, 0, ""}});
  const perf::JobTypeSpeeds speeds(traces::parse_gavel_throughputs(kTable, "t.json"), catalog);
  const std::vector<cluster::NodeSpec> nodes{{"k", 1000, 1000, 2, 0, {}, {}, false}, {"v", 1000, 1000, 2, 1, {}, {}, false}};
  std::vector<cluster::PodSpec> pods(6);
  for (auto& pod : pods) pod.gpu_count = 1;
  pods[4].gpu_count = 2;  // 2 GPUs: LM cannot run on a K80 at 2 GPUs and ResNet-50 has no 2-GPU figure
  EXPECT_THROW(speeds.assign(pods, nodes, 1), core::InputError);
  pods[4].gpu_count = 1;
  pods[4].gang = 1;
  pods[5].gang = 1;  // a gang of 2 x 1 GPU: scale 2 spread -- none runs on a K80 either
  EXPECT_THROW(speeds.assign(pods, nodes, 1), core::InputError);
  pods[4].gang = pods[5].gang = 0;
  speeds.assign(pods, nodes, 1);
  bool both = false;
  for (const auto& pod : pods) {
    EXPECT_TRUE(pod.job_type == 0 || pod.job_type == 1);
    both = both || pod.job_type != pods[0].job_type;
  }
  EXPECT_TRUE(both);  // six draws of two types: not all alike with this seed
  std::vector<cluster::PodSpec> again(6);
  for (auto& pod : again) pod.gpu_count = 1;
  speeds.assign(again, nodes, 1);
  for (std::size_t i = 0; i < pods.size(); ++i) EXPECT_EQ(again[i].job_type, pods[i].job_type);  // seeded
}

double throughput(const std::vector<double>& shares, const sched::TimeShareJob& job, std::size_t j, std::size_t types) {
  double sum = 0;
  for (std::size_t t = 0; t < types; ++t) sum += job.speed[t] * shares[j * types + t];
  return sum;
}

TEST(TimeShareLp, AgnosticMaxMinGivesEqualGpuTime) {
  // One type of 2 GPUs. A 2-GPU job and a 1-GPU job: maximise min(2 x_A, x_B) with 2 x_A + x_B <= 2:
  // both at z = 1, so x_A = 0.5 and x_B = 1.
  sched::TimeShareLp lp;
  std::vector<double> shares;
  const std::vector<sched::TimeShareJob> jobs{{2, {1.0}, 0, 0}, {1, {1.0}, 0, 0}};
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kMaxMin, false, jobs, {2.0}, shares), 1.0, 1e-9);
  EXPECT_NEAR(shares[0], 0.5, 1e-9);
  EXPECT_NEAR(shares[1], 1.0, 1e-9);
  // Three 1-GPU jobs on 2 GPUs: 2/3 each.
  const std::vector<sched::TimeShareJob> three{{1, {1.0}, 0, 0}, {1, {1.0}, 0, 0}, {1, {1.0}, 0, 0}};
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kMaxMin, false, three, {2.0}, shares), 2.0 / 3, 1e-9);
  for (const double x : shares) EXPECT_NEAR(x, 2.0 / 3, 1e-9);
}

TEST(TimeShareLp, JobsThatCannotRunOnATypeGetNoShareThereAndTheSolverKeepsGoing) {
  // Many jobs on three types, a third of the job/type pairs with speed 0 (it cannot run there), as
  // on philly-gavel where some job types have no figure for some GPUs: optimal, and no share where
  // a job cannot run.
  std::vector<sched::TimeShareJob> jobs;
  for (int j = 0; j < 400; ++j) {
    std::vector<double> speed{1.0 + j % 3, 0.5 + (j % 5) * 0.25, 2.0};
    speed[static_cast<std::size_t>(j % 3)] = 0;  // never all three
    jobs.push_back({1 + j % 4, speed, 100.0 * (j % 7), 1000.0 + 10 * j});
  }
  const std::vector<double> gpus{24, 16, 8};
  sched::TimeShareLp lp;
  for (const auto objective : {sched::TimeShareObjective::kMaxMin, sched::TimeShareObjective::kFinishTimeFair}) {
    for (const bool aware : {true, false}) {
      std::vector<double> shares;
      const double value = lp.solve(objective, aware, jobs, gpus, shares);
      EXPECT_GT(value, 0);
      ASSERT_EQ(shares.size(), jobs.size() * gpus.size());
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        for (std::size_t t = 0; t < gpus.size(); ++t) {
          if (jobs[j].speed[t] == 0) {
            EXPECT_EQ(shares[j * gpus.size() + t], 0.0) << j << " " << t;
          }
        }
      }
    }
  }
}

TEST(TimeShareLp, AwareMaxMinOnAlikeGpusIsTheAgnosticOne) {
  // Two GPUs, two 1-GPU jobs and a 2-GPU job: min(x1, x2, 2 x3) with x1 + x2 + 2 x3 <= 2 gives
  // z = 2/3, x3 = 1/3. With every speed 1 the aware policy must give the same (the GPUs of the
  // 2-GPU job are counted once).
  sched::TimeShareLp lp;
  std::vector<double> blind, aware;
  const std::vector<sched::TimeShareJob> jobs{{1, {1.0}, 0, 0}, {1, {1.0}, 0, 0}, {2, {1.0}, 0, 0}};
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kMaxMin, false, jobs, {2.0}, blind), 2.0 / 3, 1e-9);
  (void)lp.solve(sched::TimeShareObjective::kMaxMin, true, jobs, {2.0}, aware);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_NEAR(blind[j], j < 2 ? 2.0 / 3 : 1.0 / 3, 1e-9);
    EXPECT_NEAR(aware[j], blind[j], 1e-9);
  }
}

TEST(TimeShareLp, AJobWithNothingLeftDoesNotStopTheFinishTimeSearch) {
  // Three 1-GPU jobs on 2 GPUs; one has no work left (its round just ended): the other two, alike,
  // still get equal throughputs.
  sched::TimeShareLp lp;
  std::vector<double> shares;
  const std::vector<sched::TimeShareJob> jobs{{1, {1.0}, 100, 0}, {1, {1.0}, 0, 100}, {1, {1.0}, 0, 100}};
  (void)lp.solve(sched::TimeShareObjective::kFinishTimeFair, true, jobs, {2.0}, shares);
  EXPECT_NEAR(shares[1], shares[2], 5e-3);
  // With no work left anywhere every bound holds: the search stops at once (it once halved its
  // bound a thousand times).
  sched::TimeShareLp done;
  const std::vector<sched::TimeShareJob> finished{{1, {1.0}, 100, 0}, {1, {1.0}, 50, 0}};
  (void)done.solve(sched::TimeShareObjective::kFinishTimeFair, true, finished, {2.0}, shares);
  EXPECT_LT(done.solves(), 40u);
}

TEST(TimeShareLp, AwareMaxMinGivesEachJobTheTypeItIsRelativelyFastOn) {
  // One K80 and one V100. Jobs A1, A2 run at 0.2 of their V100 speed on a K80, B1, B2 at 0.8.
  // Agnostic: z' = 0.5 each (2 GPUs, 4 jobs); with X^equal (half of each type) A's isolated
  // throughput is 0.5 (0.5 * 0.2 + 0.5 * 1) = 0.3, B's 0.5 (0.5 * 0.8 + 0.5) = 0.45.
  // Aware: A's take V100 time v each, B's the K80 (0.5 each, 0.4) and the V100's rest (0.5 - v):
  // v / 0.3 = (0.9 - v) / 0.45 gives v = 0.36, every job at 1.2 times its isolated throughput.
  sched::TimeShareLp lp;
  std::vector<double> shares;
  const sched::TimeShareJob a{1, {0.2, 1.0}, 0, 0};
  const sched::TimeShareJob b{1, {0.8, 1.0}, 0, 0};
  const std::vector<sched::TimeShareJob> jobs{a, a, b, b};
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kMaxMin, true, jobs, {1.0, 1.0}, shares), 1.2, 1e-6);
  EXPECT_NEAR(throughput(shares, a, 0, 2), 0.36, 1e-6);
  EXPECT_NEAR(throughput(shares, a, 1, 2), 0.36, 1e-6);
  EXPECT_NEAR(throughput(shares, b, 2, 2), 0.54, 1e-6);
  EXPECT_NEAR(throughput(shares, b, 3, 2), 0.54, 1e-6);
  EXPECT_NEAR(shares[0 * 2 + 0] + shares[1 * 2 + 0], 0.0, 1e-6);  // A's never on the K80
  // Blind to speed, the same jobs get equal time: 0.5 each, however the solver splits it.
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kMaxMin, false, jobs, {1.0, 1.0}, shares), 0.5, 1e-9);
}

TEST(TimeShareLp, FinishTimeFairnessOnOneTypeKeepsTheEqualShare) {
  // One GPU, two 1-GPU jobs: isolated throughput 0.5 each. A arrived 100 s ago with 50 s of work
  // left (isolated finish 100 + 50 / 0.5 = 200 s), B now with 100 s (200 s). rho_A = (100 + 50 / a)
  // / 200 and rho_B = (100 / b) / 200 with a + b <= 1 are both 1 at a = b = 0.5, and any other split
  // raises one of them: the equal share is the optimum whenever it uses every GPU.
  sched::TimeShareLp lp;
  std::vector<double> shares;
  const std::vector<sched::TimeShareJob> jobs{{1, {1.0}, 100, 50}, {1, {1.0}, 0, 100}};
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kFinishTimeFair, true, jobs, {1.0}, shares), 1.0, 5e-3);
  EXPECT_NEAR(shares[0], 0.5, 5e-3);
  EXPECT_NEAR(shares[1], 0.5, 5e-3);
}

TEST(TimeShareLp, AwareFinishTimeFairnessSharesTheGainOfHeterogeneity) {
  // The four jobs of the max-min test, all arrived now: rho_j = isolated_j / thr_j, so minimising
  // the largest rho is maximising the smallest thr_j / isolated_j: rho = 1 / 1.2, A's at 0.36, B's
  // at 0.54. Blind to speed, every GPU counts the same and the equal share (rho 1) is optimal.
  sched::TimeShareLp lp;
  std::vector<double> shares;
  const sched::TimeShareJob a{1, {0.2, 1.0}, 0, 30};
  const sched::TimeShareJob b{1, {0.8, 1.0}, 0, 45};
  const std::vector<sched::TimeShareJob> jobs{a, a, b, b};
  // (The search stops within half a percent of the optimum.)
  EXPECT_NEAR(lp.solve(sched::TimeShareObjective::kFinishTimeFair, true, jobs, {1.0, 1.0}, shares), 1 / 1.2, 5e-3);
  for (std::size_t j = 0; j < 4; ++j) {
    const double isolated = j < 2 ? 0.3 : 0.45;
    EXPECT_LE(isolated / throughput(shares, jobs[j], j, 2), 1 / 1.2 + 5e-3);
  }
  sched::TimeShareLp blind;
  EXPECT_NEAR(blind.solve(sched::TimeShareObjective::kFinishTimeFair, false, jobs, {1.0, 1.0}, shares), 1.0, 5e-3);
}

}  // namespace
}  // namespace gpusim
