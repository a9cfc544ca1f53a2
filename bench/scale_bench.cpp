// Replays at scale (results/perf/scale/): a synthetic log fitted to Philly (`gpusim trace synth`)
// on N nodes of 8 GPUs, its arrival rate raised with the cluster so that every GPU is as loaded
// as Philly's 2,490 are by the log at its own rate, under FIFO, with or without a Kubernetes layer
// that publishes node status every 60 s and fails GPUs at a 50,000 h MTBF (2 h repairs). Issue
// 33's goal for the Kubernetes layer: 10,000 nodes and 200,000 pods in at most 6 s on 2 cores.
// Building the inputs is not timed; the run records pods and the time series, as `gpusim run` does.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <sstream>
#include <tuple>

#include "policies/register_builtin.hpp"
#include "sim/config/profiles.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/k8s/settings.hpp"
#include "traces/bundled.hpp"
#include "traces/philly_reader.hpp"
#include "traces/synth.hpp"

namespace {

using namespace gpusim;

constexpr double kPhillyGpus = 2490;

struct Scale {
  cluster::GpuCatalog catalog;
  traces::ClusterSpec nodes;
  traces::Workload jobs;
};

const Scale& scale(std::int64_t node_count, std::int64_t job_count) {
  static std::map<std::pair<std::int64_t, std::int64_t>, Scale> built;
  const auto key = std::make_pair(node_count, job_count);
  if (const auto it = built.find(key); it != built.end()) return it->second;
  const std::filesystem::path root = traces::default_data_root();
  Scale s{cluster::GpuCatalog::load(traces::default_catalog(root)), {}, {}};
  const auto p40 = s.catalog.find("p40");
  s.nodes.source = fmt::format("{} nodes of 8 P40", node_count);
  for (std::int64_t n = 0; n < node_count; ++n) {
    s.nodes.nodes.push_back({fmt::format("node-{:05d}", n), 0, 0, 8, *p40, {}, {}});
  }
  const traces::Workload philly = traces::read_philly_jobs(traces::resolve_workload("philly", root), 8);
  const traces::TraceModel model = traces::fit_trace(philly);
  const double load = 8.0 * static_cast<double>(node_count) / kPhillyGpus;
  std::stringstream log;
  traces::write_philly_log(log, traces::synthesize(model, job_count, load, 42), model.queues);
  s.jobs = traces::read_philly_jobs(log, "synthetic", 8);
  return built.emplace(key, std::move(s)).first->second;
}

// Arguments: nodes, jobs, Kubernetes layer (0: the defaults, 1: 60 s status and failures).
void BM_ScaleReplay(benchmark::State& state) {
  const Scale& data = scale(state.range(0), state.range(1));
  static const sched::Registry registry = policy::builtin_registry();
  k8s::KubeSettings kube;
  kube.node_status_period = core::Time::from_seconds(60);
  kube.mtbf_hours = 50000;
  kube.random_failure_xid = 79;
  kube.repair_time = core::Time::from_seconds(2 * 3600);
  const experiment::RunInputs inputs{&data.catalog, &data.nodes, &data.jobs, &registry, nullptr, {}, nullptr,
                                     state.range(2) != 0 ? &kube : nullptr};
  const sched::Profile profile = config::builtin_profile("fifo");
  experiment::RunConfig config;
  config.mode = experiment::Mode::kReplay;
  for (auto _ : state) {
    auto result = experiment::run_one(inputs, profile, config);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(fmt::format("fifo, {} nodes, {} jobs{}", state.range(0), state.range(1),
                             state.range(2) != 0 ? ", 60 s status, 50,000 h MTBF" : ""));
  state.counters["pods"] = static_cast<double>(data.jobs.pods.size());
}
BENCHMARK(BM_ScaleReplay)
    ->Args({1000, 100000, 0})
    ->Args({10000, 200000, 0})
    ->Args({10000, 200000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

}  // namespace
