// Fuzz target: the sweep file reader (sim/sweep/sweep_file.hpp) and the cells it expands to. Bad
// input may only throw core::InputError; a sweep it accepts has a name, metrics, and axes whose
// every value is a non-empty, distinct option value, and each cell's command names every option
// axis once. An axis over a configuration field is looked up in the input itself (it is YAML too):
// where a span is found, putting a value there must read back as that value at that path.
#include <cstdlib>
#include <set>
#include <string>

#include <stdexcept>
#include <yaml-cpp/yaml.h>

#include "sim/core/status.hpp"
#include "sim/sweep/config_path.hpp"
#include "sim/sweep/cells.hpp"
#include "sim/sweep/sweep_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

// The value at `steps` of document `document` of `text`, or nothing.
std::string value_at(const std::string& text, std::size_t document, const std::vector<gpusim::sweep::PathStep>& steps) {
  const gpusim::sweep::TextSpan span = gpusim::sweep::locate_config_field(text, document, steps);
  return text.substr(span.begin, span.end - span.begin);
}

void check_field_edit(const std::string& text, const gpusim::sweep::ConfigField& field) {
  gpusim::sweep::TextSpan span;
  try {
    span = gpusim::sweep::locate_config_field(text, field.document, field.steps);
  } catch (const std::invalid_argument&) {
    return;  // no such field, or not one value: the sweep reports it
  }
  if (span.begin > span.end || span.end > text.size()) std::abort();
  std::string edited = text;
  edited.replace(span.begin, span.end - span.begin, "4242");
  try {
    if (value_at(edited, field.document, field.steps) != "4242") std::abort();
  } catch (const std::invalid_argument&) {
    std::abort();  // the edit broke the document or moved the field
  }
}

}  // namespace

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
    std::size_t option_axes = 0;
    for (const sweep::Axis& axis : spec.axes) {
      if (!axis.field) ++option_axes;
      if (axis.field) check_field_edit(fuzz::as_text(data, size), *axis.field);
      if (axis.values.empty()) std::abort();
      const std::set<std::string> distinct(axis.values.begin(), axis.values.end());
      if (distinct.size() != axis.values.size() || distinct.count("") > 0) std::abort();
    }
    if (sweep::cell_count(spec) <= 256) {
      const std::vector<sweep::Cell> cells = sweep::expand_cells(spec);
      if (cells.size() != sweep::cell_count(spec)) std::abort();
      for (const sweep::Cell& cell : cells) {
        if (cell.args.size() != 1 + options + 2 * option_axes || cell.values.size() != spec.axes.size()) std::abort();
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
