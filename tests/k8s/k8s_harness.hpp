#pragma once
// A small replay harness for the Kubernetes layer's scenario tests: nodes, pods with arrival and
// run times in seconds, settings; runs a built-in profile (binpack unless set; node-index ties) and gives the
// per-pod records and metrics.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/experiment/replay_experiment.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::cluster {
// gtest prints a set of devices as its indices.
inline void PrintTo(const GpuSet& set, std::ostream* out) {
  *out << '{';
  bool first = true;
  set.for_each([&](int g) {
    *out << (first ? "" : ",") << g;
    first = false;
  });
  *out << '}';
}
}  // namespace gpusim::cluster

namespace gpusim::testing {

struct K8sScenario {
  cluster::GpuCatalog catalog = cluster::GpuCatalog::from_models({{"v100", "V100", {"V100"}, 32768, 0, 0, 0, 0, ""}});
  traces::ClusterSpec cluster;
  traces::Workload workload;
  k8s::KubeSettings kube;
  sched::Registry registry = policy::builtin_registry();
  std::uint64_t seed = 42;
  std::int64_t fragmentation_every_s = 0;
  std::string policy = "binpack";  // a built-in profile, run with node-index ties
  std::optional<sched::Profile> profile;  // instead of `policy`: a profile read from a configuration, as it is
  std::optional<sched::TiresiasSettings> tiresias;  // policy tiresias: other knobs than the defaults
  std::optional<double> themis_fairness;            // policy themis: another fairness knob than 0.8
  std::optional<core::Time> round_length;           // time-sharing policies: another round length than 360 s
  std::optional<core::Time> gang_timeout;           // policy gang: another Permit timeout than 60 s
  const perf::JobTypeSpeeds* job_types = nullptr;   // Gavel's throughput table, if the jobs carry job types
  // Plugin args by canonical plugin name (pluginConfig), over the built-in profile's.
  std::map<std::string, std::shared_ptr<const sched::PluginArgs>> plugin_args;

  K8sScenario() { workload.has_times = true; }

  void node(const std::string& name, int gpus) { cluster.nodes.push_back({name, 64000, 262144, gpus, 0, {}, {}, false}); }

  cluster::PodSpec& pod(const std::string& name, int gpus, std::int64_t arrival_s, std::int64_t duration_s) {
    cluster::PodSpec p;
    p.name = name;
    p.cpu_milli = 1000;
    p.memory_mib = 1024;
    p.gpu_count = gpus;
    p.gpu_milli = gpus > 0 ? cluster::kMilliPerGpu : 0;
    p.creation_time = core::Time::from_seconds(arrival_s);
    p.duration = core::Time::from_seconds(duration_s);
    p.deletion_time = *p.creation_time + *p.duration;
    workload.pods.push_back(p);
    return workload.pods.back();
  }

  experiment::RunResult run() {
    sched::Profile chosen = this->profile ? *this->profile : config::builtin_profile(policy);
    if (!this->profile) chosen.tie_break = sched::TieBreak::kNodeIndex;
    if (tiresias) chosen.tiresias = *tiresias;
    if (themis_fairness) chosen.themis_fairness = *themis_fairness;
    if (round_length) chosen.round_length = *round_length;
    if (gang_timeout) chosen.gang_timeout = *gang_timeout;
    for (const auto& [name, args] : plugin_args) chosen.plugin_args[name] = args;
    experiment::RunConfig config;
    config.mode = experiment::Mode::kReplay;
    config.seed = seed;
    config.fragmentation_every_s = fragmentation_every_s;
    const experiment::RunInputs inputs{&catalog, &cluster, &workload, &registry, nullptr, {}, job_types, &kube};
    return experiment::run_replay(inputs, chosen, config);
  }
};

inline const experiment::PodRecord& record(const experiment::RunResult& result, std::size_t row) {
  return result.pods.at(row);
}

// A Job of `parallelism` and `completions` with every other field at its default.
inline traces::JobSpec job(const std::string& name, std::int32_t parallelism, std::int32_t completions) {
  traces::JobSpec spec;
  spec.name = name;
  spec.parallelism = parallelism;
  spec.completions = completions;
  return spec;
}

inline double seconds(std::int64_t us) { return static_cast<double>(us) / 1e6; }

// A simulated time of `seconds` (for settings and events in the scenarios).
inline core::Time s_(std::int64_t seconds) { return core::Time::from_seconds(seconds); }

inline cluster::GpuSet gpus(std::initializer_list<int> indices) {
  cluster::GpuSet set;
  for (const int g : indices) set.add(g);
  return set;
}

inline double metric(const experiment::RunResult& result, const std::string& name) {
  const auto value = result.metric(name);
  EXPECT_TRUE(value.has_value()) << name;
  return value.value_or(-1);
}

}  // namespace gpusim::testing
