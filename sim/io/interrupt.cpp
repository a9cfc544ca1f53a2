#include "sim/io/interrupt.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <thread>

namespace gpusim::io {

InterruptGuard::InterruptGuard(AbandonList& abandon) : abandon_(abandon) {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGHUP);
  sigaddset(&signals_, SIGUSR1);  // wakes the waiter when the guard is destroyed
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_mask_);
  waiter_ = std::thread([this] { wait_for_signal(); });
}

InterruptGuard::~InterruptGuard() {
  stopping_ = true;
  pthread_kill(waiter_.native_handle(), SIGUSR1);
  waiter_.join();
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void InterruptGuard::wait_for_signal() {
  while (true) {
    int signal = 0;
    if (sigwait(&signals_, &signal) != 0) continue;
    if (signal == SIGUSR1) {
      if (stopping_) return;
      continue;
    }
    std::lock_guard lock(abandon_.mutex);
    for (const int child : abandon_.stop_children) ::kill(child, signal);
    // The children remove their own partial outputs: wait (up to 10 s) until they have, so that
    // when this process ends nothing partial is left. WNOWAIT leaves them to the threads that
    // reap them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (const int child : abandon_.stop_children) {
      siginfo_t info{};
      while (std::chrono::steady_clock::now() < deadline) {
        info.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT | WNOHANG) != 0 || info.si_pid != 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    const bool had_partial = !abandon_.remove_trees.empty();
    abandon_.abandon_locked();
    // On a terminal the line may hold the live progress line: the message replaces it.
    const char* term = std::getenv("TERM");
    const bool terminal = ::isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::string_view(term) == "dumb");
    fmt::print(stderr, "{}gpusim: stopped by signal {}{}\n", terminal ? "\r\033[K" : "", signal,
               had_partial ? "; the partial output was removed and any older output is untouched" : "");
    std::fflush(stderr);
    ::_exit(128 + signal);
  }
}

}  // namespace gpusim::io
