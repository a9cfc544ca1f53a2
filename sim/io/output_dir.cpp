#include "sim/io/output_dir.hpp"

#include <fmt/format.h>
#include <stdio.h>  // renameat2 (glibc, _GNU_SOURCE)
#include <fcntl.h>  // AT_FDCWD
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/core/status.hpp"

namespace gpusim::io {
namespace {

namespace fs = std::filesystem;
using core::InputError;

// True when `path` is `dir` or lies below it (both absolute and normalised).
bool is_within(const fs::path& path, const fs::path& dir) {
  const auto [dir_end, path_end] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  (void)path_end;
  return dir_end == dir.end();
}

fs::path canonical_or_lexical(const fs::path& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(fs::absolute(path, error), error);
  return error ? fs::absolute(path, error).lexically_normal() : resolved;
}

// "--out" as the user wrote it, as an absolute, normalised path with symbolic links resolved.
fs::path resolve(const std::string& path_text, const std::string& option) {
  if (path_text.empty()) throw InputError(option + ": empty path; name a directory for the outputs");
  const std::string requested = option + " " + path_text;
  std::error_code error;
  fs::path path = fs::absolute(path_text, error);
  if (error) throw InputError(fmt::format("{}: {}", requested, error.message()));
  path = path.lexically_normal();
  if (!path.has_filename() && path != path.root_path()) path = path.parent_path();  // "out/x/"
  path = fs::weakly_canonical(path, error);
  if (error) throw InputError(fmt::format("{}: {}", requested, error.message()));
  const auto link = fs::symlink_status(path, error);
  if (!error && fs::is_symlink(link)) {
    throw InputError(fmt::format("{}: a symbolic link to {}, which does not exist", requested,
                                 fs::read_symlink(path, error).string()));
  }
  return path;
}

// Directories an output must never replace, whatever they hold.
void refuse_special(const fs::path& target, const std::string& requested) {
  if (target == target.root_path()) throw InputError(fmt::format("{}: refusing to write over the root directory", requested));
  std::error_code error;
  const fs::path cwd = fs::current_path(error);
  if (!error && is_within(canonical_or_lexical(cwd), target)) {
    throw InputError(fmt::format("{}: {} is the working directory or contains it; name a new or empty directory",
                                 requested, target.string()));
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    if (canonical_or_lexical(home) == target) {
      throw InputError(fmt::format("{}: refusing to write over the home directory", requested));
    }
  }
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", '" : "'") + items[i] + "'";
  if (items.size() > most) out += fmt::format(" and {} more", items.size() - most);
  return out;
}

// A manifest entry gpusim could have written: relative, inside the directory, no "." or "..".
bool is_safe_entry(const std::string& entry) {
  const fs::path path(entry);
  if (entry.empty() || path.is_absolute()) return false;
  for (const auto& part : path) {
    if (part == ".." || part == "." || part.empty()) return false;
  }
  return true;
}

// Every file (not directory) under `dir`, relative, sorted; symbolic links are not followed.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory(/*follows links*/) && !it->is_symlink()) continue;
    files.push_back(it->path().lexically_relative(dir).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// True when a directory between `dir` and `path` is a symbolic link (removing through it would
// delete something outside the output).
bool through_link(const fs::path& dir, const fs::path& path) {
  std::error_code error;
  for (fs::path p = path.parent_path(); p != dir && is_within(p, dir); p = p.parent_path()) {
    if (fs::is_symlink(fs::symlink_status(p, error))) return true;
  }
  return false;
}

void remove_listed(const fs::path& dir, const std::vector<std::string>& files) {
  std::error_code ignored;
  std::set<fs::path, std::greater<>> parents;  // deepest (longest) first
  for (const auto& file : files) {
    const fs::path path = dir / fs::path(file);
    // Checked again here (the manifest may have changed): never "../x", never through a link.
    if (!is_safe_entry(file) || through_link(dir, path)) continue;
    fs::remove(path, ignored);
    for (fs::path p = path.parent_path(); p != dir && is_within(p, dir); p = p.parent_path()) parents.insert(p);
  }
  fs::remove(dir / kManifestName, ignored);
  for (const auto& p : parents) fs::remove(p, ignored);  // only empty directories go
  fs::remove(dir, ignored);
}

// renameat2 with a flag; falls back where the file system does not support it.
int rename_with(const fs::path& from, const fs::path& to, unsigned flags) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags);
}

}  // namespace

