#include "sim/sweep/cells.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <optional>
#include <stdexcept>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/io/output_dir.hpp"

namespace gpusim::sweep {
namespace fs = std::filesystem;

namespace {

// `./a.yaml`, `a.yaml` and its absolute path (relative ones to `base`, the sweep file's directory)
// name one file.
bool same_file_name(const std::string& a, const std::string& b, const fs::path& base) {
  return (base / a).lexically_normal() == (base / b).lexically_normal();
}

}  // namespace

std::vector<EditedConfig> read_edited_configs(const SweepSpec& spec, const fs::path& base) {
  std::vector<EditedConfig> edited;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const Axis& axis = spec.axes[a];
    if (!axis.field) continue;
    const ConfigField& field = *axis.field;
    const std::string where = fmt::format("{}:{}: axes.{}", spec.file, axis.line, axis.name);
    auto file = std::find_if(edited.begin(), edited.end(), [&](const EditedConfig& e) { return same_file_name(e.name, field.config, base); });
    if (file == edited.end()) {
      const fs::path path = fs::path(field.config).is_absolute() ? fs::path(field.config) : base / field.config;
      std::ifstream in(path, std::ios::binary);
      if (!in) throw core::InputError(fmt::format("{}.config: cannot read {}: {}", where, path.string(), std::strerror(errno)));
      std::stringstream text;
      text << in.rdbuf();
      edited.push_back({field.config, text.str(), {}});
      file = std::prev(edited.end());
    }
    try {
      const std::size_t documents = yaml_document_count(file->text);
      if (documents > 1 && !field.document_given) {
        throw std::invalid_argument(fmt::format("{} holds {} YAML documents: say which with document: N (from 0)", field.config, documents));
      }
      const TextSpan span = locate_config_field(file->text, field.document, field.steps);
      for (const EditedConfig::Field& other : file->fields) {
        if (other.span.begin == span.begin) {
          throw std::invalid_argument(fmt::format("the axis {} varies this field already", spec.axes[other.axis].name));
        }
      }
      file->fields.push_back({a, span});
    } catch (const std::invalid_argument& e) {
      throw core::InputError(fmt::format("{}.path: {}: {}", where, field.config, e.what()));
    }
  }
  return edited;
}

namespace {

// `config` with each field axis's value for this cell in place of the file's.
std::string edited_text(const EditedConfig& config, const std::vector<std::string>& values) {
  std::vector<EditedConfig::Field> fields = config.fields;
  // From the end backwards, so that each edit leaves the earlier spans where they were.
  std::sort(fields.begin(), fields.end(), [](const auto& x, const auto& y) { return x.span.begin > y.span.begin; });
  std::string text = config.text;
  for (const EditedConfig::Field& field : fields) {
    // Written in the quotes the file used, so that a string stays a string ("1" -> "2").
    const char quote = config.text[field.span.begin];
    text.replace(field.span.begin, field.span.end - field.span.begin, yaml_scalar_text(values[field.axis], quote));
  }
  return text;
}

// The copies' file names: the file's own, numbered only where two edited files share one.
std::vector<std::string> copy_names(const std::vector<EditedConfig>& edited) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < edited.size(); ++i) {
    const std::string name = fs::path(edited[i].name).filename().string();
    const bool shared = std::count_if(edited.begin(), edited.end(), [&](const EditedConfig& e) {
                          return fs::path(e.name).filename().string() == name;
                        }) > 1;
    names.push_back(shared ? fmt::format("{}-{}", i, name) : name);
  }
  return names;
}

}  // namespace

