// BestFit (FGD paper baseline): the node left with the least weighted free (CPU, GPU) after
// placement wins. raw = sum over r of 0.5 * (free_r - request_r) / max_r; score = 100 * (1 - raw),
// then min-max normalised over the feasible nodes (all equal: all 0).
#include <algorithm>
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/score/artifact_constants.hpp"

namespace gpusim::policy {
namespace {

class BestFit final : public sched::ScorePlugin {
 public:
  std::string_view name() const override { return "best-fit"; }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    const double free[2] = {static_cast<double>(c.cpu_free(n)),
                            static_cast<double>(c.node_gpu_milli_free(n))};
    const double request[2] = {static_cast<double>(pod.cpu_milli),
                               static_cast<double>(pod.total_gpu_milli())};
    const double max_spec[2] = {kMaxSpecCpuMilli, kMaxSpecGpuMilli};
    double raw = 0;
    for (int r = 0; r < 2; ++r) {
      if (free[r] < request[r]) return sched::kMinNodeScore;
      raw += (free[r] - request[r]) / max_spec[r] * 0.5;
    }
    return static_cast<std::int64_t>((1.0 - raw) * static_cast<double>(sched::kMaxNodeScore));
  }

  // Reads the pod's CPU and GPU request (both in its filter shape) and node n's free CPU and GPU.
  bool node_local() const override { return true; }
  // Min-max onto [0, 100], rounded down: only the highest raw score maps to 100.
  bool normalize_keeps_the_best() const override { return true; }

  void normalize(std::span<sched::NodeScore> scores) const override {
    if (scores.empty()) return;
    const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end(),
        [](const sched::NodeScore& a, const sched::NodeScore& b) { return a.score < b.score; });
    const std::int64_t lowest = lo->score;
    const std::int64_t range = hi->score - lowest;
    for (auto& s : scores) {
      s.score = range == 0 ? sched::kMinNodeScore
                           : (s.score - lowest) * sched::kMaxNodeScore / range + sched::kMinNodeScore;
    }
  }
};

}  // namespace

void register_best_fit(sched::Registry& registry) {
  registry.add("best-fit", [](const sched::PluginContext&) { return std::make_unique<BestFit>(); });
}

}  // namespace gpusim::policy
