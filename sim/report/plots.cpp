#include "sim/report/plots.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>

#include "sim/core/status.hpp"
#include "sim/report/plot_style.hpp"

extern char** environ;

namespace gpusim::report {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxCdfPoints = 400;
constexpr std::size_t kMaxSeriesPoints = 2000;
// The right margin (in characters) keeps the last x tick label inside the picture.
constexpr const char* kTerminal = "set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'\nset rmargin 5\n";

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw core::InputError(fmt::format("{}: cannot write", path.string()));
}

// A file name part for a policy ("gpu-clustering" stays, anything odd becomes '_').
std::string slug(const std::string& name) {
  std::string out;
  for (const char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

// The distinct policies, in summary order.
std::vector<std::string> policies(const OutputFiles& output) {
  std::vector<std::string> names;
  for (const auto& run : output.runs) {
    if (std::find(names.begin(), names.end(), run.policy) == names.end()) names.push_back(run.policy);
  }
  return names;
}

// The data rows of a gnuplot data file's text (lines that are not comments).
std::size_t data_rows(const std::string& data) {
  std::size_t rows = 0;
  for (std::size_t at = 0; at < data.size();) {
    const std::size_t end = std::min(data.find('\n', at), data.size());
    if (end > at && data[at] != '#') ++rows;
    at = end + 1;
  }
  return rows;
}

}  // namespace

// Starts gnuplot on `script` inside `dir`. Returns "" (and the process in `pid`) or why it could not.
std::string spawn_gnuplot(const fs::path& dir, const std::string& script, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // gnuplot's warnings (e.g. "empty y range" for a run where nothing waited) are not the user's
  // concern; a plot that fails shows in its exit status, and the .gp file stays to rerun by hand.
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string program = "gnuplot", file = script;
  char* argv[] = {program.data(), file.data(), nullptr};
  const int error = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error == ENOENT) return "gnuplot is not installed (apt-get install gnuplot-nox, then `gpusim report DIR`)";
  if (error != 0) return fmt::format("gnuplot could not start: {}", std::strerror(error));
  return "";
}

// Waits for a gnuplot started on `script`. Returns "" or why it failed.
std::string wait_gnuplot(pid_t pid, const std::string& script) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fmt::format("gnuplot failed on plots/{}", script);
  return "";
}

std::string run_gnuplot(const fs::path& dir, const std::string& script) {
  pid_t pid = 0;
  const std::string why = spawn_gnuplot(dir, script, pid);
  return why.empty() ? wait_gnuplot(pid, script) : why;
}

namespace {

// Empirical CDF with at most kMaxCdfPoints points: (value, fraction <= value).
// The empirical CDF of `values`, at most kMaxCdfPoints rows. `from_positive` (a log axis, which
// cannot show 0): the rows start at the first value above 0, their fractions still over every
// value, so that the curve starts at the share of values that are 0.
std::string cdf_data(std::vector<double> values, bool from_positive) {
  std::sort(values.begin(), values.end());
  std::string data = "# value cumulative_fraction\n";
  const std::size_t n = values.size();
  const std::size_t first = from_positive ? static_cast<std::size_t>(std::upper_bound(values.begin(), values.end(), 0.0) - values.begin()) : 0;
  if (first == n) return data + "0 0\n";
  const std::size_t shown = n - first;
  const std::size_t points = std::min(shown, kMaxCdfPoints);
  for (std::size_t k = 0; k < points; ++k) {
    const std::size_t i = first + (points == 1 ? shown - 1 : k * (shown - 1) / (points - 1));
    data += fmt::format("{:.6g} {:.6g}\n", values[i], static_cast<double>(i + 1) / static_cast<double>(n));
  }
  return data;
}

// Time unit for an axis that spans `max_seconds`.
std::pair<double, const char*> time_unit(double max_seconds) {
  if (max_seconds >= 2 * 86400) return {86400, "days"};
  if (max_seconds >= 2 * 3600) return {3600, "hours"};
  if (max_seconds >= 120) return {60, "minutes"};
  return {1, "seconds"};
}

struct Drawer {
  const OutputFiles& output;
  fs::path dir;  // plots/
  PlotResult result;

