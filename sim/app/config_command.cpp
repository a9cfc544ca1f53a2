#include "sim/app/config_command.hpp"

#include <fmt/format.h>

#include "policies/register_builtin.hpp"
#include "sim/app/exit_codes.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/describe.hpp"
#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::app {
namespace {

void list_policies() {
  for (const auto& name : sched::builtin_profile_names()) {
    const std::string paper = sched::paper_name(name);
    fmt::print("{:<16}{}\n", name, paper.empty() ? sched::policy_summary(name) : fmt::format("FGD paper: {}", paper));
  }
  fmt::print("\n`gpusim policies --describe NAME` shows one's plugins and args; `gpusim config show NAME` prints its file.\n");
}

int describe(const std::string& name_or_path) {
  const sched::Registry registry = policy::builtin_registry();
  if (const policy::BuiltinProfileFile* file = config::builtin_profile_file(name_or_path)) {
    const sched::Profile profile = config::builtin_profile(name_or_path);
    fmt::print("{}", config::describe_profile(profile, registry, fmt::format("{} (built in)", file->path)));
    const std::string summary = sched::policy_summary(profile.name);
    if (!summary.empty()) fmt::print("what it does: {}\n", summary);
    return kExitOk;
  }
  const std::vector<sched::Profile> profiles = config::resolve_profiles(name_or_path, registry);
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    if (i > 0) fmt::print("\n");
    fmt::print("{}", config::describe_profile(profiles[i], registry, name_or_path));
  }
  return kExitOk;
}

// Every file is checked, and every error reported, before the exit code says whether all were good.
int check(const std::vector<std::string>& files) {
  int status = kExitOk;
  for (const std::string& file : files) {
    config::RunConfiguration read;
    try {
      const std::string account = config::read_config_file(file, read);
      fmt::print("{}: ok: {}\n", file, account);
      for (const std::string& note : read.notes) fmt::print("  note: {}\n", note);
    } catch (const core::InputError& e) {
      fmt::print(stderr, "gpusim: error: {}\n", e.what());
      status = kExitBadInput;
    }
  }
  return status;
}

}  // namespace

ConfigCommands add_config_commands(CLI::App& app, ConfigOptions& options) {
  ConfigCommands commands;
  commands.policies = app.add_subcommand("policies", "List the built-in policies (names match in any case, '-' and '_' optional)");
  commands.policies->add_option("--describe", options.describe,
                                "NAME or configuration file: the policy's plugins per extension point, their args with "
                                "defaults and where each value comes from, and its file");
  auto* config = app.add_subcommand("config", "Check configuration files, or print a built-in policy's");
  config->require_subcommand(1);
  commands.check = config->add_subcommand(
      "check", "Validate configuration files (KubeSchedulerConfiguration, ...) without running anything; exit 1 if any is bad");
  commands.check->add_option("files", options.files, "Files to check")->required();
  commands.show = config->add_subcommand("show", "Print a built-in policy's KubeSchedulerConfiguration (a start for your own)");
  commands.show->add_option("name", options.show, "Built-in policy")->required();
  return commands;
}

int run_config_commands(const ConfigCommands& commands, const ConfigOptions& options) {
  if (*commands.policies) {
    if (!options.describe.empty()) return describe(options.describe);
    list_policies();
    return kExitOk;
  }
  if (*commands.check) return check(options.files);
  if (*commands.show) {
    const policy::BuiltinProfileFile* file = config::builtin_profile_file(options.show);
    if (file == nullptr) config::builtin_profile(options.show);  // throws, naming the built-in policies
    fmt::print("# {}\n{}", file->path, file->text);
    return kExitOk;
  }
  return -1;
}

}  // namespace gpusim::app
