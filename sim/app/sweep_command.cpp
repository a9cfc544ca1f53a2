#include "sim/app/sweep_command.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <optional>
#include <thread>

#include "sim/app/exit_codes.hpp"
#include "sim/app/simulate_command.hpp"
#include "sim/io/input_file.hpp"
#include "sim/sweep/cells.hpp"
#include "sim/sweep/merge.hpp"
#include <nlohmann/json.hpp>
#include "sim/sweep/runner.hpp"
#include "sim/sweep/sweep_file.hpp"

namespace gpusim::app {
namespace {

namespace fs = std::filesystem;

// `gpusim run`'s own options, so that a sweep file names exactly what the command takes.
sweep::RunOptionLookup run_option_lookup() {
  auto app = std::make_shared<CLI::App>();
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* run = add_run_command(*app, *options);
  return [app, options, run](const std::string& name) {
    const CLI::Option* option = run->get_option_no_throw("--" + name);
    if (option == nullptr) return sweep::RunOptionInfo{false, true, false};
    // CLI11: a flag expects no argument; a vector option (config) takes any number of them.
    return sweep::RunOptionInfo{true, option->get_expected_max() != 0, option->get_items_expected_max() > 1};
  };
}

std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos) return word;
  std::string text = "'";
  for (const char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

// The shard of an Indexed Job pod: Kubernetes sets JOB_COMPLETION_INDEX to 0 .. completions-1.
std::optional<std::size_t> shard_index(const SweepOptions& o) {
  if (o.shards == 0) return std::nullopt;
  const char* text = std::getenv("JOB_COMPLETION_INDEX");
  if (text == nullptr) {
    throw UsageError("--shards: JOB_COMPLETION_INDEX is not set (an Indexed Job's pods have it; by hand, set it to 0 .. shards-1)");
  }
  std::size_t index = 0;
  const std::string_view view(text);
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), index);
  if (error != std::errc{} || end != view.data() + view.size() || index >= static_cast<std::size_t>(o.shards)) {
    throw UsageError(fmt::format("--shards {}: JOB_COMPLETION_INDEX '{}' is not an index 0 .. {}", o.shards, text, o.shards - 1));
  }
  return index;
}

// A Kubernetes name: lower-case letters, digits and '-', at most 63 characters.
std::string dns_label(const std::string& name, std::size_t longest) {
  std::string label;
  for (const char c : name) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    label += std::isalnum(static_cast<unsigned char>(lower)) != 0 ? lower : '-';
  }
  while (!label.empty() && label.front() == '-') label.erase(label.begin());
  label = label.substr(0, longest);
  while (!label.empty() && label.back() == '-') label.pop_back();
  return label.empty() ? "sweep" : label;
}

