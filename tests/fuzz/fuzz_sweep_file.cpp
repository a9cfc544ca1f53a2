// Fuzz target: the sweep file reader (sim/sweep/sweep_file.hpp) and the cells it expands to. Bad
// input may only throw core::InputError; a sweep it accepts has a name, metrics, and axes whose
// every value is a non-empty, distinct option value, and each cell's command names every axis once.
#include <cstdlib>
#include <set>
#include <string>

#include "sim/core/status.hpp"
#include "sim/sweep/cells.hpp"
#include "sim/sweep/sweep_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  // A fixed part of `gpusim run`'s options (the binary asks CLI11; the reader only asks the lookup).
  static const std::set<std::string> kValued = {"policy", "seed", "workload", "cluster", "mode", "fill-target",
                                                "time-compression", "config", "kube", "order"};
  const sweep::RunOptionLookup lookup = [](const std::string& name) {
    if (name == "perf-model" || name == "free-preemption") return sweep::RunOptionInfo{true, false, false};
    return sweep::RunOptionInfo{kValued.count(name) > 0, true, name == "config"};
  };
  try {
    const sweep::SweepSpec spec = sweep::parse_sweep("fuzz-sweep.yaml", fuzz::as_text(data, size), lookup);
    if (spec.name.empty() || spec.metrics.empty() || spec.axes.empty()) std::abort();
    std::size_t options = 0;
    for (const sweep::RunOption& option : spec.run) options += option.value.empty() ? 1 : 2;
    for (const sweep::Axis& axis : spec.axes) {
      if (axis.values.empty()) std::abort();
      const std::set<std::string> distinct(axis.values.begin(), axis.values.end());
      if (distinct.size() != axis.values.size() || distinct.count("") > 0) std::abort();
    }
    if (sweep::cell_count(spec) <= 256) {
      const std::vector<sweep::Cell> cells = sweep::expand_cells(spec);
      if (cells.size() != sweep::cell_count(spec)) std::abort();
      for (const sweep::Cell& cell : cells) {
        if (cell.args.size() != 1 + options + 2 * spec.axes.size() || cell.values.size() != spec.axes.size()) std::abort();
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
