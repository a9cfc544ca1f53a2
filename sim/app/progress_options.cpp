#include "sim/app/progress_options.hpp"

#include <unistd.h>

namespace gpusim::app {

void add_progress_options(CLI::App& command, ProgressOptions& options) {
  // Notes about the inputs and errors still print: they say something about the results.
  CLI::Option* quiet = command.add_flag("--quiet", options.quiet, "No progress on stderr (notes and errors still print)");
  command
      .add_option("--progress-every", options.every_s,
                  "When stderr is not a terminal: a progress line every this many seconds (none for a command that "
                  "ends sooner); on a terminal one line is rewritten in place instead")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str()
      ->excludes(quiet);
}

io::ProgressStyle progress_style(const ProgressOptions& options, std::string noun) {
  io::ProgressStyle style;
  style.noun = std::move(noun);
  style.live = io::stderr_is_live_terminal();
  style.columns = style.live ? io::terminal_columns(STDERR_FILENO) : 0;
  style.plain_every = std::chrono::seconds(options.every_s);
  return style;
}

}  // namespace gpusim::app
