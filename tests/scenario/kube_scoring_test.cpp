// kube-scheduler's resource scores with their args (NodeResourcesFitArgs' scoringStrategy,
// NodeResourcesBalancedAllocationArgs), worked out by hand on the three-node test cluster:
//   n0: 32 cores, 64 GiB, 2 GPUs; n1: 64 cores, 128 GiB, 8 GPUs; n2: 16 cores, 32 GiB, 4 GPUs.
// The profiles give the args the way a KubeSchedulerConfiguration's pluginConfig does (the plugin's
// args reader over YAML), and place pods where the arithmetic in the comments says.
#include <gtest/gtest.h>

#include "sim/config/profiles.hpp"
#include "policies/score/scoring_resources.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

std::shared_ptr<const sched::PluginArgs> read_args(const Bench& bench, const std::string& plugin, const std::string& yaml) {
  return (*bench.registry.args_reader(plugin))(YAML::Load(yaml), io::YamlFields("sched.yaml"), "pluginConfig[0].args");
}

// A profile scoring with node-resources-fit alone (its args from `yaml`), lowest index on ties.
sched::Profile fit_profile(const Bench& bench, const std::string& yaml) {
  sched::Profile profile = config::builtin_profile("binpack");
  profile.name = "fit";
  profile.score = {{"node-resources-fit", 1}};
  profile.tie_break = sched::TieBreak::kNodeIndex;
  profile.plugin_args["node-resources-fit"] = read_args(bench, "node-resources-fit", yaml);
  return profile;
}

// The plugin's scores on n0, n1, n2 for `p`, built with `args`.
std::vector<std::int64_t> scores_with(Bench& bench, const std::string& plugin, const std::shared_ptr<const sched::PluginArgs>& args,
                                      const cluster::PodSpec& p) {
  sched::PluginContext context = bench.context();
  context.args = args.get();
  auto built = bench.registry.create(plugin, context);
  auto* scorer = dynamic_cast<sched::ScorePlugin*>(built.get());
  EXPECT_NE(scorer, nullptr);
  std::vector<cluster::NodeIndex> all{0, 1, 2};
  scorer->pre_score(p, all, bench.state, bench.cycle);
  std::vector<std::int64_t> out;
  for (const auto n : all) out.push_back(scorer->score(p, n, bench.state, bench.cycle));
  return out;
}

cluster::PodSpec gpu_pod(std::int32_t gpus, std::int32_t milli = 1000) {
  cluster::PodSpec p = pod(8000, gpus, milli);
  p.memory_mib = 8192;
  return p;
}

constexpr const char* kMostAllocatedCpuMemory = "{scoringStrategy: {type: MostAllocated}}";
constexpr const char* kMostAllocatedGpu3 = R"(
scoringStrategy:
  type: MostAllocated
  resources:
  - {name: cpu, weight: 1}
  - {name: memory, weight: 1}
  - {name: nvidia.com/gpu, weight: 3}
)";

// MostAllocated over CPU and memory (8 cores, 8 GiB): n0 cpu 8000*100/32000 = 25, memory
// 8192*100/65536 = 12, (25+12)/2 = 18; n1 12, 6: 9; n2 50, 25: 37. n2 wins.
TEST(KubeScoring, MostAllocatedOverCpuAndMemory) {
  Bench bench;
  EXPECT_EQ(scores_with(bench, "node-resources-fit", read_args(bench, "node-resources-fit", kMostAllocatedCpuMemory), gpu_pod(1)),
            (std::vector<std::int64_t>{18, 9, 37}));
  sched::Framework framework(fit_profile(bench, kMostAllocatedCpuMemory), bench.registry, bench.context(), bench.state);
  EXPECT_EQ(framework.schedule(gpu_pod(1))->node, 2U);
}

