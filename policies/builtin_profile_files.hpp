#pragma once
// The built-in policies' KubeSchedulerConfiguration files (policies/profiles/<name>.yaml), built
// into the binary by policies/embed_profiles.cmake; sim/config/profiles.hpp reads them.
#include <span>
#include <string_view>

namespace gpusim::policy {

struct BuiltinProfileFile {
  std::string_view name;  // the policy's canonical name
  std::string_view path;  // relative to the repository
  std::string_view text;
};

// In the order `gpusim policies` lists them.
std::span<const BuiltinProfileFile> builtin_profile_files();

}  // namespace gpusim::policy
