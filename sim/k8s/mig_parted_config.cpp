#include "sim/k8s/mig_parted_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sim/cluster/mig.hpp"
#include "sim/core/status.hpp"
#include "sim/io/yaml_fields.hpp"
#include "traces/k8s/config_map.hpp"

namespace gpusim::k8s {
namespace {

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

std::string join_field(const std::string& prefix, const std::string& field) {
  return prefix.empty() ? field : prefix + "." + field;
}

// GPU slices of a profile name "<g>g.<memory>gb".
int gpu_slices(const std::string& profile) {
  int g = 0;
  std::from_chars(profile.data(), profile.data() + profile.size(), g);
  return g;
}

// One named config's list (api/spec/v1 MigConfigSpec: devices and mig-enabled required,
// mig-devices with MIG on, none with it off).
MigPartedConfig read_config(const io::YamlFields& r, const std::string& name, const YAML::Node& list, const std::string& at) {
  MigPartedConfig c;
  c.name = name;
  c.line = list.Mark().line + 1;
  if (!list.IsSequence() || list.size() == 0) r.fail(list, at, "expected a list of at least one entry (devices, mig-enabled)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string where = fmt::format("{}[{}]", at, i);
    MigPartedEntry e;
    e.line = item.Mark().line + 1;
    r.only(item, where, {"device-filter", "devices", "mig-enabled", "mig-devices"});
    for (const char* required : {"devices", "mig-enabled"}) {
      if (!item[required]) r.fail(item, join_field(where, required), "missing (mig-parted requires it)");
    }
    const YAML::Node devices = item["devices"];
    if (devices.IsScalar()) {
      if (devices.Scalar() != "all") r.fail(devices, where + ".devices", fmt::format("'{}': expected all or a list of GPU indices", devices.Scalar()));
    } else if (devices.IsSequence()) {
      for (std::size_t d = 0; d < devices.size(); ++d) r.integer(devices[d], fmt::format("{}.devices[{}]", where, d), 0, 1'000'000);
      e.unmodelled = fmt::format("{}.devices lists GPUs; gpusim gives every GPU of a node one layout", where);
    } else {
      r.fail(devices, where + ".devices", "expected all or a list of GPU indices");
    }
    if (const YAML::Node filter = item["device-filter"]; given(filter)) {
      if (filter.IsSequence()) {
        for (std::size_t d = 0; d < filter.size(); ++d) {
          e.device_filter.push_back(r.text(filter[d], fmt::format("{}.device-filter[{}]", where, d)));
        }
      } else {
        e.device_filter.push_back(r.text(filter, where + ".device-filter"));
      }
    }
    e.enabled = r.boolean(item["mig-enabled"], where + ".mig-enabled");
    const YAML::Node mig = item["mig-devices"];
    if (e.enabled && !given(mig)) r.fail(item, where + ".mig-devices", "missing: mig-parted requires it when mig-enabled is true");
    if (given(mig)) {
      if (!mig.IsMap()) r.fail(mig, where + ".mig-devices", "expected a mapping of MIG profiles to counts");
      for (const auto& entry : mig) {
        const std::string profile = r.text(entry.first, where + ".mig-devices");
        const std::string field = fmt::format("{}.mig-devices.{}", where, profile);
        const auto count = r.integer(entry.second, field, 0, 7);
        // Media extensions (+me), graphics (+gfx), compute-instance profiles (1c.2g.10gb): a file such
        // as the GPU Operator's default holds them; only a node they apply to is refused.
        if (!cluster::is_mig_profile_name(profile) && e.unmodelled.empty()) {
          e.unmodelled = fmt::format("{}: '{}' is no MIG profile gpusim models (those of its GPUs: {})", field, profile,
                                     cluster::all_mig_profile_names());
        }
        for (std::int64_t k = 0; k < count; ++k) e.layout.push_back(profile);
      }
      if (!e.enabled && !e.layout.empty()) r.fail(mig, where + ".mig-devices", "MIG devices given with mig-enabled false (mig-parted refuses it)");
      if (e.enabled && e.layout.empty() && mig.size() > 0) r.fail(mig, where + ".mig-devices", "all counts are 0 (mig-parted refuses it)");
    }
    if (e.enabled && e.layout.empty() && e.unmodelled.empty()) {
      e.unmodelled = fmt::format("{}: MIG on without instances (the GPUs serve nothing until some are made); gpusim models "
                                 "a MIG GPU with its instances", where);
    }
    if (e.layout.size() > 7 && e.unmodelled.empty()) {
      e.unmodelled = fmt::format("{}: {} instances per GPU, and a GPU has at most 7", where, e.layout.size());
    }
    // Largest first, as mig-parted flattens a MigConfig before it creates the instances.
    std::stable_sort(e.layout.begin(), e.layout.end(), [](const std::string& a, const std::string& b) {
      return gpu_slices(a) > gpu_slices(b);
    });
    c.entries.push_back(std::move(e));
  }
  return c;
}

void read_spec(const io::YamlFields& r, const YAML::Node& doc, const std::string& prefix, MigPartedConfigs& out) {
  const std::string top = prefix.empty() ? "config" : prefix;
  if (!doc.IsMap()) r.fail(doc, top, "expected a mapping (version, mig-configs)");
  r.only(doc, prefix, {"version", "mig-configs"});
  // api/spec/v1 Spec: a version is required once there is anything else.
  if (!given(doc["version"])) r.fail(doc, join_field(prefix, "version"), "missing (mig-parted requires version: v1)");
  const std::string version = r.text(doc["version"], join_field(prefix, "version"));
  if (version != "v1") r.fail(doc["version"], join_field(prefix, "version"), fmt::format("unknown version '{}' (mig-parted reads v1)", version));
  const YAML::Node configs = doc["mig-configs"];
  if (!given(configs) || !configs.IsMap() || configs.size() == 0) {
    r.fail(given(configs) ? configs : doc, join_field(prefix, "mig-configs"), "expected at least one named config");
  }
  for (const auto& entry : configs) {
    const std::string name = r.text(entry.first, join_field(prefix, "mig-configs"));
    if (std::any_of(out.configs.begin(), out.configs.end(), [&](const MigPartedConfig& c) { return c.name == name; })) {
      r.fail(entry.first, join_field(prefix, "mig-configs." + name), "given twice");
    }
    out.configs.push_back(read_config(r, name, entry.second, join_field(prefix, "mig-configs." + name)));
  }
}

bool bare(const YAML::Node& doc) {
  return doc.IsMap() && given(doc["mig-configs"]) && std::all_of(doc.begin(), doc.end(), [](const auto& e) {
           return e.first.IsScalar() && (e.first.Scalar() == "version" || e.first.Scalar() == "mig-configs");
         });
}

}  // namespace

bool is_mig_parted_config(const YAML::Node& doc) { return traces::k8s::is_manager_config(doc, bare); }

std::string mig_pci_device_id(const std::string& gpu) {
  // PCI device ids of the MIG-capable catalog models (the GPU Operator's default-mig-parted-config
  // groups its device-filters by them; pci.ids names them).
  if (gpu == "a100-sxm4-40gb") return "0x20B010DE";
  if (gpu == "a100-sxm4-80gb") return "0x20B210DE";
  if (gpu == "h100-sxm5-80gb") return "0x233010DE";
  if (gpu == "h200-sxm-141gb") return "0x233510DE";
  return "";
}

const MigPartedConfig* MigPartedConfigs::for_node(const cluster::NodeSpec& node) const {
  const auto named = [&](const std::string& name) -> const MigPartedConfig* {
    for (const MigPartedConfig& c : configs) {
      if (c.name == name) return &c;
    }
    return nullptr;
  };
  const MigPartedConfig* chosen = named(kMigConfigDisabled);
  for (const auto& [key, value] : node.labels) {
    if (key != kMigConfigLabel || value.empty()) continue;
    chosen = named(value);
    if (chosen == nullptr) {
      throw core::InputError(fmt::format("node {}: its label {}={} names no config of {}; the MIG manager fails there", node.name,
                                         kMigConfigLabel, value, file));
    }
  }
  return chosen;
}

std::vector<std::string> MigPartedConfigs::layout(const MigPartedConfig& config, const cluster::NodeSpec& node,
                                                  const std::string& gpu) const {
  const std::string pci = mig_pci_device_id(gpu);
  const MigPartedEntry* applies = nullptr;
  for (const MigPartedEntry& e : config.entries) {
    // Hex digits in either case, as mig-parted compares them.
    const bool match = e.device_filter.empty() || std::any_of(e.device_filter.begin(), e.device_filter.end(), [&](std::string id) {
      std::transform(id.begin(), id.end(), id.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
      std::string want = pci;
      std::transform(want.begin(), want.end(), want.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
      return !pci.empty() && id == want;
    });
    if (!match) continue;
    const std::string where = fmt::format("node {}: mig-parted config '{}' ({}:{})", node.name, config.name, file, e.line);
    if (!e.unmodelled.empty()) throw core::InputError(fmt::format("{}: {}", where, e.unmodelled));
    if (applies != nullptr && (applies->enabled != e.enabled || applies->layout != e.layout)) {
      throw core::InputError(fmt::format("{}: two of its entries apply to the node's GPUs with different layouts; gpusim gives "
                                         "every GPU of a node one", where));
    }
    applies = &e;
  }
  if (applies == nullptr || !applies->enabled) return {};
  return applies->layout;
}

MigPartedConfigs parse_mig_parted_config(const std::string& text, const std::string& source) {
  MigPartedConfigs out;
  out.file = source;
  const io::YamlFields r(source);
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!given(doc)) throw core::InputError(fmt::format("{}:1: empty: expected version: v1 and mig-configs", source));
    traces::k8s::read_manager_config(
        doc, r, text, "the MIG manager", "its mig-configs",
        [&](const YAML::Node& spec, const std::string& field) { read_spec(r, spec, field, out); }, out.notes);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return out;
}

}  // namespace gpusim::k8s