  // Draws one plot; a plot that cannot be drawn is noted as missing and the others still are
  // (once gnuplot is known to be missing, none is tried). The gnuplots run side by side, each
  // started as its plot is written (three for a replay: 40 ms in turn on 2 cores); finish()
  // collects them in the order they were added.
  void add(const std::string& name, const std::string& script, const std::string& caption) {
    if (gnuplot_missing) return;
    write_file(dir / (name + ".gp"), script);
    pid_t pid = 0;
    const std::string why = spawn_gnuplot(dir, name + ".gp", pid);
    if (why.empty()) {
      running.push_back({name, pid, result.plots.size()});
      result.plots.push_back({"plots/" + name + ".svg", caption});
      return;
    }
    gnuplot_missing = why.find("not installed") != std::string::npos;
    failed(name, why);
  }
  void failed(const std::string& name, const std::string& why) {
    std::error_code ignored;
    fs::remove(dir / (name + ".svg"), ignored);  // never leave a half-drawn plot behind
    result.missing += (result.missing.empty() ? "" : "; ") + why;
  }
  void finish() {
    std::vector<std::size_t> drop;
    for (const Running& r : running) {
      const std::string why = wait_gnuplot(r.pid, r.name + ".gp");
      if (why.empty()) continue;
      failed(r.name, why);
      drop.push_back(r.slot);
    }
    running.clear();
    for (std::size_t i = drop.size(); i-- > 0;) result.plots.erase(result.plots.begin() + static_cast<std::ptrdiff_t>(drop[i]));
  }
  ~Drawer() {
    for (const Running& r : running) wait_gnuplot(r.pid, r.name + ".gp");  // after an error: reap them
  }
  struct Running {
    std::string name;
    pid_t pid;
    std::size_t slot;  // its entry in result.plots
  };
  std::vector<Running> running;
  // A plot these runs have nothing for (gnuplot would fail on it): report.md says why in its
  // place; it is not missing.
  void leave_out(const std::string& title, const std::string& why) { result.plots.push_back({"", fmt::format("{}: not drawn, {}", title, why)}); }
  bool gnuplot_missing = false;

