// Fuzz target: NVIDIA's MIG manager config reader (mig-parted, bare or the GPU Operator's
// ConfigMap). A config it accepts gives two A100 nodes (one labelled with its first config's name,
// one without a label: all-disabled) their layouts under MIG strategy mixed and drives a short
// replay, so that what the reader lets through cannot crash the node setup or the MIG devices.
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/device_plugin_config.hpp"
#include "sim/k8s/mig_parted_config.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  static const auto mixed = std::make_shared<k8s::DevicePluginConfigs>(
      k8s::parse_device_plugin_config("version: v1\nflags: {migStrategy: mixed}\n", "mixed.yaml"));
  static const traces::Workload workload = [] {
    traces::Workload w;
    w.has_times = true;
    for (int i = 0; i < 6; ++i) {
      cluster::PodSpec pod;
      pod.name = fmt::format("p{}", i);
      pod.cpu_milli = 1000;
      pod.gpu_count = 1;
      pod.gpu_milli = 150 * (1 + i);
      pod.creation_time = core::Time::from_seconds(30 * i);
      pod.duration = core::Time::from_seconds(600);
      pod.deletion_time = *pod.creation_time + *pod.duration;
      w.pods.push_back(pod);
    }
    return w;
  }();
  try {
    const auto configs = std::make_shared<k8s::MigPartedConfigs>(
        k8s::parse_mig_parted_config(fuzz::as_text(data, size), "fuzz.yaml"));
    GPUSIM_CHECK(!configs->configs.empty(), "an accepted file holds a config");
    for (const k8s::MigPartedConfig& c : configs->configs) {
      GPUSIM_CHECK(!c.entries.empty(), "every config has an entry");
    }
    const auto& catalog = fuzz::bundled_catalog();
    traces::ClusterSpec cluster;
    cluster.nodes.push_back({"a0", 64000, 262144, 2, *catalog.find("a100-sxm4-80gb"), {}, {}, false});
    cluster.nodes.push_back({"a1", 64000, 262144, 1, *catalog.find("a100-sxm4-80gb"), {}, {}, false});
    cluster.nodes[0].labels.emplace_back(k8s::kMigConfigLabel, configs->configs.front().name);
    k8s::KubeSettings settings;
    settings.default_model = k8s::DevicePluginModel::kDevicePlugin;
    settings.device_plugin_configs = mixed;
    settings.mig_parted_configs = configs;
    const experiment::RunInputs inputs{&catalog, &cluster, &workload, &registry, nullptr, {}, nullptr, &settings};
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    experiment::run_replay(inputs, config::builtin_profile("binpack"), config);
  } catch (const core::InputError&) {
  }
  return 0;
}
