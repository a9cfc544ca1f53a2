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

std::vector<Cell> expand_cells(const SweepSpec& spec);

// What gpusim-sweep.json records: the sweep, its axes and metrics, and every cell's command.
nlohmann::ordered_json sweep_record(const SweepSpec& spec, const std::vector<Cell>& cells);

// Makes `dir` the sweep's directory: created when absent or empty; resumed when it holds this
// sweep's record (the same cells); refused when it holds another sweep or anything gpusim sweep
// did not write. Writes the record. Throws core::InputError naming the directory.
void prepare_sweep_dir(const std::filesystem::path& dir, const nlohmann::ordered_json& record);

// The record of the sweep in `dir`. Throws core::InputError when there is none.
nlohmann::ordered_json read_sweep_record(const std::filesystem::path& dir);

std::filesystem::path cell_dir(const std::filesystem::path& dir, const std::string& id);
// Complete: `gpusim run` committed its output (its manifest is written last, and swapped in whole).
bool cell_complete(const std::filesystem::path& dir, const std::string& id);

}  // namespace gpusim::sweep
