#pragma once
// Opening input files with messages that say what is wrong: a missing file, a directory where a
// file was expected, and an unreadable file each get their own message naming the path.
#include <filesystem>
#include <string>
#include <string_view>

namespace gpusim::io {

// Throws core::InputError unless `path` is a readable regular file. `what` names the kind of
// file in the message ("pod list", "KubeSchedulerConfiguration", ...).
void require_file(const std::filesystem::path& path, std::string_view what);
// The same for a directory.
void require_directory(const std::filesystem::path& path, std::string_view what);
// The whole file, after require_file.
std::string read_file(const std::filesystem::path& path, std::string_view what);

}  // namespace gpusim::io
