// Topology-aware placement for scheduler-assigned nodes, after HAMi's `topology-aware` GPU policy
// (../shared/docs/peers.md §5e): a multi-GPU pod takes the best-connected set of free GPUs (NVIDIA's
// best-effort partition over the node's link scores, sim/topology), and nodes are scored by how
// close that set comes to the best set an idle node of that kind offers; a one-GPU pod takes the
// worst-connected free GPU, keeping well-connected groups whole. Nodes without a known topology
// score 0 and get first fit; pods that share a GPU get best fit.
//
// Speed: a choice depends only on the node's template, its free-GPU mask and the GPU count, so it
// is memoised in a table per template (2^G x (G+1) entries, filled on first use).
#include <memory>
#include <vector>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"
#include "sim/topology/topology.hpp"

namespace gpusim::policy {
namespace {

int set_score(const topology::Topology& t, cluster::GpuSet set) {
  int score = 0;
  for (int a = 0; a < t.gpu_count(); ++a) {
    if (!set.contains(a)) continue;
    for (int b = a + 1; b < t.gpu_count(); ++b) score += set.contains(b) ? t.pair_score(a, b) : 0;
  }
  return score;
}

class TopologyAware final : public sched::ScorePlugin, public sched::GpuSelector {
 public:
  explicit TopologyAware(std::span<const topology::Topology* const> topologies)
      : topologies_(topologies.begin(), topologies.end()) {}
  std::string_view name() const override { return "topology-aware"; }

  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    const topology::Topology* t = topology_of(n);
    if (t == nullptr || pod.gpu_count < 2 || pod.shares_gpu()) return 0;
    const Choice& chosen = choose(*t, free_mask(n, c), pod.gpu_count);
    const Choice& ideal = choose(*t, all(t->gpu_count()), pod.gpu_count);
    if (chosen.gpus.empty() || ideal.score <= 0) return 0;
    return sched::kMaxNodeScore * chosen.score / ideal.score;
  }

  cluster::GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                         const sched::CycleState&) override {
    const topology::Topology* t = topology_of(n);
    if (pod.shares_gpu()) {
      cluster::GpuSet one;
      const int gpu = tightest_gpu(c.gpu_milli_free(n), pod.gpu_milli, true);
      if (gpu >= 0) one.add(gpu);
      return one;
    }
    if (t == nullptr) return first_fit(pod, c.gpu_milli_free(n));
    return choose(*t, free_mask(n, c), pod.gpu_count).gpus;
  }

 private:
  struct Choice {
    cluster::GpuSet gpus;
    int score = -1;  // -1: not computed yet
  };
  struct Table {
    const topology::Topology* topology = nullptr;
    std::vector<Choice> choices;  // [mask * (G + 1) + count]
  };

  const topology::Topology* topology_of(sched::NodeIndex n) const {
    return n < topologies_.size() ? topologies_[n] : nullptr;
  }

  static cluster::GpuSet all(int gpus) {
    cluster::GpuSet set;
    for (int g = 0; g < gpus; ++g) set.add(g);
    return set;
  }

  static cluster::GpuSet free_mask(sched::NodeIndex n, const sched::ClusterState& c) {
    cluster::GpuSet set;
    const auto free = c.gpu_milli_free(n);
    for (std::size_t g = 0; g < free.size(); ++g) {
      if (free[g] == cluster::kMilliPerGpu) set.add(static_cast<int>(g));
    }
    return set;
  }

  const Choice& choose(const topology::Topology& t, cluster::GpuSet free, int count) {
    Table& table = table_for(t);
    const auto gpus = static_cast<std::size_t>(t.gpu_count());
    // A topology template has a few GPUs (its table has 2^gpus rows): they are all in the first word.
    Choice& choice = table.choices[free.words[0] * (gpus + 1) + static_cast<std::size_t>(std::min(count, t.gpu_count()))];
    if (choice.score >= 0) return choice;
    if (count > t.gpu_count()) {
      choice = {{}, 0};
    } else if (count == 1) {
      // The worst-connected free GPU: least summed pair score to the other free GPUs.
      int best = -1, best_links = 0;
      for (int g = 0; g < t.gpu_count(); ++g) {
        if (!free.contains(g)) continue;
        int links = 0;
        for (int h = 0; h < t.gpu_count(); ++h) links += (h != g && free.contains(h)) ? t.pair_score(g, h) : 0;
        if (best < 0 || links < best_links) {
          best = g;
          best_links = links;
        }
      }
      choice = {{}, 0};
      if (best >= 0) choice.gpus.add(best);
    } else {
      choice.gpus = topology::best_effort(t, free, count);
      choice.score = set_score(t, choice.gpus);
    }
    return choice;
  }

  Table& table_for(const topology::Topology& t) {
    for (Table& table : tables_) {
      if (table.topology == &t) return table;
    }
    const auto gpus = static_cast<std::size_t>(t.gpu_count());
    tables_.push_back({&t, std::vector<Choice>((std::size_t{1} << gpus) * (gpus + 1))});
    return tables_.back();
  }

  std::vector<const topology::Topology*> topologies_;
  std::vector<Table> tables_;  // one per template in use
};

}  // namespace

void register_topology_aware(sched::Registry& registry) {
  registry.add("topology-aware",
               [](const sched::PluginContext& context) { return std::make_unique<TopologyAware>(context.topologies); });
}

}  // namespace gpusim::policy
