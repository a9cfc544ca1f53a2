#pragma once
// Reports people read: report.md and its plots (SVG, drawn by gnuplot), made from the files of a
// gpusim output directory alone (summary.json and the per-run CSVs). `gpusim run`/`compare` call
// it on their staged output; `gpusim report DIR` calls it again on a finished one, without
// re-simulating.
//
// What is drawn (plots/, beside report.md; the .dat and .gp files that make each SVG stay there):
//   fill:   allocation against arrived load, one line per policy with a min-max band over seeds
//           (the FGD paper's Figure 7 style) and an inset enlarging its end; unallocated GPUs at the
//           target, bars with std error bars
//   replay: JCT CDF per policy (log axis ticked in s, min, h, d); GPU allocation and pending pods over
//           time (first seed); queueing delay CDF per policy
// Each policy's line has its own colour, dash type and point marks. A plot with nothing to draw (no
// pod completed or ran) is not drawn; report.md names it and says why in its place.
#include <filesystem>
#include <string>
#include <vector>

namespace gpusim::report {

struct RenderResult {
  std::vector<std::string> plots;  // SVG files written, relative to the directory
  // Plots that should be in report.md but could not be drawn, and why (empty when none is
  // missing; a plot that does not apply to the runs is not missing).
  std::string missing;
};

// Writes `dir`/report.md and `dir`/plots/. Throws core::InputError when summary.json is missing or
// unreadable. Without gnuplot on PATH the report says so and has no plots.
RenderResult render(const std::filesystem::path& dir);

// The note for stderr about plots that should be in report.md and are not ("no plots in
// report.md: gnuplot is not installed ..." or "report.md lacks plots: gnuplot failed on ..."), or
// "" when none is missing.
std::string missing_plots_note(const RenderResult& rendered);

// Seconds as a person reads them: "42.0 s", "12.5 min", "3.21 h", "4.17 d".
std::string readable_duration(double seconds);

}  // namespace gpusim::report
