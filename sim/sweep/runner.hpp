#pragma once
// Runs a sweep's cells, each as its own `gpusim run` process (so that a cell's outputs are the
// command's, byte for byte, and one cell's failure or crash never takes the others with it), on a
// pool of threads that take the next cell as they finish one.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/io/output_dir.hpp"
#include "sim/io/progress_reporter.hpp"
#include "sim/sweep/cells.hpp"

namespace gpusim::sweep {

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
};

// Runs every selected cell not already complete. After a failure no further cell starts (the ones
// running finish), so that a mistake shared by every cell is reported after one run.
RunnerOutcome run_cells(const std::vector<Cell>& cells, const RunnerOptions& options);

}  // namespace gpusim::sweep
