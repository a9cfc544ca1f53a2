#include "sim/k8s/vgpu_dm_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/core/status.hpp"
#include "sim/io/yaml_fields.hpp"
#include "traces/k8s/config_map.hpp"

namespace gpusim::k8s {
namespace {

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

std::string join_field(const std::string& prefix, const std::string& field) {
  return prefix.empty() ? field : prefix + "." + field;
}

// The manager's two type-name patterns (pkg/types/vgpu_type.go), matched by hand:
//   time-sliced ^[A-Z0-9]+(-[a-zA-Z]+)*-(0|[1-9][0-9]*)(A|B|C|Q)$
//   MIG-backed  ^[A-Z0-9]+-[1-9]-(0|[1-9][0-9]*)(A|B|C|Q)(ME|NOME|MEALL|GFX)?$
std::vector<std::string_view> split_dashes(std::string_view name) {
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '-') {
      parts.push_back(name.substr(from, i - from));
      from = i + 1;
    }
  }
  return parts;
}
bool all_of(std::string_view text, bool (*ok)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), ok);
}
bool upper_or_digit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
// "<GB><series><rest>": a number without leading zeros, then A, B, C or Q; returns what follows.
std::optional<std::string_view> size_and_series(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && digit(text[n])) ++n;
  if (n == 0 || (n > 1 && text[0] == '0') || n == text.size()) return std::nullopt;
  const char series = text[n];
  if (series != 'A' && series != 'B' && series != 'C' && series != 'Q') return std::nullopt;
  return text.substr(n + 1);
}
bool time_sliced_name(const std::string& name) {
  const auto parts = split_dashes(name);
  if (parts.size() < 2 || !all_of(parts.front(), upper_or_digit)) return false;
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    if (!all_of(parts[i], letter)) return false;
  }
  const auto rest = size_and_series(parts.back());
  return rest && rest->empty();
}
bool mig_backed_name(const std::string& name) {
  const auto parts = split_dashes(name);
  if (parts.size() != 3 || !all_of(parts[0], upper_or_digit)) return false;
  if (parts[1].size() != 1 || parts[1][0] < '1' || parts[1][0] > '9') return false;
  const auto rest = size_and_series(parts[2]);
  return rest && (rest->empty() || *rest == "ME" || *rest == "NOME" || *rest == "MEALL" || *rest == "GFX");
}

