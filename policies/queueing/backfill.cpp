// EASY backfilling (queueAdmission Backfill; Lifka, 1995): the first pod (or gang) that does not
// fit gets a reservation, the earliest time its GPUs will be free given the running pods' expected
// ends (their trace run times); a pod behind it may start now if it will end by then, or if it fits
// without the reserved nodes.
#include <algorithm>
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/preemption/preemptor.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;

class Backfill final : public k8s::QueueingPlugin {
 public:
  std::string_view name() const override { return "backfill"; }
  void attach(k8s::SchedulerHandle& handle) override {
    h_ = &handle;
    failed_withheld_in_cycle_.assign(handle.shape_count(), 0);
  }
  void walk_begin(core::Time) override { reservation_tried_ = false; }

  bool tries_pods() const override { return true; }
  Tried try_pod(PodId id, const cluster::PodSpec& spec, bool partial_gang, core::Time now) override {
    if (!reservation_.active) return Tried::kNotTried;
    // Behind the reserved pod: only what does not delay it.
    const std::uint32_t shape = h_->shape_of(id);
    if (failed_withheld_in_cycle_[shape] == h_->cycle() && !partial_gang &&
        !(spec.duration && now + *spec.duration <= reservation_.shadow)) {
      return Tried::kKept;
    }
    const bool failed_before = h_->shape_failed(shape);
    if (try_backfill(id, spec, now)) return Tried::kPlaced;
    return !failed_before && h_->shape_failed(shape) ? Tried::kKeptShapeFailed : Tried::kKept;
  }

  // EASY: the first pod that does not fit gets the reservation (if none can be made, nobody does).
  bool stops_walk(const cluster::PodSpec& spec, core::Time now) override {
    if (!reservation_tried_) {
      reservation_tried_ = true;
      reserve_for(spec, now);
    }
    return false;
  }
  void walk_done(core::Time) override { reservation_.active = false; }

 private:
  struct Reservation {
    bool active = false;
    core::Time shadow;                      // when the reserved nodes will have room for it
    std::vector<cluster::NodeIndex> nodes;  // the nodes it will take then
  };
  void reserve_for(const cluster::PodSpec& head, core::Time now);
  // Schedules `id` (or its gang) with the reserved nodes withheld when it would still run at the
  // shadow time.
  bool try_backfill(PodId id, const cluster::PodSpec& spec, core::Time now);

  k8s::SchedulerHandle* h_ = nullptr;
  Reservation reservation_;
  bool reservation_tried_ = false;
  std::vector<std::uint64_t> failed_withheld_in_cycle_;  // per shape: failed with the reserved nodes withheld
  std::vector<std::pair<core::Time, int>> releases_;     // reused by reserve_for
  std::vector<std::pair<core::Time, cluster::NodeIndex>> ready_;  // reused by reserve_for
  std::vector<cluster::NodeIndex> withheld_;                      // reused by try_backfill
};

// The earliest time by which enough nodes have the GPUs `head` (or each worker of its gang) asks,
// from the healthy GPUs free now and the healthy GPUs the pods bound there release at their expected
// ends. Only nodes the head could use are candidates: present, of an allowed GPU model, with every
// NoSchedule and NoExecute taint tolerated (as the taint-toleration filter). Counts whole GPUs only:
// a GPU shared by fractional pods frees when its last pod ends, which this estimate ignores; CPU and
// memory are not looked at.
void Backfill::reserve_for(const cluster::PodSpec& head, core::Time now) {
  const cluster::ClusterState& cache = h_->cache();
  const std::vector<std::vector<PodId>>& on_node = h_->bound_on_nodes();
  const std::vector<cluster::Placement>& assumed = h_->assumed();
  const std::vector<core::Time>& expected_end = h_->expected_ends();
  const int workers = head.gang != 0 ? std::max<int>(1, static_cast<int>(h_->gang_pending(head.gang).size())) : 1;
  const int needed = std::max(1, head.gpu_count);
  ready_.clear();
  for (cluster::NodeIndex n = 0; n < cache.node_count(); ++n) {
    if (!k8s::may_take_node(head, cache, n)) continue;
    const cluster::NodeSpec& node = cache.node(n);
    cluster::GpuSet healthy;
    for (int g = 0; g < node.gpu_count; ++g) {
      if (cache.gpu_healthy(n, g)) healthy.add(g);
    }
    int free = cache.whole_free_devices(n).size();  // unhealthy GPUs never read free
    core::Time when = now;
    if (free < needed) {
      releases_.clear();
      for (const PodId pod : on_node[n]) {
        const int gpus = h_->spec_of(pod).gpu_milli >= cluster::kMilliPerGpu ? (assumed[pod].gpus & healthy).size() : 0;
        if (gpus > 0) releases_.emplace_back(std::max(expected_end[pod], now), gpus);
      }
      std::sort(releases_.begin(), releases_.end());
      for (const auto& [end, gpus] : releases_) {
        free += gpus;
        if (free >= needed) {
          when = end;
          break;
        }
      }
      if (free < needed) continue;  // unhealthy or unavailable GPUs: never, as far as known
    }
    ready_.emplace_back(when, n);
  }
  if (static_cast<int>(ready_.size()) < workers) return;  // no reservation possible: no backfill limit
  std::nth_element(ready_.begin(), ready_.begin() + (workers - 1), ready_.end());
  std::sort(ready_.begin(), ready_.begin() + workers);
  reservation_.active = true;
  reservation_.shadow = ready_[static_cast<std::size_t>(workers - 1)].first;
  reservation_.nodes.clear();
  for (int w = 0; w < workers; ++w) reservation_.nodes.push_back(ready_[static_cast<std::size_t>(w)].second);
}

bool Backfill::try_backfill(PodId id, const cluster::PodSpec& spec, core::Time now) {
  const std::uint32_t shape = h_->shape_of(id);
  const bool ends_in_time = spec.duration && now + *spec.duration <= reservation_.shadow;
  // It still runs when the reserved pod is due: the reserved nodes are withheld from it.
  withheld_.clear();
  if (!ends_in_time) {
    for (const cluster::NodeIndex n : reservation_.nodes) {
      if (h_->cache().present(n)) {
        h_->set_node_withheld(n, true);
        withheld_.push_back(n);
      }
    }
  }
  const bool placed = h_->place(id, spec, now);
  for (const cluster::NodeIndex n : withheld_) h_->set_node_withheld(n, false);
  // A gang that has started places only replacement workers: its failure says nothing of the
  // layout's other gangs.
  if (!placed && !(spec.gang != 0 && h_->gang_started(spec.gang))) {
    if (ends_in_time) h_->mark_shape_failed(shape);  // it failed with every node: so will all of its shape
    failed_withheld_in_cycle_[shape] = h_->cycle();
  }
  return placed;
}

}  // namespace

void register_backfill(sched::Registry& registry) {
  registry.add_queueing("backfill", [](const sched::PluginContext&) { return std::make_unique<Backfill>(); });
}

}  // namespace gpusim::policy
