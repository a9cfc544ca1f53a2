#include "sim/experiment/never_ran.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpusim::experiment {

void NeverRanTally::add(const sched::NeverRanReason& reason) {
  NeverRan& entry = by_reason_[reason.text];
  if (entry.pods == 0) {
    entry.reason = reason.text;
    entry.causes = reason.causes;
  }
  ++entry.pods;
}

std::vector<NeverRan> NeverRanTally::take() {
  std::vector<NeverRan> sorted;
  sorted.reserve(by_reason_.size());
  for (auto& [text, entry] : by_reason_) sorted.push_back(std::move(entry));
  by_reason_.clear();
  return sorted;
}

std::map<std::string, std::int64_t> never_ran_by_cause(const RunResult& run) {
  std::map<std::string, std::int64_t> by_cause;
  for (const NeverRan& entry : run.never_ran) {
    for (const std::string& cause : entry.causes) by_cause[cause] += entry.pods;
  }
  return by_cause;
}

std::vector<std::string> never_ran_note(const CompareResult& result, std::size_t shown) {
  std::map<std::string, std::int64_t> by_reason;
  std::int64_t pods = 0;
  std::size_t runs = 0;
  for (const PolicySummary& policy : result.policies) {
    for (const RunResult& run : policy.runs) {
      ++runs;
      for (const NeverRan& entry : run.never_ran) {
        by_reason[entry.reason] += entry.pods;
        pods += entry.pods;
      }
    }
  }
  if (pods == 0) return {};
  // A few whole messages read best; past that (a fill's failed pods, whose FitErrors differ in
  // their node counts), the causes they share.
  const bool by_cause = by_reason.size() > shown;
  if (by_cause) {
    by_reason.clear();
    for (const PolicySummary& policy : result.policies) {
      for (const RunResult& run : policy.runs) {
        for (const auto& [cause, count] : never_ran_by_cause(run)) by_reason[cause] += count;
      }
    }
  }
  std::vector<std::pair<std::string, std::int64_t>> commonest(by_reason.begin(), by_reason.end());
  std::stable_sort(commonest.begin(), commonest.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{} pod{} never ran{} (pods.csv's reason column says why){}:", pods, pods == 1 ? "" : "s",
                              runs > 1 ? fmt::format(" in {} runs", runs) : "",
                              by_cause ? "; pods by cause, as summary.json's never_ran_by_reason counts them" : ""));
  for (std::size_t i = 0; i < commonest.size() && i < shown; ++i) {
    lines.push_back(fmt::format("  {} × {}", commonest[i].second, commonest[i].first));
  }
  if (commonest.size() > shown) {
    lines.push_back(fmt::format("  and {} more {}{}", commonest.size() - shown, by_cause ? "cause" : "reason",
                                commonest.size() - shown == 1 ? "" : "s"));
  }
  return lines;
}

}  // namespace gpusim::experiment