// With nvidia.com/gpu weighted 3, the GPUs decide (weight sum 5):
//   n0: cpu 25, memory 12, GPU 1000*100/2000 = 50: (25 + 12 + 3*50) / 5 = 187/5 = 37
//   n1: 12, 6, 1000*100/8000 = 12: (12 + 6 + 36) / 5 = 10
//   n2: 50, 25, 1000*100/4000 = 25: (50 + 25 + 75) / 5 = 30          -> n0
// The second pod: n0 cpu 16000*100/32000 = 50, memory 25, GPU 100: (50+25+300)/5 = 75 -> n0 again.
// The third: n0 has no GPU left (gpu-fit); n1 10 against n2 30 -> n2.
TEST(KubeScoring, MostAllocatedWithGpuWeightedPacksGpus) {
  Bench bench;
  const auto args = read_args(bench, "node-resources-fit", kMostAllocatedGpu3);
  EXPECT_EQ(scores_with(bench, "node-resources-fit", args, gpu_pod(1)), (std::vector<std::int64_t>{37, 10, 30}));
  sched::Framework framework(fit_profile(bench, kMostAllocatedGpu3), bench.registry, bench.context(), bench.state);
  EXPECT_EQ(framework.schedule(gpu_pod(1))->node, 0U);
  EXPECT_EQ(framework.schedule(gpu_pod(1))->node, 0U);
  EXPECT_EQ(framework.schedule(gpu_pod(1))->node, 2U);
  bench.state.check_invariants();
}

// An extended resource the pod does not ask is left out of the weighted mean (kube-scheduler's
// calculateResourceAllocatableRequest returns (0, 0)): a CPU-only pod (4 cores, 4 GiB) scores over
// CPU and memory alone, weight sum 2: n0 (12 + 6)/2 = 9, n1 (6 + 3)/2 = 4, n2 (25 + 12)/2 = 18.
TEST(KubeScoring, GpuWeightDoesNotCountForCpuOnlyPods) {
  Bench bench;
  cluster::PodSpec cpu_only = pod(4000, 0, 0);
  cpu_only.memory_mib = 4096;
  EXPECT_EQ(scores_with(bench, "node-resources-fit", read_args(bench, "node-resources-fit", kMostAllocatedGpu3), cpu_only),
            (std::vector<std::int64_t>{9, 4, 18}));
}

// Where pods share GPUs by gpu-milli (scheduler-assigned nodes), nvidia.com/gpu counts milli: a pod
// asking 500 milli requests half a GPU. n1 already holds 300 milli. MostAllocated over the GPU alone:
//   n0: 500*100/2000 = 25; n1: (300 + 500)*100/8000 = 10; n2: 500*100/4000 = 12.
// A device that turns unhealthy is no longer allocatable: n0 with one GPU healthy, 500*100/1000 = 50.
TEST(KubeScoring, NvidiaGpuCountsSharesInMilli) {
  Bench bench;
  bench.state.allocate(pod(1000, 1, 300), at(1, {0}));
  const auto args = read_args(bench, "node-resources-fit", "{scoringStrategy: {type: MostAllocated, resources: [{name: nvidia.com/gpu}]}}");
  EXPECT_EQ(scores_with(bench, "node-resources-fit", args, gpu_pod(1, 500)), (std::vector<std::int64_t>{25, 10, 12}));
  bench.state.set_gpu_healthy(0, 1, false);
  EXPECT_EQ(scores_with(bench, "node-resources-fit", args, gpu_pod(1, 500)), (std::vector<std::int64_t>{50, 10, 12}));
}

// RequestedToCapacityRatio with a shape that peaks at half full, over the GPUs alone: points
// (0, 0), (50, 10), (100, 2), scores scaled x 10 to (0, 0), (50, 100), (100, 20). A pod of 2 GPUs:
//   n0: utilization 2000*100/2000 = 100: 100 + (20 - 100)*(100 - 50)/(100 - 50) = 20
//   n1: 2000*100/8000 = 25: 0 + (100 - 0)*(25 - 0)/(50 - 0) = 50
//   n2: 2000*100/4000 = 50: 100                                         -> n2
// The second: n2 at 100 % scores 20, n0 20, n1 50 -> n1. The third: n1 at 4000*100/8000 = 50 -> 100 -> n1.
constexpr const char* kPeakAtHalf = R"(
scoringStrategy:
  type: RequestedToCapacityRatio
  resources:
  - name: nvidia.com/gpu
    weight: 1
  requestedToCapacityRatio:
    shape:
    - {utilization: 0, score: 0}
    - {utilization: 50, score: 10}
    - {utilization: 100, score: 2}
)";

