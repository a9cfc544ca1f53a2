#include "traces/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::traces {
namespace {

void split(std::string_view row, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = row.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(row.substr(start));
      return;
    }
    out.push_back(row.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

CsvReader::CsvReader(const std::filesystem::path& path) : file_(path.string()), in_(&owned_) {
  io::require_file(path, "CSV");
  owned_.open(path, std::ios::binary);
  read_header();
}

CsvReader::CsvReader(std::istream& in, std::string name) : file_(std::move(name)), in_(&in) { read_header(); }

void CsvReader::read_header() {
  // Blank and comment lines before the header are skipped (and counted) as they are after it.
  while (true) {
    if (!std::getline(*in_, row_)) throw core::InputError(fmt::format("{}:{}: empty file (no header line)", file_, line_ + 1));
    ++line_;
    if (!row_.empty() && row_.back() == '\r') row_.pop_back();
    if (row_.find_first_not_of(" \t") != std::string::npos && row_.front() != '#') break;
    if (skipped_++ == 0) first_skipped_ = line_;
  }
  header_line_ = line_;
  if (row_.find('"') != std::string::npos) {
    throw core::InputError(fmt::format("{}:{}: header: quoted fields are not supported", file_, line_));
  }
  split(row_, fields_);
  for (const auto f : fields_) {
    if (f.empty()) throw core::InputError(fmt::format("{}:{}: header: empty column name", file_, line_));
    if (std::find(header_.begin(), header_.end(), f) != header_.end()) {
      throw core::InputError(fmt::format("{}:{}: header: column '{}' appears twice", file_, line_, f));
    }
    header_.emplace_back(f);
  }
}

bool CsvReader::next() {
  while (std::getline(*in_, row_)) {
    ++line_;
    if (!row_.empty() && row_.back() == '\r') row_.pop_back();
    if (row_.find_first_not_of(" \t") == std::string::npos || row_.front() == '#') {
      if (skipped_++ == 0) first_skipped_ = line_;
      continue;
    }
    if (row_.find('"') != std::string::npos) {
      throw core::InputError(fmt::format("{}:{}: quoted fields are not supported", file_, line_));
    }
    split(row_, fields_);
    if (fields_.size() != header_.size()) {
      throw core::InputError(fmt::format("{}:{}: expected {} fields ({}), found {}", file_, line_,
                                         header_.size(), fmt::join(header_, ","), fields_.size()));
    }
    return true;
  }
  return false;
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t CsvReader::require_column(std::string_view name) const {
  if (const auto index = column(name)) return *index;
  throw core::InputError(fmt::format("{}:{}: header: missing column '{}'", file_, header_line_, name));
}

std::string_view CsvReader::field(std::size_t column) const { return fields_.at(column); }

void CsvReader::fail(std::size_t column, std::string_view reason) const {
  throw core::InputError(fmt::format("{}:{}: {}: {}", file_, line_,
                                     column < header_.size() ? header_[column] : "?", reason));
}

std::int64_t CsvReader::integer(std::size_t column) const {
  const std::string_view text = field(column);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty()) fail(column, "empty, expected an integer");
  if (error != std::errc{} || end != text.data() + text.size()) {
    fail(column, fmt::format("'{}' is not an integer", text));
  }
  return value;
}

std::int64_t CsvReader::non_negative_integer(std::size_t column) const {
  const std::int64_t value = integer(column);
  if (value < 0) fail(column, fmt::format("{} is negative", value));
  return value;
}

double CsvReader::number(std::size_t column) const {
  const std::string_view text = field(column);
  if (text.empty()) fail(column, "empty, expected a number");
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    fail(column, fmt::format("'{}' is not a number", text));
  }
  return value;
}

std::optional<double> CsvReader::optional_number(std::size_t column) const {
  if (field(column).empty()) return std::nullopt;
  return number(column);
}

}  // namespace gpusim::traces
