#pragma once
// Per-queue GPU quotas in the style of Volcano's proportion and capacity plugins (policies
// proportion and capacity). Each queue (PodSpec::queue: Philly's virtual clusters, a native trace's
// queues) may have
//   guarantee   GPUs reserved for it: no other queue may hold them, even while it is idle;
//   capability  a hard upper limit on the GPUs it holds;
//   deserved    (capacity) the GPUs it is entitled to: it may hold more while others do not need
//               them (borrowing), and those above its deserved GPUs may be reclaimed;
//   weight      (proportion) its deserved GPUs come from the weights instead: the cluster's GPUs
//               shared out in proportion to the weights among the queues that ask for them, none
//               given more than it asks (held + pending) or may hold (water-filling, every cycle);
//   reclaimable whether other queues may take back what it holds above its deserved GPUs.
// As in Volcano, a queue may hold up to its real capability, min(capability, the cluster's GPUs
// less the other queues' guarantees), and its deserved GPUs are capped by it and raised to its
// guarantee. Quotas count GPUs only (GPUs of fractional pods in thousandths), not CPU or memory.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpusim::k8s {

struct QueueQuota {
  std::int64_t weight = 1;
  std::optional<std::int64_t> deserved_milli;    // capacity: none means 0 (everything it holds is borrowed)
  std::int64_t guarantee_milli = 0;
  std::optional<std::int64_t> capability_milli;  // none: no limit
  bool reclaimable = true;
};

// The quotas of a workload's queues (indexed as Workload::queues) and the file they came from.
struct QueueQuotas {
  std::vector<QueueQuota> queues;
  std::string file;  // "" when every queue has the defaults
};

// Without Volcano Queues: every queue (at least one, Volcano's "default") weight 1, reclaimable,
// without limits, as Volcano creates a queue.
QueueQuotas default_queue_quotas(std::size_t queues);

// What each queue holds and asks, and what the quotas allow it, as the scheduler's cache sees it.
class QuotaBook {
 public:
  // `proportion`: deserved GPUs from the weights (else from the quotas' deserved values);
  // `cluster_gpu_milli`: the GPUs the cluster has. Throws core::InputError when the guarantees
  // add up to more than the cluster has.
  QuotaBook(QueueQuotas quotas, bool proportion, std::int64_t cluster_gpu_milli);

  std::size_t queues() const { return quotas_.queues.size(); }
  // A pod of queue q took (+) or gave back (-) GPUs; a pod of q began (+) or stopped (-) waiting.
  void add_held(std::uint32_t q, std::int64_t milli) { held_[q] += milli; }
  void add_waiting(std::uint32_t q, std::int64_t milli) { waiting_[q] += milli; }
  // Recomputes the deserved GPUs (proportion: from what each queue holds and asks now).
  void refresh();

  std::int64_t held(std::uint32_t q) const { return held_[q]; }
  std::int64_t deserved(std::uint32_t q) const { return deserved_[q]; }
  std::int64_t real_capability(std::uint32_t q) const { return real_capability_[q]; }
  std::int64_t guarantee(std::uint32_t q) const { return quotas_.queues[q].guarantee_milli; }
  bool reclaimable(std::uint32_t q) const { return quotas_.queues[q].reclaimable; }
  // Held over deserved: the queue walk serves the smallest first.
  double share(std::uint32_t q) const;
  // Volcano's AllocatableFn: queue q may take `milli` more GPUs without passing its real capability.
  bool allocatable(std::uint32_t q, std::int64_t milli) const { return held_[q] + milli <= real_capability_[q]; }
  // Volcano's PreemptiveFn: queue q may reclaim GPUs for an ask of `milli` when it would still be
  // within its deserved GPUs (and its real capability) with it.
  bool may_reclaim(std::uint32_t q, std::int64_t milli) const {
    return allocatable(q, milli) && held_[q] + milli <= deserved_[q];
  }
  // Volcano's ReclaimableFn for a pod of queue q that holds `milli` GPUs, with `taken` GPUs of q
  // already chosen as victims: q must be reclaimable, hold more than its deserved GPUs, and keep
  // its guarantee without the pod.
  bool may_take_from(std::uint32_t q, std::int64_t taken, std::int64_t milli) const {
    const std::int64_t left = held_[q] - taken;
    return reclaimable(q) && left > deserved_[q] && left - milli >= guarantee(q);
  }

 private:
  QueueQuotas quotas_;
  bool proportion_;
  std::int64_t total_;
  std::vector<std::int64_t> held_, waiting_, deserved_, real_capability_;
  std::vector<std::uint8_t> met_;  // reused by refresh
};

}  // namespace gpusim::k8s
