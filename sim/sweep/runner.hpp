#pragma once
// Runs a sweep's cells, each as its own `gpusim run` process (so that a cell's outputs are the
// command's, byte for byte, and one cell's failure or crash never takes the others with it), on a
// pool of threads that take the next cell as they finish one.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/io/output_dir.hpp"
#include "sim/io/progress_reporter.hpp"
#include "sim/sweep/cells.hpp"

namespace gpusim::sweep {

// Hands the runner's threads their cells: each free thread asks for the next one. In one process a
// shared counter does (the default); under MPI, rank 0 hands out every rank's cells as they ask
// (sim/sweep/mpi_queue.hpp), so a slow cell never leaves the other ranks idle.
class CellQueue {
 public:
  virtual ~CellQueue() = default;
  // Once, before any next(): the cells left to run (positions among the selected cells, in order)
  // and every selected cell's progress slot, which the queue marks for cells others run.
  virtual void start(const std::vector<std::size_t>& pending, std::span<core::RunProgress> slots) = 0;
  // The next cell for the asking thread, or nothing (none left, or the sweep stops). `finished`:
  // the cell this thread ran last (none on its first call); `failed`: that cell failed, so no
  // further cell starts anywhere.
  virtual std::optional<std::size_t> next(std::optional<std::size_t> finished, bool failed) = 0;
  // Once, after every thread has stopped.
  virtual void finish() {}
};

struct RunnerOptions {
  std::filesystem::path gpusim;       // the binary each cell runs
  std::filesystem::path working_dir;  // where relative paths in the cells' commands resolve
  std::filesystem::path out;          // the sweep directory (absolute)
  unsigned threads = 1;
  bool progress = true;
  io::ProgressStyle style;
  // Which cells this process runs (a shard's share); empty: all.
  std::function<bool(std::size_t)> selected;
  // Where the running cells' process ids are listed while they run, for the interrupt handler.
  io::AbandonList* abandon = nullptr;
  // Who hands out the cells; null: this process's threads share them. With a queue the runner
  // starts exactly `threads` threads, however few cells are left, as the queue counts on.
  CellQueue* queue = nullptr;
  // Called once, on the first cell that succeeds: a core::InputError it throws (a metric the cell
  // lacks) stops the sweep as a failed cell would, so that a mistake every cell shares is reported
  // after one run rather than at the merge.
  std::function<void(const Cell&)> check_first_cell;
  // Whether this process owns its pending cells, so that it removes what a killed earlier run of
  // them left (a `gpusim run` killed by SIGKILL leaves its staging directory). Off on the ranks
  // other than 0, whose cells rank 0 hands out later.
  bool remove_leftovers = true;
};

struct RunnerOutcome {
  std::size_t ran = 0;
  std::size_t skipped = 0;  // complete from an earlier run
  // Failed cells: id, exit code, and the last lines of its log.
  struct Failure {
    std::string id;
    int exit_code = 0;
    std::string log_tail;
  };
  std::vector<Failure> failures;
  std::string check_error;  // what check_first_cell threw
  std::size_t leftovers_removed = 0;
};

// Runs every selected cell not already complete. After a failure no further cell starts (the ones
// running finish), so that a mistake shared by every cell is reported after one run.
RunnerOutcome run_cells(const std::vector<Cell>& cells, const RunnerOptions& options);

}  // namespace gpusim::sweep