  void fill_plots() {
    const auto names = policies(output);
    // Allocation against arrived load: per policy, the mean over seeds with a min-max band. The
    // policies part only near the target, within a few points: an inset shows that end enlarged.
    std::string plot = "plot ", inset = "plot ";
    const double target = output.summary.at("inputs").value("fill_target", 1.3) * 100;
    const double x_max = std::ceil(target / 10) * 10;
    const double inset_from = std::max(0.0, x_max - 50);
    bool inset_has_points = false;  // gnuplot fails on an inset with nothing in its range
    for (std::size_t p = 0; p < names.size(); ++p) {
      std::map<int, std::vector<double>> by_load;
      for (const auto& run : output.runs) {
        if (run.policy != names[p] || !fs::exists(run.dir / "curve.csv")) continue;
        const Table curve = read_table(run.dir / "curve.csv");
        const auto load = curve.column("arrived_load_pct"), alloc = curve.column("gpu_allocation_pct");
        for (std::size_t r = 0; r < curve.row_count(); ++r) {
          by_load[static_cast<int>(curve.number(r, load))].push_back(curve.number(r, alloc));
        }
      }
      std::string data = "# arrived_load_pct mean min max (GPU allocation %, over seeds)\n";
      for (const auto& [load, values] : by_load) {
        inset_has_points |= load >= inset_from && load <= x_max;
        double sum = 0;
        for (const double v : values) sum += v;
        data += fmt::format("{} {:.4f} {:.4f} {:.4f}\n", load, sum / static_cast<double>(values.size()),
                            *std::min_element(values.begin(), values.end()), *std::max_element(values.begin(), values.end()));
      }
      const std::string file = "allocation-" + slug(names[p]) + ".dat";
      write_file(dir / file, data);
      const std::string band = fmt::format("{}{} using 1:3:4 with filledcurves lc rgb '{}' fs transparent solid 0.18 notitle, ",
                                           p ? ", " : "", quoted(file), series_style(p).colour);
      const std::string marks = every_nth_row(by_load.size(), p, names.size());
      plot += band + series_clause(file, "lines", 2, p, marks, names[p]);
      inset += band + series_clause(file, "lines", 2, p, marks, std::nullopt);
    }
    const std::string inset_script =
        inset_has_points
            ? fmt::format("# The inset: the last 50 points of load, enlarged, on white over the lower right.\n"
                          "set origin 0.55,0.13\nset size 0.42,0.45\nunset title\nunset xlabel\nunset ylabel\nunset key\n"
                          "set xrange [{}:{}]\nset yrange [*:*]\nset xtics 10\n"
                          "set object 1 rectangle from graph -0.12,-0.14 to graph 1,1 behind fillcolor rgb '#ffffff' fillstyle solid noborder\n"
                          "{}\n",
                          inset_from, x_max, inset)
            : std::string();
    add("allocation",
        fmt::format("{}set output 'allocation.svg'\nset multiplot\n"
                    "set title 'GPU allocation against arrived GPU requests (band: min-max over seeds)'\n"
                    "set xlabel 'arrived GPU requests (% of cluster GPU capacity)'\nset ylabel 'GPUs allocated (%)'\n"
                    "set key left top\nset grid\nset xrange [0:{}]\nset yrange [0:100]\n"
                    "set arrow 1 from {},graph 0 to {},graph 1 nohead dt 2\n{}\n{}unset multiplot\n",
                    kTerminal, x_max, target, target, plot, inset_script),
        inset_has_points ? "GPU allocation against arrived load, one line per policy (mean over seeds, band: min to max; inset: the end enlarged)"
                         : "GPU allocation against arrived load, one line per policy (mean over seeds, band: min to max)");

    // Unallocated GPUs at the end (the target), with the standard deviation over seeds.
    std::string bars = "# index policy mean std (unallocated GPUs)\n";
    std::size_t index = 0;
    for (const auto& policy : output.summary.at("policies")) {
      const auto& metric = policy.at("unallocated_gpus");
      bars += fmt::format("{} {} {:.4f} {:.4f}\n", index++, quoted(policy.at("name").get<std::string>()),
                          metric.at("mean").is_null() ? 0.0 : metric.at("mean").get<double>(),
                          metric.at("std").is_null() ? 0.0 : metric.at("std").get<double>());
    }
    write_file(dir / "unallocated.dat", bars);
    add("unallocated",
        // Room above the tallest error bar; names slanted, ending under their bars, when many would overlap.
        fmt::format("{}set output 'unallocated.svg'\nset title 'Unallocated GPUs at the fill target (error bars: std over seeds)'\n"
                    "set ylabel 'unallocated GPUs'\nset style fill solid 0.8 border -1\nset boxwidth 0.6\nset grid ytics\n"
                    "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\nset xrange [-0.6:{}]\nunset key\nset xtics noenhanced{}\n"
                    "plot 'unallocated.dat' using 1:3:4:xtic(2) with boxerrorbars lc rgb '#000000' fillcolor rgb '{}' "
                    "title 'unallocated GPUs'\n",
                    kTerminal, static_cast<double>(index) - 0.4, index > 7 ? " rotate by 30 right" : "", series_style(0).colour),
        "Unallocated GPUs at the fill target per policy, with the standard deviation over seeds");
  }

