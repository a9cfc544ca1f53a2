#include "sim/sweep/sweep_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "sim/core/status.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::sweep {
namespace {

// Options the sweep itself gives every cell, or that would make a cell something else.
bool reserved(const std::string& name) {
  return name == "out" || name == "quiet" || name == "progress-every" || name == "help";
}

bool is_number(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc{} && end == text.data() + text.size();
}

int line_of(const YAML::Node& node) { return node.Mark().line + 1; }

// A scalar as the command line would give it; a list or mapping fails at its line.
std::string scalar(const io::YamlFields& fields, const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) fields.fail(node, field, "expected a single value (text or a number), not a list or mapping");
  return node.Scalar();
}

void check_option(const io::YamlFields& fields, const YAML::Node& key, const std::string& name, const std::string& field,
                  const RunOptionLookup& lookup) {
  if (reserved(name)) {
    fields.fail(key, field, fmt::format("'{}' is the sweep's to set (each cell writes its own directory, quietly)", name));
  }
  if (name.starts_with("-")) fields.fail(key, field, fmt::format("'{}': name the option without its dashes", name));
  if (!lookup(name).known) {
    fields.fail(key, field, fmt::format("'{}' is not an option of `gpusim run` (see `gpusim run --help`)", name));
  }
}

// An axis's values: a list, or a range of integers {from: 42, count: 10} (as compare's
// --first-seed and --seeds).
std::vector<std::string> read_values(const io::YamlFields& fields, const YAML::Node& values, const std::string& field) {
  std::vector<std::string> list;
  if (values.IsMap()) {
    fields.only(values, field, {"from", "count"});
    if (!values["from"] || !values["count"]) fields.fail(values, field, "a range needs both from and count");
    const std::int64_t from = fields.integer(values["from"], field + ".from", 0, std::int64_t{1} << 62);
    const std::int64_t count = fields.integer(values["count"], field + ".count", 1, 100'000);
    for (std::int64_t i = 0; i < count; ++i) list.push_back(std::to_string(from + i));
  } else if (values.IsSequence()) {
    if (values.size() == 0) fields.fail(values, field, "an axis needs at least one value");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string item = fmt::format("{}[{}]", field, i);
      const std::string value = scalar(fields, values[i], item);
      if (value.empty()) fields.fail(values[i], item, "an empty value");
      if (!seen.insert(value).second) fields.fail(values[i], item, fmt::format("'{}' is listed twice", value));
      list.push_back(value);
    }
  } else {
    fields.fail(values, field, "expected a list of values, or a range {from: N, count: K}");
  }
  return list;
}

