// Preempting deep-learning policies on the replay engine: SRTF (oracle remaining time), Tiresias'
// discretised 2D-LAS (demotion by attained GPU-time, preemption across queues, promotion of
// starving jobs), kube-scheduler's priority preemption, victims chosen by the work they lose since
// their last checkpoint, and gangs evicted whole. Every schedule is worked out by hand in the
// comments (times in seconds). Defaults that matter: a preempted pod's owner recreates it after the
// 10 s base backoff; it resumes from its last checkpoint.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "policies/preemption/default_preemption.hpp"
#include "sim/config/kube_scheduler_config.hpp"
#include "sim/core/rng.hpp"
#include "tests/k8s/k8s_harness.hpp"
#include "traces/philly_reader.hpp"

namespace gpusim::testing {
namespace {

// Run times resume from a share of the trace's (ceil to the microsecond), so allow a microsecond.
constexpr double kUs = 2e-6;

TEST(Preemption, SrtfPreemptsAJobWithMoreTimeLeft) {
  // One GPU; checkpoints every 15 s. A (100 s) at 0; B (10 s) at 20: A has 80 s left, more than B's
  // 10, so B preempts it at 20. A keeps its checkpoint at 15 s and loses 5 s. B runs 20-30; A's owner
  // recreates it at 30 and it runs its last 85 s: 30-115.
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(15);
  s.node("n0", 1);
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 20, 10);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 20);
  EXPECT_EQ(seconds(record(result, 1).end_us), 30);
  EXPECT_EQ(seconds(record(result, 0).first_start_us), 0);
  EXPECT_EQ(seconds(record(result, 0).start_us), 30);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 115, kUs);
  EXPECT_EQ(record(result, 0).attempts, 2u);
  EXPECT_EQ(metric(result, "preemptions"), 1);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 5.0 / 3600, 1e-12);
}

TEST(Preemption, SrtfLeavesAJobWithLessTimeLeft) {
  // A (100 s) at 0 has 80 s left at 20, less than B's 90: B waits for A, 100-190.
  K8sScenario s;
  s.policy = "srtf";
  s.node("n0", 1);
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 20, 90);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(metric(result, "preemptions"), 0);
}

TEST(Preemption, TheVictimIsTheLowestPriorityJob) {
  // Two 1-GPU nodes; checkpoints every 16 s. A (1000 s) at 0 on n0, B (1000 s) at 30 on n1. C (10 s)
  // at 60 may preempt either: A has 940 s left, B 970 s, both past a checkpoint. B ranks lower (more
  // time left), so n1, whose most important victim is least important, is chosen, although B loses
  // more work (14 s since its checkpoint at 16 s of its run, against A's 12 s). C runs on n1 60-70;
  // B, recreated at 70, resumes with 1000 - 16 = 984 s left: 70-1054. A runs on, 0-1000. (Before,
  // the least work lost came first: A was evicted.)
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(16);
  s.node("n0", 1);
  s.node("n1", 1);
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 30, 1000);
  s.pod("c", 1, 60, 10);
  const auto result = s.run();
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_EQ(seconds(record(result, 2).start_us), 60);
  EXPECT_EQ(record(result, 0).attempts, 1u);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1000);
  EXPECT_EQ(seconds(record(result, 1).start_us), 70);
  EXPECT_NEAR(seconds(record(result, 1).end_us), 1054, kUs);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 14.0 / 3600, 1e-12);
}

