#pragma once
// A Kubernetes ConfigMap (core v1) as configuration files arrive in one: each `data` entry is the
// text of a file (NVIDIA's device-plugin configs, HAMi's device config, Volcano's scheduler
// configuration). An entry is parsed with its lines numbered as in the ConfigMap's own file, so an
// error inside it names the line a user opens.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/yaml_fields.hpp"

namespace gpusim::traces::k8s {

struct ConfigMapEntry {
  std::string key;
  std::string text;
  int key_line = 1;    // the file line of its key, for errors about the entry as a whole
  int first_line = 1;  // the file line of the text's first line (a block scalar's starts below `|`)
};

struct ConfigMap {
  std::string name;                  // metadata.name
  std::vector<ConfigMapEntry> data;  // in file order
};

// `kind: ConfigMap` with `apiVersion: v1` (or no apiVersion), at the top of a YAML document.
bool is_config_map(const YAML::Node& doc);

// Reads a document is_config_map accepts. Fields are those of a ConfigMap: apiVersion, kind,
// metadata (name required; namespace, labels, annotations and the other ObjectMeta fields are
// accepted and unused), data (each value a text), immutable; binaryData is refused (no reader
// takes binary configuration), as is any other field. Errors go through `fields` (file:line: field: why).
// `text` is the document's file text (the marks index it), to tell where a block scalar's text starts.
ConfigMap read_config_map(const YAML::Node& doc, const io::YamlFields& fields, std::string_view text);

// A text scalar that holds a file (a ConfigMap's data value, a Helm value such as HAMi's
// `device-config.content`), with the file line its text starts at. `text` is the file's text.
ConfigMapEntry embedded_file(std::string key, const YAML::Node& value, const io::YamlFields& fields, std::string_view text,
                             const std::string& field);

// An entry's text parsed as YAML, its marks counting lines of the ConfigMap's file (an empty or
// blank entry gives a null node). Throws YAML::Exception on a syntax error, whose mark is a file line.
YAML::Node load_entry(const ConfigMapEntry& entry);

// NVIDIA's node managers (mig-parted, the vGPU Device Manager) read one file, which the GPU
// Operator mounts from a ConfigMap's `config.yaml` entry; users pass either. Whether `doc` is
// such a file: bare (`is_spec` accepts it) or as that ConfigMap.
bool is_manager_config(const YAML::Node& doc, bool (*is_spec)(const YAML::Node&));

// Reads such a file: `read_spec(spec, field)` on the bare document (field "") or on the
// ConfigMap's `data.config.yaml` (field "data.config.yaml"). The ConfigMap's other entries each
// get a note that `manager` does not read them; without config.yaml it fails, saying the entry
// holds `holds`. Throws YAML::Exception on a syntax error inside the entry.
void read_manager_config(const YAML::Node& doc, const io::YamlFields& fields, std::string_view text, std::string_view manager,
                         std::string_view holds, const std::function<void(const YAML::Node&, const std::string&)>& read_spec,
                         std::vector<std::string>& notes);

}  // namespace gpusim::traces::k8s
