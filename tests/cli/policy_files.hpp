#pragma once
// A policy derived from a built-in one, as a user writes it (`gpusim config show NAME`, renamed,
// with other args): the built-in's KubeSchedulerConfiguration with its profile renamed and one
// plugin's args replaced.
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/config/profiles.hpp"

namespace gpusim::testing {

// Writes dir/<name>.yaml; `args` is a YAML flow mapping ("{roundLengthSeconds: 100}").
inline std::filesystem::path derived_policy(const std::filesystem::path& dir, const std::string& base, const std::string& name,
                                            const std::string& plugin, const std::string& args) {
  std::string text(config::builtin_profile_file(base)->text);
  const std::string scheduler = "schedulerName: " + base;
  text.replace(text.find(scheduler), scheduler.size(), "schedulerName: " + name);
  if (const auto config = text.find("  pluginConfig:\n"); config != std::string::npos) text.erase(config);
  text += "  pluginConfig:\n  - name: " + plugin + "\n    args: " + args + "\n";
  const auto path = dir / (name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

}  // namespace gpusim::testing
