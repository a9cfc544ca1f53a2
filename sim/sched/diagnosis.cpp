// Framework::diagnose: kube-scheduler's FitError for a pod that could not be placed. It visits
// every present node (not only the GPU bucket filter_nodes walks: a node the bucket skips is one
// whose free GPUs cannot hold the pod, and it must be counted with its reasons too). The caller
// runs it once per pod that never ran, not on every scheduling attempt.
#include <algorithm>

#include "sim/sched/framework.hpp"

namespace gpusim::sched {

FitError Framework::diagnose(const PodSpec& pod, std::vector<NodeIndex>* feasible) {
  FitError fit;
  const auto node_count = static_cast<NodeIndex>(cluster_.node_count());
  for (NodeIndex n = 0; n < node_count; ++n) fit.nodes += cluster_.present(n) ? 1 : 0;
  if (feasible != nullptr) feasible->clear();
  if (fit.nodes == 0) return fit;
  cycle_.reset();
  for (PreFilterPlugin* plugin : pre_filters_) {
    const Status status = plugin->pre_filter(pod, cluster_, cycle_);
    if (!status.is_ok()) {
      fit.pre_filter = status.reason;
      return fit;
    }
  }
  std::vector<const FilterPlugin*> applying;
  for (const FilterPlugin* plugin : filters_) {
    if (plugin->applies(pod, cluster_)) applying.push_back(plugin);
  }
  NodeReasons reasons;
  std::vector<NodeIndex> passed;
  for (NodeIndex n = 0; n < node_count; ++n) {
    if (!cluster_.present(n)) continue;
    // Every applying filter explains the node: kube-scheduler's order, not the profile's, picks
    // whose reasons count. A filter explains exactly the nodes it rejects (tested); a node none
    // explains is asked of filter() too, so that a missed rejection still counts, with its reason.
    for (const FilterPlugin* plugin : applying) plugin->explain(pod, n, cluster_, cycle_, reasons);
    if (reasons.end_node()) continue;
    Status rejection;
    for (const FilterPlugin* plugin : applying) {
      rejection = plugin->filter(pod, n, cluster_, cycle_);
      if (!rejection.is_ok()) break;
    }
    if (rejection.is_ok()) {
      passed.push_back(n);
      continue;
    }
    reasons.reject(KubeFilter::kOther, {rejection.reason});
    reasons.end_node();
  }
  // The extenders see the nodes that passed the plugins, as in a cycle; those an extender
  // removes count under its message.
  for (Extender* extender : extenders_) {
    if (passed.empty()) break;
    std::vector<NodeIndex> kept = passed;
    extender->filter(pod, kept, cluster_);
    if (!kept.empty()) {
      passed = std::move(kept);
      continue;
    }
    for (std::size_t i = 0; i < passed.size(); ++i) {
      reasons.reject(KubeFilter::kOther, {extender->rejection()});
      reasons.end_node();
    }
    passed.clear();
  }
  fit.reasons = reasons.counts();
  if (feasible != nullptr) *feasible = std::move(passed);
  return fit;
}

}  // namespace gpusim::sched
