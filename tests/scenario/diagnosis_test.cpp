// Framework::diagnose: kube-scheduler's FitError for a pod no node takes, on the three-node test
// cluster (n0: 32 cores, 2 GPUs of A; n1: 64 cores, 8 GPUs of A; n2: 16 cores, 4 GPUs of B).
#include <gtest/gtest.h>

#include <memory>

#include "sim/config/profiles.hpp"
#include "sim/core/rng.hpp"
#include "sim/sched/framework.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

std::string fit_error(sched::Framework& framework, const cluster::PodSpec& p) { return framework.diagnose(p).message(); }

TEST(Diagnosis, PodLargerThanAnyNodeIsShortOfGpusEverywhere) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("bestfit"), bench.registry, bench.context(), bench.state);
  std::vector<cluster::NodeIndex> feasible{7};
  const sched::FitError fit = framework.diagnose(pod(1000, 16, 1000), &feasible);
  EXPECT_EQ(fit.message(), "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  EXPECT_TRUE(feasible.empty());
  // A pod that fits somewhere: the nodes that could take it, and only the others' reasons.
  const sched::FitError some = framework.diagnose(pod(1000, 4, 1000), &feasible);
  EXPECT_EQ(feasible, (std::vector<cluster::NodeIndex>{1, 2}));
  EXPECT_EQ(some.reasons, (std::vector<std::pair<std::string, std::int64_t>>{{"Insufficient nvidia.com/gpu", 1}}));
}

TEST(Diagnosis, EveryResourceANodeLacksIsNamedAsNodeResourcesFitDoes) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("bestfit"), bench.registry, bench.context(), bench.state);
  ASSERT_TRUE(framework.schedule(pod(1000, 8, 1000)));  // fills n1's GPUs
  // n0: 32 cores and 2 GPUs, both short; n1: no GPU free; n2: 16 cores short, its 4 GPUs enough.
  EXPECT_EQ(fit_error(framework, pod(40000, 4, 1000)), "0/3 nodes are available: 2 Insufficient cpu, 2 Insufficient nvidia.com/gpu.");
  // Nodes the GPU bucket index skips are diagnosed too: a fraction no node has room for.
  ASSERT_TRUE(framework.schedule(pod(1000, 2, 1000)));  // n0's two GPUs
  ASSERT_TRUE(framework.schedule(pod(1000, 4, 1000)));  // n2's four
  EXPECT_EQ(fit_error(framework, pod(1000, 1, 100)), "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  bench.state.check_invariants();
}

TEST(Diagnosis, AModelThePodMayNotUseIsANodeAffinityMismatch) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("fgd"), bench.registry, bench.context(), bench.state);
  cluster::PodSpec only_b = pod(1000, 8, 1000);
  only_b.allowed_models.add(1);
  EXPECT_EQ(fit_error(framework, only_b),
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's node affinity/selector.");
}

TEST(Diagnosis, TaintsAndCordonsComeBeforeResourcesAsInKubeScheduler) {
  Bench bench;
  bench.state.set_taints(0, {{"dedicated", "gpu", "NoSchedule"}, {"other", "x", "NoExecute"}});
  bench.state.set_taints(1, {{"node.kubernetes.io/unschedulable", "", "NoSchedule"}});
  bench.state.set_taints(2, {{"soft", "", "PreferNoSchedule"}});
  sched::Framework framework(config::builtin_profile("bestfit"), bench.registry, bench.context(), bench.state);
  // n0: its first untolerated taint; n1 (cordoned): NodeUnschedulable; n2: only a soft taint, short of GPUs.
  EXPECT_EQ(fit_error(framework, pod(1000, 16, 1000)),
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {dedicated: gpu}, "
            "1 node(s) were unschedulable.");
  // A pod that tolerates "dedicated" meets n0's next taint.
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->tolerations.push_back({"dedicated", false, "gpu", "", std::nullopt});
  cluster::PodSpec tolerant = pod(1000, 16, 1000);
  tolerant.constraints = constraints;
  EXPECT_EQ(fit_error(framework, tolerant),
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {other: x}, "
            "1 node(s) were unschedulable.");
  // A node the scheduler does not know of (removed) is not counted.
  bench.state.set_present(1, false);
  EXPECT_EQ(fit_error(framework, tolerant), "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {other: x}.");
}