// batch/v1 Job, completionMode Indexed: pod i runs shard i of the sweep (JOB_COMPLETION_INDEX,
// which Kubernetes sets in each pod) into a shared volume; `gpusim sweep merge` merges them after.
std::string indexed_job_manifest(const SweepOptions& o, const sweep::SweepSpec& spec, std::size_t cells) {
  if (o.shards == 0) throw UsageError("--emit-job needs --shards K (the Job's completions: one shard per pod)");
  const int parallelism = o.parallelism > 0 ? o.parallelism : o.shards;
  // Each pod's hostname is the Job's name, '-' and its index: a DNS label of at most 63 characters.
  const std::size_t index_digits = std::to_string(o.shards - 1).size();
  const std::string label = dns_label(spec.name, 63 - std::string("gpusim-sweep-").size() - 1 - index_digits);
  const std::string name = "gpusim-sweep-" + label;
  const std::string out = "/sweep/" + label;
  YAML::Emitter yaml;
  yaml << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "batch/v1" << YAML::Key << "kind" << YAML::Value << "Job";
  yaml << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << name;
  yaml << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap << YAML::Key << "sweep.gpusim/cells" << YAML::Value
       << YAML::DoubleQuoted << std::to_string(cells) << YAML::EndMap << YAML::EndMap;
  yaml << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  yaml << YAML::Key << "completionMode" << YAML::Value << "Indexed";
  yaml << YAML::Key << "completions" << YAML::Value << o.shards;
  yaml << YAML::Key << "parallelism" << YAML::Value << parallelism;
  yaml << YAML::Key << "backoffLimit" << YAML::Value << o.shards;
  yaml << YAML::Key << "template" << YAML::Value << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  yaml << YAML::Key << "restartPolicy" << YAML::Value << "Never";
  yaml << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  yaml << YAML::Key << "name" << YAML::Value << "gpusim" << YAML::Key << "image" << YAML::Value << YAML::DoubleQuoted << o.image;
  yaml << YAML::Key << "workingDir" << YAML::Value << YAML::DoubleQuoted << o.workdir;
  yaml << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << "gpusim" << "sweep" << YAML::DoubleQuoted << o.file << "--out" << YAML::DoubleQuoted << out
       << "--shards" << YAML::DoubleQuoted << std::to_string(o.shards) << "--threads" << YAML::DoubleQuoted << "1"
       << "--progress-every" << YAML::DoubleQuoted << "60" << YAML::EndSeq;
  yaml << YAML::Key << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "requests" << YAML::Value << YAML::BeginMap
       << YAML::Key << "cpu" << YAML::Value << "1" << YAML::Key << "memory" << YAML::Value << "2Gi" << YAML::EndMap << YAML::EndMap;
  yaml << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value
       << "sweep-out" << YAML::Key << "mountPath" << YAML::Value << "/sweep" << YAML::EndMap << YAML::EndSeq;
  yaml << YAML::EndMap << YAML::EndSeq;
  yaml << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value
       << "sweep-out" << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap << YAML::Key << "claimName"
       << YAML::Value << YAML::DoubleQuoted << o.volume_claim << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  yaml << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return fmt::format("# gpusim sweep {}: {} cells in {} shards (pod i runs cells i, i+{}, ...) into the volume {}; then\n"
                     "# `gpusim sweep merge {}` in a pod with that volume merges them.\n{}\n",
                     spec.name, cells, o.shards, o.shards, o.volume_claim, out, yaml.c_str());
}

}  // namespace

LoadedSweep load_sweep(const SweepOptions& o) {
  if (o.file.empty()) throw UsageError("sweep: give the sweep file (gpusim sweep FILE.yaml --out DIR)");
  LoadedSweep loaded;
  const std::string text = io::read_file(o.file, "sweep file");
  loaded.spec = sweep::parse_sweep(o.file, text, run_option_lookup());
  // Relative paths in the file's options are the file's neighbours, wherever gpusim is run from.
  loaded.working_dir = fs::absolute(fs::path(o.file)).parent_path();
  const std::vector<sweep::EditedConfig> edited = sweep::read_edited_configs(loaded.spec, loaded.working_dir);
  const fs::path out = o.out.empty() ? fs::path("DIR") : fs::absolute(fs::path(o.out)).lexically_normal();
  loaded.cells = sweep::expand_cells(loaded.spec, edited, out, &loaded.configs, loaded.working_dir);
  return loaded;
}

bool print_sweep_plan(const SweepOptions& o, const LoadedSweep& loaded) {
  if (o.dry_run) {
    fmt::print("# sweep {}: {} cells; each runs in {}:\n", loaded.spec.name, loaded.cells.size(), loaded.working_dir.string());
    for (const sweep::Cell& cell : loaded.cells) {
      std::string line = fmt::format("{}  gpusim", cell.id);
      for (const std::string& arg : cell.args) line += fmt::format(" {}", quoted(arg));
      fmt::print("{} --out {} --quiet\n", line, quoted((fs::path(o.out.empty() ? "DIR" : o.out) / "cells" / cell.id).string()));
    }
    return true;
  }
  if (o.emit_job) {
    fmt::print("{}", indexed_job_manifest(o, loaded.spec, loaded.cells.size()));
    return true;
  }
  return false;
}

