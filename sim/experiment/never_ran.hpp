#pragma once
// Pods that never ran, by reason: each run's tally (RunResult::never_ran), what summary.json's
// never_ran_by_reason counts, and the note gpusim prints on stderr. A reason is kube-scheduler's
// FitError (sim/sched/fit_error.hpp) or gpusim's words for a wait that no filter explains (a gang
// never whole, a queue at its quota...); it is counted under its causes, the FitError's reasons
// without their node counts, so that runs whose messages differ only in node counts read alike.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/experiment/compare.hpp"
#include "sim/experiment/run_result.hpp"
#include "sim/sched/fit_error.hpp"

namespace gpusim::experiment {

// Counts one run's pods by reason.
class NeverRanTally {
 public:
  void add(const sched::NeverRanReason& reason);
  // By reason text, bytewise (deterministic).
  std::vector<NeverRan> take();

 private:
  std::map<std::string, NeverRan> by_reason_;
};

// The run's pods by cause (a pod whose reason names several causes counts under each), by cause
// text bytewise: summary.json's never_ran_by_reason.
std::map<std::string, std::int64_t> never_ran_by_cause(const RunResult& run);

// The stderr note's lines (none when every pod ran): how many pods never ran, then the commonest
// reasons, most pods first (ties by text), at most `shown` of them; when there are more distinct
// reasons than that, the commonest causes instead (a pod counted under each of its reason's), and
// how many more there are.
std::vector<std::string> never_ran_note(const CompareResult& result, std::size_t shown = 5);

}  // namespace gpusim::experiment
