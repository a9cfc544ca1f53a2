// Manifest pods asking sharing plugins' own resources: gpushare's aliyun.com/gpu-mem (GiB of one
// GPU), HAMi's nvidia.com/gpumem, gpumem-percentage and gpucores, and MIG profiles by name. The
// extenders count these asks exactly, in the plugin's units; outcomes are worked out by hand in the
// comments (times in seconds). The harness's V100 has 32768 MiB: gpushare sees 32 GiB, HAMi
// registers 32768 MiB.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "sim/core/status.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::DevicePluginModel;

std::shared_ptr<const cluster::PodConstraints> gpu_mem(std::int64_t gib) {
  auto c = std::make_shared<cluster::PodConstraints>();
  c->gpu_resource = cluster::GpuResource::kAliyunGpuMem;
  c->gpu_memory_gib = gib;
  return c;
}

std::shared_ptr<const cluster::PodConstraints> hami(std::int64_t memory_mib, std::int32_t memory_percent,
                                                    std::int32_t cores_percent) {
  auto c = std::make_shared<cluster::PodConstraints>();
  c->gpu_resource = cluster::GpuResource::kHamiVgpu;
  c->hami = {memory_mib, memory_percent, cores_percent};
  return c;
}

std::shared_ptr<const cluster::PodConstraints> plain_gpu() {
  auto c = std::make_shared<cluster::PodConstraints>();
  c->gpu_resource = cluster::GpuResource::kNvidiaGpu;
  return c;
}

std::shared_ptr<const cluster::PodConstraints> mig(const std::string& profile) {
  auto c = std::make_shared<cluster::PodConstraints>();
  c->gpu_resource = cluster::GpuResource::kMigProfile;
  c->mig_profile = profile;
  return c;
}

// One node of `gpus` V100s under `model`.
K8sScenario one_node(DevicePluginModel model, int gpus = 1) {
  K8sScenario s;
  s.node("n", gpus);
  s.kube.default_model = model;
  return s;
}

// GPU 0 and 1 both have 32 GiB free: A (12) takes GPU 0, the lower index. B (24) does not fit the
// 20 left there: GPU 1, which keeps 8. C (8) fits both; gpushare binds the tightest, GPU 1 (a first
// fit would take GPU 0). So D (20) still finds GPU 0's 20 GiB and starts at 3. E (1) finds both
// full and waits until A leaves GPU 0 at 100. Shares: A 375 + D 625 and B 750 + C 250 milli, full
// GPUs that still fit: nobody slows down.
TEST(K8sDeviceShares, GpushareBindsTheTightestGpuByGib) {
  K8sScenario s = one_node(DevicePluginModel::kGpushare, 2);
  s.pod("a", 1, 0, 100).constraints = gpu_mem(12);
  s.pod("b", 1, 1, 100).constraints = gpu_mem(24);
  s.pod("c", 1, 2, 100).constraints = gpu_mem(8);
  s.pod("d", 1, 3, 100).constraints = gpu_mem(20);
  s.pod("e", 1, 4, 100).constraints = gpu_mem(1);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(record(result, 2).gpus, gpus({1}));
  EXPECT_EQ(record(result, 3).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 3).start_us), 3);
  EXPECT_EQ(seconds(record(result, 3).end_us), 103);  // full speed beside A
  EXPECT_EQ(seconds(record(result, 4).start_us), 100);
  EXPECT_EQ(record(result, 4).gpus, gpus({0}));
}

// gpushare nodes advertise aliyun.com/gpu-mem, not nvidia.com/gpu: a pod asking a whole GPU goes
// to the device-plugin node although binpack ranks the gpushare node (node 0) first, and a pod
// asking more GiB than one GPU has never starts.
TEST(K8sDeviceShares, GpushareNodesServeOnlyGpuMemAsks) {
  K8sScenario s;
  s.node("gpushare", 1);
  s.node("plain", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  k8s::NodePool pool;
  pool.match.name_prefix = "gpushare";
  pool.model = DevicePluginModel::kGpushare;
  s.kube.pools.push_back(pool);
  s.pod("whole", 1, 0, 100).constraints = plain_gpu();
  s.pod("slice", 1, 1, 100).constraints = gpu_mem(4);
  s.pod("too-big", 1, 2, 100).constraints = gpu_mem(40);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(record(result, 2).outcome, PodOutcome::kPending);
}

// gpu-mem asks need gpushare nodes, and gpushare nodes one GPU memory size (a share of "a GPU").
TEST(K8sDeviceShares, GpushareAsksWithoutOneMemorySizeAreInputErrors) {
  K8sScenario none = one_node(DevicePluginModel::kDevicePlugin);
  none.pod("a", 1, 0, 100).constraints = gpu_mem(4);
  EXPECT_THROW(none.run(), core::InputError);

  K8sScenario mixed;
  mixed.catalog = cluster::GpuCatalog::from_models(
      {{"v100", "V100", {"V100"}, 32768, 0, 0, 0, 0, ""}, {"t4", "T4", {"T4"}, 16384, 0, 0, 0, 0, ""}});
  mixed.node("big", 1);
  mixed.node("small", 1);
  mixed.cluster.nodes[1].gpu_model = 1;
  mixed.kube.default_model = DevicePluginModel::kGpushare;
  mixed.pod("a", 1, 0, 100).constraints = gpu_mem(4);
  try {
    mixed.run();
    FAIL() << "expected an input error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node small: its GPUs register 16 GiB, node big's 32 GiB"), std::string::npos)
        << e.what();
  }
}