TEST(Preemption, SrtfEvictsTheLowestPriorityJobOnce) {
  // Issue 28's example: one 2-GPU node, checkpoints every 600 s. J1 (5000 s) at 0, J2 (1000 s) at 50,
  // J3 (50 s) at 700. At 700 J1 has 4300 s left, J2 350 s: both rank below J3. Removing both, then
  // putting back the most important first, J2 stays and J1 goes (700 s run, 600 kept: 100 GPU-s
  // lost). J3 runs 700-750; J1, recreated at 710, waits for J3 and resumes at 750 with 4400 s left:
  // 750-5150. J2 runs 50-1050. Mean JCT (5150 + 1000 + 50) / 3 = 2066.67 s, one preemption. (Before,
  // J2, losing less, went first and then evicted J1: 2 preemptions, 160 GPU-s, 2086.7 s.)
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(600);
  s.node("n0", 2);
  s.pod("j1", 1, 0, 5000);
  s.pod("j2", 1, 50, 1000);
  s.pod("j3", 1, 700, 50);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "preemptions"), 1);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 100.0 / 3600, 1e-12);
  EXPECT_EQ(seconds(record(result, 2).start_us), 700);
  EXPECT_EQ(seconds(record(result, 2).end_us), 750);
  EXPECT_EQ(record(result, 1).attempts, 1u);
  EXPECT_EQ(seconds(record(result, 1).end_us), 1050);
  EXPECT_EQ(seconds(record(result, 0).start_us), 750);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 5150, kUs);
  EXPECT_NEAR(metric(result, "mean_jct_s"), 6200.0 / 3, 1e-6);
}

// The `preemption` profile on two 2-GPU nodes, every pod 1 GPU: best fit with node-index ties puts p
// (priority 10, from 0 s) and q (10, from 1 s) on n0, r (`r_priority`, from 2 s) and s (0, from 3 s)
// on n1. H (priority 100, 2 GPUs) at 100 s needs both GPUs of a node.
experiment::RunResult kube_preemption(std::int32_t r_priority) {
  K8sScenario s;
  s.policy = "preemption";
  s.node("n0", 2);
  s.node("n1", 2);
  s.pod("p", 1, 0, 1000).priority = 10;
  s.pod("q", 1, 1, 1000).priority = 10;
  s.pod("r", 1, 2, 1000).priority = r_priority;
  s.pod("s", 1, 3, 1000).priority = 0;
  s.pod("h", 2, 100, 100).priority = 100;
  return s.run();
}

TEST(Preemption, KubernetesPicksTheNodeAsPickOneNodeForPreemption) {
  // r at 20: victims {p, q} on n0 (most important: 10) or {r, s} on n1 (most important: 20). The
  // node whose most important victim is least important wins: n0, although n1's priorities sum to
  // less (20 + 0 < 10 + 10). H runs on n0 100-200. p and q come back (10 s later) and p, outranking
  // s, takes s's GPU on n1: p, q and s are each evicted once, r never.
  const auto result = kube_preemption(20);
  EXPECT_EQ(record(result, 4).node, 0);
  EXPECT_EQ(seconds(record(result, 4).start_us), 100);
  EXPECT_EQ(record(result, 0).attempts, 2u);
  EXPECT_EQ(record(result, 1).attempts, 2u);
  EXPECT_EQ(record(result, 2).attempts, 1u);
}

TEST(Preemption, KubernetesThenTheLeastSumOfPriorities) {
  // r at 10: both nodes' most important victims are at 10; n1's sum (10 + 0) is less than n0's
  // (10 + 10), so H takes n1 and r and s are evicted.
  const auto result = kube_preemption(10);
  EXPECT_EQ(record(result, 4).node, 1);
  EXPECT_EQ(seconds(record(result, 4).start_us), 100);
  EXPECT_EQ(record(result, 0).attempts, 1u);
  EXPECT_EQ(record(result, 1).attempts, 1u);
  EXPECT_EQ(record(result, 2).attempts, 2u);
  EXPECT_EQ(record(result, 3).attempts, 2u);
}

// Ten 1-GPU nodes, v0..v9 (priority k, from k s) one per node by best fit with node-index ties; H
// (priority 100, 1 GPU) at 100 s must preempt. `sampling`: DefaultPreemption's bounds on its dry run.
// `profile`: instead of the built-in `preemption` with these args, a profile read from a file.
experiment::RunResult ten_node_preemption(std::uint64_t seed, std::int32_t percentage, std::int32_t absolute,
                                          std::optional<sched::Profile> profile = {}) {
  K8sScenario s;
  s.policy = "preemption";
  s.profile = std::move(profile);
  s.seed = seed;
  auto args = std::make_shared<policy::DefaultPreemptionArgs>();
  args->min_candidate_nodes_percentage = percentage;
  args->min_candidate_nodes_absolute = absolute;
  if (!s.profile) s.plugin_args["default-preemption"] = args;
  for (int k = 0; k < 10; ++k) s.node("n" + std::to_string(k), 1);
  for (int k = 0; k < 10; ++k) s.pod("v" + std::to_string(k), 1, k, 1000).priority = k;
  s.pod("h", 1, 100, 100).priority = 100;
  return s.run();
}

