#pragma once
// `gpusim policies [--describe NAME]`: the built-in policies, or one policy's plugins and args.
// `gpusim config check FILE...`: validates configuration files without running anything.
// `gpusim config show NAME`: prints a built-in policy's KubeSchedulerConfiguration, to copy.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpusim::app {

struct ConfigOptions {
  std::string describe;            // policies --describe
  std::vector<std::string> files;  // config check
  std::string show;                // config show
};

struct ConfigCommands {
  CLI::App* policies = nullptr;
  CLI::App* check = nullptr;
  CLI::App* show = nullptr;
};

ConfigCommands add_config_commands(CLI::App& app, ConfigOptions& options);
// Runs whichever of them was given; returns the exit code, or -1 when none was.
int run_config_commands(const ConfigCommands& commands, const ConfigOptions& options);

}  // namespace gpusim::app
