#include "sim/sweep/merge.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/report/plot_style.hpp"
#include "sim/report/plots.hpp"
#include "sim/report/shown_number.hpp"
#include "sim/sweep/cells.hpp"

namespace gpusim::sweep {
namespace fs = std::filesystem;
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Stats {
  int defined = 0;
  double mean = kNaN, std = kNaN, min = kNaN, max = kNaN;
};

// As `gpusim compare` aggregates seeds: over the runs that define the metric, the sample standard
// deviation (n - 1), 0 for one run of one.
Stats stats_of(const std::vector<double>& values) {
  Stats s;
  double sum = 0;
  for (const double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    s.min = s.defined == 0 ? v : std::min(s.min, v);
    s.max = s.defined == 0 ? v : std::max(s.max, v);
    ++s.defined;
  }
  if (s.defined == 0) return s;
  s.mean = sum / s.defined;
  if (s.defined > 1) {
    double squares = 0;
    for (const double v : values) {
      if (!std::isnan(v)) squares += std::pow(v - s.mean, 2);
    }
    s.std = std::sqrt(squares / (s.defined - 1));
  } else {
    s.std = values.size() == 1 ? 0.0 : kNaN;
  }
  return s;
}

nlohmann::ordered_json number(double x) {
  return std::isnan(x) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(report::summary_value(x));
}

std::string csv_number(double x) { return std::isnan(x) ? "" : fmt::format("{}", report::summary_value(x)); }

std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted(1, '"');
  for (const char c : text) {
    quoted += c;
    if (c == '"') quoted += c;
  }
  quoted += '"';
  return quoted;
}

// A cell's value of `metric`: its run's, from summary.json (null: undefined in that run).
double cell_metric(const nlohmann::json& summary, const std::string& metric, const std::string& id,
                   const nlohmann::ordered_json& record) {
  const auto& runs = summary.at("policies").at(0).at("runs");
  const auto& run = runs.at(0);
  if (!run.contains(metric)) {
    std::vector<std::string> names;
    for (const auto& [key, value] : run.items()) {
      if (value.is_number()) names.push_back(key);
    }
    throw core::InputError(fmt::format("{}:{}: metrics: '{}' is not in cell {}'s summary.json (its metrics: {})",
                                       record.value("file", std::string("sweep file")), record.value("metrics_line", 0), metric,
                                       id, fmt::join(names, ", ")));
  }
  return run[metric].is_number() ? run[metric].get<double>() : kNaN;
}

}  // namespace

std::vector<double> read_cell_metrics(const fs::path& dir, const std::string& id, const std::vector<std::string>& metrics,
                                      const nlohmann::ordered_json& record) {
  const fs::path file = cell_dir(dir, id) / "summary.json";
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<double> values;
  try {
    const nlohmann::json summary = nlohmann::json::parse(text.str());
    for (const std::string& metric : metrics) values.push_back(cell_metric(summary, metric, id, record));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: not a summary gpusim run wrote: {}", file.string(), e.what()));
  }
  return values;
}

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw core::InputError(fmt::format("{}: cannot write", path.string()));
}


