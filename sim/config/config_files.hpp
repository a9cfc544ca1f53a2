#pragma once
// The configuration files a run is given (`gpusim run --config FILE`, `gpusim config check`),
// each recognised by what it holds and read by the reader of its kind. A new kind is a reader of
// its own and one line in config_kinds() (sim/config/config_files.cpp).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/sched/profile.hpp"

namespace gpusim::config {

// What the configuration files of a run hold.
struct RunConfiguration {
  std::vector<sched::Profile> profiles;      // from KubeSchedulerConfigurations, in file order
  std::vector<std::string> profile_sources;  // per profile, its file
  std::vector<std::string> notes;            // what was accepted without changing the simulation
};

struct ConfigKind {
  const char* name;  // as its project names it ("KubeSchedulerConfiguration")
  // Whether the file's first YAML document is of this kind (cheap: its apiVersion, kind or keys).
  bool (*recognise)(const YAML::Node& first_document);
  // Reads the whole file into `into`; returns a one-line account of what it holds, for
  // `gpusim config check`. Throws core::InputError naming file, line and field.
  std::string (*read)(const std::string& text, const std::string& source, RunConfiguration& into);
};

std::span<const ConfigKind> config_kinds();

// Reads one file by its kind into `into`; returns "<kind>: <account>". A file of no known kind,
// or of several, is an error that lists the kinds.
std::string read_config_file(const std::string& path, RunConfiguration& into);

// For a file that reads as none of the kinds: when its top-level keys are mostly those of a format
// recognised by its keys alone (NVIDIA's device-plugin and mig-parted configs, whose keys have no
// apiVersion or kind to tell them), "<path>:<line>: <key>: unknown field of <format> (known: ...)"
// for its first key that format lacks, so that a typo is named rather than the file refused whole.
std::optional<std::string> unknown_field_of_nearest_kind(const YAML::Node& first_document, const std::string& path);

// Whether the file is a KubeSchedulerConfiguration (false when it cannot be read or parsed: its
// reader then says why).
bool is_kube_scheduler_config_file(const std::string& path);

}  // namespace gpusim::config