TEST(Preemption, KubernetesDryRunSearchesEveryNodeUpToMinCandidateNodesAbsolute) {
  // The defaults (10 %, at least 100 candidates) cover all ten nodes: every seed's dry run finds
  // all ten candidates and takes n0, whose victim v0 is the least important.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) EXPECT_EQ(record(ten_node_preemption(seed, 10, 100), 10).node, 0) << seed;
}

TEST(Preemption, KubernetesDryRunStopsAtMinCandidateNodes) {
  // minCandidateNodesAbsolute 3 (percentage 0): the dry run walks from the seeded offset o and stops
  // after three candidates, n(o), n(o+1), n(o+2) (mod 10); the least important victim among them is
  // v(o), or v0 when the walk wraps (o = 8, 9). The offset is the first draw of the stream
  // "default-preemption-offsets" (H is the first pod that preempts).
  std::set<cluster::NodeIndex> chosen;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    core::Rng offsets = core::Rng::stream(seed, "default-preemption-offsets");
    const auto o = static_cast<cluster::NodeIndex>(offsets.uniform_below(10));
    const cluster::NodeIndex expected = o <= 7 ? o : 0;
    const auto result = ten_node_preemption(seed, 0, 3);
    EXPECT_EQ(record(result, 10).node, expected) << "seed " << seed << ", offset " << o;
    EXPECT_EQ(seconds(record(result, 10).start_us), 100) << seed;
    EXPECT_EQ(record(result, expected).attempts, 2u) << seed;  // the victim, evicted once
    chosen.insert(record(result, 10).node);
  }
  EXPECT_GT(chosen.size(), 3u);  // the offsets do move the choice
}

TEST(Preemption, KubernetesDryRunBoundsComeFromTheConfigurationsPluginConfig) {
  // The same bounds as DefaultPreemption's pluginConfig args in a KubeSchedulerConfiguration give the
  // same choices, seed by seed.
  const std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100\n"
      "profiles:\n- schedulerName: sampled\n  tieBreak: NodeIndex\n  plugins:\n"
      "    multiPoint: {disabled: [{name: '*'}]}\n    queueSort: {enabled: [{name: PrioritySort}]}\n"
      "    filter: {enabled: [{name: NodeResourcesFit}, {name: NodeAffinity}, {name: TaintToleration}]}\n"
      "    postFilter: {enabled: [{name: DefaultPreemption}]}\n    score: {enabled: [{name: best-fit, weight: 1}]}\n"
      "    bind: {enabled: [{name: DefaultBinder}]}\n    gpuSelection: {enabled: [{name: first-fit}]}\n"
      "  pluginConfig:\n  - name: DefaultPreemption\n"
      "    args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 3}\n";
  const sched::Registry registry = policy::builtin_registry();
  const auto config = config::parse_kube_scheduler_config(yaml, "sampled.yaml", registry);
  ASSERT_EQ(config.profiles.size(), 1u);
  std::set<cluster::NodeIndex> chosen;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto from_file = ten_node_preemption(seed, 0, 0, config.profiles.front());
    EXPECT_EQ(record(from_file, 10).node, record(ten_node_preemption(seed, 0, 3), 10).node) << seed;
    chosen.insert(record(from_file, 10).node);
  }
  EXPECT_GT(chosen.size(), 3u);
}

