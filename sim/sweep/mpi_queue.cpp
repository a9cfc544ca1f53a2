#include "sim/sweep/mpi_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace gpusim::sweep {
namespace {

// A request: the cell the asking thread finished (-1: none yet) and whether it failed. The reply:
// the next cell (-1: none left).
constexpr int kRequestTag = 1;
constexpr int kReplyTag = 2;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void wait_quietly(MPI_Request& request, MPI_Status* status) {
  std::chrono::microseconds pause{50};
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, status);
    if (done != 0) return;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(5));
  }
}

MpiCoordinatorQueue::MpiCoordinatorQueue(MPI_Comm comm, std::size_t remote_threads) : comm_(comm), remote_threads_(remote_threads) {}

MpiCoordinatorQueue::~MpiCoordinatorQueue() {
  if (server_.joinable()) server_.join();
}

void MpiCoordinatorQueue::start(const std::vector<std::size_t>& pending, std::span<core::RunProgress> slots) {
  pending_ = pending;
  slots_ = slots;
  server_ = std::thread([this] { serve(); });
}

std::optional<std::size_t> MpiCoordinatorQueue::claim(bool failed) {
  if (failed) stop_ = true;
  if (stop_) return std::nullopt;
  const std::size_t t = next_++;
  if (t >= pending_.size()) return std::nullopt;
  return pending_[t];
}

std::optional<std::size_t> MpiCoordinatorQueue::next(std::optional<std::size_t>, bool failed) { return claim(failed); }

void MpiCoordinatorQueue::serve() {
  for (std::size_t asking = remote_threads_; asking > 0;) {
    std::int64_t request[2] = {-1, 0};
    MPI_Request receive;
    MPI_Irecv(request, 2, MPI_INT64_T, MPI_ANY_SOURCE, kRequestTag, comm_, &receive);
    MPI_Status status;  // who asked
    wait_quietly(receive, &status);
    if (request[0] >= 0 && static_cast<std::size_t>(request[0]) < slots_.size()) {
      auto& slot = slots_[static_cast<std::size_t>(request[0])];
      slot.finished_ns.store(steady_ns(), std::memory_order_relaxed);
      slot.state.store(core::RunProgress::kDone, std::memory_order_relaxed);
    }
    const std::optional<std::size_t> cell = claim(request[1] != 0);
    if (cell) {
      slots_[*cell].started_ns.store(steady_ns(), std::memory_order_relaxed);
      slots_[*cell].state.store(core::RunProgress::kRunning, std::memory_order_relaxed);
    } else {
      --asking;
    }
    std::int64_t reply = cell ? static_cast<std::int64_t>(*cell) : -1;
    MPI_Request send;
    MPI_Isend(&reply, 1, MPI_INT64_T, status.MPI_SOURCE, kReplyTag, comm_, &send);
    wait_quietly(send);
  }
}

void MpiCoordinatorQueue::finish() {
  if (server_.joinable()) server_.join();
}

std::optional<std::size_t> MpiWorkerQueue::next(std::optional<std::size_t> finished, bool failed) {
  const std::lock_guard lock(mutex_);
  std::int64_t request[2] = {finished ? static_cast<std::int64_t>(*finished) : -1, failed ? 1 : 0};
  MPI_Request send;
  MPI_Isend(request, 2, MPI_INT64_T, 0, kRequestTag, comm_, &send);
  std::int64_t reply = -1;
  MPI_Request receive;
  MPI_Irecv(&reply, 1, MPI_INT64_T, 0, kReplyTag, comm_, &receive);
  wait_quietly(send);
  wait_quietly(receive);
  if (reply < 0) return std::nullopt;
  return static_cast<std::size_t>(reply);
}

}  // namespace gpusim::sweep