// An axis over a configuration file's field: {config: FILE, path: PATH, values: [...]}, and
// `document: N` in a file of several YAML documents.
Axis read_field_axis(const io::YamlFields& fields, const YAML::Node& key, const YAML::Node& spec, const RunOptionLookup& lookup) {
  Axis axis;
  axis.name = fields.key(key, "axes");
  axis.line = line_of(key);
  const std::string field = "axes." + axis.name;
  if (lookup(axis.name).known || reserved(axis.name)) {
    fields.fail(key, field, fmt::format("'{}' is a `gpusim run` option; name an axis over a configuration field otherwise", axis.name));
  }
  if (axis.name.empty() || axis.name.find_first_of(" ,\t\"") != std::string::npos) {
    fields.fail(key, field, "an axis's name is one word (no spaces, commas or quotes): it heads a column of the tables");
  }
  fields.only(spec, field, {"config", "path", "values", "document"});
  for (const char* needed : {"config", "path", "values"}) {
    if (!spec[needed]) fields.fail(spec, field, fmt::format("an axis over a configuration field needs config, path and values ({} is missing)", needed));
  }
  ConfigField config;
  config.config = scalar(fields, spec["config"], field + ".config");
  if (config.config.empty()) fields.fail(spec["config"], field + ".config", "an empty file name");
  config.path = scalar(fields, spec["path"], field + ".path");
  try {
    config.steps = parse_config_path(config.path);
  } catch (const std::invalid_argument& e) {
    fields.fail(spec["path"], field + ".path", e.what());
  }
  if (spec["document"]) {
    config.document = static_cast<std::size_t>(fields.integer(spec["document"], field + ".document", 0, 10'000));
    config.document_given = true;
  }
  axis.values = read_values(fields, spec["values"], field + ".values");
  axis.numeric = std::all_of(axis.values.begin(), axis.values.end(), is_number);
  axis.field = std::move(config);
  return axis;
}

Axis read_axis(const io::YamlFields& fields, const YAML::Node& key, const YAML::Node& values, const RunOptionLookup& lookup) {
  if (values.IsMap() && values["config"]) return read_field_axis(fields, key, values, lookup);
  Axis axis;
  axis.name = fields.key(key, "axes");
  axis.line = line_of(key);
  const std::string field = "axes." + axis.name;
  check_option(fields, key, axis.name, field, lookup);
  if (!lookup(axis.name).takes_value) fields.fail(key, field, fmt::format("'{}' is a flag; an axis needs values", axis.name));
  axis.values = read_values(fields, values, field);
  axis.numeric = std::all_of(axis.values.begin(), axis.values.end(), is_number);
  return axis;
}

}  // namespace

SweepSpec parse_sweep(const std::string& file, const std::string& text, const RunOptionLookup& lookup) {
  const io::YamlFields fields(file);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(file, text, e));
  }
  if (!doc.IsMap()) throw core::InputError(fmt::format("{}:1: expected a mapping with name, run, axes and metrics", file));
  fields.only(doc, "", {"name", "run", "axes", "metrics"});
  SweepSpec spec;
  spec.file = file;
  if (!doc["name"]) throw core::InputError(fmt::format("{}:1: name: missing (the sweep's name, used in its report)", file));
  spec.name = fields.text(doc["name"], "name");
  if (spec.name.empty()) fields.fail(doc["name"], "name", "an empty name");
  std::set<std::string> named;
  if (const YAML::Node run = doc["run"]) {
    if (!run.IsMap()) fields.fail(run, "run", "expected a mapping of `gpusim run` options to their values");
    for (const auto& entry : run) {
      const std::string name = fields.key(entry.first, "run");
      const std::string field = "run." + name;
      check_option(fields, entry.first, name, field, lookup);
      named.insert(name);
      if (!lookup(name).takes_value) {
        if (!entry.second.IsScalar() || (entry.second.Scalar() != "true" && entry.second.Scalar() != "false")) {
          fields.fail(entry.second, field, fmt::format("'{}' is a flag: true or false", name));
        }
        if (entry.second.Scalar() == "true") spec.run.push_back({name, ""});
        continue;
      }
      if (entry.second.IsSequence()) {
        if (!lookup(name).repeatable) {
          fields.fail(entry.second, field, fmt::format("'{}' takes one value; a list of them belongs under axes", name));
        }
        // A repeatable option (config): each value given once.
        for (std::size_t i = 0; i < entry.second.size(); ++i) {
          const std::string item = fmt::format("{}[{}]", field, i);
          const std::string value = scalar(fields, entry.second[i], item);
          if (value.empty()) fields.fail(entry.second[i], item, "an empty value");
          spec.run.push_back({name, value});
        }
        continue;
      }
      const std::string value = scalar(fields, entry.second, field);
      if (value.empty()) fields.fail(entry.second, field, "an empty value");
      spec.run.push_back({name, value});
    }
  }
  if (!doc["axes"]) throw core::InputError(fmt::format("{}:1: axes: missing (at least one axis: policy, seed, workload, ...)", file));
  const YAML::Node axes = doc["axes"];
  if (!axes.IsMap() || axes.size() == 0) fields.fail(axes, "axes", "expected a mapping of `gpusim run` options to their values");
  for (const auto& entry : axes) {
    Axis axis = read_axis(fields, entry.first, entry.second, lookup);
    if (named.count(axis.name) > 0) {
      fields.fail(entry.first, "axes." + axis.name, fmt::format("'{}' is also given under run", axis.name));
    }
    named.insert(axis.name);
    spec.axes.push_back(std::move(axis));
    // After each axis, not at the end: aliases to one long range (`b: *a`) would otherwise
    // make a file of a few lines hold billions of values before the count is checked.
    if (cell_count(spec) > 10'000'000) fields.fail(axes, "axes", fmt::format("{} cells: more than 10^7", cell_count(spec)));
  }
  for (const Axis& axis : spec.axes) {
    const bool config_axis = std::any_of(spec.axes.begin(), spec.axes.end(), [](const Axis& a) { return !a.field && a.name == "config"; });
    if (axis.field && config_axis) {
      fields.fail(axes, "axes." + axis.name, "an axis over a configuration field edits a file under run.config (or one more); "
                  "with config as an axis too, which of its files it edits would vary");
    }
  }
  if (!doc["metrics"]) throw core::InputError(fmt::format("{}:1: metrics: missing (summary.json metrics to tabulate)", file));
  const YAML::Node metrics = doc["metrics"];
  spec.metrics_line = line_of(metrics);
  if (!metrics.IsSequence() || metrics.size() == 0) fields.fail(metrics, "metrics", "expected a list of metric names");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string field = fmt::format("metrics[{}]", i);
    const std::string metric = scalar(fields, metrics[i], field);
    if (metric.empty()) fields.fail(metrics[i], field, "an empty name");
    if (std::find(spec.metrics.begin(), spec.metrics.end(), metric) != spec.metrics.end()) {
      fields.fail(metrics[i], field, fmt::format("'{}' is listed twice", metric));
    }
    spec.metrics.push_back(metric);
  }
  return spec;
}

std::size_t cell_count(const SweepSpec& spec) {
  std::size_t count = 1;
  for (const Axis& axis : spec.axes) {
    count *= axis.values.size();
    if (count > 100'000'000) return count;  // no overflow: the reader refuses it anyway
  }
  return count;
}

}  // namespace gpusim::sweep
