// FGD, Fragmentation Gradient Descent (Weng et al., USENIX ATC'23): place the pod where the
// node's expected fragmentation under the typical-pod workload grows least.
//   score = int(100 * sigmoid((F(n) - F(n + pod)) / 1000))
// A pod that shares a GPU tries every GPU with room; the best one (lowest index on equal
// scores) is also the GPU this plugin selects. Other pods take the lowest-indexed free GPUs.
//
// Speed: a score depends only on the node's state and the pod's shape, so results are cached
// per (node, shape) and reused until the node's version changes; F(n) is cached per node.
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"
#include "sim/metrics/fragmentation.hpp"

namespace gpusim::policy {
namespace {

using GpuFree = std::array<std::int32_t, cluster::kMaxGpusPerNode>;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

class Fgd final : public sched::ScorePlugin, public sched::GpuSelector {
 public:
  Fgd(std::span<const cluster::PodSpec> workload, std::size_t nodes)
      : typical_(metrics::typical_pods(workload, kPopularity)), nodes_(nodes), frag_(nodes) {}
  std::string_view name() const override { return "fgd"; }
  // Its score reads the pod's resource shape, the node and the fixed typical pods; it does not normalise.
  bool node_local() const override { return true; }

  void pre_score(const sched::PodSpec& pod, std::span<const sched::NodeIndex>,
                 const sched::ClusterState&, sched::CycleState&) override {
    shape_ = shape_id(pod);
  }

  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    return evaluate(pod, n, c, shape_).score;
  }

  cluster::GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n,
                         const sched::ClusterState& c, const sched::CycleState&) override {
    if (!pod.shares_gpu()) return ascending_fit(pod, c.gpu_milli_free(n));
    cluster::GpuSet set;
    const int gpu = evaluate(pod, n, c, shape_id(pod)).gpu;
    if (gpu >= 0) set.add(gpu);
    return set;
  }

 private:
  static constexpr double kPopularity = 0.95;

  struct Entry {
    std::uint64_t version_plus_one = 0;  // 0: empty
    std::int64_t score = 0;
    std::int32_t gpu = -1;               // chosen GPU for a sharing pod
  };

  // Interns the pod's resource shape; rare new shapes grow the cache table.
  std::uint32_t shape_id(const sched::PodSpec& pod) {
    const auto key = std::make_tuple(pod.cpu_milli, pod.gpu_milli, pod.gpu_count, pod.allowed_models.bits);
    const auto [it, inserted] = shapes_.try_emplace(key, static_cast<std::uint32_t>(shapes_.size()));
    if (inserted && shapes_.size() > shape_capacity_) grow();
    return it->second;
  }

  void grow() {
    const std::size_t capacity = std::max<std::size_t>(64, shape_capacity_ * 2);
    std::vector<Entry> table(nodes_ * capacity);
    for (std::size_t n = 0; n < nodes_; ++n) {
      for (std::size_t s = 0; s < shape_capacity_; ++s) table[n * capacity + s] = cache_[n * shape_capacity_ + s];
    }
    cache_ = std::move(table);
    shape_capacity_ = capacity;
  }

  double node_frag(sched::NodeIndex n, const sched::ClusterState& c) {
    auto& [version_plus_one, value] = frag_[n];
    if (version_plus_one != c.version(n) + 1) {
      value = metrics::fragmentation_milli(
          typical_, {c.cpu_free(n), c.gpu_milli_free(n), c.node(n).gpu_model});
      version_plus_one = c.version(n) + 1;
    }
    return value;
  }

  std::int64_t score_of(double before, std::int64_t cpu_free, std::span<const std::int32_t> gpu_free,
                        cluster::GpuModelId model) const {
    const double after = metrics::fragmentation_milli(typical_, {cpu_free, gpu_free, model});
    return static_cast<std::int64_t>(sigmoid((before - after) / 1000.0) *
                                     static_cast<double>(sched::kMaxNodeScore));
  }

  const Entry& evaluate(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                        std::uint32_t shape) {
    Entry& entry = cache_[std::size_t{n} * shape_capacity_ + shape];
    if (entry.version_plus_one == c.version(n) + 1) return entry;
    const double before = node_frag(n, c);
    const auto free = c.gpu_milli_free(n);
    GpuFree after;  // its first free.size() are set below
    std::copy(free.begin(), free.end(), after.begin());
    const std::span<const std::int32_t> after_span(after.data(), free.size());
    const std::int64_t cpu_after = c.cpu_free(n) - pod.cpu_milli;
    const cluster::GpuModelId model = c.node(n).gpu_model;
    entry.gpu = -1;
    if (pod.shares_gpu()) {
      entry.score = sched::kMinNodeScore;
      for (int g = 0; g < static_cast<int>(free.size()); ++g) {
        if (free[g] < pod.gpu_milli) continue;
        // GPUs with equal free milli give equal scores; the first one already won the tie.
        bool seen = false;
        for (int h = 0; h < g && !seen; ++h) seen = free[h] == free[g];
        if (seen) continue;
        after[g] -= pod.gpu_milli;
        const std::int64_t s = score_of(before, cpu_after, after_span, model);
        after[g] += pod.gpu_milli;
        if (entry.gpu < 0 || s > entry.score) {
          entry.score = s;
          entry.gpu = g;
        }
      }
    } else {
      const cluster::GpuSet gpus = ascending_fit(pod, free);
      for (int g = 0; g < static_cast<int>(free.size()); ++g) {
        if (gpus.contains(g)) after[g] -= pod.gpu_milli;
      }
      entry.score = score_of(before, cpu_after, after_span, model);
    }
    entry.version_plus_one = c.version(n) + 1;
    return entry;
  }

  std::vector<metrics::TypicalPod> typical_;
  std::size_t nodes_;
  std::vector<std::pair<std::uint64_t, double>> frag_;  // (version + 1, F(n)) per node
  std::map<std::tuple<std::int64_t, std::int32_t, std::int32_t, std::uint64_t>, std::uint32_t> shapes_;
  std::vector<Entry> cache_;
  std::size_t shape_capacity_ = 0;
  std::uint32_t shape_ = 0;
};

}  // namespace

void register_fgd(sched::Registry& registry) {
  registry.add("fgd", [](const sched::PluginContext& c) {
    return std::make_unique<Fgd>(c.workload, c.node_count);
  });
}

}  // namespace gpusim::policy
