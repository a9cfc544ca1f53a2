#pragma once
// Small hand-built clusters for scenario tests. Three nodes:
//   n0: 32 cores, 64 GiB, 2 GPUs of model A
//   n1: 64 cores, 128 GiB, 8 GPUs of model A
//   n2: 16 cores, 32 GiB, 4 GPUs of model B
#include <memory>
#include <vector>

#include "policies/register_builtin.hpp"
#include "sim/cluster/cluster_state.hpp"
#include "sim/sched/framework.hpp"

namespace gpusim::testing {

inline cluster::GpuCatalog two_model_catalog() {
  return cluster::GpuCatalog::from_models({{"model-a", "A", {"A"}, 16384, 0, 0, 0, 0, ""},
                                           {"model-b", "B", {"B"}, 32768, 0, 0, 0, 0, ""}});
}

inline std::vector<cluster::NodeSpec> three_nodes() {
  return {{"n0", 32000, 65536, 2, 0, {}, {}},
          {"n1", 64000, 131072, 8, 0, {}, {}},
          {"n2", 16000, 32768, 4, 1, {}, {}}};
}

inline cluster::PodSpec pod(std::int64_t cpu, std::int32_t gpus, std::int32_t milli, const char* name = "p") {
  cluster::PodSpec p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = 1024;
  p.gpu_count = gpus;
  p.gpu_milli = milli;
  return p;
}

inline cluster::Placement at(cluster::NodeIndex node, std::initializer_list<int> gpus) {
  cluster::Placement placement{node, {}};
  for (const int g : gpus) placement.gpus.add(g);
  return placement;
}

// A cluster, the built-in registry and a helper that builds one plugin.
struct Bench {
  cluster::GpuCatalog catalog = two_model_catalog();
  cluster::ClusterState state{catalog, three_nodes()};
  sched::Registry registry = policy::builtin_registry();
  std::vector<cluster::PodSpec> workload;
  sched::CycleState cycle{3};

  sched::PluginContext context(std::uint64_t seed = 1) {
    return {&catalog, workload, seed, state.node_count()};
  }
  template <typename T>
  std::unique_ptr<T> plugin(const std::string& name) {
    auto built = registry.create(name, context());
    auto* typed = dynamic_cast<T*>(built.get());
    if (typed == nullptr) return nullptr;
    built.release();
    return std::unique_ptr<T>(typed);
  }
  // Scores of `name` for `p` on every node, after normalisation.
  std::vector<std::int64_t> scores(const std::string& name, const cluster::PodSpec& p) {
    auto scorer = plugin<sched::ScorePlugin>(name);
    std::vector<cluster::NodeIndex> all{0, 1, 2};
    scorer->pre_score(p, all, state, cycle);
    std::vector<sched::NodeScore> out;
    for (const auto n : all) out.push_back({n, scorer->score(p, n, state, cycle)});
    scorer->normalize(out);
    std::vector<std::int64_t> values;
    for (const auto& s : out) values.push_back(s.score);
    return values;
  }
};

}  // namespace gpusim::testing
