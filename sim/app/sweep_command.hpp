#pragma once
// `gpusim sweep FILE.yaml --out DIR`: every cell of a declarative sweep (sweeps/FORMAT.md) as its
// own `gpusim run`, on a pool of threads, resumable, then merged; `--dry-run` lists the cells;
// `--shards K` runs one Indexed Job pod's share (JOB_COMPLETION_INDEX), `--emit-job` writes that
// Job's manifest, and `gpusim sweep merge DIR` merges a sweep directory's cells.
#include <CLI/CLI.hpp>
#include <string>

#include "sim/app/progress_options.hpp"
#include "sim/io/output_dir.hpp"

namespace gpusim::app {

struct SweepOptions {
  std::string file;
  std::string out;
  bool dry_run = false;
  int threads = 0;
  ProgressOptions progress;
  std::string merge_dir;  // sweep merge DIR
  // A Kubernetes Indexed Job's shard: this process runs cells i with i % shards == JOB_COMPLETION_INDEX.
  int shards = 0;
  // --emit-job: the Indexed Job manifest on stdout.
  bool emit_job = false;
  int parallelism = 0;  // 0: as many as shards
  std::string image = "gpusim:latest";
  std::string volume_claim = "gpusim-sweep";
  std::string workdir = "/opt/gpusim";
};

struct SweepCommands {
  CLI::App* sweep = nullptr;
  CLI::App* merge = nullptr;
};

SweepCommands add_sweep_commands(CLI::App& app, SweepOptions& options);

// `gpusim` is this executable (each cell runs it). Returns the exit code; throws
// core::InputError, UsageError.
int run_sweep_commands(const SweepCommands& commands, const SweepOptions& options, const std::string& gpusim,
                       io::AbandonList& abandon);

}  // namespace gpusim::app
