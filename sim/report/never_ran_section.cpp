#include "sim/report/never_ran_section.hpp"

#include <fmt/format.h>

#include <map>

#include "sim/report/shown_number.hpp"

namespace gpusim::report {
namespace {

// A table cell: '|' would end it.
std::string cell_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string never_ran_section(const nlohmann::ordered_json& summary) {
  std::string rows;
  std::size_t runs_per_policy = 0;
  for (const auto& policy : summary.at("policies")) {
    const auto& runs = policy.at("runs");
    runs_per_policy = runs.size();
    // By reason, bytewise; a run without the reason counts 0 pods under it.
    std::map<std::string, std::int64_t> total;
    for (const auto& run : runs) {
      if (!run.contains("never_ran_by_reason")) continue;
      for (const auto& [reason, pods] : run.at("never_ran_by_reason").items()) total[reason] += pods.get<std::int64_t>();
    }
    for (const auto& [reason, pods] : total) {
      const double per_run = static_cast<double>(pods) / static_cast<double>(runs.size());
      rows += fmt::format("| {} | {} | {} |\n", policy.at("name").get<std::string>(), cell_text(reason),
                          runs.size() == 1 ? fmt::format("{}", pods) : decimals(per_run, 1));
    }
  }
  if (rows.empty()) return "";
  const bool fill = summary.value("mode", "") == "fill";
  std::string md = "\n## Pods that never ran\n\n";
  md += fill ? "Pods that fit nowhere when they arrived" : "Pods still waiting when the run ended (outcome pending or unschedulable)";
  md += ", by reason: kube-scheduler's reasons (its FitError's, without the node counts) or what else the pod "
        "waited for. A pod whose message names several reasons counts under each. pods.csv's reason column has each "
        "pod's whole message.\n\n";
  md += runs_per_policy == 1 ? "| policy | reason | pods |\n|---|---|---:|\n" : "| policy | reason | pods per run (mean) |\n|---|---|---:|\n";
  return md + rows;
}

}  // namespace gpusim::report
