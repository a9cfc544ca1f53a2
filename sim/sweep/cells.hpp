#pragma once
// A sweep's cells: every combination of its axes, in a defined order (the first axis slowest, the
// last fastest), each the `gpusim run` command line it runs, and the directory that records them.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/sweep/sweep_file.hpp"

namespace gpusim::sweep {

inline constexpr const char* kSweepManifestName = "gpusim-sweep.json";

struct Cell {
  std::string id;                   // "c0000", ...: its directory under cells/
  std::vector<std::string> values;  // one per axis
  std::vector<std::string> args;    // `gpusim run` arguments, without --out and --quiet
};

// A configuration file that axes over its fields edit: its text, and where each field lies.
struct EditedConfig {
  std::string name;  // as the sweep file names it
  std::string text;
  struct Field {
    std::size_t axis = 0;  // the axis (an index into SweepSpec::axes) that varies it
    TextSpan span;
  };
  std::vector<Field> fields;
};

// Reads every file the sweep's field axes name (relative to `base`, the sweep file's directory)
// and finds each field. Throws core::InputError "sweep.yaml:LINE: axes.NAME.path: why".
std::vector<EditedConfig> read_edited_configs(const SweepSpec& spec, const std::filesystem::path& base);

// A cell's copy of an edited configuration file, which the sweep writes before any cell runs.
struct DerivedConfig {
  std::filesystem::path path;  // absolute: DIR/configs/fNNNN/NAME
  std::string text;
};

// Every cell, in order. Cells whose field axes hold the same values share one copy of each edited
// file, DIR/configs/fNNNN/ (`out` is DIR); their --config names it in place of the file. The
// copies are added to `derived`. `base` is the sweep file's directory, where relative file names
// resolve (so that `x.yaml` under run and its absolute path under an axis are one file).
std::vector<Cell> expand_cells(const SweepSpec& spec, const std::vector<EditedConfig>& edited = {},
                               const std::filesystem::path& out = "DIR", std::vector<DerivedConfig>* derived = nullptr,
                               const std::filesystem::path& base = {});

// What gpusim-sweep.json records: the sweep, its axes and metrics, and every cell's command.
// `out` is the sweep directory the cells' arguments name: the record names its copies of edited
// configuration files as DIR/configs/..., so that the sweep resumes through any path to it.
nlohmann::ordered_json sweep_record(const SweepSpec& spec, const std::vector<Cell>& cells, const std::filesystem::path& out = {});

// Makes `dir` the sweep's directory: created when absent or empty; resumed when it holds this
// sweep's record (the same cells); refused when it holds another sweep or anything gpusim sweep
// did not write. Writes the record. Throws core::InputError naming the directory.
// Writes the cells' copies of edited configuration files too; a copy already there that differs
// (the file changed since the sweep began) is refused.
void prepare_sweep_dir(const std::filesystem::path& dir, const nlohmann::ordered_json& record,
                       const std::vector<DerivedConfig>& configs = {});

// The record of the sweep in `dir`. Throws core::InputError when there is none.
nlohmann::ordered_json read_sweep_record(const std::filesystem::path& dir);

std::filesystem::path cell_dir(const std::filesystem::path& dir, const std::string& id);
// Complete: `gpusim run` committed its output (its manifest is written last, and swapped in whole).
bool cell_complete(const std::filesystem::path& dir, const std::string& id);

}  // namespace gpusim::sweep
