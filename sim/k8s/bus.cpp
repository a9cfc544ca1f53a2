#include "sim/k8s/bus.hpp"

#include <algorithm>

#include "sim/core/check.hpp"

namespace gpusim::k8s {
namespace {

// Event kinds: a message delivery, or a timer whose addressee is the kind minus kTimerBase.
constexpr std::uint32_t kDeliver = 0;
constexpr std::uint32_t kTimerBase = 1;
// A timer's tag and payload share the event payload: 16 bits of tag, 48 of payload.
constexpr int kTagShift = 48;

}  // namespace

const char* to_string(Reason reason) {
  switch (reason) {
    case Reason::kNone: return "";
    case Reason::kSucceeded: return "Succeeded";
    case Reason::kTraceFailed: return "Failed";
    case Reason::kDeletedByOwner: return "DeletedByOwner";
    case Reason::kUnexpectedAdmissionError: return "UnexpectedAdmissionError";
    case Reason::kGpuLost: return "GpuLost";
    case Reason::kEvicted: return "Evicted";
    case Reason::kNodeLost: return "NodeLost";
    case Reason::kNodeRemoved: return "NodeRemoved";
    case Reason::kOomKilled: return "OOMKilled";
    case Reason::kDescheduled: return "Descheduled";
    case Reason::kPreempted: return "Preempted";
    case Reason::kSuspended: return "Suspended";
    case Reason::kBackoffLimitExceeded: return "BackoffLimitExceeded";
    case Reason::kDeadlineExceeded: return "DeadlineExceeded";
    case Reason::kPodFailurePolicy: return "PodFailurePolicy";
    case Reason::kUnschedulable: return "Unschedulable";
  }
  return "?";
}

void Bus::subscribe(Topic topic, Component& component) {
  auto& list = subscribers_[static_cast<std::size_t>(topic)];
  GPUSIM_CHECK(std::find(list.begin(), list.end(), &component) == list.end(), "component subscribed twice");
  list.push_back(&component);
}

void Bus::publish(const Message& message, core::Time at, core::Phase phase) {
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slab_.size());
    slab_.push_back(message);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slab_[slot] = message;
  }
  simulation_.schedule(at, phase, kDeliver, slot);
}

std::uint32_t Bus::component_id(Component& component) {
  const auto it = std::find(components_.begin(), components_.end(), &component);
  if (it != components_.end()) return static_cast<std::uint32_t>(it - components_.begin());
  components_.push_back(&component);
  return static_cast<std::uint32_t>(components_.size() - 1);
}

std::uint64_t Bus::timer_payload(std::uint32_t tag, std::uint64_t payload) const {
  GPUSIM_CHECK(tag < (1U << 16) && payload < (std::uint64_t{1} << kTagShift), "timer tag or payload too large");
  return (std::uint64_t{tag} << kTagShift) | payload;
}

core::EventId Bus::set_timer(Component& component, std::uint32_t tag, std::uint64_t payload, core::Time at,
                             core::Phase phase) {
  return simulation_.schedule(at, phase, kTimerBase + component_id(component), timer_payload(tag, payload));
}

void Bus::set_reserved_timer(core::EventId id, Component& component, std::uint32_t tag, std::uint64_t payload,
                             core::Time at, core::Phase phase) {
  simulation_.schedule_reserved(id, at, phase, kTimerBase + component_id(component), timer_payload(tag, payload));
}

void Bus::deliver(Message message, core::Time now) {
  if (store_ != nullptr) store_->record(message, now);
  for (Component* component : subscribers_[static_cast<std::size_t>(message.topic)]) {
    component->on_message(message, now);
  }
}

void Bus::handle(const core::Event& event) {
  if (event.kind == kDeliver) {
    const auto slot = static_cast<std::uint32_t>(event.payload);
    // Passed by value, so copied out before the slot is free: a subscriber may publish, and
    // publishing may reuse the slot or grow the slab.
    free_slots_.push_back(slot);
    deliver(slab_[slot], event.time);
    return;
  }
  Component* component = components_.at(event.kind - kTimerBase);
  component->on_timer(static_cast<std::uint32_t>(event.payload >> kTagShift),
                      event.payload & ((std::uint64_t{1} << kTagShift) - 1), event.time);
}

}  // namespace gpusim::k8s
