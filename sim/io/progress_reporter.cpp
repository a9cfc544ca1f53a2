#include "sim/io/progress_reporter.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace gpusim::io {
namespace {

using Clock = std::chrono::steady_clock;

// How often the thread looks: the live line is redrawn at this pace, plain lines are checked.
constexpr std::chrono::milliseconds kTick{250};
constexpr const char* kEraseLine = "\r\033[K";

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Simulated times in one unit, chosen on the largest: "45 s", "12.5 min", "3.2 h", "4.1 d".
struct SimulatedUnit {
  double micros;
  const char* name;
  const char* format;
};

SimulatedUnit simulated_unit(std::int64_t largest_us) {
  const double seconds = static_cast<double>(largest_us) / 1e6;
  if (seconds >= 48 * 3600.0) return {86400e6, "d", "{:.1f}"};
  if (seconds >= 2 * 3600.0) return {3600e6, "h", "{:.1f}"};
  if (seconds >= 120) return {60e6, "min", "{:.1f}"};
  return {1e6, "s", "{:.0f}"};
}

std::string simulated_text(const ProgressSnapshot& s) {
  const SimulatedUnit unit = simulated_unit(std::max(s.simulated_max_us, s.span_us));
  const auto value = [&](std::int64_t us) { return fmt::format(fmt::runtime(unit.format), static_cast<double>(us) / unit.micros); };
  const std::string low = value(s.simulated_min_us), high = value(s.simulated_max_us);
  const std::string reached = low == high ? high : low + "-" + high;
  if (s.span_us <= 0) return fmt::format("simulated {} {}", reached, unit.name);
  if (s.simulated_max_us <= s.span_us) return fmt::format("simulated {} of {} {}", reached, value(s.span_us), unit.name);
  return fmt::format("simulated {} {}, past the {} {} expected", reached, unit.name, value(s.span_us), unit.name);
}

}  // namespace

ProgressSnapshot take_snapshot(std::span<const core::RunProgress> runs, std::int64_t now_ns) {
  ProgressSnapshot s;
  s.total = runs.size();
  std::size_t waiting = 0, timed_done = 0, projected = 0, unknown = 0;
  bool past_span = false;
  double done_s = 0, projected_s = 0, left_sum = 0, left_max = 0;
  for (const core::RunProgress& run : runs) {
    const auto state = run.state.load(std::memory_order_relaxed);
    const std::int64_t started = run.started_ns.load(std::memory_order_relaxed);
    if (state == core::RunProgress::kWaiting) {
      ++waiting;
      continue;
    }
    if (state == core::RunProgress::kDone) {
      ++s.done;
      const std::int64_t finished = run.finished_ns.load(std::memory_order_relaxed);
      if (started > 0 && finished >= started) {
        done_s += static_cast<double>(finished - started) / 1e9;
        ++timed_done;
      }
      continue;
    }
    const std::int64_t simulated = run.simulated_us.load(std::memory_order_relaxed);
    const std::int64_t span = run.span_us.load(std::memory_order_relaxed);
    s.simulated_min_us = s.running == 0 ? simulated : std::min(s.simulated_min_us, simulated);
    s.simulated_max_us = s.running == 0 ? simulated : std::max(s.simulated_max_us, simulated);
    s.span_us = std::max(s.span_us, span);
    ++s.running;
    // A replay whose queue outlasts its trace goes past its span, and then nothing tells how far.
    past_span = past_span || (span > 0 && simulated > span);
    const double share = span > 0 ? static_cast<double>(simulated) / static_cast<double>(span) : 0;
    const double ran_s = started > 0 ? static_cast<double>(now_ns - started) / 1e9 : 0;
    if (share > 0 && ran_s > 0) {
      const double left = ran_s * (1 - share) / share;
      left_sum += left;
      left_max = std::max(left_max, left);
      projected_s += ran_s / share;
      ++projected;
    } else {
      ++unknown;
    }
  }
  // How long a run takes: the runs done say best; else what the running ones project.
  const double run_s = timed_done > 0 ? done_s / static_cast<double>(timed_done)
                       : projected > 0 ? projected_s / static_cast<double>(projected)
                                       : std::nan("");
  if (past_span || ((unknown > 0 || waiting > 0) && std::isnan(run_s))) {
    s.seconds_left = std::nan("");
    return s;
  }
  if (unknown > 0) {
    left_sum += static_cast<double>(unknown) * run_s;
    left_max = std::max(left_max, run_s);
  }
  const double workers = static_cast<double>(std::max<std::size_t>(1, s.running));
  s.seconds_left = std::max(left_max, (left_sum + static_cast<double>(waiting) * (waiting > 0 ? run_s : 0)) / workers);
  return s;
}

