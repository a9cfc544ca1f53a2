// Fuzz target: NVIDIA's vGPU Device Manager config reader (bare or the GPU Operator's ConfigMap).
// A config it accepts gives an A100 80GB or an RTX PRO 6000 Blackwell node (labelled with its first
// config's name) its vGPUs under devicePlugin kubevirt-vgpu and drives a short replay, under each
// vGPU scheduler, with and without mixed-size mode and MIG time-slicing, so that what the reader
// lets through cannot crash the node setup, the vGPU devices or the speed model.
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/vgpu_dm_config.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  static const traces::Workload workload = [] {
    traces::Workload w;
    w.has_times = true;
    for (int i = 0; i < 6; ++i) {
      cluster::PodSpec pod;
      pod.name = fmt::format("vm{}", i);
      pod.cpu_milli = 1000;
      pod.gpu_count = 1;
      pod.gpu_milli = 150 * (1 + i);
      pod.gpu_demand_milli = 100 * (1 + i);
      pod.creation_time = core::Time::from_seconds(30 * i);
      pod.duration = core::Time::from_seconds(600);
      pod.deletion_time = *pod.creation_time + *pod.duration;
      w.pods.push_back(pod);
    }
    return w;
  }();
  try {
    const auto configs = std::make_shared<k8s::VgpuDmConfigs>(k8s::parse_vgpu_dm_config(fuzz::as_text(data, size), "fuzz.yaml"));
    GPUSIM_CHECK(!configs->configs.empty(), "an accepted file holds a config");
    for (const k8s::VgpuDmConfig& c : configs->configs) {
      GPUSIM_CHECK(!c.entries.empty(), "every config has an entry");
      for (const k8s::VgpuDmEntry& e : c.entries) {
        for (const auto& [type, count] : e.vgpu_devices) GPUSIM_CHECK(count > 0 && !type.empty(), "a vGPU type with a count");
      }
    }
    const auto& catalog = fuzz::bundled_catalog();
    traces::ClusterSpec cluster;
    const bool blackwell = size / 3 % 2 == 1;
    cluster.nodes.push_back(
        {"a0", 64000, 262144, 2, *catalog.find(blackwell ? "rtx-pro-6000-blackwell-server" : "a100-sxm4-80gb"), {}, {}, false});
    cluster.nodes[0].labels.emplace_back(k8s::kVgpuConfigLabel, configs->configs.front().name);
    k8s::KubeSettings settings;
    settings.default_model = k8s::DevicePluginModel::kKubevirtVgpu;
    settings.default_vgpu.scheduler = static_cast<k8s::VgpuScheduler>(size % 3);
    settings.default_vgpu.mixed_size = size % 2 == 0;
    settings.default_vgpu.mig_time_slicing = size % 7 != 0;
    settings.default_vgpu.boot_time = core::Time::from_seconds(static_cast<std::int64_t>(size % 5) * 20);
    settings.vgpu_dm_configs = configs;
    const experiment::RunInputs inputs{&catalog, &cluster, &workload, &registry, nullptr, {}, nullptr, &settings};
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    experiment::run_replay(inputs, config::builtin_profile("binpack"), config);
  } catch (const core::InputError&) {
  }
  return 0;
}
