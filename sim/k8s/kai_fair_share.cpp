#include "sim/k8s/kai_fair_share.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace gpusim::k8s::kai {
namespace {

// One queue's share of the resource at its level, as the division goes.
struct Share {
  std::size_t queue = 0;  // index into the input
  double deserved = 0;
  double limit = 0;
  double weight = 0;
  double request = 0;  // the subtree's
  double usage = 0;
  double fair_share = 0;
  double residue = 0;  // the fraction a round rounded down, or 0
};

double requestable(const Share& s) { return s.limit == kUnlimited ? s.request : std::min(s.limit, s.request); }
double remaining_requested(const Share& s) { return std::max(0.0, requestable(s) - s.fair_share); }
bool satisfied(const Share& s) { return s.request <= s.fair_share || (s.limit != kUnlimited && s.limit <= s.fair_share); }

// Rounds of one priority tier (divideUpToFairShare); returns what is left.
double divide_up_to_fair_share(double amount, double k_value, std::vector<Share*>& tier) {
  for (Share* s : tier) s->residue = 0;
  while (true) {
    double total_weight = 0;  // over the queues still asking
    for (const Share* s : tier) {
      if (remaining_requested(*s) > 0) total_weight += s->weight;
    }
    if (total_weight == 0) break;
    std::vector<double> share_weight(tier.size(), 0.0);
    double weight_sum = 0;
    for (std::size_t i = 0; i < tier.size(); ++i) {
      if (satisfied(*tier[i])) continue;
      const double normalized = tier[i]->weight / total_weight;
      share_weight[i] = std::max(0.0, normalized + k_value * (normalized - tier[i]->usage));
      weight_sum += share_weight[i];
    }
    if (weight_sum == 0) break;
    const double offered_in_round = amount;
    bool another_round = false;
    for (std::size_t i = 0; i < tier.size() && amount != 0; ++i) {
      Share& s = *tier[i];
      if (satisfied(s) || s.weight == 0) continue;
      const double asks = remaining_requested(s);
      const double offer = offered_in_round * share_weight[i] / weight_sum;
      double give = 0;
      if (asks <= offer) {
        give = asks;
        s.residue = 0;
      } else {
        // KAI limits a queue's round to whole units (of GPUs, millicores or bytes).
        give = std::max(0.0, std::floor(offer));
        s.residue = offer - give;
      }
      if (give == 0) continue;
      s.fair_share += give;
      amount -= give;
      another_round = another_round || asks < offer;
    }
    if (!another_round || amount == 0) break;
  }
  return amount;
}

// The tier's residues, largest first (divideRemainingResource): one unit each at most.
double divide_remaining(double amount, std::vector<Share*>& tier) {
  std::vector<Share*> waiting;
  for (Share* s : tier) {
    if (s->residue > 0) waiting.push_back(s);
  }
  std::stable_sort(waiting.begin(), waiting.end(), [](const Share* a, const Share* b) { return a->residue > b->residue; });
  for (Share* s : waiting) {
    if (amount == 0) break;
    const double give = std::min(1.0, amount);
    s->fair_share += give;
    amount -= give;
  }
  return amount;
}

// One level: the siblings' shares of `total` (setResourceShare).
void divide_level(double total, double k_value, std::vector<Share>& level, const std::vector<QueueShareInput>& queues) {
  double left = total;
  for (Share& s : level) {
    const double deserved = s.deserved == kUnlimited ? total : s.deserved;
    s.fair_share = std::min(deserved, requestable(s));
    left -= s.fair_share;
  }
  if (left <= 0) return;
  // Tiers from the highest priority; within one, the level's order (ties in the residue pass go
  // to the earlier queue, as KAI's go to the older one).
  std::map<std::int32_t, std::vector<Share*>, std::greater<>> tiers;
  for (Share& s : level) tiers[queues[s.queue].priority].push_back(&s);
  for (auto& [priority, tier] : tiers) {
    if (left <= 0) break;
    left = divide_up_to_fair_share(left, k_value, tier);
    if (left <= 0) continue;
    left = divide_remaining(left, tier);
  }
}

}  // namespace

std::vector<double> fair_shares(double total, double k_value, const std::vector<QueueShareInput>& queues) {
  // A parent's request is its subtree's: children are listed after their parents, so a backward
  // pass adds each queue's into its parent's.
  std::vector<double> subtree_request(queues.size());
  for (std::size_t q = 0; q < queues.size(); ++q) subtree_request[q] = queues[q].request;
  for (std::size_t q = queues.size(); q-- > 0;) {
    if (queues[q].parent >= 0) subtree_request[static_cast<std::size_t>(queues[q].parent)] += subtree_request[q];
  }
  std::vector<double> out(queues.size(), 0.0);
  const auto divide_children_of = [&](std::int32_t parent, double amount) {
    std::vector<Share> level;
    for (std::size_t q = 0; q < queues.size(); ++q) {
      if (queues[q].parent != parent) continue;
      level.push_back({q, queues[q].quota, queues[q].limit, queues[q].over_quota_weight, subtree_request[q], queues[q].usage, 0, 0});
    }
    divide_level(amount, k_value, level, queues);
    for (const Share& s : level) out[s.queue] = s.fair_share;
  };
  divide_children_of(-1, total);
  for (std::size_t q = 0; q < queues.size(); ++q) divide_children_of(static_cast<std::int32_t>(q), out[q]);
  return out;
}

}  // namespace gpusim::k8s::kai
