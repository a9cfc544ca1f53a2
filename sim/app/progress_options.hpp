#pragma once
// --quiet and --progress-every, as run, compare and calibrate take them: whether progress goes to
// stderr, and how often a plain line comes when stderr is not a terminal (sim/io/progress_reporter.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "sim/io/progress_reporter.hpp"

namespace gpusim::app {

struct ProgressOptions {
  bool quiet = false;
  int every_s = 10;
};

void add_progress_options(CLI::App& command, ProgressOptions& options);

// The reporter's style for this process's stderr: live on a terminal, plain lines otherwise.
io::ProgressStyle progress_style(const ProgressOptions& options, std::string noun);

}  // namespace gpusim::app