TEST(KubeScoring, RequestedToCapacityRatioShapePlacesAsComputed) {
  Bench bench;
  EXPECT_EQ(scores_with(bench, "node-resources-fit", read_args(bench, "node-resources-fit", kPeakAtHalf), gpu_pod(2)),
            (std::vector<std::int64_t>{20, 50, 100}));
  sched::Framework framework(fit_profile(bench, kPeakAtHalf), bench.registry, bench.context(), bench.state);
  EXPECT_EQ(framework.schedule(gpu_pod(2))->node, 2U);
  EXPECT_EQ(framework.schedule(gpu_pod(2))->node, 1U);
  EXPECT_EQ(framework.schedule(gpu_pod(2))->node, 1U);
}

// The weighted mean is rounded, and resources that score 0 are left out of it. CPU weight 1, GPU
// weight 2, same shape; a pod of 2 GPUs and 1 core:
//   n0: cpu 1000*100/32000 = 3 -> 100*3/50 = 6; GPU 20: (6 + 2*20)/3 = 15.33 -> 15
//   n1: cpu 1 -> 2; GPU 50: (2 + 100)/3 = 34
//   n2: cpu 6 -> 12; GPU 100: (12 + 200)/3 = 70.67 -> 71 (integer division would give 70)
// With 100m of CPU the CPU's utilization is 0 everywhere, its score 0, and only the GPU counts:
// 20, 50, 100 (with the CPU's weight in the sum n0 would be 40/3 = 13).
TEST(KubeScoring, RequestedToCapacityRatioRoundsAndSkipsZeroScores) {
  Bench bench;
  const auto args = read_args(bench, "node-resources-fit", R"(
scoringStrategy:
  type: RequestedToCapacityRatio
  resources: [{name: cpu, weight: 1}, {name: nvidia.com/gpu, weight: 2}]
  requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}, {utilization: 50, score: 10}, {utilization: 100, score: 2}]}
)");
  cluster::PodSpec p = gpu_pod(2);
  p.cpu_milli = 1000;
  EXPECT_EQ(scores_with(bench, "node-resources-fit", args, p), (std::vector<std::int64_t>{15, 34, 71}));
  p.cpu_milli = 100;
  EXPECT_EQ(scores_with(bench, "node-resources-fit", args, p), (std::vector<std::int64_t>{20, 50, 100}));
}

// kube-scheduler scores a container that asks no memory as asking 200 MiB (and no CPU as 100m), on
// the pod and on every pod already on the node. A pod of 16 cores and no memory, LeastAllocated:
//   n0: cpu (32000 - 16000)*100/32000 = 50, memory (65536 - 200)*100/65536 = 99: (50 + 99)/2 = 74
// gpusim's least-allocated (the built-in kube-default) keeps its old arithmetic: memory 100, 75.
// Once such a pod runs on n0, the next one sees 400 MiB there: (65536 - 400)*100/65536 = 99 still,
// and CPU (32000 - 32000)*100/32000 = 0: (0 + 99)/2 = 49.
TEST(KubeScoring, NonZeroRequestsAsUpstream) {
  Bench bench;
  cluster::PodSpec no_memory = pod(16000, 0, 0);
  no_memory.memory_mib = 0;
  const auto defaults = read_args(bench, "node-resources-fit", "{}");
  EXPECT_EQ(scores_with(bench, "node-resources-fit", defaults, no_memory).front(), 74);
  EXPECT_EQ(bench.scores("least-allocated", no_memory).front(), 75);
  bench.state.allocate(no_memory, at(0, {}));
  EXPECT_EQ(bench.state.nonzero_memory_requested(0), 200);
  EXPECT_EQ(scores_with(bench, "node-resources-fit", defaults, no_memory).front(), 49);
  bench.state.release(no_memory, at(0, {}));
  EXPECT_EQ(bench.state.nonzero_memory_requested(0), 0);
  bench.state.check_invariants();
}

