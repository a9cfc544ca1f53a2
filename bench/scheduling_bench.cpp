// Scheduling cost on the real openb cluster (1213 nodes, 6212 GPUs): one cycle (filter, score,
// select, bind, then release) for the trace's most common pod, per policy; and one whole FGD
// fill run, the figure the FGD paper's simulator needs about ten minutes for.
#include <benchmark/benchmark.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/sched/framework.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"

namespace {

using namespace gpusim;

struct Openb {
  cluster::GpuCatalog catalog = cluster::GpuCatalog::load(traces::default_catalog(traces::default_data_root()));
  traces::ClusterSpec nodes = traces::read_openb_nodes(traces::resolve_cluster("openb", traces::default_data_root()), catalog);
  traces::Workload pods = traces::read_openb_pods(traces::resolve_workload("openb:default", traces::default_data_root()), catalog);
  sched::Registry registry = policy::builtin_registry();
};

const Openb& openb() {
  static const Openb data;
  return data;
}

const char* const kPolicies[] = {"random", "dotprod", "gpu-clustering", "gpu-packing", "bestfit", "fgd", "kube-default"};

// Half-fills the cluster with the trace's pods first, so that nodes differ as in a real run.
void BM_SchedulingCycle(benchmark::State& state) {
  const Openb& data = openb();
  cluster::ClusterState cluster(data.catalog, data.nodes.nodes);
  const sched::Profile profile = config::builtin_profile(kPolicies[state.range(0)]);
  sched::Framework framework(profile, data.registry, {&data.catalog, data.pods.pods, 42, cluster.node_count()}, cluster);
  for (std::size_t i = 0; i < data.pods.pods.size() / 2; ++i) framework.schedule(data.pods.pods[i]);
  cluster::PodSpec probe = data.pods.pods[1];  // a 1 x 460 milli sharing pod
  for (auto _ : state) {
    const auto placement = framework.schedule(probe);
    benchmark::DoNotOptimize(placement);
    if (placement) framework.release(probe, *placement);
  }
  state.SetLabel(profile.name);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SchedulingCycle)->DenseRange(0, 6)->Unit(benchmark::kMicrosecond);

void BM_FillRun(benchmark::State& state) {
  const Openb& data = openb();
  const experiment::RunInputs inputs{&data.catalog, &data.nodes, &data.pods, &data.registry, nullptr, {}};
  const sched::Profile profile = config::builtin_profile(kPolicies[state.range(0)]);
  experiment::RunConfig config;
  config.record_series = false;
  for (auto _ : state) {
    auto result = experiment::run_one(inputs, profile, config);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(profile.name);
}
BENCHMARK(BM_FillRun)->DenseRange(0, 5)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
