#pragma once
// Progress of long commands on stderr, from a thread of its own that reads what the runs post
// (core::RunProgress): the runs never wait for it and never format anything.
//
// On a terminal one line is rewritten in place about four times a second and erased when the runs
// end, so a finished command leaves only its results on the screen. Elsewhere (a log, a pipe) a
// plain line comes every `plain_every` of wall time, and a last one when the runs end if they
// took that long: a command that ends sooner prints nothing.
//   gpusim: 12/35 runs done, 7 running (simulated 10.2-30.1 of 45.0 d); 1 min 52 s elapsed, about 4 min 40 s left
// Progress never goes into an output file, so outputs are the same with or without it.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <thread>

#include "sim/core/run_progress.hpp"

namespace gpusim::io {

struct ProgressStyle {
  std::string program = "gpusim";  // the lines' prefix
  std::string noun = "runs";       // what is counted
  bool live = false;               // a terminal: one line rewritten in place
  int columns = 0;                 // the terminal's width; a longer live line is cut (0: unknown)
  std::chrono::milliseconds plain_every{10'000};
  bool simulated_time = true;      // the runs post simulated time and span
  // Whether "about ... left" is estimated (from the runs done and the running runs' simulated
  // time against their span); off where the counted steps differ too much in length to tell.
  bool time_left = true;
};

// What the line says, read from the runs' slots at one moment.
struct ProgressSnapshot {
  std::size_t total = 0;
  std::size_t done = 0;
  std::size_t running = 0;
  // Among the running runs: the least and most simulated time reached and the longest span
  // known (0: none known).
  std::int64_t simulated_min_us = 0;
  std::int64_t simulated_max_us = 0;
  std::int64_t span_us = 0;
  // Wall seconds until the last run ends, estimated (NaN: nothing to go on). A running run goes
  // on at the pace it kept so far through its span (a replay's queue may outlast its trace: past
  // the span nothing tells, and there is no estimate); a waiting run takes as long as the runs
  // done took on average; the running runs' threads share the waiting ones.
  double seconds_left = 0;
};

// `now_ns`: steady_clock's now, in the slots' nanoseconds.
ProgressSnapshot take_snapshot(std::span<const core::RunProgress> runs, std::int64_t now_ns);

// "12/35 runs done, 7 running (simulated ...); 1 min 52 s elapsed, about 4 min 40 s left", with
// the program's prefix.
std::string progress_line(const ProgressSnapshot& snapshot, double elapsed_s, const ProgressStyle& style);

// Wall time as a person reads it: "42 s", "1 min 52 s", "2 h 5 min".
std::string wall_time(double seconds);

// Whether stderr is a terminal that can rewrite a line (not TERM=dumb).
bool stderr_is_live_terminal();
// The width of the terminal on `fd`, or 0 when unknown.
int terminal_columns(int fd);

class ProgressReporter {
 public:
  // `runs` must outlive the reporter. Starts reporting at once.
  ProgressReporter(std::span<const core::RunProgress> runs, ProgressStyle style, std::FILE* stream = stderr);
  // Stops; erases the live line. Without finish() (an error ended the runs) no last line.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Prints `text` as a line of its own (above the live line on a terminal).
  void say(const std::string& text);
  // The runs are all done: stops, erases the live line, and prints the last plain line if due.
  void finish();

 private:
  void report(std::stop_token stop);
  void stop();
  // Under mutex_.
  void write_locked(const std::string& line);
  void erase_live_locked();

  std::span<const core::RunProgress> runs_;
  ProgressStyle style_;
  std::FILE* stream_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool live_drawn_ = false;     // under mutex_
  bool plain_printed_ = false;  // under mutex_
  std::jthread thread_;  // last: started once everything above is set
};

}  // namespace gpusim::io