void AbandonList::abandon_locked() noexcept {
  std::error_code ignored;
  for (const auto& tree : remove_trees) fs::remove_all(tree, ignored);
  for (const auto& dir : remove_empty) fs::remove(dir, ignored);  // fails, harmlessly, unless empty
  remove_trees.clear();
  remove_empty.clear();
}

ManifestCheck check_gpusim_output(const fs::path& dir) {
  ManifestCheck check;
  std::ifstream in(dir / kManifestName);
  if (!in) {
    check.why = fmt::format("holds files gpusim did not write (it has no {})", kManifestName);
    return check;
  }
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(in);
    if (manifest.at("tool").get<std::string>() != "gpusim") throw std::runtime_error("not written by gpusim");
    check.files = manifest.at("files").get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    check.why = fmt::format("has a {} that gpusim cannot read ({})", kManifestName, e.what());
    return check;
  }
  for (const auto& file : check.files) {
    if (!is_safe_entry(file)) {
      check.why = fmt::format("has a {} that lists an unsafe path '{}'", kManifestName, file);
      return check;
    }
  }
  const std::set<std::string> listed(check.files.begin(), check.files.end());
  std::set<std::string> listed_dirs;
  for (const auto& file : check.files) {
    for (fs::path p = fs::path(file).parent_path(); !p.empty(); p = p.parent_path()) listed_dirs.insert(p.generic_string());
  }
  std::vector<std::string> foreign;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error); !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    // Lexically: fs::relative would follow a symbolic link and name what it points to.
    const std::string relative = it->path().lexically_relative(dir).generic_string();
    // gpusim never writes links; a link in an output is someone else's, whatever its name.
    const bool link = it->is_symlink();
    const bool is_dir = !link && it->is_directory();
    if (!link && (is_dir ? listed_dirs.contains(relative) : (listed.contains(relative) || relative == kManifestName))) continue;
    foreign.push_back(relative);
    if (is_dir) it.disable_recursion_pending();
  }
  if (error) {
    check.why = fmt::format("cannot be listed ({})", error.message());
    return check;
  }
  if (!foreign.empty()) {
    check.why = fmt::format("holds files gpusim did not write: {}", quoted_list(foreign, 3));
    return check;
  }
  check.is_gpusim_output = true;
  return check;
}

OutputDirectory::OutputDirectory(const std::string& path, const std::vector<fs::path>& inputs,
                                 AbandonList* abandon, std::string gpusim_version, const std::string& option)
    : abandon_list_(abandon != nullptr ? abandon : &local_list_), version_(std::move(gpusim_version)) {
  // Messages read "<option> <path>: ...", e.g. "--out out/x: ...".
  const std::string requested = option + " " + path;
  target_ = resolve(path, option);
  refuse_special(target_, requested);
  for (const auto& input : inputs) {
    if (is_within(canonical_or_lexical(input), target_)) {
      throw InputError(fmt::format("{}: {} holds this run's input {}; choose another directory", requested,
                                   target_.string(), input.string()));
    }
  }
  std::error_code error;
  const auto status = fs::status(target_, error);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      throw InputError(fmt::format("{}: {} exists and is not a directory", requested, target_.string()));
    }
    if (!fs::is_empty(target_, error)) {
      const ManifestCheck check = check_gpusim_output(target_);
      if (!check.is_gpusim_output) {
        throw InputError(fmt::format("{}: {} is not empty and {}; gpusim replaces only its own earlier outputs. "
                                     "Name a new or empty directory.", requested, target_.string(), check.why));
      }
    }
  }
  // Missing parents, remembered so that an abandoned run removes them again.
  std::vector<fs::path> missing;
  for (fs::path p = target_.parent_path(); !fs::exists(p, error) && p != p.root_path(); p = p.parent_path()) {
    missing.push_back(p);
  }
  std::lock_guard lock(abandon_list_->mutex);
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, error) && error) {
      abandon_list_->abandon_locked();
      throw InputError(fmt::format("{}: cannot create {}: {}", requested, it->string(), error.message()));
    }
    abandon_list_->remove_empty.insert(abandon_list_->remove_empty.begin(), *it);
  }
  for (int attempt = 0;; ++attempt) {
    staging_ = target_.parent_path() /
               fmt::format(".{}.gpusim-partial-{}{}", target_.filename().string(), ::getpid(),
                           attempt == 0 ? std::string() : fmt::format("-{}", attempt));
    if (fs::create_directory(staging_, error)) break;
    if (error || attempt == 100) {
      const std::string why = error ? error.message() : "too many leftover staging directories";
      abandon_list_->abandon_locked();
      throw InputError(fmt::format("{}: cannot write in {}: {}", requested, target_.parent_path().string(), why));
    }
  }
  abandon_list_->remove_trees.push_back(staging_);
}

