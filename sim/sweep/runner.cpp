#include "sim/sweep/runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "sim/core/run_progress.hpp"
#include "sim/core/status.hpp"

extern char** environ;

namespace gpusim::sweep {
namespace fs = std::filesystem;
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The last `lines` lines of a log, for the error message.
std::string tail(const fs::path& log, int lines) {
  std::ifstream in(log);
  std::vector<std::string> kept;
  std::string line;
  while (std::getline(in, line)) {
    kept.push_back(line);
    if (static_cast<int>(kept.size()) > lines) kept.erase(kept.begin());
  }
  std::string text;
  for (const std::string& l : kept) text += "  " + l + "\n";
  return text;
}

// Runs `gpusim <args> --out DIR --quiet` in `cwd`, its stdout and stderr into `log`; its exit code
// (128 + N when killed by signal N; 127 when it could not start).
int run_cell_process(const RunnerOptions& options, const Cell& cell, const fs::path& log) {
  std::vector<std::string> words{options.gpusim.string()};
  words.insert(words.end(), cell.args.begin(), cell.args.end());
  words.insert(words.end(), {"--out", cell_dir(options.out, cell.id).string(), "--quiet"});
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
  // The child gets the default signal mask: the sweep blocks SIGINT in its threads, and a cell must
  // take it (to remove its partial output) when the terminal sends it to the whole group.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int spawned = 0;
  {
    // Listed under the lock the interrupt handler takes: a signal either finds the cell listed or
    // comes before it starts.
    std::unique_lock<std::mutex> lock;
    if (options.abandon != nullptr) lock = std::unique_lock(options.abandon->mutex);
    spawned = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    if (spawned == 0 && options.abandon != nullptr) options.abandon->stop_children.push_back(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    std::ofstream(log, std::ios::app) << fmt::format("gpusim sweep: cannot start {}: {}\n", argv[0], std::strerror(spawned));
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  if (options.abandon != nullptr) {
    const std::lock_guard lock(options.abandon->mutex);
    auto& children = options.abandon->stop_children;
    children.erase(std::remove(children.begin(), children.end(), pid), children.end());
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// One process: its threads take the cells in order from a shared counter.
class LocalCellQueue final : public CellQueue {
 public:
  void start(const std::vector<std::size_t>& pending, std::span<core::RunProgress>) override { pending_ = pending; }
  std::optional<std::size_t> next(std::optional<std::size_t>, bool failed) override {
    if (failed) stop_ = true;
    if (stop_) return std::nullopt;
    const std::size_t t = next_++;
    if (t >= pending_.size()) return std::nullopt;
    return pending_[t];
  }

 private:
  std::vector<std::size_t> pending_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
};

// Removes the staging directories `gpusim run` left for `ids` when it was killed outright:
// cells/.ID.gpusim-partial-PID (or -PID-N), its own names (sim/io/output_dir.cpp), only
// directories, and only where no process PID runs. Returns how many.
std::size_t remove_leftover_staging(const fs::path& out, const std::set<std::string>& ids) {
  std::size_t removed = 0;
  std::error_code error;
  std::vector<fs::path> leftovers;
  for (const auto& entry : fs::directory_iterator(out / "cells", error)) {
    const std::string name = entry.path().filename().string();
    const std::size_t mark = name.find(".gpusim-partial-");
    if (!name.starts_with(".") || mark == std::string::npos || ids.count(name.substr(1, mark - 1)) == 0) continue;
    const std::string rest = name.substr(mark + std::string_view(".gpusim-partial-").size());
    const bool own_name = !rest.empty() && rest.find_first_not_of("0123456789-") == std::string::npos && std::isdigit(static_cast<unsigned char>(rest.front()));
    if (!own_name || !entry.is_directory(error) || entry.is_symlink(error)) continue;
    // A process of that id still running may be the cell's orphan (its sweep killed outright):
    // its directory is not a leftover yet.
    const long long pid = std::strtoll(rest.c_str(), nullptr, 10);
    const bool possible = pid > 0 && pid <= std::numeric_limits<pid_t>::max();
    if (possible && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
    leftovers.push_back(entry.path());
  }
  for (const fs::path& leftover : leftovers) {
    if (fs::remove_all(leftover, error) != static_cast<std::uintmax_t>(-1) && !error) ++removed;
  }
  return removed;
}

}  // namespace

RunnerOutcome run_cells(const std::vector<Cell>& cells, const RunnerOptions& options) {
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!options.selected || options.selected(i)) mine.push_back(i);
  }
  RunnerOutcome outcome;
  std::vector<core::RunProgress> slots(mine.size());
  std::vector<std::size_t> pending;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    if (cell_complete(options.out, cells[mine[k]].id)) {
      // Done in an earlier run: counted, but not timed (it says nothing of how long a cell takes).
      slots[k].state.store(core::RunProgress::kDone, std::memory_order_relaxed);
      ++outcome.skipped;
    } else {
      pending.push_back(k);
    }
  }
  std::optional<io::ProgressReporter> reporter;
  if (options.progress) {
    io::ProgressStyle style = options.style;
    style.noun = "cells";
    style.simulated_time = false;
    reporter.emplace(slots, style);
  }
  if (options.remove_leftovers) {
    std::set<std::string> ids;
    for (const std::size_t k : pending) ids.insert(cells[mine[k]].id);
    outcome.leftovers_removed = remove_leftover_staging(options.out, ids);
  }
  LocalCellQueue local;
  CellQueue& queue = options.queue != nullptr ? *options.queue : local;
  queue.start(pending, slots);
  std::mutex mutex;
  std::vector<RunnerOutcome::Failure> failures;
  std::atomic<std::size_t> ran{0};
  std::atomic<bool> checked{false};
  std::string check_error;
  const auto work = [&] {
    std::optional<std::size_t> finished;
    bool failed = false;
    while (const std::optional<std::size_t> k = queue.next(finished, failed)) {
      const Cell& cell = cells[mine[*k]];
      slots[*k].started_ns.store(steady_ns(), std::memory_order_relaxed);
      slots[*k].state.store(core::RunProgress::kRunning, std::memory_order_relaxed);
      const fs::path log = options.out / "logs" / (cell.id + ".log");
      const int code = run_cell_process(options, cell, log);
      slots[*k].finished_ns.store(steady_ns(), std::memory_order_relaxed);
      slots[*k].state.store(core::RunProgress::kDone, std::memory_order_relaxed);
      ++ran;
      finished = *k;
      failed = code != 0;
      if (failed) {
        const std::lock_guard lock(mutex);
        failures.push_back({cell.id, code, tail(log, 6)});
      } else if (options.check_first_cell && !checked.exchange(true)) {
        try {
          options.check_first_cell(cell);
        } catch (const core::InputError& e) {
          failed = true;
          const std::lock_guard lock(mutex);
          check_error = e.what();
        }
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    const unsigned wanted = std::max(1U, options.threads);
    const unsigned threads =
        options.queue != nullptr ? wanted : std::min<unsigned>(wanted, static_cast<unsigned>(std::max<std::size_t>(1, pending.size())));
    for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  }
  queue.finish();
  if (reporter) reporter->finish();
  std::sort(failures.begin(), failures.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  outcome.failures = std::move(failures);
  outcome.ran = ran;
  outcome.check_error = std::move(check_error);
  return outcome;
}

}  // namespace gpusim::sweep
