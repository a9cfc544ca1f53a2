#pragma once
// The one place that decides where gpusim may write a run's outputs, and that replaces an older
// output without ever deleting a file gpusim did not write.
//
// Rules (results/README.md, "Safe outputs"):
//  - The path is normalised ("out/x/", "./out/x" and "out/x" are one directory) and symbolic
//    links are resolved: a link is judged by what it points to.
//  - An absent or empty directory is created; one that holds an earlier gpusim output (its
//    manifest, gpusim-manifest.json, lists every file in it) is replaced atomically; anything
//    else is refused, as are the working directory and its ancestors, the home directory, and a
//    directory that holds one of the run's own inputs.
//  - The output is written into a staging directory beside the target, created before any
//    simulation runs (so an unwritable path fails at once), and swapped into place at the end.
//  - An abandoned output (an error, an exception, an interrupt) removes only its staging
//    directory and the parent directories it created; the older output stays as it was.
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace gpusim::io {

inline constexpr const char* kManifestName = "gpusim-manifest.json";

// Shared with the interrupt handler: what to remove if the process is told to stop. The mutex
// is held while the output is swapped into place, so a signal never sees half a swap.
struct AbandonList {
  std::mutex mutex;
  std::vector<std::filesystem::path> remove_trees;  // staging directories (all ours)
  std::vector<std::filesystem::path> remove_empty;  // parent directories we created, deepest first
  // Child processes to pass a stopping signal on to (a sweep's running cells), so that each removes
  // its own partial output and none goes on after the sweep has stopped.
  std::vector<int> stop_children;
  // Removes what is listed (best effort, never throws) and clears the lists. Caller holds mutex.
  void abandon_locked() noexcept;
};

class OutputDirectory {
 public:
  // Checks `requested` against the rules above, creates missing parents and the staging
  // directory. `inputs` are the run's input files and directories (the output may not contain
  // them). Throws core::InputError with a message naming the path and the reason.
  // `option` names where the path came from in messages ("--out", "report DIR").
  OutputDirectory(const std::string& requested, const std::vector<std::filesystem::path>& inputs,
                  AbandonList* abandon, std::string gpusim_version, const std::string& option = "--out");
  // Not committed: removes the staging directory and the parents this object created.
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Where the outputs are written until commit().
  const std::filesystem::path& staging() const { return staging_; }
  // The resolved target directory.
  const std::filesystem::path& target() const { return target_; }

  // Writes the manifest (every file under staging), then swaps staging into place. An older
  // gpusim output there is removed file by file as its manifest lists them; a file that appeared
  // there since the check is kept and reported on stderr. Throws core::InputError on failure,
  // leaving the older output untouched.
  void commit();

 private:
  void abandon() noexcept;

  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> created_parents_;  // deepest first
  AbandonList* abandon_list_;
  AbandonList local_list_;
  std::string version_;
  bool committed_ = false;
};

// The files of an earlier gpusim output, as its manifest lists them (paths relative to `dir`),
// or an empty optional-like result with `why` set when `dir` is not one.
struct ManifestCheck {
  bool is_gpusim_output = false;
  std::string why;                  // when not: the reason, naming a foreign file if there is one
  std::vector<std::string> files;   // when it is: the files the manifest lists
};
ManifestCheck check_gpusim_output(const std::filesystem::path& dir);

}  // namespace gpusim::io
