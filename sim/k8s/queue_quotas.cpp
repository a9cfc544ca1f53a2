#include "sim/k8s/queue_quotas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/core/status.hpp"

namespace gpusim::k8s {

QueueQuotas default_queue_quotas(std::size_t queues) {
  QueueQuotas quotas;
  quotas.queues.assign(std::max<std::size_t>(1, queues), QueueQuota{});
  return quotas;
}

QuotaBook::QuotaBook(QueueQuotas quotas, bool proportion, std::int64_t cluster_gpu_milli)
    : quotas_(std::move(quotas)), proportion_(proportion), total_(cluster_gpu_milli) {
  const std::size_t n = quotas_.queues.size();
  held_.assign(n, 0);
  waiting_.assign(n, 0);
  deserved_.assign(n, 0);
  real_capability_.assign(n, 0);
  met_.assign(n, 0);
  std::int64_t guaranteed = 0;
  for (const QueueQuota& q : quotas_.queues) guaranteed += q.guarantee_milli;
  if (guaranteed > total_) {
    throw core::InputError(fmt::format("{}: the queues' guarantees add up to {} GPUs, more than the cluster's {}",
                                       quotas_.file.empty() ? "queue quotas" : quotas_.file,
                                       static_cast<double>(guaranteed) / 1000, static_cast<double>(total_) / 1000));
  }
  for (std::size_t q = 0; q < n; ++q) {
    const QueueQuota& quota = quotas_.queues[q];
    real_capability_[q] = std::min(quota.capability_milli.value_or(std::numeric_limits<std::int64_t>::max()),
                                   total_ - guaranteed + quota.guarantee_milli);
    if (!proportion_) deserved_[q] = std::max(std::min(quota.deserved_milli.value_or(0), real_capability_[q]), quota.guarantee_milli);
  }
}

void QuotaBook::refresh() {
  if (!proportion_) return;  // capacity: fixed deserved GPUs
  // Water-filling, as Volcano's proportion plugin: every queue starts from its guarantee (reserved
  // for it), then each round shares what is left among the queues still short of what they ask, in
  // proportion to their weights (floor division: a few thousandths of a GPU may stay unshared), so
  // the deserved GPUs never add up to more than the cluster has.
  const std::size_t n = deserved_.size();
  std::int64_t remaining = total_;
  for (std::size_t q = 0; q < n; ++q) {
    deserved_[q] = quotas_.queues[q].guarantee_milli;
    remaining -= deserved_[q];
    met_[q] = std::min(held_[q] + waiting_[q], real_capability_[q]) <= deserved_[q] ? 1 : 0;
  }
  while (remaining > 0) {
    std::int64_t weights = 0;
    for (std::size_t q = 0; q < n; ++q) weights += met_[q] ? 0 : quotas_.queues[q].weight;
    if (weights == 0) break;
    std::int64_t given = 0;
    for (std::size_t q = 0; q < n; ++q) {
      if (met_[q]) continue;
      const std::int64_t asks = std::min(held_[q] + waiting_[q], real_capability_[q]);
      // No overflow: at most 10^9 thousandths of a GPU times a weight of at most 10^6.
      const std::int64_t share = remaining * quotas_.queues[q].weight / weights;
      const std::int64_t next = std::min(deserved_[q] + share, asks);
      given += next - deserved_[q];
      deserved_[q] = next;
      if (next >= asks) met_[q] = 1;
    }
    if (given == 0) break;
    remaining -= given;
  }
}

double QuotaBook::share(std::uint32_t q) const {
  if (deserved_[q] > 0) return static_cast<double>(held_[q]) / static_cast<double>(deserved_[q]);
  return held_[q] > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace gpusim::k8s