// Each metric against each numeric axis, one line per policy with the seeds' min-max as error bars:
// drawn where the groups differ only in that axis and the policy. Returns report.md's lines.
std::string draw_axis_plots(const fs::path& staging, const nlohmann::ordered_json& axes, const std::vector<std::size_t>& group_axes,
                            const std::vector<std::string>& metrics, const std::vector<std::vector<std::string>>& group_keys,
                            const std::vector<std::vector<Stats>>& group_stats) {
  std::optional<std::size_t> policy_key;
  std::vector<std::size_t> numeric_keys;
  for (std::size_t k = 0; k < group_axes.size(); ++k) {
    const auto& axis = axes[group_axes[k]];
    if (axis.at("name") == "policy") policy_key = k;
    else if (axis.at("numeric").get<bool>()) numeric_keys.push_back(k);
  }
  const std::size_t others = group_axes.size() - (policy_key ? 1 : 0);
  if (numeric_keys.size() != 1 || others != 1) {
    return "No plots: they are drawn against one numeric axis (time-compression, fill-target, ...) with at most the "
           "policy beside it, and this sweep's groups differ in other axes too.\n";
  }
  const std::size_t x_key = numeric_keys.front();
  const std::string x_name = axes[group_axes[x_key]].at("name").get<std::string>();
  std::vector<std::string> series;  // policies in the order they first appear
  for (const auto& key : group_keys) {
    const std::string name = policy_key ? key[*policy_key] : "runs";
    if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
  }
  std::error_code error;
  fs::create_directories(staging / "plots", error);
  std::string lines;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string stem = fmt::format("{}-{}", metrics[m], x_name);
    std::string data;
    for (const std::string& name : series) {
      data += fmt::format("# {}: {} mean min max\n", name, x_name);
      for (std::size_t g = 0; g < group_keys.size(); ++g) {
        if (policy_key && group_keys[g][*policy_key] != name) continue;
        const Stats& s = group_stats[g][m];
        if (std::isnan(s.mean)) continue;
        data += fmt::format("{} {} {} {}\n", group_keys[g][x_key], report::summary_value(s.mean), report::summary_value(s.min),
                            report::summary_value(s.max));
      }
      data += "\n\n";
    }
    write_text(staging / "plots" / (stem + ".dat"), data);
    std::string script = fmt::format(
        "set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'\nset output '{}.svg'\n"
        "set xlabel {} noenhanced\nset ylabel {} noenhanced\nset key outside right top noenhanced\nset grid\nplot ",
        stem, report::quoted(x_name), report::quoted(metrics[m]));
    for (std::size_t i = 0; i < series.size(); ++i) {
      const report::SeriesStyle style = report::series_style(i);
      script += fmt::format("{}'{}.dat' index {} using 1:2:3:4 with yerrorlines lc rgb '{}' dt {} pt {} title {}",
                            i == 0 ? "" : ", \\\n     ", stem, i, style.colour, style.dash, style.point,
                            report::quoted(series[i]));
    }
    script += "\n";
    write_text(staging / "plots" / (stem + ".gp"), script);
    const std::string why = report::run_gnuplot(staging / "plots", stem + ".gp");
    if (!why.empty()) {
      lines += fmt::format("- {} against {}: not drawn ({}); `plots/{}.gp` and `.dat` are there\n", metrics[m], x_name, why, stem);
    } else {
      lines += fmt::format("![{} against {}, per policy: the mean over the seeds, bars from their min to max](plots/{}.svg)\n\n",
                           metrics[m], x_name, stem);
    }
  }
  return lines;
}

}  // namespace