OutputDirectory::~OutputDirectory() {
  if (!committed_) abandon();
}

void OutputDirectory::abandon() noexcept {
  std::lock_guard lock(abandon_list_->mutex);
  abandon_list_->abandon_locked();
}

void OutputDirectory::commit() {
  std::lock_guard lock(abandon_list_->mutex);
  const auto fail = [&](const std::string& why) {
    abandon_list_->abandon_locked();
    committed_ = true;  // nothing left to abandon
    throw InputError(fmt::format("{}: outputs not written: {}", target_.string(), why));
  };
  try {
    nlohmann::ordered_json manifest;
    manifest["tool"] = "gpusim";
    manifest["version"] = version_;
    manifest["about"] = "gpusim wrote every file listed here; it replaces this directory only while nothing else is in it";
    manifest["files"] = files_under(staging_);
    std::ofstream out(staging_ / kManifestName);
    out << manifest.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.close();
    if (!out) fail(fmt::format("cannot write {}", kManifestName));
  } catch (const fs::filesystem_error& e) {
    fail(e.what());
  }

  std::error_code error;
  std::vector<std::string> old_files;
  const bool replacing = fs::exists(target_, error);
  if (replacing && !fs::is_empty(target_, error)) {
    // Checked again: files may have appeared in the target while the simulation ran.
    const ManifestCheck check = check_gpusim_output(target_);
    if (!check.is_gpusim_output) fail(fmt::format("{} now {}; the older output is untouched", target_.string(), check.why));
    old_files = check.files;
  }
  if (!replacing) {
    if (rename_with(staging_, target_, RENAME_NOREPLACE) != 0) {
      if (errno != EINVAL || std::rename(staging_.c_str(), target_.c_str()) != 0) fail(std::strerror(errno));
    }
  } else if (rename_with(staging_, target_, RENAME_EXCHANGE) != 0) {
    // No atomic exchange on this file system: move the old output aside, then the new one in.
    const fs::path aside = staging_.string() + "-old";
    if (errno != EINVAL || std::rename(target_.c_str(), aside.c_str()) != 0) fail(std::strerror(errno));
    if (std::rename(staging_.c_str(), target_.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::rename(aside.c_str(), target_.c_str());
      fail(why);
    }
    std::error_code ignored;
    fs::rename(aside, staging_, ignored);
  }
  // The staging path now holds the older output (or nothing): remove only what gpusim wrote.
  if (replacing) {
    remove_listed(staging_, old_files);
    if (fs::exists(staging_, error)) {
      fmt::print(stderr, "gpusim: warning: kept {}: it holds files that appeared in the older output during the run\n",
                 staging_.string());
    }
  }
  abandon_list_->remove_trees.clear();
  abandon_list_->remove_empty.clear();
  committed_ = true;
}

}  // namespace gpusim::io
