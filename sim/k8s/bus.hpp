#pragma once
// Publish-subscribe over the event queue. A component subscribes to topics; a published message
// becomes one event and, when it fires, goes first to the store (the API server) and then to every
// subscriber of its topic in the order they subscribed, so that everyone reads the store after it
// changed. A
// component may also set timers addressed to itself. The bus owns the simulation clock.
//
// Hot path: messages live in a slab with a free list, so steady-state publishing allocates
// nothing.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/simulation.hpp"
#include "sim/k8s/messages.hpp"

namespace gpusim::k8s {

class Component {
 public:
  virtual ~Component() = default;
  virtual void on_message(const Message& message, core::Time now) = 0;
  // A timer this component set; `tag` and `payload` are its own.
  virtual void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
    (void)tag, (void)payload, (void)now;
  }
};

// The one component that sees every message first and may complete it: the API server, which
// stores each change and gives new pod objects their ids (as the real one gives UIDs).
class Store {
 public:
  virtual ~Store() = default;
  virtual void record(Message& message, core::Time now) = 0;
};

class Bus final : private core::EventHandler {
 public:
  void set_store(Store& store) { store_ = &store; }
  void subscribe(Topic topic, Component& component);
  // Delivers `message` at `at` (>= now) in `phase` of that instant.
  void publish(const Message& message, core::Time at, core::Phase phase = core::Phase::kStateChange);
  // Calls component.on_timer(tag, payload) at `at`. Returns an id for cancel_timer.
  core::EventId set_timer(Component& component, std::uint32_t tag, std::uint64_t payload, core::Time at,
                          core::Phase phase = core::Phase::kStateChange);
  // Timers set later in the place among ties that setting them now would give them
  // (core::EventQueue::reserve_ids): reserve a block, then set each with its id.
  core::EventId reserve_timer_ids(std::uint64_t count) { return simulation_.reserve_ids(count); }
  void set_reserved_timer(core::EventId id, Component& component, std::uint32_t tag, std::uint64_t payload, core::Time at,
                          core::Phase phase = core::Phase::kStateChange);
  // Delivers `message` now, as a published message is when its event fires: to the store, then
  // to its topic's subscribers. For a component whose timer stands for a message.
  void deliver(Message message, core::Time now);
  bool cancel_timer(core::EventId id) { return simulation_.cancel(id); }
  core::Time now() const { return simulation_.now(); }
  // Runs until no event is left. Returns the number of events handled.
  std::uint64_t run() { return simulation_.run(*this); }
  void reserve(std::size_t events) { simulation_.reserve(events); }
  // Where run() posts the simulated time it reached (null: nowhere).
  void report_progress(core::RunProgress* progress) { simulation_.report_progress(progress); }

 private:
  void handle(const core::Event& event) override;
  std::uint32_t component_id(Component& component);
  std::uint64_t timer_payload(std::uint32_t tag, std::uint64_t payload) const;

  core::Simulation simulation_;
  Store* store_ = nullptr;
  std::array<std::vector<Component*>, static_cast<std::size_t>(Topic::kCount)> subscribers_;
  std::vector<Component*> components_;  // timer addressees, by id
  std::vector<Message> slab_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace gpusim::k8s