namespace {

fs::path merge_record(const fs::path& dir, const nlohmann::ordered_json& record, io::AbandonList* abandon, const std::string& version) {
  const auto& cells = record.at("cells");
  const auto& axes = record.at("axes");
  const std::vector<std::string> metrics = record.at("metrics").get<std::vector<std::string>>();
  std::vector<std::string> missing;
  for (const auto& cell : cells) {
    if (!cell_complete(dir, cell.at("id").get<std::string>())) missing.push_back(cell.at("id").get<std::string>());
  }
  if (!missing.empty()) {
    throw core::InputError(fmt::format("{}: {} of {} cells are not complete (first: {}); run the sweep (or its shards) "
                                       "to the end first", dir.string(), missing.size(), cells.size(), missing.front()));
  }
  // The seed axis is the spread; every other axis tells groups apart.
  std::vector<std::size_t> group_axes;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].at("name") != "seed") group_axes.push_back(a);
  }
  std::vector<std::vector<double>> values(cells.size());
  std::map<std::vector<std::string>, std::size_t> group_index;
  std::vector<std::vector<std::string>> group_keys;
  std::vector<std::vector<std::size_t>> group_cells;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const std::string id = cells[c].at("id").get<std::string>();
    values[c] = read_cell_metrics(dir, id, metrics, record);
    std::vector<std::string> key;
    for (const std::size_t a : group_axes) key.push_back(cells[c].at("values").at(a).get<std::string>());
    const auto [it, inserted] = group_index.emplace(key, group_keys.size());
    if (inserted) {
      group_keys.push_back(key);
      group_cells.emplace_back();
    }
    group_cells[it->second].push_back(c);
  }

  io::OutputDirectory out((dir / "merged").string(), {}, abandon, version, "merged output");
  nlohmann::ordered_json doc;
  doc["gpusim_version"] = version;
  doc["sweep"] = record.at("name");
  doc["file"] = record.at("file");
  doc["axes"] = axes;
  doc["metrics"] = metrics;
  auto& cell_list = doc["cells"] = nlohmann::ordered_json::array();
  std::string cells_csv = "cell";
  for (const auto& axis : axes) cells_csv += fmt::format(",{}", csv_text(axis.at("name").get<std::string>()));
  for (const std::string& metric : metrics) cells_csv += fmt::format(",{}", csv_text(metric));
  cells_csv += "\n";
  for (std::size_t c = 0; c < cells.size(); ++c) {
    nlohmann::ordered_json entry;
    entry["cell"] = cells[c].at("id");
    cells_csv += cells[c].at("id").get<std::string>();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      entry[axes[a].at("name").get<std::string>()] = cells[c].at("values").at(a);
      cells_csv += fmt::format(",{}", csv_text(cells[c].at("values").at(a).get<std::string>()));
    }
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      entry[metrics[m]] = number(values[c][m]);
      cells_csv += fmt::format(",{}", csv_number(values[c][m]));
    }
    cells_csv += "\n";
    cell_list.push_back(std::move(entry));
  }
  auto& group_list = doc["groups"] = nlohmann::ordered_json::array();
  std::string groups_csv;
  for (const std::size_t a : group_axes) groups_csv += fmt::format("{},", csv_text(axes[a].at("name").get<std::string>()));
  groups_csv += "runs";
  for (const std::string& metric : metrics) {
    for (const char* part : {"mean", "std", "min", "max"}) groups_csv += fmt::format(",{}_{}", csv_text(metric), part);
  }
  groups_csv += "\n";
  std::string table = "| ";
  for (const std::size_t a : group_axes) table += fmt::format("{} | ", axes[a].at("name").get<std::string>());
  table += "runs |";
  for (const std::string& metric : metrics) table += fmt::format(" {} (mean ± std) |", metric);
  table += "\n|";
  for (std::size_t i = 0; i < group_axes.size() + 1 + metrics.size(); ++i) table += "---|";
  table += "\n";
  std::vector<std::vector<Stats>> group_stats(group_keys.size());
  for (std::size_t g = 0; g < group_keys.size(); ++g) {
    nlohmann::ordered_json entry;
    table += "| ";
    for (std::size_t k = 0; k < group_axes.size(); ++k) {
      entry[axes[group_axes[k]].at("name").get<std::string>()] = group_keys[g][k];
      groups_csv += fmt::format("{},", csv_text(group_keys[g][k]));
      table += fmt::format("{} | ", group_keys[g][k]);
    }
    entry["runs"] = group_cells[g].size();
    groups_csv += std::to_string(group_cells[g].size());
    table += fmt::format("{} |", group_cells[g].size());
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      std::vector<double> of_group;
      for (const std::size_t c : group_cells[g]) of_group.push_back(values[c][m]);
      const Stats s = stats_of(of_group);
      group_stats[g].push_back(s);
      entry[metrics[m]] = {{"mean", number(s.mean)}, {"std", number(s.std)}, {"min", number(s.min)},
                           {"max", number(s.max)}, {"defined_runs", s.defined}};
      for (const double x : {s.mean, s.std, s.min, s.max}) groups_csv += fmt::format(",{}", csv_number(x));
      table += std::isnan(s.mean) ? " n/a |"
                                  : fmt::format(" {} ± {} |", report::decimals(s.mean, 2),
                                                std::isnan(s.std) ? std::string("n/a") : report::decimals(s.std, 2));
    }
    groups_csv += "\n";
    table += "\n";
    group_list.push_back(std::move(entry));
  }
  write_text(out.staging() / "summary.json", doc.dump(2) + "\n");
  write_text(out.staging() / "cells.csv", cells_csv);
  write_text(out.staging() / "groups.csv", groups_csv);
  std::string report = fmt::format("# Sweep {}\n\nFrom `{}`: {} cells, each a `gpusim run` (its outputs in `cells/`). ",
                                   record.at("name").get<std::string>(), record.at("file").get<std::string>(), cells.size());
  report += "Each row is a group of cells that differ only in their seed: the mean over its seeds ± their sample standard "
            "deviation. Every cell's own figures are in `cells.csv`, and min and max in `groups.csv`.\n\n";
  report += table;
  report += "\n## Plots\n\n" + draw_axis_plots(out.staging(), axes, group_axes, metrics, group_keys, group_stats);
  write_text(out.staging() / "report.md", report);
  out.commit();
  return out.target();
}

}  // namespace

fs::path merge_sweep(const fs::path& dir, io::AbandonList* abandon, const std::string& version) {
  const nlohmann::ordered_json record = read_sweep_record(dir);
  try {
    return merge_record(dir, record, abandon, version);
  } catch (const nlohmann::json::exception& e) {
    // A record of the wrong shape (edited by hand, or not gpusim's): the cells' own files are checked where they are read.
    throw core::InputError(fmt::format("{}: not a record gpusim sweep wrote: {}", (dir / kSweepManifestName).string(), e.what()));
  }
}

}  // namespace gpusim::sweep