fs::path sweep_out_dir(const SweepOptions& o) {
  if (o.out.empty()) throw UsageError("sweep: --out DIR is required (or --dry-run to list the cells)");
  return fs::absolute(fs::path(o.out)).lexically_normal();
}

sweep::RunnerOptions sweep_runner_options(const SweepOptions& o, const LoadedSweep& loaded, const fs::path& out,
                                          const std::string& gpusim, io::AbandonList& abandon) {
  sweep::RunnerOptions runner;
  // A mistyped metric is found once the first cell has run, not at the merge after the last.
  runner.check_first_cell = [out, metrics = loaded.spec.metrics, record = nlohmann::ordered_json{{"file", loaded.spec.file}, {"metrics_line", loaded.spec.metrics_line}}](const sweep::Cell& cell) {
    sweep::read_cell_metrics(out, cell.id, metrics, record);
  };
  runner.gpusim = gpusim;
  runner.working_dir = loaded.working_dir;
  runner.out = out;
  runner.threads = o.threads > 0 ? static_cast<unsigned>(o.threads) : std::max(1U, std::thread::hardware_concurrency());
  runner.progress = !o.progress.quiet;
  runner.abandon = &abandon;
  runner.style = progress_style(o.progress, "cells");
  return runner;
}

void print_cell_failures(const sweep::RunnerOutcome& outcome, const fs::path& out) {
  if (outcome.leftovers_removed > 0) {
    fmt::print(stderr, "gpusim: note: removed {} staging director{} that cells killed in an earlier run left in {}\n",
               outcome.leftovers_removed, outcome.leftovers_removed == 1 ? "y" : "ies", (out / "cells").string());
  }
  if (!outcome.check_error.empty()) {
    fmt::print(stderr, "gpusim: error: {} (found once the first cell ran; no further cell started, and completed cells are kept)\n",
               outcome.check_error);
  }
  if (outcome.failures.empty()) return;
  const auto& first = outcome.failures.front();
  fmt::print(stderr, "gpusim: error: {} cell{} failed; completed cells are kept, and a rerun with the same --out runs only "
             "the others. {} exited {} ({}):\n{}",
             outcome.failures.size(), outcome.failures.size() == 1 ? "" : "s", first.id, first.exit_code,
             (out / "logs" / (first.id + ".log")).string(), first.log_tail);
}

namespace {

int run_sweep(const SweepOptions& o, const std::string& gpusim, io::AbandonList& abandon) {
  const auto started = std::chrono::steady_clock::now();
  const LoadedSweep loaded = load_sweep(o);
  if (print_sweep_plan(o, loaded)) return kExitOk;
  const fs::path out = sweep_out_dir(o);
  const std::optional<std::size_t> shard = shard_index(o);
  sweep::prepare_sweep_dir(out, sweep::sweep_record(loaded.spec, loaded.cells, out), loaded.configs);
  sweep::RunnerOptions runner = sweep_runner_options(o, loaded, out, gpusim, abandon);
  if (shard) runner.selected = [&](std::size_t i) { return i % static_cast<std::size_t>(o.shards) == *shard; };
  const sweep::RunnerOutcome outcome = sweep::run_cells(loaded.cells, runner);
  print_cell_failures(outcome, out);
  if (!outcome.failures.empty() || !outcome.check_error.empty()) return kExitBadInput;
  if (shard) {
    fmt::print("shard {} of {}: {} cells: {} run, {} complete before; merge them all with `gpusim sweep merge {}`\n", *shard,
               o.shards, outcome.ran + outcome.skipped, outcome.ran, outcome.skipped, o.out);
    return kExitOk;
  }
  const fs::path merged = sweep::merge_sweep(out, &abandon, GPUSIM_VERSION);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("wrote {} ({} cells: {} run, {} complete before; {:.2f} s wall)\n", merged.string(), loaded.cells.size(), outcome.ran,
             outcome.skipped, wall);
  return kExitOk;
}

// The number of ranks when an MPI launcher (mpirun, mpiexec, srun) started this process.
std::optional<std::string> mpi_launch() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (const char* value = std::getenv(variable)) return fmt::format("{}={}", variable, value);
  }
  return std::nullopt;
}

}  // namespace