TEST(Diagnosis, NodeSelectorThatNoNodeMatches) {
  Bench bench;
  sched::Framework framework(config::builtin_profile("bestfit"), bench.registry, bench.context(), bench.state);
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->node_selector = {{"zone", "nowhere"}};
  cluster::PodSpec lost = pod(1000, 1, 1000);
  lost.constraints = constraints;
  EXPECT_EQ(fit_error(framework, lost), "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.");
}

TEST(Diagnosis, ChangesNothing) {
  Bench bench, twin;
  sched::Framework framework(config::builtin_profile("fgd"), bench.registry, bench.context(), bench.state);
  sched::Framework reference(config::builtin_profile("fgd"), twin.registry, twin.context(), twin.state);
  ASSERT_TRUE(framework.schedule(pod(1000, 1, 300)));
  ASSERT_TRUE(reference.schedule(pod(1000, 1, 300)));
  const std::uint64_t version = bench.state.version(0) + bench.state.version(1) + bench.state.version(2);
  (void)framework.diagnose(pod(1000, 16, 1000));
  (void)framework.diagnose(pod(1000, 1, 700));
  EXPECT_EQ(bench.state.version(0) + bench.state.version(1) + bench.state.version(2), version);
  EXPECT_EQ(bench.state.allocated_gpu_milli(), 300);
  // The next placements are those of a framework that never diagnosed.
  for (const auto& p : {pod(2000, 1, 500), pod(1000, 2, 1000), pod(500, 1, 200)}) {
    const auto a = framework.schedule(p);
    const auto b = reference.schedule(p);
    ASSERT_EQ(a.has_value(), b.has_value());
    if (a) {
      EXPECT_EQ(a->node, b->node);
      EXPECT_EQ(a->gpus, b->gpus);
    }
  }
}

// Each filter explains a node exactly when it rejects it, whatever the pod and the cluster's state.
TEST(Diagnosis, FiltersExplainExactlyTheNodesTheyReject) {
  Bench bench;
  auto selector = std::make_shared<cluster::PodConstraints>();
  selector->node_selector = {{"zone", "a"}};
  selector->tolerations.push_back({"dedicated", true, "", "", std::nullopt});
  std::vector<cluster::NodeSpec> nodes = three_nodes();
  nodes[0].labels = {{"zone", "a"}};
  nodes[0].max_pods = 3;
  cluster::ClusterState state(bench.catalog, nodes);
  state.set_taints(2, {{"dedicated", "x", "NoSchedule"}});
  std::vector<std::unique_ptr<sched::FilterPlugin>> filters;
  for (const char* name : {"node-resources-fit", "gpu-fit", "node-affinity", "taint-toleration"}) {
    filters.push_back(bench.plugin<sched::FilterPlugin>(name));
  }
  core::Rng rng = core::Rng::stream(7, "diagnosis-property");
  sched::CycleState cycle(3);
  int rejections = 0;
  for (int round = 0; round < 400; ++round) {
    cluster::PodSpec p = pod(static_cast<std::int64_t>(rng.uniform_below(40)) * 1000, static_cast<std::int32_t>(rng.uniform_below(10)),
                             static_cast<std::int32_t>(100 * (1 + rng.uniform_below(10))));
    p.memory_mib = static_cast<std::int64_t>(rng.uniform_below(80)) * 1024;
    if (p.gpu_count == 0) p.gpu_milli = 0;
    if (p.gpu_count > 1) p.gpu_milli = 1000;
    if (rng.uniform_below(3) == 0) p.allowed_models.add(static_cast<cluster::GpuModelId>(rng.uniform_below(2)));
    if (rng.uniform_below(2) == 0) p.constraints = selector;
    for (cluster::NodeIndex n = 0; n < 3; ++n) {
      for (const auto& filter : filters) {
        if (!filter->applies(p, state)) continue;
        sched::NodeReasons reasons;
        filter->explain(p, n, state, cycle, reasons);
        const bool rejected = !filter->filter(p, n, state, cycle).is_ok();
        EXPECT_EQ(reasons.end_node(), rejected) << filter->name() << " node " << n << " round " << round;
        rejections += rejected ? 1 : 0;
      }
    }
    // Fill the cluster a little now and then, so that later pods meet busy nodes.
    if (round % 20 == 0) {
      sched::Framework framework(config::builtin_profile("bestfit"), bench.registry, bench.context(), state);
      (void)framework.schedule(pod(2000, 1, 1000));
    }
  }
  EXPECT_GT(rejections, 200) << "the rounds should meet rejections of every kind";
}

}  // namespace
}  // namespace gpusim::testing
