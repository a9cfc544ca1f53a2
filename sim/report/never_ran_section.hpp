#pragma once
// report.md's section on the pods that never ran: per policy, each reason summary.json's
// never_ran_by_reason counts (a FitError's reasons without node counts, or gpusim's words for
// another wait) and its pods per run. Nothing when every pod of every run ran.
#include <nlohmann/json.hpp>
#include <string>

namespace gpusim::report {

std::string never_ran_section(const nlohmann::ordered_json& summary);

}  // namespace gpusim::report
