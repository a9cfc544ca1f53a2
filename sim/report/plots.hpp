#pragma once
// The plots of a report: gnuplot data (.dat) and scripts (.gp) written into DIR/plots/, then
// gnuplot run on each script with DIR/plots as its working directory (so the scripts name only
// relative files and the outputs are byte-identical from run to run).
#include <filesystem>
#include <string>
#include <vector>

#include "sim/report/output_files.hpp"

namespace gpusim::report {

struct Plot {
  std::string svg;      // relative to the output directory: plots/<name>.svg; empty: not drawn
  std::string caption;  // one line for report.md; for a plot not drawn, its title and why
};

struct PlotResult {
  std::vector<Plot> plots;
  // Plots these runs should have but that could not be drawn (gnuplot missing or failing), and
  // why; empty when every plot that applies was drawn.
  std::string missing;
};

PlotResult draw_plots(const OutputFiles& output);

// Runs gnuplot on `script` (a file in `dir`) with `dir` as its working directory. Returns "" or
// why it could not (gnuplot missing, failing).
std::string run_gnuplot(const std::filesystem::path& dir, const std::string& script);

}  // namespace gpusim::report
