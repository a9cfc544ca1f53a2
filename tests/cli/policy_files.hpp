#pragma once
// Policies as a user writes them: a built-in one's KubeSchedulerConfiguration (`gpusim config show
// NAME`) renamed with other args, or a placement profile of one's own.
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

// A one-profile KubeSchedulerConfiguration with none of kube-scheduler's default plugins: the
// given filters and score plugins (YAML flow entries: "{name: best-fit, weight: 1000}"), GPU
// selection and tie rule, every node scored.
inline std::string placement_policy(const std::string& name, const std::string& score, const std::string& gpu_selection = "best",
                                    const std::string& tie_break = "SeededRank", const std::string& filters = "{name: NodeResourcesFit}") {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100\n"
         "profiles:\n- schedulerName: " + name + "\n  tieBreak: " + tie_break + "\n  plugins:\n"
         "    multiPoint: {disabled: [{name: '*'}]}\n    queueSort: {enabled: [{name: PrioritySort}]}\n"
         "    filter: {enabled: [" + filters + "]}\n    score: {enabled: [" + score + "]}\n"
         "    bind: {enabled: [{name: DefaultBinder}]}\n    gpuSelection: {enabled: [{name: " + gpu_selection + "}]}\n";
}

}  // namespace gpusim::testing