std::string wall_time(double seconds) {
  const auto whole = static_cast<std::int64_t>(std::llround(std::max(0.0, seconds)));
  if (whole < 60) return fmt::format("{} s", whole);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  return fmt::format("{} h {} min", whole / 3600, whole % 3600 / 60);
}

std::string progress_line(const ProgressSnapshot& s, double elapsed_s, const ProgressStyle& style) {
  std::string line = fmt::format("{}: {}/{} {} done", style.program, s.done, s.total, style.noun);
  if (s.running > 0) {
    line += fmt::format(", {} running", s.running);
    // Nothing posted yet (the runs are reading their inputs): nothing to say.
    if (style.simulated_time && (s.simulated_max_us > 0 || s.span_us > 0)) line += fmt::format(" ({})", simulated_text(s));
  }
  line += fmt::format("; {} elapsed", wall_time(elapsed_s));
  // Too little to go on in the first second.
  if (style.time_left && s.done < s.total && !std::isnan(s.seconds_left) && elapsed_s >= 1) {
    line += fmt::format(", about {} left", wall_time(s.seconds_left));
  }
  return line;
}

bool stderr_is_live_terminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

int terminal_columns(int fd) {
  winsize size{};
  return ::ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

ProgressReporter::ProgressReporter(std::span<const core::RunProgress> runs, ProgressStyle style, std::FILE* stream)
    : runs_(runs), style_(std::move(style)), stream_(stream), started_(Clock::now()),
      thread_([this](std::stop_token stop) { report(stop); }) {}

ProgressReporter::~ProgressReporter() {
  stop();
  const std::lock_guard lock(mutex_);
  erase_live_locked();
}

void ProgressReporter::say(const std::string& text) {
  const std::lock_guard lock(mutex_);
  erase_live_locked();
  fmt::print(stream_, "{}\n", text);
  std::fflush(stream_);
}

void ProgressReporter::finish() {
  stop();
  const std::lock_guard lock(mutex_);
  erase_live_locked();
  const double elapsed = seconds_since(started_);
  if (!style_.live && (plain_printed_ || elapsed >= std::chrono::duration<double>(style_.plain_every).count())) {
    fmt::print(stream_, "{}: {}/{} {} done in {}\n", style_.program, runs_.size(), runs_.size(), style_.noun, wall_time(elapsed));
    std::fflush(stream_);
  }
}

void ProgressReporter::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

void ProgressReporter::report(std::stop_token stop) {
  auto last_plain = started_;
  std::unique_lock lock(mutex_);
  // At least one look, however soon the runs end: a terminal always gets its line drawn (and
  // erased), which the tests under `script` rely on.
  do {
    const auto now = Clock::now();
    const auto line = [&] {
      const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
      return progress_line(take_snapshot(runs_, now_ns), seconds_since(started_), style_);
    };
    if (style_.live) {
      write_locked(line());
    } else if (now - last_plain >= style_.plain_every) {
      fmt::print(stream_, "{}\n", line());
      std::fflush(stream_);
      last_plain = now;
      plain_printed_ = true;
    }
    // Wakes early only when asked to stop.
    wake_.wait_for(lock, stop, kTick, [] { return false; });
  } while (!stop.stop_requested());
}

void ProgressReporter::write_locked(const std::string& line) {
  // A line longer than the terminal would wrap, and '\r' returns only to the start of its last row.
  const std::size_t room = style_.columns > 1 ? static_cast<std::size_t>(style_.columns - 1) : line.size();
  fmt::print(stream_, "\r{}\033[K", std::string_view(line).substr(0, room));
  std::fflush(stream_);
  live_drawn_ = true;
}

void ProgressReporter::erase_live_locked() {
  if (!live_drawn_) return;
  fmt::print(stream_, "{}", kEraseLine);
  std::fflush(stream_);
  live_drawn_ = false;
}

}  // namespace gpusim::io
