#include "traces/k8s/config_map.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpusim::traces::k8s {
namespace {

// ObjectMeta's fields (k8s.io/apimachinery meta/v1 ObjectMeta); a configuration reader uses the name only.
bool is_object_meta_field(const std::string& key) {
  for (const char* known : {"name", "namespace", "generateName", "labels", "annotations", "uid", "resourceVersion",
                            "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                            "ownerReferences", "finalizers", "managedFields", "selfLink"}) {
    if (key == known) return true;
  }
  return false;
}

}  // namespace

bool is_config_map(const YAML::Node& doc) {
  if (!doc.IsMap()) return false;
  const YAML::Node kind = doc["kind"];
  if (!kind || !kind.IsScalar() || kind.Scalar() != "ConfigMap") return false;
  const YAML::Node api = doc["apiVersion"];
  return !api || (api.IsScalar() && api.Scalar() == "v1");
}

ConfigMap read_config_map(const YAML::Node& doc, const io::YamlFields& fields, std::string_view text) {
  fields.only(doc, "", {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"});
  ConfigMap out;
  const YAML::Node meta = doc["metadata"];
  if (!meta) fields.fail(doc, "metadata", "missing: a ConfigMap has metadata.name");
  if (!meta.IsMap()) fields.fail(meta, "metadata", "expected a mapping");
  for (const auto& entry : meta) {
    const std::string key = fields.text(entry.first, "metadata");
    if (!is_object_meta_field(key)) fields.fail(entry.first, "metadata." + key, "unknown field (not an ObjectMeta field)");
  }
  if (!meta["name"]) fields.fail(meta, "metadata.name", "missing");
  out.name = fields.text(meta["name"], "metadata.name");
  if (doc["binaryData"]) fields.fail(doc["binaryData"], "binaryData", "configuration files are text: give them under data");
  if (doc["immutable"]) fields.boolean(doc["immutable"], "immutable");
  const YAML::Node data = doc["data"];
  if (!data || data.IsNull()) return out;
  if (!data.IsMap()) fields.fail(data, "data", "expected a mapping of file names to their text");
  for (const auto& entry : data) {
    const std::string key = fields.text(entry.first, "data");
    ConfigMapEntry e = embedded_file(key, entry.second, fields, text, "data." + key);
    e.key_line = entry.first.Mark().line + 1;
    out.data.push_back(std::move(e));
  }
  return out;
}

ConfigMapEntry embedded_file(std::string key, const YAML::Node& value, const io::YamlFields& fields, std::string_view text,
                             const std::string& field) {
  ConfigMapEntry e;
  e.key = std::move(key);
  e.key_line = value.Mark().line + 1;
  e.text = value.IsNull() ? std::string() : fields.text(value, field);
  const YAML::Mark mark = value.Mark();
  // A block scalar's mark is its indicator (`|`, `|-`, `>`); its text starts on the next line.
  const auto pos = static_cast<std::size_t>(mark.pos);
  const bool block = mark.pos >= 0 && pos < text.size() && (text[pos] == '|' || text[pos] == '>');
  e.first_line = std::max(1, mark.line + (block ? 2 : 1));
  return e;
}

YAML::Node load_entry(const ConfigMapEntry& entry) {
  // Blank lines in front keep yaml-cpp's marks on the file's lines.
  return YAML::Load(std::string(static_cast<std::size_t>(entry.first_line - 1), '\n') + entry.text);
}

bool is_manager_config(const YAML::Node& doc, bool (*is_spec)(const YAML::Node&)) {
  try {
    if (is_spec(doc)) return true;
    if (!is_config_map(doc) || !doc["data"] || !doc["data"].IsMap()) return false;
    const YAML::Node config = doc["data"]["config.yaml"];
    return config && config.IsScalar() && is_spec(YAML::Load(config.Scalar()));
  } catch (const YAML::Exception&) {
    return false;
  }
}

void read_manager_config(const YAML::Node& doc, const io::YamlFields& fields, std::string_view text, std::string_view manager,
                         std::string_view holds, const std::function<void(const YAML::Node&, const std::string&)>& read_spec,
                         std::vector<std::string>& notes) {
  if (!is_config_map(doc)) {
    read_spec(doc, "");
    return;
  }
  const ConfigMap map = read_config_map(doc, fields, text);
  bool found = false;
  for (const ConfigMapEntry& entry : map.data) {
    if (entry.key != "config.yaml") {
      notes.push_back(fmt::format("data.{}: not read ({} reads config.yaml)", entry.key, manager));
      continue;
    }
    read_spec(load_entry(entry), "data.config.yaml");
    found = true;
  }
  if (!found) fields.fail(doc, "data.config.yaml", fmt::format("missing: {}'s ConfigMap holds {} there", manager, holds));
}

}  // namespace gpusim::traces::k8s
