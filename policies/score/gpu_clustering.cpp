// GpuClustering (FGD paper baseline): keep pods of the same GPU class ("share-gpu", "1-gpu",
// "2-gpu", ...) together. Four bands of 25 points: nodes holding only this class, nodes holding
// it among others, empty nodes, nodes holding other classes only; within a band, nodes with less
// idle GPU win. CPU-only pods score 0 everywhere. The plugin is also a Reserve plugin: it keeps
// the count of each class on each node.
#include <memory>
#include <vector>

#include "policies/builtin_parts.hpp"
#include "policies/score/artifact_constants.hpp"

namespace gpusim::policy {
namespace {

// Class 0 is "share-gpu"; class k (1..kMaxGpusPerNode) is "k-gpu".
constexpr int kClasses = cluster::kMaxGpusPerNode + 1;

int gpu_class(const sched::PodSpec& pod) { return pod.shares_gpu() ? 0 : pod.gpu_count; }

class GpuClustering final : public sched::ScorePlugin, public sched::ReservePlugin {
 public:
  explicit GpuClustering(std::size_t nodes) : counts_(nodes * kClasses, 0), distinct_(nodes, 0) {}
  std::string_view name() const override { return "gpu-clustering"; }

  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    if (!pod.wants_gpu()) return sched::kMinNodeScore;
    constexpr std::int64_t kBand = sched::kMaxNodeScore / 4;
    const auto max_gpu = static_cast<std::int64_t>(kMaxSpecGpuMilli);
    const std::int64_t within = kBand * (max_gpu - c.node_gpu_milli_free(n)) / max_gpu;
    const bool has_class = counts_[n * kClasses + gpu_class(pod)] > 0;
    const int classes = distinct_[n];
    if (has_class && classes == 1) return within + 3 * kBand;
    if (has_class) return within + 2 * kBand;
    if (classes == 0) return within + kBand;
    return within;
  }

  sched::Status reserve(const sched::PodSpec& pod, const cluster::Placement& placement) override {
    if (pod.wants_gpu() && counts_[slot(pod, placement)]++ == 0) ++distinct_[placement.node];
    return sched::Status::ok();
  }
  // Called when a reservation is undone or the pod ends.
  void unreserve(const sched::PodSpec& pod, const cluster::Placement& placement) override {
    if (!pod.wants_gpu() || counts_[slot(pod, placement)] == 0) return;
    if (--counts_[slot(pod, placement)] == 0) --distinct_[placement.node];
  }

 private:
  std::size_t slot(const sched::PodSpec& pod, const cluster::Placement& p) const {
    return std::size_t{p.node} * kClasses + static_cast<std::size_t>(gpu_class(pod));
  }
  std::vector<std::int32_t> counts_;   // node x class
  std::vector<std::int32_t> distinct_; // classes present per node
};

}  // namespace

void register_gpu_clustering(sched::Registry& registry) {
  registry.add("gpu-clustering", [](const sched::PluginContext& c) {
    return std::make_unique<GpuClustering>(c.node_count);
  });
}

}  // namespace gpusim::policy