// NodeResourcesBalancedAllocation over CPU, memory and nvidia.com/gpu (upstream's standard deviation
// for more than two resources). A pod of 8 cores, 8 GiB and 1 GPU:
//   n0: fractions 0.25, 0.125, 0.5: mean 0.2917, std 0.1559: int(84.4) = 84
//   n1: 0.125, 0.0625, 0.125: std 0.0295: 97
//   n2: 0.5, 0.25, 0.25: std 0.1179: 88
// Over CPU and memory (the default), std = |f1 - f2| / 2: n0 0.0625: 93; n1 0.03125: 96; n2 0.125: 87.
// A CPU-only pod leaves the GPU out (two fractions); a pod that asks nothing is not scored (0).
TEST(KubeScoring, BalancedAllocationOverThreeResources) {
  Bench bench;
  const auto three = read_args(bench, "balanced-allocation", "{resources: [{name: cpu}, {name: memory}, {name: nvidia.com/gpu}]}");
  const auto two = read_args(bench, "balanced-allocation", "{}");
  EXPECT_EQ(scores_with(bench, "balanced-allocation", three, gpu_pod(1)), (std::vector<std::int64_t>{84, 97, 88}));
  EXPECT_EQ(scores_with(bench, "balanced-allocation", two, gpu_pod(1)), (std::vector<std::int64_t>{93, 96, 87}));
  cluster::PodSpec cpu_only = gpu_pod(0, 0);
  EXPECT_EQ(scores_with(bench, "balanced-allocation", three, cpu_only), scores_with(bench, "balanced-allocation", two, cpu_only));
  cluster::PodSpec best_effort = pod(0, 0, 0);
  best_effort.memory_mib = 0;
  EXPECT_EQ(scores_with(bench, "balanced-allocation", two, best_effort), (std::vector<std::int64_t>{0, 0, 0}));
}

// HAMi nodes advertise devices x deviceSplitCount vGPUs of nvidia.com/gpu, and a pod takes one vGPU
// on each GPU it uses: 4 GPUs split 10 ways hold 40; with one pod on GPU 0, a 1-GPU pod requests 2.
TEST(KubeScoring, HamiNodesCountVgpus) {
  const auto catalog = two_model_catalog();
  std::vector<cluster::NodeSpec> nodes = three_nodes();
  nodes[2].gpu_resource = cluster::GpuResource::kHamiVgpu;
  nodes[2].max_pods_per_gpu = 10;
  cluster::ClusterState state(catalog, nodes);
  state.allocate(pod(1000, 1, 250), at(2, {0}));
  std::string why;
  const auto gpu = policy::resolve_resource("nvidia.com/gpu", 1, why);
  ASSERT_TRUE(gpu);
  const cluster::PodSpec p = pod(1000, 1, 250);
  const auto amount = policy::amount_on_node(*gpu, p, policy::scored_requests(p, policy::Requests::kNonZero), 2, state,
                                             policy::Requests::kNonZero);
  EXPECT_EQ(amount.allocatable, 40);
  EXPECT_EQ(amount.requested, 2);
}

// The names a KubeSchedulerConfiguration uses find these plugins (sched/names.hpp, aliases).
TEST(KubeScoring, UpstreamNamesResolve) {
  Bench bench;
  EXPECT_EQ(bench.registry.canonical("NodeResourcesFit"), "node-resources-fit");
  EXPECT_EQ(bench.registry.canonical("NodeResourcesBalancedAllocation"), "balanced-allocation");
  EXPECT_EQ(bench.registry.canonical("DefaultPreemption"), "default-preemption");
  for (const char* name : {"node-resources-fit", "balanced-allocation", "default-preemption"}) {
    EXPECT_NE(bench.registry.args_reader(name), nullptr) << name;
  }
  EXPECT_EQ(bench.registry.args_reader("least-allocated"), nullptr);
}

}  // namespace
}  // namespace gpusim::testing
