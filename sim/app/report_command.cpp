#include "sim/app/report_command.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/core/status.hpp"
#include "sim/report/report.hpp"

namespace gpusim::app {

namespace fs = std::filesystem;

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
  auto* report = app.add_subcommand("report", "Redraw report.md and its plots (gnuplot SVGs) from a gpusim output directory");
  report->add_option("DIR", o.dir, "A directory gpusim run or compare wrote")->required();
  return report;
}

int run_report(const ReportOptions& o, io::AbandonList& abandon) {
  const io::ManifestCheck check = io::check_gpusim_output(o.dir);
  if (!check.is_gpusim_output) {
    throw core::InputError(fmt::format("{}: not a gpusim output directory: it {}", o.dir, check.why));
  }
  // The plots are drawn from the per-run files: without them (the committed results keep only
  // summaries, reports and plots; runs/ is not in git) a redraw would lose what the plots show.
  std::vector<std::string> missing;
  for (const std::string& file : check.files) {
    if (file != "report.md" && !file.starts_with("plots/") && !fs::exists(fs::path(o.dir) / file)) missing.push_back(file);
  }
  if (!missing.empty()) {
    throw core::InputError(fmt::format("{}: {} of the files the report is drawn from are missing (e.g. {}); re-run the "
                                       "command that made this output (results/README.md lists them)",
                                       o.dir, missing.size(), missing.front()));
  }
  io::OutputDirectory out(o.dir, {}, &abandon, GPUSIM_VERSION, "report");
  // Everything but the report and its plots is kept as it is (hard links: no copy, no change).
  for (const std::string& file : check.files) {
    if (file == "report.md" || file.starts_with("plots/")) continue;
    const fs::path from = out.target() / file;
    if (!fs::exists(from)) continue;
    const fs::path to = out.staging() / file;
    fs::create_directories(to.parent_path());
    std::error_code error;
    fs::create_hard_link(from, to, error);
    if (error) fs::copy_file(from, to);
  }
  const report::RenderResult rendered = report::render(out.staging());
  out.commit();
  if (const std::string note = report::missing_plots_note(rendered); !note.empty()) fmt::print(stderr, "gpusim: note: {}\n", note);
  fmt::print("wrote {}/report.md and {} plots\n", out.target().string(), rendered.plots.size());
  return 0;
}

}  // namespace gpusim::app
