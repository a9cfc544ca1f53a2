#pragma once
// What each trace row has run so far, across its pod objects (a preempted pod's owner recreates
// it): the status a deep-learning job operator keeps and a priority scheduler reads (Tiresias'
// attained service, SRTF's remaining time). It learns everything from the bus: when pods start
// running and when they end, and, for preempted pods, the work still to do that the kubelet kept
// from their last checkpoint.
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/k8s/bus.hpp"

namespace gpusim::k8s {

class JobLedger final : public Component {
 public:
  explicit JobLedger(std::size_t rows);
  void on_message(const Message& message, core::Time now) override;

  // Run time of all of the row's runs up to `now` (the one in progress included).
  core::Time executed(std::uint32_t row, core::Time now) const {
    const Row& r = rows_[row];
    return r.running ? r.executed + (now - r.running_since) : r.executed;
  }
  bool running(std::uint32_t row) const { return rows_[row].running != 0; }
  core::Time running_since(std::uint32_t row) const { return rows_[row].running_since; }
  // When its last run ended (zero if it never ran).
  core::Time last_stop(std::uint32_t row) const { return rows_[row].last_stop; }
  // Its work still to do when its current (or next) run started, in microseconds of its trace run
  // time `whole` (all of it until a suspension says otherwise).
  core::Time remaining_work(std::uint32_t row, core::Time whole) const {
    return rows_[row].remaining_us < 0 ? whole : core::Time::from_micros(rows_[row].remaining_us);
  }

 private:
  struct Row {
    core::Time executed = core::Time::zero();  // ended runs only
    core::Time running_since = core::Time::zero();
    core::Time last_stop = core::Time::zero();
    std::int64_t remaining_us = -1;  // -1: all of it
    std::uint8_t running = 0;
  };
  std::vector<Row> rows_;
};

}  // namespace gpusim::k8s
