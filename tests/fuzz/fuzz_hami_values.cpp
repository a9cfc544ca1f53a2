// Fuzz target: HAMi's settings readers, the Helm values and (for input that looks like one) the
// device config or its ConfigMaps. Settings they accept are applied to a two-node HAMi cluster
// (one node named in the fuzzed nodeconfig, if any) and drive a short replay of fractional and
// whole-GPU pods through HAMi's scheduler, so that what the readers let through cannot crash it.
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/hami_settings.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  static const traces::Workload workload = [] {
    traces::Workload w;
    w.has_times = true;
    for (int i = 0; i < 8; ++i) {
      cluster::PodSpec pod;
      pod.name = fmt::format("p{}", i);
      pod.cpu_milli = 1000;
      pod.gpu_count = 1;
      pod.gpu_milli = i % 3 == 0 ? 1000 : 250 * (1 + i % 3);
      pod.creation_time = core::Time::from_seconds(20 * i);
      pod.duration = core::Time::from_seconds(600);
      pod.deletion_time = *pod.creation_time + *pod.duration;
      w.pods.push_back(pod);
    }
    return w;
  }();
  const std::string text = fuzz::as_text(data, size);
  try {
    bool device_config = false;
    try {
      device_config = k8s::is_hami_device_config(YAML::Load(text));
    } catch (const YAML::Exception&) {
    }
    const auto settings = std::make_shared<k8s::HamiSettings>(device_config ? k8s::parse_hami_device_config(text, "fuzz.yaml")
                                                                            : k8s::parse_hami_values(text, "fuzz.yaml"));
    GPUSIM_CHECK(settings->config.device_split_count >= 1 && settings->config.device_split_count <= 1000, "split count in range");
    GPUSIM_CHECK(settings->config.device_memory_scaling >= 1 && settings->config.device_memory_scaling <= 100, "scaling in range");
    const auto& catalog = fuzz::bundled_catalog();
    traces::ClusterSpec cluster;
    const std::string named = settings->nodes.empty() ? "h0" : settings->nodes.front().name;
    cluster.nodes.push_back({named == "h1" ? "h0" : named, 64000, 262144, 2, *catalog.find("V100M32"), {}, {}, false});
    cluster.nodes.push_back({"h1", 64000, 262144, 4, *catalog.find("V100M32"), {}, {}, false});
    k8s::KubeSettings kube;
    kube.default_model = k8s::DevicePluginModel::kHamiVgpu;
    kube.hami_settings = settings;
    const experiment::RunInputs inputs{&catalog, &cluster, &workload, &registry, nullptr, {}, nullptr, &kube};
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    experiment::run_replay(inputs, config::builtin_profile("binpack"), config);
  } catch (const core::InputError&) {
  }
  return 0;
}
