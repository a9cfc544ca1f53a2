#include "sim/k8s/job_ledger.hpp"

namespace gpusim::k8s {

JobLedger::JobLedger(std::size_t rows) : rows_(rows) {}

void JobLedger::on_message(const Message& message, core::Time now) {
  Row& r = rows_[message.source];
  if (message.topic == Topic::kPodRunning || message.topic == Topic::kContainerRestarted) {
    r.running = 1;
    r.running_since = now;
    return;
  }
  if (message.topic == Topic::kContainerFailed) {
    // restartPolicy OnFailure: it runs no work while its container waits to restart, and the
    // restart redoes the run it started with (its work still to do is unchanged).
    if (!r.running) return;
    r.executed = r.executed + (now - r.running_since);
    r.running = 0;
    r.last_stop = now;
    return;
  }
  if (message.topic != Topic::kPodTerminated || !r.running) return;
  r.executed = r.executed + (now - r.running_since);
  r.running = 0;
  r.last_stop = now;
  if (message.reason == Reason::kPreempted || message.reason == Reason::kDescheduled || message.reason == Reason::kSuspended) {
    r.remaining_us = message.value;
  }
}

}  // namespace gpusim::k8s
