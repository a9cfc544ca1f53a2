#include "sim/io/input_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "sim/core/status.hpp"

namespace gpusim::io {

namespace fs = std::filesystem;

void require_file(const fs::path& path, std::string_view what) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (path.empty()) throw core::InputError(fmt::format("empty path given for the {}", what));
  if (!fs::exists(status)) {
    throw core::InputError(fmt::format("{}: no such file (expected the {})", path.string(), what));
  }
  if (fs::is_directory(status)) {
    throw core::InputError(fmt::format("{}: is a directory, expected the {} file", path.string(), what));
  }
  if (!fs::is_regular_file(status)) {
    throw core::InputError(fmt::format("{}: not a regular file, expected the {}", path.string(), what));
  }
  if (!std::ifstream(path)) {
    throw core::InputError(fmt::format("{}: cannot open the {} for reading", path.string(), what));
  }
}

void require_directory(const fs::path& path, std::string_view what) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (!fs::exists(status)) throw core::InputError(fmt::format("{}: no such directory (expected the {})", path.string(), what));
  if (!fs::is_directory(status)) {
    throw core::InputError(fmt::format("{}: is a file, expected the {} directory", path.string(), what));
  }
}

std::string read_file(const fs::path& path, std::string_view what) {
  require_file(path, what);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw core::InputError(fmt::format("{}: read error in the {}", path.string(), what));
  return text.str();
}

}  // namespace gpusim::io