std::vector<Cell> expand_cells(const SweepSpec& spec, const std::vector<EditedConfig>& edited, const fs::path& out,
                               std::vector<DerivedConfig>* derived, const fs::path& base) {
  const std::size_t count = cell_count(spec);
  const int width = std::max<int>(4, static_cast<int>(std::to_string(count - 1).size()));
  std::size_t variants = 1;  // combinations of the field axes' values
  for (const Axis& axis : spec.axes) variants *= axis.field ? axis.values.size() : 1;
  const int variant_width = std::max<int>(4, static_cast<int>(std::to_string(variants - 1).size()));
  const std::vector<std::string> names = copy_names(edited);
  std::vector<bool> written(edited.empty() ? 0 : variants, false);
  std::vector<Cell> cells;
  cells.reserve(count);
  std::vector<std::size_t> at(spec.axes.size(), 0);
  for (std::size_t index = 0; index < count; ++index) {
    Cell cell;
    cell.id = fmt::format("c{:0{}}", index, width);
    std::size_t variant = 0;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      cell.values.push_back(spec.axes[a].values[at[a]]);
      if (spec.axes[a].field) variant = variant * spec.axes[a].values.size() + at[a];
    }
    const fs::path copies = out / "configs" / fmt::format("f{:0{}}", variant, variant_width);
    const auto copy_of = [&](const std::string& name) -> std::optional<fs::path> {
      for (std::size_t e = 0; e < edited.size(); ++e) {
        if (same_file_name(edited[e].name, name, base)) return copies / names[e];
      }
      return std::nullopt;
    };
    cell.args.push_back("run");
    std::vector<bool> named(edited.size(), false);
    for (const RunOption& option : spec.run) {
      cell.args.push_back("--" + option.name);
      if (option.value.empty()) continue;
      const std::optional<fs::path> copy = option.name == "config" ? copy_of(option.value) : std::nullopt;
      cell.args.push_back(copy ? copy->string() : option.value);
      for (std::size_t e = 0; e < edited.size(); ++e) named[e] = named[e] || (copy && same_file_name(edited[e].name, option.value, base));
    }
    // An edited file the run options do not list is one more --config.
    for (std::size_t e = 0; e < edited.size(); ++e) {
      if (!named[e]) cell.args.insert(cell.args.end(), {"--config", (copies / names[e]).string()});
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      if (spec.axes[a].field) continue;
      cell.args.push_back("--" + spec.axes[a].name);
      cell.args.push_back(cell.values[a]);
    }
    if (derived != nullptr && !edited.empty() && !written[variant]) {
      written[variant] = true;
      for (std::size_t e = 0; e < edited.size(); ++e) derived->push_back({copies / names[e], edited_text(edited[e], cell.values)});
    }
    cells.push_back(std::move(cell));
    // The next combination: the last axis fastest.
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
      if (++at[a] < spec.axes[a].values.size()) break;
      at[a] = 0;
    }
  }
  return cells;
}

nlohmann::ordered_json sweep_record(const SweepSpec& spec, const std::vector<Cell>& cells, const fs::path& out) {
  nlohmann::ordered_json record;
  record["tool"] = "gpusim sweep";
  record["about"] = "gpusim sweep wrote this directory: cells/ (one `gpusim run` output each), logs/ and merged/";
  record["name"] = spec.name;
  record["file"] = spec.file;
  record["metrics"] = spec.metrics;
  record["metrics_line"] = spec.metrics_line;
  auto& axes = record["axes"] = nlohmann::ordered_json::array();
  for (const Axis& axis : spec.axes) {
    nlohmann::ordered_json entry{{"name", axis.name}, {"numeric", axis.numeric}, {"values", axis.values}};
    if (axis.field) {
      entry["config"] = axis.field->config;
      entry["path"] = axis.field->path;
      if (axis.field->document_given) entry["document"] = axis.field->document;
    }
    axes.push_back(std::move(entry));
  }
  auto& list = record["cells"] = nlohmann::ordered_json::array();
  const std::string copies = out.empty() ? std::string() : (out / "configs").string() + "/";
  for (const Cell& cell : cells) {
    std::vector<std::string> args = cell.args;
    for (std::string& arg : args) {
      if (!copies.empty() && arg.starts_with(copies)) arg = fmt::format("DIR/configs/{}", arg.substr(copies.size()));
    }
    list.push_back({{"id", cell.id}, {"values", cell.values}, {"args", std::move(args)}});
  }
  return record;
}