// HAMi counts gpumem in MiB. A and B (10000 MiB each) share GPU 0; C asks 12769 MiB, one more
// than the 12768 left, and waits for A to end at 100, although its share (389 milli) would fit
// the 390 free in thousandths. With 12768 it starts at 2. Each reserves gpucores 30: demands
// 0.3 + 0.3 + 0.3 fit in the GPU, so all run their 100 s at full speed.
TEST(K8sDeviceShares, HamiCountsGpumemInMib) {
  for (const std::int64_t c_mib : {12769, 12768}) {
    K8sScenario s = one_node(DevicePluginModel::kHamiVgpu);
    s.pod("a", 1, 0, 100).constraints = hami(10000, 100, 30);
    s.pod("b", 1, 1, 100).constraints = hami(10000, 100, 30);
    s.pod("c", 1, 2, 100).constraints = hami(c_mib, 100, 30);
    const auto result = s.run();
    const double c_start = c_mib == 12769 ? 100 : 2;
    EXPECT_EQ(seconds(record(result, 1).start_us), 1);
    EXPECT_EQ(seconds(record(result, 2).start_us), c_start) << c_mib;
    EXPECT_EQ(seconds(record(result, 2).end_us), c_start + 100) << c_mib;
    EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  }
}

// HAMi's core rules. A (10 % memory, no cores) runs alone. B asks gpucores 100, which wants the
// GPU to itself: it waits for A (ends 100) and runs to 200. C (10 % memory, no cores) finds all
// cores taken and waits for B: 200. D asks gpucores 60 beside C: it starts at once (cores 0 + 60),
// and, capped at 60 % of the GPU with a demand of 0.6, runs its 100 s at full speed.
TEST(K8sDeviceShares, HamiGpucoresHundredIsExclusive) {
  K8sScenario s = one_node(DevicePluginModel::kHamiVgpu);
  s.pod("a", 1, 0, 100).constraints = hami(0, 10, 0);
  s.pod("b", 1, 1, 100).constraints = hami(0, 10, 100);
  s.pod("c", 1, 101, 100).constraints = hami(0, 10, 0);
  s.pod("d", 1, 250, 100).constraints = hami(0, 10, 60);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);
  EXPECT_EQ(seconds(record(result, 2).start_us), 200);
  EXPECT_EQ(seconds(record(result, 3).start_us), 250);
  EXPECT_EQ(seconds(record(result, 3).end_us), 350);
}

