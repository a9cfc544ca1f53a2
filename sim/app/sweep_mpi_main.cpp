// gpusim-sweep-mpi: `gpusim sweep` over the ranks of an MPI job. `mpirun -np N gpusim sweep FILE
// --out DIR` starts gpusim, which sees the launcher and becomes this program with the same
// arguments (gpusim itself stays free of MPI). Rank 0 prepares the sweep directory and hands the
// cells out one at a time as ranks ask (sim/sweep/mpi_queue.hpp); every rank runs its cells, each
// as its own `gpusim run`, into the shared directory; rank 0 merges, so the merged outputs are the
// threaded run's, byte for byte.
//
// Every rank reads the sweep file; after each step the ranks agree whether all got through it. An
// error every rank meets alike (a bad file) is printed once, by rank 0.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "sim/app/error_exit.hpp"
#include "sim/app/exit_codes.hpp"
#include "sim/app/simulate_command.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/app/usage_error.hpp"
#include "sim/io/interrupt.hpp"
#include "sim/sweep/merge.hpp"
#include "sim/sweep/mpi_queue.hpp"

namespace {

using namespace gpusim;
namespace fs = std::filesystem;

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    // Serialized: on rank 0 one thread answers the other ranks while the runner's threads wait on
    // their cells; elsewhere the runner's threads take turns to ask.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (provided < MPI_THREAD_SERIALIZED) {
      if (rank_ == 0) fmt::print(stderr, "gpusim: internal error: this MPI library does not provide MPI_THREAD_SERIALIZED\n");
      MPI_Abort(MPI_COMM_WORLD, app::kExitInternal);
    }
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

std::int64_t sum_quietly(std::int64_t mine) {
  std::int64_t total = 0;
  MPI_Request request;
  MPI_Iallreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &request);
  sweep::wait_quietly(request);
  return total;
}

// Every rank's `mine`, on rank 0 (elsewhere: empty).
std::vector<std::int64_t> gather_quietly(const MpiSession& mpi, std::int64_t mine) {
  std::vector<std::int64_t> all(mpi.rank() == 0 ? static_cast<std::size_t>(mpi.size()) : 0);
  MPI_Request request;
  MPI_Igather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &request);
  sweep::wait_quietly(request);
  return all;
}

// Runs `step` on this rank and has the ranks agree whether every one got through it. Returns the
// exit code to end with when one did not, or nothing when all did. A rank prints its error unless
// rank 0 failed too: then every rank failed alike (the same file, the same command line), and rank
// 0 says it once.
std::optional<int> agree(const MpiSession& mpi, const std::function<void()>& step) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  std::vector<int> failed(static_cast<std::size_t>(mpi.size()));
  int mine = error ? 1 : 0;
  MPI_Request request;
  MPI_Iallgather(&mine, 1, MPI_INT, failed.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
  sweep::wait_quietly(request);
  bool any = false;
  for (const int f : failed) any = any || f != 0;
  if (!any) return std::nullopt;
  // Only a rank that printed an error exits non-zero: mpirun ends with the first non-zero code and
  // stops the other ranks, so a silent rank's exit code would only race the one that explains.
  if (!error || (mpi.rank() != 0 && failed[0] != 0)) return app::kExitOk;
  return app::report_error(error);
}

