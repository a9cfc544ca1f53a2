#pragma once
// Reading a gpusim output directory back: summary.json and the per-run CSVs it was written with
// (results/README.md). Used by the report, the plots and the OpenMetrics export, so that each
// works on a finished output without re-simulating.
#include <deque>
#include <filesystem>
#include <memory>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim::report {

struct RunFiles {
  std::string policy;
  std::uint64_t seed = 0;
  std::filesystem::path dir;  // holds pods.csv, timeseries.csv, curve.csv (fill)
};

struct OutputFiles {
  std::filesystem::path dir;
  nlohmann::ordered_json summary;
  std::vector<RunFiles> runs;  // in summary order: policy by policy, seed by seed
  bool fill() const { return summary.value("mode", "") == "fill"; }
};

// Throws core::InputError when `dir` has no readable summary.json.
OutputFiles read_output(const std::filesystem::path& dir);

// A whole CSV of numbers, by column name; "" fields read as NaN. Throws core::InputError.
struct Table {
  std::filesystem::path source;  // the file it was read from, for errors
  std::vector<std::string> header;
  // Every row's fields, row after row (header.size() each): views into the file's text, or into
  // `unquoted` for a field that was quoted. A pods.csv of 10^5 rows is 2 M fields: a string each
  // cost a plotted replay 8 % of its command, and a vector a row 9 % of Philly's. Both are held by
  // pointer, so a moved Table's views stay valid.
  std::vector<std::string_view> fields;
  std::unique_ptr<const std::string> text;
  std::unique_ptr<std::deque<std::string>> unquoted;
  // Every row has the header's fields (read_table refuses others). Throws "<source>:1: header:
  // missing column ..." when absent.
  std::size_t column(const std::string& name) const;
  std::size_t row_count() const { return header.empty() ? 0 : fields.size() / header.size(); }
  std::span<const std::string_view> row(std::size_t r) const { return {fields.data() + r * header.size(), header.size()}; }
  double number(std::size_t row, std::size_t column) const;  // NaN when empty
};
Table read_table(const std::filesystem::path& csv);

}  // namespace gpusim::report