namespace {

void write_atomically(const fs::path& path, const std::string& text) {
  // A name of its own (mkstemp): shards of one sweep, each perhaps PID 1 in its pod, may write the
  // same record into a shared volume at once.
  std::string temporary = (path.parent_path() / fmt::format(".{}.XXXXXX", path.filename().string())).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw core::InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    fs::remove(temporary);
    throw core::InputError(fmt::format("{}: cannot write", temporary));
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) throw core::InputError(fmt::format("{}: cannot write: {}", path.string(), error.message()));
}

// Empty, or holding only what a sweep starting beside this one writes before its record is in
// place (its record's temporary file).
bool only_sweep_entries(const fs::path& dir) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(fmt::format(".{}.", kSweepManifestName))) return false;
  }
  return !error;
}

}  // namespace

nlohmann::ordered_json read_sweep_record(const fs::path& dir) {
  const fs::path path = dir / kSweepManifestName;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw core::InputError(fmt::format("{}: not a gpusim sweep directory (no {}; `gpusim sweep FILE --out DIR` writes one)",
                                       dir.string(), kSweepManifestName));
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: not a record gpusim sweep wrote: {}", path.string(), e.what()));
  }
}

void prepare_sweep_dir(const fs::path& dir, const nlohmann::ordered_json& record, const std::vector<DerivedConfig>& configs) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error)) {
    throw core::InputError(fmt::format("--out {}: exists and is not a directory", dir.string()));
  }
  bool same = false;
  if (fs::exists(dir / kSweepManifestName, error)) {
    const nlohmann::ordered_json earlier = read_sweep_record(dir);
    same = earlier == record;  // resumed: the same sweep, whose record stays as it is
    if (!earlier.contains("cells") || earlier["cells"] != record["cells"]) {
      throw core::InputError(fmt::format("--out {}: holds another sweep (its cells differ from this file's); give a new "
                                         "directory, or remove that one yourself", dir.string()));
    }
  } else if (fs::exists(dir, error) && !only_sweep_entries(dir)) {
    throw core::InputError(fmt::format("--out {}: not empty and not a gpusim sweep directory (no {}); gpusim writes only "
                                       "into an absent or empty directory, or resumes its own sweep",
                                       dir.string(), kSweepManifestName));
  }
  // The record first: a shard starting beside this one then finds a sweep directory, never one
  // holding only subdirectories.
  fs::create_directories(dir, error);
  if (error) throw core::InputError(fmt::format("--out {}: cannot create: {}", dir.string(), error.message()));
  if (!same) write_atomically(dir / kSweepManifestName, record.dump(2) + "\n");
  fs::create_directories(dir / "cells", error);
  if (!error) fs::create_directories(dir / "logs", error);
  if (error) throw core::InputError(fmt::format("--out {}: cannot create: {}", dir.string(), error.message()));
  for (const DerivedConfig& config : configs) {
    if (fs::is_symlink(dir / "configs", error) || fs::is_symlink(config.path.parent_path(), error) || fs::is_symlink(config.path, error)) {
      throw core::InputError(fmt::format("--out {}: {} is a symbolic link; gpusim sweep writes only its own files", dir.string(),
                                         config.path.string()));
    }
    if (fs::exists(config.path, error)) {
      std::ifstream in(config.path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str() == config.text) continue;
      throw core::InputError(fmt::format("--out {}: {} differs from the copy this sweep makes now (its configuration file "
                                         "changed since the sweep began); give a new directory",
                                         dir.string(), config.path.string()));
    }
    fs::create_directories(config.path.parent_path(), error);
    if (error) throw core::InputError(fmt::format("--out {}: cannot create: {}", config.path.parent_path().string(), error.message()));
    write_atomically(config.path, config.text);
  }
}

fs::path cell_dir(const fs::path& dir, const std::string& id) { return dir / "cells" / id; }

bool cell_complete(const fs::path& dir, const std::string& id) {
  std::error_code error;
  return fs::is_regular_file(cell_dir(dir, id) / io::kManifestName, error);
}

}  // namespace gpusim::sweep
