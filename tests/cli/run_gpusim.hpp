#pragma once
// Runs the real gpusim binary as a user would: in a chosen working directory, with its exit code
// and what it printed on stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gpusim::testing {

struct CliResult {
  int exit_code = -1;
  std::string err;
  std::string out;
};

// A fresh directory for the current test (ctest runs tests in parallel processes).
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cli" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Writes the header and the first `rows` rows of `source` (a CSV) to `target`: a slice of a bundled
// trace or cluster, small enough for the sanitizer build.
inline void copy_head(const std::filesystem::path& source, const std::filesystem::path& target, int rows) {
  std::ifstream in(source);
  std::ofstream out(target);
  std::string line;
  for (int n = 0; n <= rows && std::getline(in, line); ++n) out << line << '\n';
}

// One CSV line's fields, RFC 4180 quotes undone (pods.csv quotes a reason that holds commas).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// pods.csv rows by pod name: every column, keyed by header.
inline std::map<std::string, std::map<std::string, std::string>> pods_by_name(const std::filesystem::path& csv) {
  std::istringstream in(slurp(csv));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    auto& row = rows[f.at(1)];
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
  }
  return rows;
}

// `args` is appended to the binary's path as shell words; `launcher` (shell words too, such as
// "mpirun -np 3") comes before it.
inline CliResult run_gpusim(const std::filesystem::path& cwd, const std::string& args, const std::string& launcher = "") {
  const auto err = cwd / ".stderr";
  const auto out = cwd / ".stdout";
  const std::string command = "cd '" + cwd.string() + "' && " + launcher + " " + GPUSIM_TEST_BINARY + " " + args + " > '" +
                              out.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = slurp(err);
  result.out = slurp(out);
  std::filesystem::remove(err);
  std::filesystem::remove(out);
  return result;
}

}  // namespace gpusim::testing
