#pragma once
// Registration functions of each plugin family; register_builtin() calls them all.
#include "sim/sched/registry.hpp"

namespace gpusim::policy {

void register_filters(sched::Registry& registry);
void register_node_resources_fit(sched::Registry& registry);
void register_default_preemption(sched::Registry& registry);
void register_queue_sort(sched::Registry& registry);
void register_binders(sched::Registry& registry);
void register_gpu_selectors(sched::Registry& registry);
void register_kube_scores(sched::Registry& registry);
void register_random_score(sched::Registry& registry);
void register_dot_product(sched::Registry& registry);
void register_gpu_clustering(sched::Registry& registry);
void register_gpu_packing(sched::Registry& registry);
void register_best_fit(sched::Registry& registry);
void register_fgd(sched::Registry& registry);
void register_load_aware(sched::Registry& registry);
void register_topology_aware(sched::Registry& registry);
void register_rounds(sched::Registry& registry);
void register_coscheduling(sched::Registry& registry);
void register_drf(sched::Registry& registry);
void register_strict(sched::Registry& registry);
void register_backfill(sched::Registry& registry);
void register_job_rank(sched::Registry& registry);
void register_queue_quotas(sched::Registry& registry);
void register_kueue(sched::Registry& registry);
void register_kai(sched::Registry& registry);

}  // namespace gpusim::policy