// A device-filter id: 0x and 8 hex digits, optionally :0x and 8 more (pkg/types/device.go).
bool hex_id(std::string_view id) {
  return id.size() == 10 && id[0] == '0' && (id[1] == 'x' || id[1] == 'X') &&
         std::all_of(id.begin() + 2, id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}
bool pci_id(const std::string& id) {
  return hex_id(id) || (id.size() == 21 && id[10] == ':' && hex_id(std::string_view(id).substr(0, 10)) &&
                        hex_id(std::string_view(id).substr(11)));
}

VgpuDmConfig read_config(const io::YamlFields& r, const std::string& name, const YAML::Node& list, const std::string& at) {
  VgpuDmConfig c;
  c.name = name;
  c.line = list.Mark().line + 1;
  if (!list.IsSequence() || list.size() == 0) r.fail(list, at, "expected a list of at least one entry (devices, vgpu-devices)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string where = fmt::format("{}[{}]", at, i);
    if (!item.IsMap()) r.fail(item, where, "expected a mapping (devices, vgpu-devices, device-filter)");
    VgpuDmEntry e;
    e.line = item.Mark().line + 1;
    r.only(item, where, {"device-filter", "devices", "vgpu-devices"});
    for (const char* required : {"devices", "vgpu-devices"}) {
      if (!given(item[required])) r.fail(item, join_field(where, required), "missing (the vGPU Device Manager requires it)");
    }
    const YAML::Node devices = item["devices"];
    if (devices.IsScalar()) {
      if (devices.Scalar() != "all") {
        r.fail(devices, where + ".devices", fmt::format("'{}': expected all or a list of GPU indices", devices.Scalar()));
      }
    } else if (devices.IsSequence()) {
      e.all_devices = false;
      for (std::size_t d = 0; d < devices.size(); ++d) {
        e.devices.push_back(static_cast<int>(r.integer(devices[d], fmt::format("{}.devices[{}]", where, d), 0, 1'000'000)));
      }
    } else {
      r.fail(devices, where + ".devices", "expected all or a list of GPU indices");
    }
    if (const YAML::Node filter = item["device-filter"]; given(filter)) {
      const auto add = [&](const YAML::Node& node, const std::string& field) {
        const std::string id = r.text(node, field);
        if (!pci_id(id)) r.fail(node, field, fmt::format("'{}' is not a PCI id (0xDDDDVVVV, optionally :0xSSSSssss)", id));
        e.device_filter.push_back(id);
      };
      if (filter.IsSequence()) {
        for (std::size_t d = 0; d < filter.size(); ++d) add(filter[d], fmt::format("{}.device-filter[{}]", where, d));
      } else {
        add(filter, where + ".device-filter");
      }
    }
    const YAML::Node types = item["vgpu-devices"];
    if (!types.IsMap()) r.fail(types, where + ".vgpu-devices", "expected a mapping of vGPU types to counts");
    bool time_sliced = false;
    for (const auto& entry : types) {
      const std::string type = r.key(entry.first, where + ".vgpu-devices");
      const std::string field = fmt::format("{}.vgpu-devices.{}", where, type);
      const bool mig = mig_backed_name(type);
      if (!mig && !time_sliced_name(type)) {
        r.fail(entry.first, field, fmt::format("'{}' is not a vGPU type name (time-sliced <GPU>-<GB><A|B|C|Q>, such as "
                                               "A100-4C; MIG-backed <GPU>-<g>-<GB><A|B|C|Q>, such as A100-1-5C)", type));
      }
      const auto count = r.integer(entry.second, field, 1, 1'000);
      if (std::any_of(e.vgpu_devices.begin(), e.vgpu_devices.end(), [&](const auto& t) { return t.first == type; })) {
        r.fail(entry.first, field, "given twice");
      }
      if ((mig && time_sliced) || (!mig && e.mig_backed)) {
        r.fail(entry.first, field, "cannot mix time-sliced and MIG-backed vGPU devices on the same GPU");
      }
      (mig ? e.mig_backed : time_sliced) = true;
      e.vgpu_devices.emplace_back(type, static_cast<int>(count));
    }
    c.entries.push_back(std::move(e));
  }
  return c;
}

void read_spec(const io::YamlFields& r, const YAML::Node& doc, const std::string& prefix, VgpuDmConfigs& out) {
  const std::string top = prefix.empty() ? "config" : prefix;
  if (!doc.IsMap()) r.fail(doc, top, "expected a mapping (version, vgpu-configs)");
  r.only(doc, prefix, {"version", "vgpu-configs"});
  if (!given(doc["version"])) r.fail(doc, join_field(prefix, "version"), "missing (the vGPU Device Manager requires version: v1)");
  const std::string version = r.text(doc["version"], join_field(prefix, "version"));
  if (version != "v1") {
    r.fail(doc["version"], join_field(prefix, "version"), fmt::format("unknown version '{}' (the vGPU Device Manager reads v1)", version));
  }
  const YAML::Node configs = doc["vgpu-configs"];
  if (!given(configs) || !configs.IsMap() || configs.size() == 0) {
    r.fail(given(configs) ? configs : doc, join_field(prefix, "vgpu-configs"), "expected at least one named config");
  }
  for (const auto& entry : configs) {
    const std::string name = r.key(entry.first, join_field(prefix, "vgpu-configs"));
    if (std::any_of(out.configs.begin(), out.configs.end(), [&](const VgpuDmConfig& c) { return c.name == name; })) {
      r.fail(entry.first, join_field(prefix, "vgpu-configs." + name), "given twice");
    }
    out.configs.push_back(read_config(r, name, entry.second, join_field(prefix, "vgpu-configs." + name)));
  }
}

bool bare(const YAML::Node& doc) {
  return doc.IsMap() && given(doc["vgpu-configs"]) && std::all_of(doc.begin(), doc.end(), [](const auto& e) {
           return e.first.IsScalar() && (e.first.Scalar() == "version" || e.first.Scalar() == "vgpu-configs");
         });
}

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return text;
}

}  // namespace

bool vgpu_filter_matches(const std::string& id, std::uint32_t device_id) {
  // The catalog's GPUs carry no subsystem id, so an id with one never matches them.
  return id.size() == 10 && upper(id.substr(2)) == fmt::format("{:08X}", device_id);
}

bool is_vgpu_dm_config(const YAML::Node& doc) { return traces::k8s::is_manager_config(doc, bare); }

const VgpuDmConfig& VgpuDmConfigs::for_node(const cluster::NodeSpec& node) const {
  std::string wanted = kVgpuDefaultConfig;
  for (const auto& [key, value] : node.labels) {
    if (key == kVgpuConfigLabel && !value.empty()) wanted = value;
  }
  for (const VgpuDmConfig& c : configs) {
    if (c.name == wanted) return c;
  }
  const bool labelled = wanted != kVgpuDefaultConfig;
  throw core::InputError(fmt::format("node {}: {} names config '{}', which {} does not have; the vGPU Device Manager fails "
                                     "there (its configs: {})", node.name,
                                     labelled ? fmt::format("its label {}", kVgpuConfigLabel)
                                              : fmt::format("without a label {} the GPU Operator's default", kVgpuConfigLabel),
                                     wanted, file, [&] {
                                       std::string names;
                                       for (const VgpuDmConfig& c : configs) names += (names.empty() ? "" : ", ") + c.name;
                                       return names;
                                     }()));
}

VgpuDmConfigs parse_vgpu_dm_config(const std::string& text, const std::string& source) {
  VgpuDmConfigs out;
  out.file = source;
  const io::YamlFields r(source);
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!given(doc)) throw core::InputError(fmt::format("{}:1: empty: expected version: v1 and vgpu-configs", source));
    traces::k8s::read_manager_config(
        doc, r, text, "the vGPU Device Manager", "its vgpu-configs",
        [&](const YAML::Node& spec, const std::string& field) { read_spec(r, spec, field, out); }, out.notes);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return out;
}

}  // namespace gpusim::k8s
