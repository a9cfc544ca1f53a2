// Why pods never ran, asked once when the replay has ended (pods.csv's reason, summary.json's
// never_ran_by_reason). A pod that waited for something no filter decides (another scheduler,
// its gang's other workers, its queue's quota) says so in gpusim's words; else it gets
// kube-scheduler's FitError against the scheduler's cache as the run left it, which is what
// `kubectl describe pod` would show as its latest FailedScheduling event; and a pod some node
// could take at the end says what it waited behind instead of a FitError it did not have.
#include <fmt/format.h>

#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {
std::vector<sched::NeverRanReason> Scheduler::explain_never_ran(std::span<const PodId> pods, std::span<const std::string> queues) {
  // One diagnosis per shape: pods of a shape fail the same nodes of one cache state.
  struct Diagnosis {
    bool done = false;
    bool feasible = false;
    sched::NeverRanReason fit_error;
  };
  std::vector<Diagnosis> by_shape(never_fits_.size());
  std::vector<cluster::NodeIndex> feasible;
  std::vector<sched::NeverRanReason> reasons;
  reasons.reserve(pods.size());
  for (const PodId id : pods) {
    const cluster::PodSpec& spec = pods_[api_.pod(id).source];
    const std::uint32_t shape = shape_of_source_[api_.pod(id).source];
    const std::uint32_t gang = spec.gang;
    // Waits that come before any node is looked at.
    if (spec.constraints != nullptr && !takes(spec.constraints->scheduler_name)) {
      reasons.push_back({fmt::format("its schedulerName \"{}\" names no scheduler of this run (gpusim runs one: "
                                     "default-scheduler, profile {}{})", spec.constraints->scheduler_name, profile_name_,
                                     system_name_.empty() ? "" : ", " + system_name_),
                         {"schedulerName names no scheduler of the run"}});
      continue;
    }
    // A gang's workers marked unschedulable at creation were never queued (never among its
    // pending workers): they are diagnosed below.
    if (gang != 0 && !gang_started_[gang] && !never_fits_[shape]) {
      if (gang_placer_ == nullptr && gang_pending_[gang].size() < gang_size_[gang]) {
        reasons.push_back({fmt::format("its gang waited for all {} workers to exist; {} did when the run ended (a gang is "
                                       "placed whole or not at all)", gang_size_[gang], gang_pending_[gang].size()),
                           {"gang never whole"}});
        continue;
      }
    }
    std::optional<sched::NeverRanReason> held;
    for (const Attached& attached : plugins_) {
      if ((held = attached.plugin->never_ran(id, queues))) break;
    }
    if (held) {
      reasons.push_back(std::move(*held));
      continue;
    }
    Diagnosis& d = by_shape[shape];
    if (!d.done) {
      d.fit_error = sched::never_ran_reason(framework_.diagnose(spec, &feasible));
      d.feasible = !feasible.empty();
      d.done = true;
    }
    if (!d.feasible) {
      reasons.push_back(d.fit_error);
      continue;
    }
    // Some node could take it alone: what held it back was not the nodes.
    if (gang != 0 && never_fits_[shape]) {
      reasons.push_back({"its gang asks more GPUs than all the nodes that could hold its workers have",
                         {"gang larger than the cluster"}});
    } else if (gang != 0) {
      reasons.push_back({fmt::format("its gang's {} workers did not fit at once (each fits a node alone when the run ended)",
                                     gang_size_[gang]),
                         {"gang did not fit at once"}});
    } else if (std::optional<sched::NeverRanReason> waited = waited_while_feasible(id)) {
      reasons.push_back(std::move(*waited));
    } else {
      reasons.push_back({"a node could take it when the run ended, but it was still waiting (no event was left to try "
                         "it again)",
                         {"feasible at the end, still waiting"}});
    }
  }
  return reasons;
}

}  // namespace gpusim::k8s
