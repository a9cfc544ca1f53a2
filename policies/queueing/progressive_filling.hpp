#pragma once
// The queueAdmission walk shared by the fair-share policies across the workload's queues
// (PodSpec::queue): progressive filling. Each step of a cycle takes the next pending pod (in queue
// order) of the queue that holds the smallest share now, so a queue's share grows only as it is
// served; ties go to the lower queue index. What a share is, and whether a queue may take a pod,
// is the policy's: DRF's dominant share (policies/queueing/drf.cpp) or Volcano's quotas
// (policies/quotas/queue_quotas_plugin.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {

class ProgressiveFilling : public k8s::QueueingPlugin {
 public:
  void attach(k8s::SchedulerHandle& handle) override;
  bool run_cycle(core::Time now) override;

 protected:
  // The queue's share now: the walk serves the smallest.
  virtual double share(std::size_t queue) const = 0;
  // With compares_queues_: whether queue a is served before queue b (a policy whose order is not
  // one number, as KAI's; share() is then not called).
  virtual bool serves_before(std::size_t a, std::size_t b) const { return share(a) < share(b); }
  // Before the walk: refreshes what the shares depend on.
  virtual void begin_cycle() {}
  // Whether the pod's queue may take it now; a pod it may not take waits, which is no failure of
  // its shape. Once a queue may not take its smallest ask either (admits_smallest), the rest of it
  // waits too (a queue only takes more in a cycle).
  virtual bool admits(const cluster::PodSpec& spec) const { (void)spec; return true; }
  virtual bool admits_smallest(std::uint32_t queue) const { (void)queue; return true; }
  // Pods tried before the walk (a reclaimer's nomination); marks placed ones in placed().
  virtual void before_walk(core::Time now) { (void)now; }
  // After the walk: true to ask for another cycle (room was made).
  virtual bool after_walk(core::Time now) { (void)now; return false; }

  // The GPUs (thousandths) placing a pod takes: its own, or its gang's pending workers'.
  std::int64_t ask_of(const cluster::PodSpec& spec) const;
  std::size_t queues() const { return lists_.size(); }
  // This cycle's pending pods per queue (indices into the handle's pending(), in queue order), the
  // smallest ask per queue, and which of the pending pods were placed.
  const std::vector<std::vector<std::uint32_t>>& lists() const { return lists_; }
  std::int64_t smallest_ask(std::uint32_t queue) const { return smallest_ask_[queue]; }
  std::vector<std::uint8_t>& placed() { return placed_; }
  // The index (into pending()) of the next pod the walk would try in a queue, if any.
  std::optional<std::uint32_t> head(std::size_t queue) const {
    return next_[queue] < lists_[queue].size() ? std::optional<std::uint32_t>(lists_[queue][next_[queue]]) : std::nullopt;
  }

  // A job that reclaimed or preempted is nominated for the room its victims free (as
  // kube-scheduler nominates a preemptor's node): before_walk's place_nominated() tries it first,
  // else the victims' own queue could take the room back and be reclaimed from again. A nomination
  // lasts until the pod is placed, or is tried once its victims are gone.
  void nominate(k8s::PodId pod, std::uint32_t queue, std::vector<k8s::PodId> victims) {
    nominated_.push_back({pod, queue, std::move(victims)});
  }
  bool has_nomination(std::uint32_t queue) const;
  void place_nominated(core::Time now);

  k8s::SchedulerHandle* h_ = nullptr;
  // Whether admits() may refuse a pod (the walk skips the call per pod otherwise: it is hot).
  bool limits_queues_ = false;
  // Whether the walk orders queues by serves_before() rather than by share().
  bool compares_queues_ = false;

 private:
  struct Nomination {
    k8s::PodId pod;
    std::uint32_t queue;
    std::vector<k8s::PodId> victims;
  };
  std::vector<Nomination> nominated_;
  std::vector<std::vector<std::uint32_t>> lists_;
  std::vector<std::size_t> next_;
  std::vector<std::uint8_t> placed_;
  std::vector<std::int64_t> smallest_ask_;
};

}  // namespace gpusim::policy
