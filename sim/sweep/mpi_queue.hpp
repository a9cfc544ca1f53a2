#pragma once
// A sweep's cells over the ranks of an MPI job (`mpirun -np N gpusim sweep`): rank 0 hands out the
// cells one at a time as threads anywhere ask for one, so a slow cell never leaves the other ranks
// idle, and each rank runs its cells into the shared sweep directory.
//
// Waiting never spins: OpenMPI's blocking calls poll at full speed, which on a machine with as many
// ranks as cores would take a core from the running cells. Every wait here tests its request and
// sleeps between tests instead.
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "sim/sweep/runner.hpp"

namespace gpusim::sweep {

// Waits for `request` to complete, sleeping between tests (from 50 µs up to 5 ms).
void wait_quietly(MPI_Request& request, MPI_Status* status = MPI_STATUS_IGNORE);

// Rank 0. Its own threads take cells from a shared counter; a thread of its own answers the other
// ranks' requests from the same counter and marks their cells in the progress slots, so that rank
// 0's progress line counts every rank's cells.
class MpiCoordinatorQueue final : public CellQueue {
 public:
  // `remote_threads`: the other ranks' runner threads in all; each asks until it is told none is left.
  MpiCoordinatorQueue(MPI_Comm comm, std::size_t remote_threads);
  ~MpiCoordinatorQueue() override;
  MpiCoordinatorQueue(const MpiCoordinatorQueue&) = delete;
  MpiCoordinatorQueue& operator=(const MpiCoordinatorQueue&) = delete;

  void start(const std::vector<std::size_t>& pending, std::span<core::RunProgress> slots) override;
  std::optional<std::size_t> next(std::optional<std::size_t> finished, bool failed) override;
  // Waits until every other rank's thread has been told that no cell is left.
  void finish() override;

 private:
  std::optional<std::size_t> claim(bool failed);
  void serve();

  MPI_Comm comm_;
  std::size_t remote_threads_;
  std::vector<std::size_t> pending_;
  std::span<core::RunProgress> slots_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::thread server_;
};

// Any other rank: each free thread asks rank 0 for its next cell, one request at a time per rank.
class MpiWorkerQueue final : public CellQueue {
 public:
  explicit MpiWorkerQueue(MPI_Comm comm) : comm_(comm) {}
  void start(const std::vector<std::size_t>&, std::span<core::RunProgress>) override {}
  std::optional<std::size_t> next(std::optional<std::size_t> finished, bool failed) override;

 private:
  MPI_Comm comm_;
  std::mutex mutex_;  // MPI_THREAD_SERIALIZED: one thread at a time talks to rank 0
};

}  // namespace gpusim::sweep
