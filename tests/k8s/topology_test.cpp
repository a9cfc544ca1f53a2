// Node topologies (Boost.Graph) and NVIDIA's best-effort device choice, checked against
// go-gpuallocator's DGX-1 expectations and hand-computed pair scores.
#include <gtest/gtest.h>

#include "sim/k8s/device_plugin.hpp"
#include "sim/topology/topology.hpp"

namespace gpusim::topology {
namespace {

cluster::GpuSet set(std::initializer_list<int> gpus) {
  cluster::GpuSet s;
  for (const int g : gpus) s.add(g);
  return s;
}

cluster::GpuSet all(int n) {
  cluster::GpuSet s;
  for (int g = 0; g < n; ++g) s.add(g);
  return s;
}

TEST(Topology, Dgx1HybridCubeMeshLinks) {
  const Library library;
  const Topology& dgx1 = library.at(*library.find("dgx1-v100"));
  EXPECT_EQ(dgx1.nvlinks(0, 3), 2);
  EXPECT_EQ(dgx1.nvlinks(0, 1), 1);
  EXPECT_EQ(dgx1.nvlinks(0, 5), 0);
  EXPECT_EQ(dgx1.link_class(0, 5), LinkClass::kCrossCpu);
  EXPECT_EQ(dgx1.link_class(0, 4), LinkClass::kNvlink);
  // Pair scores: PCIe class points + 100 per NVLink (0-1: one switch, 50 + 100; 0-3: through the
  // CPU, 30 + 200; 0-5: across sockets, 10).
  EXPECT_EQ(dgx1.pair_score(0, 1), 150);
  EXPECT_EQ(dgx1.pair_score(0, 3), 230);
  EXPECT_EQ(dgx1.pair_score(0, 5), 10);
  // Six NVLinks per V100.
  for (int a = 0; a < 8; ++a) {
    int links = 0;
    for (int b = 0; b < 8; ++b) links += a == b ? 0 : dgx1.nvlinks(a, b);
    EXPECT_EQ(links, 6) << "GPU " << a;
  }
}

TEST(Topology, NvswitchIsNvlinkForLinksButPcieForTheAllocator) {
  const Library library;
  const Topology& a100 = library.at(*library.find("dgx-a100"));
  EXPECT_EQ(a100.link_class(0, 7), LinkClass::kNvlink);
  EXPECT_EQ(a100.nvlinks(0, 7), 12);
  // go-gpuallocator does not see links through NVSwitches: PCIe points only.
  EXPECT_EQ(a100.pair_score(0, 1), 50);
  EXPECT_EQ(a100.pair_score(0, 7), 10);
}

TEST(Topology, PcieServerClasses) {
  const Library library;
  const Topology& pcie = library.at(*library.find("pcie-2socket-8gpu"));
  EXPECT_EQ(pcie.link_class(0, 1), LinkClass::kSingleSwitch);
  EXPECT_EQ(pcie.link_class(0, 2), LinkClass::kHostBridge);
  EXPECT_EQ(pcie.link_class(3, 4), LinkClass::kCrossCpu);
  EXPECT_EQ(pcie.worst_link(set({0, 1, 2})), LinkClass::kHostBridge);
  const Topology& t4 = library.at(*library.find("pcie-4xt4"));
  EXPECT_EQ(t4.gpu_count(), 4);
  EXPECT_EQ(t4.link_class(1, 2), LinkClass::kHostBridge);
}

// go-gpuallocator's DGX-1 Volta expectations: 2 GPUs from an idle node -> {0,3}; 4 -> {0,1,2,3}.
TEST(BestEffort, Dgx1PicksAsNvidiaTestsExpect) {
  const Library library;
  const Topology& dgx1 = library.at(*library.find("dgx1-v100"));
  EXPECT_EQ(best_effort(dgx1, all(8), 2), set({0, 3}));
  EXPECT_EQ(best_effort(dgx1, all(8), 4), set({0, 1, 2, 3}));
  EXPECT_EQ(best_effort(dgx1, all(8), 1), set({0}));
  EXPECT_EQ(best_effort(dgx1, all(8), 8), all(8));
  // With {0,3} taken: the best partition of the rest pairs {1,2} (NV2, 230).
  EXPECT_EQ(best_effort(dgx1, set({1, 2, 4, 5, 6, 7}), 2), set({1, 2}));
  EXPECT_TRUE(best_effort(dgx1, set({1, 2}), 3).empty());
}

// On the PCIe server with GPUs 0 and 1 taken, a 4-GPU request: first fit takes {2,3,4,5} across
// the sockets; best effort pads {2..7} to 8 and finds {4,5,6,7} (50+30+30+30+30+50 = 220) with
// {2,3} (50): 270, against {2,3,4,5} (140) with {6,7} (50): 190.
TEST(BestEffort, PcieServerKeepsTheSocket) {
  const Library library;
  const Topology& pcie = library.at(*library.find("pcie-2socket-8gpu"));
  EXPECT_EQ(best_effort(pcie, set({2, 3, 4, 5, 6, 7}), 4), set({4, 5, 6, 7}));
}

TEST(DeviceChooser, FirstFitAndPreferred) {
  const Library library;
  const std::vector<k8s::NodeSetup> setup{{k8s::DevicePluginModel::kDevicePlugin, k8s::DeviceChoice::kFirstFit, *library.find("dgx1-v100"), {}},
                                          {k8s::DevicePluginModel::kDevicePlugin, k8s::DeviceChoice::kPreferred, *library.find("dgx1-v100"), {}},
                                          {k8s::DevicePluginModel::kDevicePlugin, k8s::DeviceChoice::kPreferred, -1, {}}};
  const k8s::DeviceChooser chooser(setup, library);
  EXPECT_EQ(*chooser.choose(0, 2, all(8)), set({0, 1}));
  EXPECT_EQ(*chooser.choose(1, 2, all(8)), set({0, 3}));
  EXPECT_EQ(*chooser.choose(2, 2, all(8)), set({0, 1}));  // no topology: first fit
  EXPECT_FALSE(chooser.choose(0, 3, set({1, 7})).has_value());
}

// The 1.6 seed's pod: containers asking 2 and 3 GPUs get 5 distinct GPUs, split by container; an
// init container's devices are reused by the app containers.
TEST(DeviceChooser, ContainersGetDistinctDevices) {
  const Library library;
  const std::vector<k8s::NodeSetup> setup{{k8s::DevicePluginModel::kAccelerators16, k8s::DeviceChoice::kFirstFit, -1, {}}};
  const k8s::DeviceChooser chooser(setup, library);
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->containers = {{"gpu-container-1", 0, 0, 2}, {"gpu-container-2", 0, 0, 3}};
  cluster::PodSpec pod;
  pod.gpu_count = 5;
  pod.gpu_milli = 1000;
  pod.constraints = constraints;
  const auto devices = chooser.allocate(0, pod, set({1, 2, 3, 4, 5, 6, 7}));
  ASSERT_TRUE(devices.has_value());
  EXPECT_EQ(devices->all, set({1, 2, 3, 4, 5}));
  ASSERT_EQ(devices->containers.size(), 2U);
  EXPECT_EQ(devices->containers[0], set({1, 2}));
  EXPECT_EQ(devices->containers[1], set({3, 4, 5}));
  EXPECT_FALSE(chooser.allocate(0, pod, set({0, 1, 2, 3})).has_value());

  auto with_init = std::make_shared<cluster::PodConstraints>(*constraints);
  with_init->init_containers = {{"init", 0, 0, 4}};
  pod.constraints = with_init;
  const auto reused = chooser.allocate(0, pod, all(8));
  ASSERT_TRUE(reused.has_value());
  EXPECT_EQ(reused->all, set({0, 1, 2, 3, 4}));  // max(2 + 3, 4) devices
  EXPECT_EQ(reused->containers[0], set({0, 1}));
  EXPECT_EQ(reused->containers[1], set({2, 3, 4}));
}

}  // namespace
}  // namespace gpusim::topology
