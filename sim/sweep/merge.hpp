#pragma once
// The merged outputs of a sweep whose cells are all complete, in DIR/merged/: summary.json (every
// cell's metrics, and per group of cells that differ only in their seed, the seeds' mean, sample
// standard deviation, min and max), cells.csv, groups.csv and report.md. They are read from the
// cells' own summary.json files alone, so a threaded run, a resumed one and shards merged later
// give the same bytes.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/output_dir.hpp"

namespace gpusim::sweep {

// Cell `id`'s values of `metrics` (NaN: undefined in its run), from its summary.json. Throws
// core::InputError naming the sweep file's line of `metrics` (from `record`) when the cell has
// no such metric.
std::vector<double> read_cell_metrics(const std::filesystem::path& dir, const std::string& id, const std::vector<std::string>& metrics,
                                      const nlohmann::ordered_json& record);

// Throws core::InputError naming the cells that are missing or a metric a cell lacks.
std::filesystem::path merge_sweep(const std::filesystem::path& dir, io::AbandonList* abandon, const std::string& version);

}  // namespace gpusim::sweep
