#include "sim/sweep/cells.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/io/output_dir.hpp"

namespace gpusim::sweep {
namespace fs = std::filesystem;

std::vector<Cell> expand_cells(const SweepSpec& spec) {
  const std::size_t count = cell_count(spec);
  const int width = std::max<int>(4, static_cast<int>(std::to_string(count - 1).size()));
  std::vector<Cell> cells;
  cells.reserve(count);
  std::vector<std::size_t> at(spec.axes.size(), 0);
  for (std::size_t index = 0; index < count; ++index) {
    Cell cell;
    cell.id = fmt::format("c{:0{}}", index, width);
    cell.args.push_back("run");
    for (const RunOption& option : spec.run) {
      cell.args.push_back("--" + option.name);
      if (!option.value.empty()) cell.args.push_back(option.value);
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      cell.values.push_back(spec.axes[a].values[at[a]]);
      cell.args.push_back("--" + spec.axes[a].name);
      cell.args.push_back(cell.values.back());
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

nlohmann::ordered_json sweep_record(const SweepSpec& spec, const std::vector<Cell>& cells) {
  nlohmann::ordered_json record;
  record["tool"] = "gpusim sweep";
  record["about"] = "gpusim sweep wrote this directory: cells/ (one `gpusim run` output each), logs/ and merged/";
  record["name"] = spec.name;
  record["file"] = spec.file;
  record["metrics"] = spec.metrics;
  record["metrics_line"] = spec.metrics_line;
  auto& axes = record["axes"] = nlohmann::ordered_json::array();
  for (const Axis& axis : spec.axes) axes.push_back({{"name", axis.name}, {"numeric", axis.numeric}, {"values", axis.values}});
  auto& list = record["cells"] = nlohmann::ordered_json::array();
  for (const Cell& cell : cells) list.push_back({{"id", cell.id}, {"values", cell.values}, {"args", cell.args}});
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

void prepare_sweep_dir(const fs::path& dir, const nlohmann::ordered_json& record) {
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
}

fs::path cell_dir(const fs::path& dir, const std::string& id) { return dir / "cells" / id; }

bool cell_complete(const fs::path& dir, const std::string& id) {
  std::error_code error;
  return fs::is_regular_file(cell_dir(dir, id) / io::kManifestName, error);
}

}  // namespace gpusim::sweep
