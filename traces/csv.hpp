#pragma once
// A strict reader for the simple CSV files gpusim bundles: a header line, comma-separated
// fields, no quoting. Every error names the file, the line and the column. Blank lines (empty or
// only spaces) and comment lines (starting with '#') are skipped and counted, never silently:
// readers report the count (summary.json, stderr).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim::traces {

class CsvReader {
 public:
  // Opens the file and reads the header. Throws core::InputError.
  explicit CsvReader(const std::filesystem::path& path);
  // Reads from `in` (already open); `name` stands for the file in messages.
  CsvReader(std::istream& in, std::string name);

  // Reads the next data row; false at end of file. Blank and comment lines are skipped.
  bool next();
  // Blank and comment lines skipped so far, and the first of them (0: none).
  int skipped_lines() const { return skipped_; }
  int first_skipped_line() const { return first_skipped_; }
  int line() const { return line_; }
  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }

  // Column index of `name` in the header, if present.
  std::optional<std::size_t> column(std::string_view name) const;
  // The same, throwing "file:1: header: missing column 'name'" when absent.
  std::size_t require_column(std::string_view name) const;

  std::string_view field(std::size_t column) const;
  // Field parsers; each throws "file:line: column: reason".
  std::int64_t integer(std::size_t column) const;
  std::int64_t non_negative_integer(std::size_t column) const;
  double number(std::size_t column) const;
  // An empty field gives nullopt.
  std::optional<double> optional_number(std::size_t column) const;

  [[noreturn]] void fail(std::size_t column, std::string_view reason) const;

 private:
  void read_header();

  std::string file_;
  std::ifstream owned_;
  std::istream* in_;
  std::vector<std::string> header_;
  std::string row_;
  std::vector<std::string_view> fields_;
  int line_ = 0;
  int header_line_ = 1;
  int skipped_ = 0;
  int first_skipped_ = 0;
};

}  // namespace gpusim::traces
