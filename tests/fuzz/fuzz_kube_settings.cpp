// Fuzz target: the --kube settings reader. Settings it accepts also drive a short replay on a
// two-node cluster (a device-plugin node with the DGX-1 topology and a 1.6 node), so that settings
// the reader lets through cannot crash the Kubernetes layer.
#include <fmt/format.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/settings_reader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  static const sched::Registry registry = policy::builtin_registry();
  static const traces::ClusterSpec cluster = [] {
    traces::ClusterSpec spec;
    const auto& catalog = fuzz::bundled_catalog();
    spec.nodes.push_back({"n0", 64000, 262144, 8, *catalog.find("V100M32"), {}, {}, false});
    spec.nodes.push_back({"n1", 64000, 262144, 4, *catalog.find("V100M32"), {}, {}, false});
    return spec;
  }();
  static const traces::Workload workload = [] {
    traces::Workload w;
    w.has_times = true;
    for (int i = 0; i < 6; ++i) {
      cluster::PodSpec pod;
      pod.name = fmt::format("p{}", i);
      pod.cpu_milli = 1000;
      pod.gpu_count = 1 + i % 4;
      pod.gpu_milli = 1000;
      pod.creation_time = core::Time::from_seconds(30 * i);
      pod.duration = core::Time::from_seconds(600);
      pod.deletion_time = *pod.creation_time + *pod.duration;
      w.pods.push_back(pod);
    }
    return w;
  }();
  try {
    const k8s::KubeSettings settings = k8s::parse_kube_settings(fuzz::as_text(data, size), "fuzz.yaml", cluster.nodes);
    // Keep the replay short: a failure process with a tiny MTBF would flood it.
    if (settings.mtbf_hours > 0 && settings.mtbf_hours < 1) return 0;
    for (const auto& [model, hours] : settings.mtbf_hours_by_model) {
      if (hours < 1) return 0;
    }
    const experiment::RunInputs inputs{&fuzz::bundled_catalog(), &cluster, &workload, &registry, nullptr, {}, nullptr, &settings};
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    experiment::run_replay(inputs, config::builtin_profile("binpack"), config);
  } catch (const core::InputError&) {
  }
  return 0;
}
