#pragma once
// The KAI Scheduler's fair-share division (kai-scheduler/KAI-Scheduler,
// pkg/scheduler/plugins/proportion/resource_division/resource_division.go, SetResourcesShare), one
// resource at a time, recomputed every scheduling cycle from what the queues hold and ask:
//   1. every queue gets min(its quota, what it may ask) first, whatever is left (quota -1: the whole
//      amount); what it may ask is its subtree's request, capped by its limit unless that is -1;
//   2. what remains goes to the priority tiers, highest first. Within a tier, rounds: each queue
//      not yet satisfied is offered amount x s_q / sum(s), s_q = max(0, nW_q + k (nW_q - usage_q)),
//      nW_q its over-quota weight over the tier's weights still asking; a queue takes what it still
//      asks if the offer covers it, else the offer rounded down to a whole unit, keeping the
//      fraction as a residue; another round follows while some queue took less than its offer;
//   3. then, in the same tier, the queues with a residue, largest first (ties: the older queue, then
//      the smaller name), take one more unit each (or what is left), while anything is left.
// Children divide their parent's fair share the same way. Without historical usage (k's term 0)
// this is weighted water-filling. gpusim iterates queues in their given order, where KAI iterates
// a Go map: the result differs only when the amount runs out exactly within a round.
#include <cstdint>
#include <string>
#include <vector>

namespace gpusim::k8s::kai {

// A Queue's quota or limit of -1: unlimited.
inline constexpr double kUnlimited = -1.0;

struct QueueShareInput {
  std::string name;
  std::int32_t parent = -1;  // index into the list, -1: a top-level queue
  double quota = 0;          // deserved; kUnlimited: the whole amount divided at its level
  double limit = 0;          // kUnlimited: no cap; 0 (KAI's value when omitted): nothing
  double over_quota_weight = 0;
  std::int32_t priority = 100;
  double request = 0;  // what the queue's own jobs hold and ask (a parent's adds its subtree's)
  double usage = 0;    // historical usage over cluster capacity (time-based fairness), else 0
};

// Each queue's fair share of `total` (in input order). Queues are listed parents before children;
// their list order stands for creation order in the residue pass's ties.
std::vector<double> fair_shares(double total, double k_value, const std::vector<QueueShareInput>& queues);

}  // namespace gpusim::k8s::kai