TEST(Preemption, AJobIsNotPreemptedBeforeItsFirstCheckpoint) {
  // One GPU; checkpoints every 50 s. A (1000 s) at 0; B (10 s) at 30 has less time left but A has not
  // reached a checkpoint: B waits until 50, when A has kept 50 s. B runs 50-60; A resumes at 60 with
  // 950 s left: 60-1010. kube-scheduler's priority preemption does not wait (next test).
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(50);
  s.node("n0", 1);
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 30, 10);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 50);
  EXPECT_EQ(seconds(record(result, 0).start_us), 60);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 1010, kUs);
  EXPECT_EQ(metric(result, "gpu_hours_lost_to_preemption"), 0);
}

TEST(Preemption, APodBehindThePreemptorDoesNotTakeItsRoom) {
  // One 4-GPU node; checkpoints every 10 s. A (2 GPUs, 1000 s) at 0. At 20, B (4 GPUs, 100 s) and C
  // (1 GPU, 500 s) arrive: B preempts A. C is queued behind B and would fit in the 2 GPUs free now,
  // leaving B 3 once A is gone; the cycle stops at B's preemption instead, so B gets all 4 at 20 and
  // runs 20-120. Then C (500 s left) and A (recreated at 30, 980 s left) fit together: C 120-620,
  // A 120-1100.
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(10);
  s.node("n0", 4);
  s.pod("a", 2, 0, 1000);
  s.pod("b", 4, 20, 100);
  s.pod("c", 1, 20, 500);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 20);
  EXPECT_EQ(seconds(record(result, 2).start_us), 120);
  EXPECT_EQ(seconds(record(result, 0).start_us), 120);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 1100, kUs);
  EXPECT_EQ(metric(result, "preemptions"), 1);
}

TEST(Preemption, VictimsTheWorkerDoesNotNeedAreGivenBack) {
  // One 8-GPU node; checkpoints every 110 s. A (1 GPU, 10000 s) at 0, B (7 GPUs, 10000 s) at 100. C (7
  // GPUs, 100 s) at 600: A has 9400 s left, B 9500 s; both rank below C and are removed; put back
  // most important first, A still leaves C room and stays; B does not and goes (60 s since its
  // checkpoint at 440 s of its run, x 7 GPUs lost). C runs 600-700 and B, recreated at 610 with 9560 s
  // left, 700-10260. A runs on, 0-10000.
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(110);
  s.node("n0", 8);
  s.pod("a", 1, 0, 10000);
  s.pod("b", 7, 100, 10000);
  s.pod("c", 7, 600, 100);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "preemptions"), 1);
  EXPECT_EQ(record(result, 0).attempts, 1u);
  EXPECT_EQ(seconds(record(result, 0).end_us), 10000);
  EXPECT_EQ(seconds(record(result, 2).start_us), 600);
  EXPECT_EQ(seconds(record(result, 1).start_us), 700);
  EXPECT_NEAR(seconds(record(result, 1).end_us), 10260, kUs);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 60.0 * 7 / 3600, 1e-12);
}

TEST(Preemption, TiresiasPreemptsOnlyAcrossQueues) {
  // One 2-GPU node; one threshold at 100 GPU-s; checkpoints every 40 s. A (2 GPUs, 300 s) at 0 has
  // 20 GPU-s at 10, still queue 0 like B (2 GPUs, 20 s): B waits. At 50 A's 100 GPU-s move it to
  // queue 1 and B preempts it. A keeps 40 s (loses 10 s x 2 GPUs). B runs 50-70; A, recreated at
  // 60, starts at 70 with 260 s left: 70-330.
  K8sScenario s;
  s.policy = "tiresias";
  s.tiresias = sched::TiresiasSettings{{100}, 0};
  s.kube.checkpoint_interval = s_(40);
  s.node("n0", 2);
  s.pod("a", 2, 0, 300);
  s.pod("b", 2, 10, 20);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 50);
  EXPECT_EQ(seconds(record(result, 1).end_us), 70);
  EXPECT_EQ(seconds(record(result, 0).start_us), 70);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 330, kUs);
  EXPECT_EQ(metric(result, "preemptions"), 1);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 20.0 / 3600, 1e-12);
  // Queueing counts to a job's first start; B's JCT is 60 s (10 to 70), A's 330 s.
  EXPECT_EQ(seconds(record(result, 1).first_start_us), 50);
}

