#include "sim/report/output_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::report {

namespace fs = std::filesystem;

OutputFiles read_output(const fs::path& dir) {
  OutputFiles out;
  out.dir = dir;
  const fs::path summary = dir / "summary.json";
  try {
    out.summary = nlohmann::ordered_json::parse(io::read_file(summary, "gpusim summary"));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: invalid JSON: {}", summary.string(), e.what()));
  }
  try {
    // `gpusim run` writes its per-run files into the directory itself; `compare` into runs/.
    const bool single = !fs::exists(dir / "runs");
    for (const auto& policy : out.summary.at("policies")) {
      for (const auto& run : policy.at("runs")) {
        const std::string name = policy.at("name");
        const std::uint64_t seed = run.at("seed");
        out.runs.push_back({name, seed, single ? dir : dir / "runs" / name / fmt::format("seed-{}", seed)});
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: not a gpusim summary: {}", summary.string(), e.what()));
  }
  return out;
}

std::size_t Table::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  throw core::InputError(fmt::format("{}:1: header: missing column '{}'", source.string(), name));
}

double Table::number(std::size_t row, std::size_t column) const {
  if (row >= row_count() || column >= header.size()) throw std::out_of_range("Table::number");
  const std::string_view field = fields[row * header.size() + column];
  if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
  double value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc{} || end != field.data() + field.size()) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

Table read_table(const fs::path& csv) {
  Table table;
  table.text = std::make_unique<const std::string>(io::read_file(csv, "gpusim CSV output"));
  table.unquoted = std::make_unique<std::deque<std::string>>();
  const std::string_view whole = *table.text;
  table.source = csv;
  // Fields as RFC 4180 quotes them (pods.csv quotes a reason that holds commas); gpusim writes no
  // line break inside a field.
  const auto split = [&](std::string_view line, std::vector<std::string_view>& fields) {
    std::size_t start = 0;
    while (true) {
      if (start < line.size() && line[start] == '"') {
        std::string field;
        std::size_t i = start + 1;
        for (; i < line.size(); ++i) {
          if (line[i] != '"') {
            field += line[i];
          } else if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
          } else {
            break;
          }
        }
        fields.emplace_back(table.unquoted->emplace_back(std::move(field)));
        start = i + 1;  // past the closing quote, at the comma (or the end)
        if (start >= line.size()) break;
        ++start;
        continue;
      }
      const std::size_t comma = line.find(',', start);
      fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  };
  std::string_view rest = whole;
  bool first = true;
  std::size_t line_number = 0;
  while (!rest.empty()) {
    const std::size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    ++line_number;
    if (first) {
      std::vector<std::string_view> names;
      split(line, names);
      for (const std::string_view name : names) table.header.emplace_back(name);
      // Room for every row at once; a row of N fields takes at least N bytes, so a damaged file of a
      // wide header and many blank lines asks no more than its size.
      const std::size_t lines = static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + 1;
      table.fields.reserve(std::min(table.header.size() * lines, rest.size() + table.header.size()));
      first = false;
    } else if (!line.empty()) {
      const std::size_t before = table.fields.size();
      split(line, table.fields);
      // Every reader indexes rows by the header's columns: a short or long row is a damaged file.
      if (table.fields.size() - before != table.header.size()) {
        throw core::InputError(fmt::format("{}:{}: expected {} fields, found {}", csv.string(), line_number, table.header.size(),
                                           table.fields.size() - before));
      }
    }
  }
  if (first) throw core::InputError(fmt::format("{}: empty", csv.string()));
  return table;
}

}  // namespace gpusim::report