// A manifest pod's demand is its gpucores, else its memory share. A (25 % memory, gpucores 25: capped
// at and demanding 0.25) and B (16384 MiB, half the memory, no cores: demanding 0.5, uncapped)
// time-slice max-min fairly: each gets all it asks, so both run their 100 s at full speed. C asks
// gpucores 80, which do not fit beside A's 25: it waits for A.
TEST(K8sDeviceShares, HamiManifestDemandIsItsCoresElseItsMemoryShare) {
  K8sScenario s = one_node(DevicePluginModel::kHamiVgpu);
  s.pod("a", 1, 0, 100).constraints = hami(0, 25, 25);
  s.pod("b", 1, 0, 100).constraints = hami(16384, 100, 0);
  s.pod("c", 1, 10, 100).constraints = hami(0, 20, 80);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(seconds(record(result, 1).end_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
}

// gpumem asks need HAMi nodes; a MiB ask needs one registered size over them (a percentage does not).
TEST(K8sDeviceShares, HamiAsksNeedHamiNodesOfOneMemorySize) {
  K8sScenario none = one_node(DevicePluginModel::kDevicePlugin);
  none.pod("a", 1, 0, 100).constraints = hami(0, 50, 0);
  EXPECT_THROW(none.run(), core::InputError);

  for (const bool percent : {false, true}) {
    K8sScenario mixed;
    mixed.catalog = cluster::GpuCatalog::from_models(
        {{"v100", "V100", {"V100"}, 32768, 0, 0, 0, 0, ""}, {"t4", "T4", {"T4"}, 16384, 0, 0, 0, 0, ""}});
    mixed.node("big", 1);
    mixed.node("small", 1);
    mixed.cluster.nodes[1].gpu_model = 1;
    mixed.kube.default_model = DevicePluginModel::kHamiVgpu;
    mixed.pod("a", 1, 0, 100).constraints = percent ? hami(0, 50, 0) : hami(8000, 100, 0);
    if (percent) {
      EXPECT_EQ(record(mixed.run(), 0).outcome, PodOutcome::kCompleted);
    } else {
      EXPECT_THROW(mixed.run(), core::InputError);
    }
  }
}

// A share under a thousandth of a GPU cannot be held: 10 MiB of 32768, or 0 %, are input errors
// (rounding them up to one thousandth could refuse pods HAMi's Fit takes).
TEST(K8sDeviceShares, HamiAsksUnderAThousandthAreInputErrors) {
  for (const auto& ask : {hami(10, 100, 0), hami(0, 0, 50)}) {
    K8sScenario s = one_node(DevicePluginModel::kHamiVgpu);
    s.pod("a", 1, 0, 100).constraints = ask;
    EXPECT_THROW(s.run(), core::InputError);
  }
}

// A manifest node that advertises nvidia.com/gpu is device-plugin unless the --kube settings name
// another model: a pool that sets only a device choice keeps it device-plugin (the pool's model
// stays gpusim's default, scheduler-assigned), a pool naming hami-vgpu makes it HAMi, and one
// naming gpushare (whose resource is aliyun.com/gpu-mem) is refused.
TEST(K8sDeviceShares, ManifestGpuNodesTakeAPoolsModel) {
  const auto run_with = [](std::optional<DevicePluginModel> pool_model, bool fraction = false) {
    K8sScenario s;
    s.node("n", 1);
    s.cluster.kube.push_back({});
    s.cluster.kube[0].device_plugin = "device-plugin";
    s.cluster.kube[0].device_plugin_implied = true;
    k8s::NodePool pool;
    pool.match.name_prefix = "n";
    pool.choice = k8s::DeviceChoice::kPreferred;
    if (pool_model) pool.model = *pool_model;
    s.kube.pools.push_back(pool);
    if (fraction) {
      s.pod("trace-half", 1, 0, 100).gpu_milli = 500;  // a trace fraction: scheduler-assigned would run it
      return s.run();
    }
    s.pod("half", 1, 0, 100).constraints = hami(0, 50, 50);
    s.pod("half-2", 1, 1, 100).constraints = hami(0, 50, 50);
    return s.run();
  };
  // device-plugin: whole GPUs only, so the fraction never starts; and HAMi asks have no node.
  EXPECT_EQ(record(run_with(std::nullopt, true), 0).outcome, PodOutcome::kPending);
  EXPECT_THROW(run_with(std::nullopt), core::InputError);
  const auto hami_run = run_with(DevicePluginModel::kHamiVgpu);
  EXPECT_EQ(seconds(record(hami_run, 1).start_us), 1);  // both halves share the GPU
  EXPECT_THROW(run_with(DevicePluginModel::kGpushare), core::InputError);
}

K8sScenario mixed_mig(std::vector<std::string> layout) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"a100-sxm4-80gb", "A100 80GB", {"A100"}, 81920, 0, 0, 0, 0, ""}});
  s.node("mig", 1);
  s.kube.default_model = DevicePluginModel::kMig;
  s.kube.default_mig.strategy = k8s::MigStrategy::kMixed;
  s.kube.default_mig.layout = std::move(layout);
  return s;
}

// A pod naming nvidia.com/mig-1g.10gb gets the 1g instance (device 2) even though the 2g one
// (device 1) is free, runs at full speed there (100 s: it asked for that slice), and with the
// memory model on uses that instance's memory without running out (its compute share, 1/7, is
// more than its memory share, 1/8). A second 1g pod waits for the first; a 4g pod takes device 0.
TEST(K8sDeviceShares, MigProfileAskedByName) {
  K8sScenario s = mixed_mig({"4g.40gb", "2g.20gb", "1g.10gb"});
  s.kube.memory_model = true;
  s.pod("small", 1, 0, 100).constraints = mig("1g.10gb");
  s.pod("small-2", 1, 1, 100).constraints = mig("1g.10gb");
  s.pod("big", 1, 2, 100).constraints = mig("4g.40gb");
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({2}));
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(record(result, 2).gpus, gpus({0}));
  EXPECT_EQ(metric(result, "oom_kills"), 0);
}

// A profile the layouts do not offer, or MIG asks without MIG mixed nodes, are input errors.
TEST(K8sDeviceShares, MigProfilesNoNodeOffersAreInputErrors) {
  K8sScenario s = mixed_mig({"4g.40gb", "2g.20gb", "1g.10gb"});
  s.pod("a", 1, 0, 100).constraints = mig("3g.40gb");
  try {
    s.run();
    FAIL() << "expected an input error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("offer 1g.10gb, 2g.20gb, 4g.40gb"), std::string::npos) << e.what();
  }
  K8sScenario plain;
  plain.node("n", 1);
  plain.pod("a", 1, 0, 100).constraints = mig("1g.10gb");
  EXPECT_THROW(plain.run(), core::InputError);
}

}  // namespace
}  // namespace gpusim::testing