TEST(Preemption, TiresiasPromotesAStarvingJob) {
  // One GPU; threshold 50 GPU-s; checkpoints every 30 s; starvation knob 1. A (200 s) at 0 is
  // demoted at 50; B (100 s) at 60 preempts it (A keeps 60 s: 140 s left). B is demoted at 110 and
  // A, recreated at 70, waits in the same queue. A waited 60 s since it stopped at 60, as long as it
  // ran: at 120 it is back in queue 0 and preempts B (B keeps 60 s: 40 s left). A is demoted again
  // at 170; B, recreated at 130, has waited 60 s at 180 and preempts A (A keeps 60 s: 80 s left).
  // B runs its 40 s, 180-220; A, recreated at 190, runs its 80 s, 220-300.
  // Without the knob B runs 60-160 and A 160-300.
  for (const std::int64_t knob : {1, 0}) {
    K8sScenario s;
    s.policy = "tiresias";
    s.tiresias = sched::TiresiasSettings{{50}, knob};
    s.kube.checkpoint_interval = s_(30);
    s.node("n0", 1);
    s.pod("a", 1, 0, 200);
    s.pod("b", 1, 60, 100);
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 1).first_start_us), 60) << knob;
    if (knob == 1) {
      EXPECT_EQ(seconds(record(result, 1).start_us), 180);
      EXPECT_NEAR(seconds(record(result, 1).end_us), 220, kUs);
      EXPECT_NEAR(seconds(record(result, 0).start_us), 220, kUs);
      EXPECT_EQ(record(result, 0).attempts, 3u);
      EXPECT_EQ(record(result, 1).attempts, 2u);
      EXPECT_EQ(metric(result, "preemptions"), 3);
    } else {
      EXPECT_EQ(seconds(record(result, 1).end_us), 160);
      EXPECT_EQ(seconds(record(result, 0).start_us), 160);
      EXPECT_EQ(metric(result, "preemptions"), 1);
    }
    EXPECT_NEAR(seconds(record(result, 0).end_us), 300, kUs) << knob;
    EXPECT_EQ(metric(result, "gpu_hours_lost_to_preemption"), 0) << knob;
  }
}

TEST(Preemption, TiresiasStarvationCountsEveryWaitSinceTheFirstRun) {
  // Tiresias' simulator's solve_starvation with K = 1, free preemption, one queue threshold at 100
  // GPU-s, one GPU. A (1000 s) at 0 runs and passes 100 GPU-s (queue 1). B (50 s, queue 0) at 150
  // preempts it; A waits 150-200 and runs again 200-260 (210 s run in all); C (100 s) at 260
  // preempts it; D (100 s) at 360 runs after C, 360-460. A has waited 50 s, then from 260: the
  // simulator promotes it when its waits reach 1 x 210 s, at 260 + 160 = 420 (gpusim counted only
  // the current wait: 260 + 210 = 470). When D ends at 460, A, back in queue 0 and created before
  // E (100 s, arriving at 460), runs first; after 100 GPU-s it is demoted again (560) and E preempts
  // it: E 560-660, then A 660-1350 with its last 690 s (3 preemptions). Promoted only at 470, A
  // would still be in queue 1 at 460: E would run 460-560, then A 560-1350 (2 preemptions).
  K8sScenario s;
  s.policy = "tiresias";
  s.kube.free_preemption = true;
  sched::TiresiasSettings t;
  t.thresholds_gpu_s = {100};
  t.starvation_knob = 1;
  s.tiresias = t;
  s.node("n0", 1);
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 150, 50);
  s.pod("c", 1, 260, 100);
  s.pod("d", 1, 360, 100);
  s.pod("e", 1, 460, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 150);
  EXPECT_EQ(seconds(record(result, 2).start_us), 260);
  EXPECT_EQ(seconds(record(result, 3).start_us), 360);
  EXPECT_EQ(seconds(record(result, 4).start_us), 560);
  EXPECT_EQ(seconds(record(result, 4).end_us), 660);
  EXPECT_EQ(seconds(record(result, 0).start_us), 660);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1350);
  EXPECT_EQ(record(result, 0).attempts, 4u);
  EXPECT_EQ(metric(result, "preemptions"), 3);
}

