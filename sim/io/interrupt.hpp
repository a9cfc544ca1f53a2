#pragma once
// SIGINT, SIGTERM and SIGHUP during a run: the partial output is removed, the older output stays
// as it was, and the process exits with 128 + the signal number.
//
// The signals are blocked in every thread (the mask is inherited by threads started later, so
// build this before the worker threads) and a dedicated thread waits for them with sigwait. That
// thread is an ordinary thread, not a signal handler, so it may remove directories; it takes the
// AbandonList's mutex first, so it never runs in the middle of swapping an output into place.
#include <atomic>
#include <csignal>
#include <thread>

#include "sim/io/output_dir.hpp"

namespace gpusim::io {

class InterruptGuard {
 public:
  explicit InterruptGuard(AbandonList& abandon);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void wait_for_signal();

  AbandonList& abandon_;
  sigset_t signals_{};
  sigset_t previous_mask_{};
  std::atomic<bool> stopping_{false};
  std::thread waiter_;
};

}  // namespace gpusim::io
