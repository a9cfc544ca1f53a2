// Fuzz target: NVIDIA's device-plugin config reader (a bare config or a ConfigMap of them). A
// config it accepts is applied to a three-node cluster (two V100 nodes, one labelled with the
// ConfigMap's first config, and an A100 node whose --kube layout cuts it into MIG instances) and
// drives a short replay through the Kubernetes layer, so that what the reader lets through cannot
// crash the node setup or the device plugins.
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/device_plugin_config.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  static const traces::Workload workload = [] {
    traces::Workload w;
    w.has_times = true;
    for (int i = 0; i < 6; ++i) {
      cluster::PodSpec pod;
      pod.name = fmt::format("p{}", i);
      pod.cpu_milli = 1000;
      pod.gpu_count = 1 + i % 2;
      pod.gpu_milli = 1000;
      pod.creation_time = core::Time::from_seconds(30 * i);
      pod.duration = core::Time::from_seconds(600);
      pod.deletion_time = *pod.creation_time + *pod.duration;
      w.pods.push_back(pod);
    }
    return w;
  }();
  try {
    const auto configs = std::make_shared<k8s::DevicePluginConfigs>(
        k8s::parse_device_plugin_config(fuzz::as_text(data, size), "fuzz.yaml"));
    GPUSIM_CHECK(!configs->configs.empty(), "an accepted file holds a config");
    for (const k8s::DevicePluginConfig& c : configs->configs) {
      if (c.sharing == k8s::DevicePluginModel::kDevicePlugin) continue;
      GPUSIM_CHECK(c.sharing_config.replicas >= 2, "shared GPUs have at least two replicas");
      GPUSIM_CHECK(c.sharing != k8s::DevicePluginModel::kMps || c.sharing_config.fail_requests_greater_than_one,
                   "MPS refuses requests of several replicas");
    }
    const auto& catalog = fuzz::bundled_catalog();
    traces::ClusterSpec cluster;
    cluster.nodes.push_back({"n0", 64000, 262144, 4, *catalog.find("V100M32"), {}, {}, false});
    cluster.nodes.push_back({"n1", 64000, 262144, 2, *catalog.find("V100M32"), {}, {}, false});
    cluster.nodes.push_back({"mig-0", 64000, 262144, 1, *catalog.find("a100-sxm4-80gb"), {}, {}, false});
    if (!configs->config_map.empty()) {
      cluster.nodes[0].labels.emplace_back(k8s::kDevicePluginConfigLabel, configs->configs.front().name);
    }
    k8s::KubeSettings settings;
    settings.default_model = k8s::DevicePluginModel::kDevicePlugin;
    settings.fraction_as_one_device = true;
    k8s::NodePool mig;
    mig.name = "mig";
    mig.match.name_prefix = "mig-";
    mig.model = k8s::DevicePluginModel::kMig;
    mig.mig.layout = {"3g.40gb", "3g.40gb"};
    settings.pools.push_back(mig);
    settings.device_plugin_configs = configs;
    const experiment::RunInputs inputs{&catalog, &cluster, &workload, &registry, nullptr, {}, nullptr, &settings};
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    experiment::run_replay(inputs, config::builtin_profile("binpack"), config);
  } catch (const core::InputError&) {
  }
  return 0;
}