TEST(Preemption, AGangIsPreemptedWhole) {
  // Two 8-GPU nodes; threshold 1600 GPU-s; checkpoints every 150 s. G (16 GPUs, 1000 s) at 0 is a
  // gang of two 8-GPU workers, demoted at 100. X (4 GPUs, 10 s) at 200 preempts one worker, and the
  // other goes with it: both nodes cost the same (the gang's 2 x 8 x 50 GPU-s since its checkpoint at
  // 150), so X takes n0. X runs 200-210; G's workers, recreated at 210, start together with the 850 s
  // they have left: 210-1060.
  K8sScenario s;
  s.policy = "tiresias";
  s.tiresias = sched::TiresiasSettings{{1600}, 0};
  s.kube.checkpoint_interval = s_(150);
  s.node("n0", 8);
  s.node("n1", 8);
  std::istringstream log(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-01 00:00:00,1000.0,16,16000.0,vc\n"
      "2017-10-01 00:03:20,10.0,4,40.0,vc\n");
  s.workload = traces::read_philly_jobs(log, "gang.csv", 8);
  const auto result = s.run();
  ASSERT_EQ(result.pods.size(), 3u);  // g-w000, g-w001, x
  EXPECT_EQ(seconds(record(result, 2).start_us), 200);
  EXPECT_EQ(record(result, 2).node, 0);
  for (const std::size_t worker : {0, 1}) {
    EXPECT_EQ(seconds(record(result, worker).first_start_us), 0);
    EXPECT_EQ(seconds(record(result, worker).start_us), 210);
    EXPECT_NEAR(seconds(record(result, worker).end_us), 1060, kUs);
    EXPECT_EQ(record(result, worker).attempts, 2u);
  }
  EXPECT_EQ(metric(result, "preemptions"), 2);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 800.0 / 3600, 1e-12);
  // The job counts its GPUs for the time they ran: 16 x (200 + 850) GPU-s.
  EXPECT_NEAR(result.queues.at(0).gpu_hours, 16.0 * 1050 / 3600 + 4.0 * 10 / 3600, 1e-6);
}

TEST(Preemption, KubernetesPriorityPreemption) {
  // One GPU. A (priority 0, 100 s) at 0; B (priority 10, 30 s) at 5 preempts it; C (priority 0,
  // 10 s) at 6 does not. B runs 5-35; A (recreated at 15) and C wait; at 35 A goes first (created
  // earlier) with its whole 100 s (no checkpoint at 600 s): 35-135; C 135-145.
  K8sScenario s;
  s.policy = "preemption";
  s.node("n0", 1);
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 5, 30).priority = 10;
  s.pod("c", 1, 6, 10);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 5);
  EXPECT_EQ(seconds(record(result, 0).start_us), 35);
  EXPECT_EQ(seconds(record(result, 0).end_us), 135);
  EXPECT_EQ(seconds(record(result, 2).start_us), 135);
  EXPECT_EQ(metric(result, "preemptions"), 1);
}

TEST(Preemption, SameInputsGiveTheSameSchedule) {
  // Determinism: victims and queue order never depend on addresses or hash order.
  K8sScenario s;
  s.policy = "srtf";
  s.kube.checkpoint_interval = s_(20);
  for (int n = 0; n < 3; ++n) s.node("n" + std::to_string(n), 2);
  for (int i = 0; i < 40; ++i) s.pod("p" + std::to_string(i), 1 + i % 2, i * 7, 50 + (i * 37) % 200);
  const auto first = s.run();
  const auto second = s.run();
  ASSERT_EQ(first.pods.size(), second.pods.size());
  for (std::size_t i = 0; i < first.pods.size(); ++i) {
    EXPECT_EQ(first.pods[i].start_us, second.pods[i].start_us) << i;
    EXPECT_EQ(first.pods[i].end_us, second.pods[i].end_us) << i;
  }
  EXPECT_GT(metric(first, "preemptions"), 0);
}

}  // namespace
}  // namespace gpusim::testing