int run_sweep_mpi(const MpiSession& mpi, const app::SweepCommands& commands, const app::SweepOptions& o,
                  const std::string& gpusim, io::AbandonList& abandon) {
  const auto started = std::chrono::steady_clock::now();
  const bool root = mpi.rank() == 0;
  if (*commands.merge) {
    std::optional<int> code = agree(mpi, [&] {
      if (!root) return;
      const fs::path merged = sweep::merge_sweep(fs::path(o.merge_dir), &abandon, GPUSIM_VERSION);
      fmt::print("wrote {}\n", merged.string());
    });
    return code.value_or(app::kExitOk);
  }
  app::LoadedSweep loaded;
  fs::path out;
  if (const auto code = agree(mpi, [&] {
        if (o.shards > 0 && !o.emit_job) {
          throw app::UsageError("sweep: --shards is for Indexed Job pods; under MPI every rank takes cells as it frees up");
        }
        loaded = app::load_sweep(o);
        if (o.dry_run || o.emit_job) return;
        out = app::sweep_out_dir(o);
      })) {
    return *code;
  }
  if (o.dry_run || o.emit_job) {
    if (root) app::print_sweep_plan(o, loaded);
    return app::kExitOk;
  }
  if (const auto code = agree(mpi, [&] {
        if (root) sweep::prepare_sweep_dir(out, sweep::sweep_record(loaded.spec, loaded.cells, out), loaded.configs);
      })) {
    return *code;
  }
  sweep::RunnerOptions runner = app::sweep_runner_options(o, loaded, out, gpusim, abandon);
  // The ranks are the parallelism: one cell at a time each, unless --threads asks for more.
  runner.threads = o.threads > 0 ? static_cast<unsigned>(o.threads) : 1U;
  runner.progress = root && !o.progress.quiet;
  if (!root) {
    runner.check_first_cell = nullptr;  // rank 0 checks its first cell: one message
    runner.remove_leftovers = false;    // rank 0 does, before it hands out any cell
  }
  const std::int64_t remote_threads = sum_quietly(root ? 0 : static_cast<std::int64_t>(runner.threads));
  std::optional<sweep::MpiCoordinatorQueue> coordinator;
  std::optional<sweep::MpiWorkerQueue> worker;
  if (root) {
    runner.queue = &coordinator.emplace(MPI_COMM_WORLD, static_cast<std::size_t>(remote_threads));
  } else {
    runner.queue = &worker.emplace(MPI_COMM_WORLD);
  }
  const sweep::RunnerOutcome outcome = sweep::run_cells(loaded.cells, runner);
  app::print_cell_failures(outcome, out);
  const std::vector<std::int64_t> ran_by_rank = gather_quietly(mpi, static_cast<std::int64_t>(outcome.ran));
  const std::int64_t failures = sum_quietly(static_cast<std::int64_t>(outcome.failures.size()));
  const std::int64_t check_errors = sum_quietly(outcome.check_error.empty() ? 0 : 1);
  if (failures > 0 || check_errors > 0) {
    if (root && outcome.failures.empty() && outcome.check_error.empty()) {
      fmt::print(stderr, "gpusim: error: {} cell{} failed on other ranks (their errors above); completed cells are kept\n",
                 failures, failures == 1 ? "" : "s");
    }
    return root || !outcome.failures.empty() || !outcome.check_error.empty() ? app::kExitBadInput : app::kExitOk;
  }
  // The other ranks wait (quietly) while rank 0 merges, so that the job ends when the merge has.
  const std::optional<int> code = agree(mpi, [&] {
    if (!root) return;
    const fs::path merged = sweep::merge_sweep(out, &abandon, GPUSIM_VERSION);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::int64_t ran = 0;
    for (const std::int64_t r : ran_by_rank) ran += r;
    fmt::print("wrote {} ({} cells: {} run on {} rank{} ({} by rank), {} complete before; {:.2f} s wall)\n", merged.string(),
               loaded.cells.size(), ran, mpi.size(), mpi.size() == 1 ? "" : "s", fmt::join(ran_by_rank, ", "), outcome.skipped, wall);
  });
  return code.value_or(app::kExitOk);
}

// gpusim, beside this program: what each cell runs.
std::string gpusim_beside_me() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string("gpusim") : (self.parent_path() / "gpusim").string();
}

int run_cli(int argc, char** argv) {
  CLI::App cli{"gpusim-sweep-mpi: `gpusim sweep` over the ranks of an MPI job (run as `mpirun -np N gpusim sweep FILE --out DIR`)"};
  cli.footer(app::kExitCodeHelp);
  cli.failure_message([](const CLI::App*, const CLI::Error& e) { return app::usage_error_text(e.what()); });
  cli.require_subcommand(1);
  app::SweepOptions options;
  const app::SweepCommands commands = app::add_sweep_commands(cli, options);
  // Signals are blocked in every thread before MPI starts its own.
  io::AbandonList abandon;
  const io::InterruptGuard interrupts(abandon);
  const MpiSession mpi(argc, argv);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank meets the same command line: rank 0 says what is wrong.
    if (mpi.rank() == 0) return cli.exit(e) == 0 ? app::kExitOk : app::kExitUsage;
    return app::kExitOk;
  }
  return run_sweep_mpi(mpi, commands, options, gpusim_beside_me(), abandon);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (...) {
    return app::report_error(std::current_exception());
  }
}
