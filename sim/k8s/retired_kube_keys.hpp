#pragma once
// The --kube keys that gave NVIDIA's device-plugin, MIG manager and HAMi parameters in gpusim's own
// format, retired by issue 30: those parameters come from the projects' own files (--config). The
// settings reader refuses each key with the lines of the real file that replace it, filled with
// the values given, so that a user can paste them. What has no real counterpart stays in --kube:
// sharing.mpsActiveThreadPercentage, hami.fractionAsks, and HAMi's dynamic MIG (mig with
// dynamic: true, its starting layout and reconfigureTime).
#include <yaml-cpp/yaml.h>

#include <string>

namespace gpusim::k8s {

// `sharing` (time-slicing or mps, as `model` says): NVIDIA's device-plugin config.
std::string retired_sharing_message(const YAML::Node& sharing, bool mps);
// `hami`: HAMi's Helm values.
std::string retired_hami_message(const YAML::Node& hami);
// `mig` without dynamic: the device-plugin config's migStrategy and NVIDIA's MIG manager config.
std::string retired_mig_message(const YAML::Node& mig);

}  // namespace gpusim::k8s