SweepCommands add_sweep_commands(CLI::App& app, SweepOptions& o) {
  SweepCommands commands;
  commands.sweep = app.add_subcommand(
      "sweep", "Run every cell of a declarative sweep file (sweeps/FORMAT.md) as its own `gpusim run`, resumably, and merge "
               "them into one table and report");
  commands.sweep->add_option("file", o.file, "The sweep file (YAML)");
  commands.sweep->add_option("--out", o.out,
                             "The sweep's directory: created if absent or empty, resumed if it holds this sweep (cells "
                             "already complete are kept), refused otherwise");
  commands.sweep->add_flag("--dry-run", o.dry_run, "List the cells and their `gpusim run` commands; run nothing");
  commands.sweep->add_option("--threads", o.threads, "Cells run at once (default: all hardware threads)")
      ->check(CLI::Range(1, 4096));
  add_progress_options(*commands.sweep, o.progress);
  commands.sweep->add_option("--shards", o.shards,
                             "Run one shard of K: the cells i with i % K == JOB_COMPLETION_INDEX (as an Indexed Job's pod "
                             "does), and no merge (`gpusim sweep merge DIR` once every shard is done)")
      ->check(CLI::Range(1, 100000));
  commands.sweep->add_flag("--emit-job", o.emit_job,
                           "Print a Kubernetes Indexed Job manifest that runs the sweep in --shards pods on a shared volume");
  commands.sweep->add_option("--parallelism", o.parallelism, "--emit-job: pods at once (default: --shards)")
      ->check(CLI::Range(1, 100000));
  commands.sweep->add_option("--image", o.image, "--emit-job: the container image, with gpusim and this checkout")
      ->capture_default_str();
  commands.sweep->add_option("--workdir", o.workdir, "--emit-job: the checkout's path in the image (the sweep file's path is relative to it)")
      ->capture_default_str();
  commands.sweep->add_option("--volume-claim", o.volume_claim, "--emit-job: the PersistentVolumeClaim the shards write to")
      ->capture_default_str();
  commands.merge = commands.sweep->add_subcommand(
      "merge", "Merge a sweep directory's complete cells into DIR/merged (summary.json, cells.csv, groups.csv, report.md)");
  commands.merge->add_option("dir", o.merge_dir, "The sweep's directory")->required();
  return commands;
}

void exec_sweep_under_mpi(char** argv, const std::string& gpusim) {
  const std::optional<std::string> launch = mpi_launch();
  if (!launch) return;
  // gpusim itself is not linked with MPI, which would add to every `gpusim run`'s start (each
  // sweep cell is one): under a launcher, the sweep is gpusim-sweep-mpi's, built beside it.
  const fs::path mpi = fs::path(gpusim).parent_path() / "gpusim-sweep-mpi";
  execv(mpi.c_str(), argv);
  throw UsageError(fmt::format("sweep: started by an MPI launcher ({}), but {} cannot run ({}); it is built beside gpusim "
                               "when CMake finds MPI (scripts/setup.sh installs OpenMPI). Without it every rank would run "
                               "every cell",
                               *launch, mpi.string(), std::strerror(errno)));
}

int run_sweep_commands(const SweepCommands& commands, const SweepOptions& o, const std::string& gpusim, io::AbandonList& abandon) {
  if (*commands.merge) {
    const fs::path merged = sweep::merge_sweep(fs::path(o.merge_dir), &abandon, GPUSIM_VERSION);
    fmt::print("wrote {}\n", merged.string());
    return kExitOk;
  }
  return run_sweep(o, gpusim, abandon);
}

}  // namespace gpusim::app
