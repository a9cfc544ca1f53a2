#pragma once
// The two files HAMi's chart renders and its scheduler and device plugin read, shared by the
// values reader (which finds them embedded as `device-config.content` and
// `devicePlugin.nodeConfiguration.config`) and the ConfigMap reader (hami_settings.hpp).
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/hami_settings.hpp"

namespace gpusim::k8s::hami {

// The device config (`device-config.yaml`): its `nvidia` section sets settings.config's split
// count and memory scaling; the other vendors' sections are accepted with a note. `field` prefixes
// every field name in messages ("" at the top of a file).
void read_device_config(const io::YamlFields& r, const YAML::Node& doc, const std::string& field, HamiSettings& settings);

// The device plugin's node config (`config.json`, JSON): `nodeconfig` entries by node name.
void read_node_config(const io::YamlFields& r, const YAML::Node& doc, const std::string& field, HamiSettings& settings);

}  // namespace gpusim::k8s::hami
