#include "policies/register_builtin.hpp"

#include "policies/builtin_parts.hpp"

namespace gpusim::policy {

void register_builtin(sched::Registry& registry) {
  register_queue_sort(registry);
  register_filters(registry);
  register_node_resources_fit(registry);
  register_binders(registry);
  register_gpu_selectors(registry);
  register_kube_scores(registry);
  register_random_score(registry);
  register_dot_product(registry);
  register_gpu_clustering(registry);
  register_gpu_packing(registry);
  register_best_fit(registry);
  register_fgd(registry);
  register_load_aware(registry);
  register_topology_aware(registry);
  register_default_preemption(registry);
  register_rounds(registry);
  register_coscheduling(registry);
  register_drf(registry);
  register_strict(registry);
  register_backfill(registry);
  register_job_rank(registry);
  register_queue_quotas(registry);
  register_kueue(registry);
  register_kai(registry);
}

sched::Registry builtin_registry() {
  sched::Registry registry;
  register_builtin(registry);
  return registry;
}

}  // namespace gpusim::policy
