#pragma once
// A sweep file (sweeps/FORMAT.md): the `gpusim run` options every cell shares, the axes whose
// every combination is a cell, and the metrics to tabulate. Read field by field, with errors that
// name the file, the line and the field.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/config_path.hpp"

namespace gpusim::sweep {

// An axis over a configuration file's field: each cell runs with a copy of `config` (one of its
// --config files, or one more) whose field at `path` holds the cell's value.
struct ConfigField {
  std::string config;            // as the sweep file names it (relative to its directory)
  std::string path;              // as written
  std::vector<PathStep> steps;
  std::size_t document = 0;      // in a file of several YAML documents
  bool document_given = false;
};

// A `gpusim run` option (its name without "--") and its value as the command line gives it.
struct RunOption {
  std::string name;
  std::string value;  // empty for a flag
};

struct Axis {
  std::string name;                 // a `gpusim run` option (policy, seed, ...), or a configuration field's axis's name
  std::vector<std::string> values;  // in the file's order
  bool numeric = false;             // every value a number: plotted as a line against it
  int line = 0;
  std::optional<ConfigField> field;  // set: the axis varies this configuration field, not an option
};

struct SweepSpec {
  std::string file;
  std::string name;
  std::vector<RunOption> run;   // shared by every cell, in the file's order
  std::vector<Axis> axes;       // in the file's order; the last varies fastest
  std::vector<std::string> metrics;
  int metrics_line = 0;
};

// Whether `name` is an option of `gpusim run`, and whether it takes a value (false: a flag).
struct RunOptionInfo {
  bool known = false;
  bool takes_value = true;  // false: a flag
  bool repeatable = false;  // may be given more than once (config)
};
using RunOptionLookup = std::function<RunOptionInfo(const std::string& name)>;

// Parses `text` (the contents of `file`). Throws core::InputError "file:line: field: why".
SweepSpec parse_sweep(const std::string& file, const std::string& text, const RunOptionLookup& lookup);

// The number of cells: the product of the axes' lengths (1 with no axes).
std::size_t cell_count(const SweepSpec& spec);

}  // namespace gpusim::sweep
