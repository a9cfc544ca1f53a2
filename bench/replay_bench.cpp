// Replay through the Kubernetes layer on the synthetic topology cluster (256 GPUs, 3,315 jobs):
// the default settings (scheduler-assigned devices, no failures) against NVIDIA's device plugin
// with first-fit or preferred (topology) device choice, and against the stale-status experiment's
// settings (GPU failures, plugin restarts, 60 s status). The bound: device-plugin replay
// at most 2x the default replay of the same workload. The sharing variants (traces/sharing/) run
// the same workload on time-sliced and MPS replicas, against whole GPUs through the same plugin:
// a sharing replay may cost at most 2x the whole-GPU replay. The MIG variants run it on the same
// nodes relabelled A100 80GB (MIG-capable), against whole A100s. The HAMi variants run it through
// HAMi's scheduler (an extender that picks node and GPUs), against whole GPUs. The load-aware
// variant runs Koordinator's LoadAwareScheduling with koordlet's reports, against binpack-gpu.
#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <vector>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/io/input_file.hpp"
#include "sim/k8s/plugin_config_files.hpp"
#include "sim/k8s/pool_labels.hpp"
#include "sim/k8s/settings_reader.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"

namespace {

using namespace gpusim;

traces::ClusterSpec relabelled(traces::ClusterSpec cluster, cluster::GpuModelId model) {
  for (cluster::NodeSpec& node : cluster.nodes) node.gpu_model = model;
  return cluster;
}

struct Synthetic {
  std::filesystem::path root = traces::default_data_root();
  cluster::GpuCatalog catalog = cluster::GpuCatalog::load(traces::default_catalog(root));
  traces::ClusterSpec nodes = traces::read_openb_nodes(root / "traces/synthetic/topology-cluster.csv", catalog);
  traces::Workload pods = traces::read_openb_pods(root / "traces/synthetic/topology-jobs.csv", catalog);
  traces::ClusterSpec a100 = relabelled(nodes, *catalog.find("a100-sxm4-80gb"));
  sched::Registry registry = policy::builtin_registry();
};

const Synthetic& synthetic() {
  static const Synthetic data;
  return data;
}

struct Variant {
  const char* label;
  const char* kube;  // nullptr: defaults
  const char* policy;
  bool a100 = false;  // on the nodes relabelled A100 80GB
  std::vector<const char*> configs = {};  // --config: the plugins' own files
};

// What `gpusim run --kube K --config C...` reads: the settings, the pools' labels on the nodes, then
// the plugins' files.
struct Setup {
  traces::ClusterSpec nodes;
  k8s::KubeSettings settings;
};
Setup setup(const Synthetic& data, const Variant& variant) {
  Setup out{variant.a100 ? data.a100 : data.nodes, {}};
  if (variant.kube != nullptr) out.settings = k8s::load_kube_settings(data.root / variant.kube, out.nodes.nodes);
  k8s::label_pool_nodes(out.settings, data.catalog, out.nodes.nodes);
  for (const char* config : variant.configs) {
    const std::string file = (data.root / config).string();
    const std::string text = io::read_file(file, "--config file");
    k8s::read_plugin_config(k8s::plugin_config_kind(YAML::Load(text)), text, file, out.nodes.nodes, out.settings);
  }
  return out;
}
const Variant kVariants[] = {
    {"default (scheduler-assigned)", nullptr, "binpack"},
    {"device-plugin first-fit", "traces/synthetic/kube-dc-first-fit.yaml", "binpack"},
    {"device-plugin preferred", "traces/synthetic/kube-dc-preferred.yaml", "binpack"},
    {"scheduler-assigned topology-aware", "traces/synthetic/kube-dc-topology-aware.yaml", "topology-aware"},
    {"stale status 60 s, failures", "traces/synthetic/kube-stale-60s.yaml", "binpack"},
    {"whole GPUs (device plugin, no topology)", "traces/sharing/whole-gpu.yaml", "binpack"},
    {"time-slicing, 2 replicas", "traces/sharing/whole-gpu.yaml", "binpack", false,
     {"traces/sharing/time-slicing-2.device-plugin.yaml"}},
    {"time-slicing, 4 replicas packed", "traces/sharing/whole-gpu.yaml", "binpack", false,
     {"traces/sharing/time-slicing-4-packed.device-plugin.yaml"}},
    {"MPS, 2 replicas", "traces/sharing/whole-gpu.yaml", "binpack", false, {"traces/sharing/mps-2.device-plugin.yaml"}},
    {"whole A100s (device plugin)", "traces/sharing/a100-whole-gpu.yaml", "binpack", true},
    {"MIG single, 2 x 3g per A100", "traces/sharing/mig-single-3g-labels.yaml", "binpack", true,
     {"traces/sharing/mig-single.device-plugin.yaml", "traces/sharing/mig.mig-parted.yaml"}},
    {"MIG dynamic, from 7 x 1g", "traces/synthetic/kube-mig-dynamic.yaml", "binpack", true},
    {"HAMi vGPU (its scheduler as an extender)", "traces/sharing/hami-vgpu.yaml", "binpack"},
    {"HAMi vGPU, memory x2, gpumem alone", "traces/sharing/hami-vgpu-gpumem.yaml", "binpack", false,
     {"traces/sharing/hami-vgpu-memory-2x.hami-values.yaml"}},
    // Koordinator's LoadAwareScheduling on koordlet's reports, against request-based binpack on the
    // same time-sliced replicas (policies from files: results/utilisation-aware/).
    {"time-slicing, 4 replicas, binpack-gpu (requests)", "traces/utilisation/time-slicing.yaml",
     "traces/utilisation/binpack-gpu.yaml", false, {"traces/utilisation/time-slicing-4.device-plugin.yaml"}},
    {"time-slicing, 4 replicas, load-aware (koordlet reports)", "traces/utilisation/time-slicing.yaml",
     "traces/utilisation/load-aware.yaml", false, {"traces/utilisation/time-slicing-4.device-plugin.yaml"}},
};

void BM_ReplayRun(benchmark::State& state) {
  const Synthetic& data = synthetic();
  const Variant& variant = kVariants[state.range(0)];
  const Setup run = setup(data, variant);
  const experiment::RunInputs inputs{&data.catalog, &run.nodes, &data.pods, &data.registry, nullptr, {}, nullptr, &run.settings};
  const std::string policy = variant.policy;
  const sched::Profile profile = policy.ends_with(".yaml")
                                     ? config::resolve_profiles((data.root / policy).string(), data.registry).at(0)
                                     : config::builtin_profile(policy);
  experiment::RunConfig config;
  config.mode = experiment::Mode::kReplay;
  config.record_series = false;
  for (auto _ : state) {
    auto result = experiment::run_one(inputs, profile, config);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(variant.label);
}
BENCHMARK(BM_ReplayRun)->DenseRange(0, 15)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