  void replay_plots() {
    const auto names = policies(output);
    std::map<std::string, std::vector<double>> jct, wait;
    std::map<std::string, const RunFiles*> first_run;
    // Traces of jobs (jobs.csv, e.g. Philly): one value per job, a gang counted once; else per pod.
    bool by_job = false;
    for (const auto& run : output.runs) {
      if (!first_run.contains(run.policy)) first_run[run.policy] = &run;
      if (fs::exists(run.dir / "jobs.csv")) {
        by_job = true;
        const Table jobs = read_table(run.dir / "jobs.csv");
        const auto jct_s = jobs.column("jct_s"), queueing_s = jobs.column("queueing_s"), completed = jobs.column("completed");
        for (std::size_t r = 0; r < jobs.row_count(); ++r) {
          if (jobs.row(r)[completed] != "1") continue;
          jct[run.policy].push_back(jobs.number(r, jct_s));
          wait[run.policy].push_back(jobs.number(r, queueing_s));
        }
        continue;
      }
      if (!fs::exists(run.dir / "pods.csv")) continue;
      const Table pods = read_table(run.dir / "pods.csv");
      const auto arrival = pods.column("arrival_s"), start = pods.column("start_s"), end = pods.column("end_s"),
                 outcome = pods.column("outcome");
      for (std::size_t r = 0; r < pods.row_count(); ++r) {
        const std::string_view o = pods.row(r)[outcome];
        if (o == "completed") jct[run.policy].push_back(pods.number(r, end) - pods.number(r, arrival));
        // Completed pods only, as mean_queueing_delay_s.
        if (o == "completed") wait[run.policy].push_back(pods.number(r, start) - pods.number(r, arrival));
      }
    }
    const auto cdf_plot = [&](const std::string& name, std::map<std::string, std::vector<double>>& values,
                              const std::string& title, const std::string& xlabel, bool log_x) {
      double max_value = 0;
      bool completed = false;
      for (const auto& [policy, v] : values) {
        completed |= !v.empty();
        for (const double x : v) max_value = std::max(max_value, x);
      }
      if (!(max_value > 0)) {
        const char* counted = by_job ? "job" : "pod";
        leave_out(title, completed ? fmt::format("as every completed {} has 0 s here", counted) : fmt::format("as no {} completed", counted));
        return;
      }
      // A log axis spans seconds to months: it stays in seconds, its ticks named in minutes, hours
      // and days. A linear one takes the unit of its largest value.
      const auto [unit, unit_name] = log_x ? std::pair<double, const char*>{1, "log scale"} : time_unit(max_value);
      std::string plot = "plot ";
      for (std::size_t p = 0; p < names.size(); ++p) {
        std::vector<double> scaled;
        for (const double x : values[names[p]]) scaled.push_back(x / unit);
        const std::string file = name + "-" + slug(names[p]) + ".dat";
        const std::string data = cdf_data(scaled, log_x);
        write_file(dir / file, data);
        plot += (p ? ", " : "") + series_clause(file, "steps", 2, p, every_nth_row(data_rows(data), p, names.size()), names[p]);
      }
      add(name,
          fmt::format("{}set output '{}.svg'\nset title '{}'\nset xlabel '{} ({})'\nset ylabel 'fraction of {}'\n"
                      "set key right bottom\nset grid\nset yrange [0:1]\nset offsets 0, graph 0.03, 0, 0\n{}{}\n",
                      kTerminal, name, title, xlabel, unit_name, by_job ? "jobs" : "pods",
                      log_x ? "set logscale x\n" + duration_log_tics() : std::string(), plot),
          title);
    };
    const char* counted = by_job ? "jobs" : "pods";
    cdf_plot("jct-cdf", jct, fmt::format("Job completion time CDF (completed {}, all seeds)", counted), "completion - arrival", true);
    // Log scale too: most jobs of a busy trace wait seconds, some days. The curve starts at the share
    // that did not wait.
    cdf_plot("queueing-cdf", wait, fmt::format("Queueing delay CDF (completed {}, all seeds)", counted), "start - arrival", true);

    // Allocation and pending pods over time, first seed of each policy, at most kMaxSeriesPoints points.
    double max_time = 0;
    std::map<std::string, Table> series;
    for (const auto& policy : names) {
      if (!first_run.contains(policy) || !fs::exists(first_run[policy]->dir / "timeseries.csv")) continue;
      series[policy] = read_table(first_run[policy]->dir / "timeseries.csv");
      const Table& t = series[policy];
      if (t.row_count() != 0) max_time = std::max(max_time, t.number(t.row_count() - 1, t.column("time_s")));
    }
    const auto [unit, unit_name] = time_unit(max_time);
    for (const auto& [name, column, ylabel, title] :
         {std::tuple<const char*, const char*, const char*, const char*>{"allocation-time", "allocated_gpu_milli", "GPUs allocated",
                                                                         "GPUs allocated over time (first seed)"},
          {"pending-time", "pending_pods", "pending pods", "Pending pods over time (first seed)"}}) {
      std::string plot = "plot ";
      std::size_t rows_in_all = 0;
      double max_value = 0;
      std::vector<std::pair<std::string, std::string>> files;  // name, data: written only if there is a plot
      for (std::size_t p = 0; p < names.size(); ++p) {
        const Table& t = series[names[p]];
        std::vector<std::pair<double, double>> points;  // (time in the axis' unit, value): the steps drawn
        if (t.row_count() != 0) {
          const auto time_col = t.column("time_s"), value_col = t.column(column);
          const std::size_t stride = std::max<std::size_t>(1, (t.row_count() + kMaxSeriesPoints - 1) / kMaxSeriesPoints);
          const double scale = std::string(column) == "allocated_gpu_milli" ? 1000.0 : 1.0;
          for (std::size_t r = 0; r < t.row_count(); r += stride) {
            points.emplace_back(t.number(r, time_col) / unit, t.number(r, value_col) / scale);
          }
        }
        std::string data = fmt::format("# time_{} {}\n", unit_name, column);
        for (const auto& [time, value] : points) data += fmt::format("{:.6g} {:.6g}\n", time, value);
        // The marks, a second block: at evenly spaced times (rows crowd where events do, often at the
        // start), each on the step its time falls in; series by series a little later, as every_nth_row.
        data += "\n\n# marks: time, value of the step there\n";
        for (std::size_t k = 0; k < kMarksPerSeries && !points.empty(); ++k) {
          const double at = (static_cast<double>(k) + (static_cast<double>(p) + 0.5) / static_cast<double>(names.size())) *
                            (max_time / unit) / static_cast<double>(kMarksPerSeries);
          if (at > points.back().first) break;
          const auto after = std::upper_bound(points.begin(), points.end(), at, [](double x, const auto& point) { return x < point.first; });
          if (after != points.begin()) data += fmt::format("{:.6g} {:.6g}\n", at, std::prev(after)->second);
        }
        const std::string file = std::string(name) + "-" + slug(names[p]) + ".dat";
        files.emplace_back(file, data);
        rows_in_all += points.size();
        for (const auto& point : points) max_value = std::max(max_value, point.second);
        plot += (p ? ", " : "") + series_clause(file, "steps", 1.5, p, "index 1", names[p]);
      }
      if (rows_in_all == 0) {
        leave_out(title, "as no run recorded one (no timeseries.csv has a row)");
        continue;
      }
      for (const auto& [file, data] : files) write_file(dir / file, data);
      // Room above the highest step: a full cluster's line would otherwise run along the border.
      // Counts that stay below 5 (no pod ever waited) get whole ticks, not gnuplot's 0.2 steps.
      const std::string y_axis = max_value < 5 ? "set yrange [0:5]\nset ytics 1\n" : "set yrange [0:*]\nset offsets 0, 0, graph 0.06, 0\n";
      add(name,
          fmt::format("{}set output '{}.svg'\nset title '{}'\nset xlabel 'simulated time ({})'\nset ylabel '{}'\n"
                      "set key right top\nset grid\n{}{}\n",
                      kTerminal, name, title, unit_name, ylabel, y_axis, plot),
          title);
    }
  }
};

}  // namespace

PlotResult draw_plots(const OutputFiles& output) {
  Drawer drawer{output, output.dir / "plots", {}, {}, false};
  std::error_code error;
  fs::create_directories(drawer.dir, error);
  if (error) throw core::InputError(fmt::format("{}: cannot create: {}", drawer.dir.string(), error.message()));
  if (output.fill()) drawer.fill_plots();
  else drawer.replay_plots();
  drawer.finish();
  // Nothing to draw (no pod ran): no plots/ either. An empty folder is in no manifest, and gpusim
  // would later refuse to replace or redraw the output as holding something it did not write.
  if (fs::is_empty(drawer.dir, error) && !error) fs::remove(drawer.dir, error);
  return drawer.result;
}

}  // namespace gpusim::report
