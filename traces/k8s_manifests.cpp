#include "traces/k8s_manifests.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/cluster/mig.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/cluster/pod_constraints.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/device_memory.hpp"
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_quantity.hpp"
namespace gpusim::traces {
namespace {

using cluster::GpuCatalog;
using cluster::GpuModelId;
using cluster::GpuResource;
using YAML::Node;
// Fields, positions, errors, metadata and objects: traces/k8s/.
using namespace k8s;

constexpr const char* kAlphaAffinity = "scheduler.alpha.kubernetes.io/affinity";
// A Job's completions become pods: bounded so that a typo cannot exhaust memory.
constexpr std::int64_t kMaxPods = 1'000'000;
// How many nodes a note names one by one (GPU memory other than the catalog's).
constexpr int kListedNodes = 10;

// ---------------------------------------------------------------- nodes

enum class PluginDefault : std::uint8_t { kAlpha, kNvidia, kGfdOnly, kGpushare };

struct NodeTally {
  std::array<int, 4> plugin_defaults{};   // by PluginDefault
  std::map<std::string, int> unmodelled;  // resource name -> nodes
  std::vector<std::string> cordoned;      // spec.unschedulable nodes, tainted as Kubernetes does
  int default_max_pods = 0;               // nodes without status.allocatable.pods (or capacity)
  // GPU nodes whose GPU memory came from aliyun.com/gpu-mem, HAMi's registration, GFD's label, the
  // catalog; and how many notes name a node's own figure.
  std::array<int, 4> memory_sources{};
  int memory_notes = 0;
  std::vector<std::string> count_notes;   // advertised count differs from GFD's
};

bool modelled_node_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "pods" || name == "ephemeral-storage" ||
         name.starts_with("hugepages-") || name == kNvidiaGpu || name == kAlphaGpu || name == kAliyunGpuCount ||
         name == kAliyunGpuMem;
}

constexpr const char* kValidDevicePlugins =
    "scheduler-assigned, device-plugin, accelerators-1.6, alpha-1.3 or gpushare";

void read_node_kube(const Where& where, const Entries& annotations, NodeKube& kube) {
  static constexpr std::array<std::string_view, 6> kKnown{"gpusim.io/device-plugin", "gpusim.io/device-choice",
                                                          "gpusim.io/topology",      "gpusim.io/joins-at",
                                                          "gpusim.io/leaves-at",     "gpusim.io/gpu-model"};
  check_gpusim_annotations(where, annotations, kKnown, "Node");
  if (const Entry* e = find(annotations, "gpusim.io/device-plugin")) {
    if (e->value != "scheduler-assigned" && e->value != "device-plugin" && e->value != "accelerators-1.6" &&
        e->value != "alpha-1.3" && e->value != "gpushare") {
      where.fail(e->node, e->path,
                 fmt::format("'{}' is not a device-plugin model (expected {})", e->value, kValidDevicePlugins));
    }
    kube.device_plugin = e->value;
  }
  if (const Entry* e = find(annotations, "gpusim.io/device-choice")) {
    if (e->value != "first-fit" && e->value != "preferred") {
      where.fail(e->node, e->path,
                 fmt::format("'{}' is not a device choice (expected first-fit or preferred)", e->value));
    }
    kube.device_choice = e->value;
  }
  if (const Entry* e = find(annotations, "gpusim.io/topology")) {
    if (e->value.empty()) where.fail(e->node, e->path, "empty (expected a topology template name)");
    kube.topology = e->value;
  }
  if (const Entry* e = find(annotations, "gpusim.io/joins-at")) kube.joins_at = duration_entry(where, *e);
  if (const Entry* e = find(annotations, "gpusim.io/leaves-at")) {
    kube.leaves_at = duration_entry(where, *e);
    if (*kube.leaves_at <= kube.joins_at) where.fail(e->node, e->path, "must be later than gpusim.io/joins-at");
  }
}

// A resource of status.allocatable, else of status.capacity (Kubernetes' allocatable is what
// the scheduler uses; a node without it is one that reports only capacity).
struct NodeResources {
  std::optional<Fields> allocatable;
  std::optional<Fields> capacity;
  std::optional<Fields> status;
  const Fields* owner;

  const Fields* holder(const std::string& name) const {
    if (allocatable && allocatable->has(name)) return &*allocatable;
    if (capacity && capacity->has(name)) return &*capacity;
    return nullptr;
  }
};

std::int64_t node_size(const NodeResources& r, const std::string& name,
                       Parsed<std::int64_t> (*convert)(std::string_view)) {
  const Fields* holder = r.holder(name);
  if (holder == nullptr) {
    const Fields& at = r.status ? *r.status : *r.owner;
    at.where().fail(at.node(), join(r.owner->path(), "status.allocatable." + name),
                    "missing (and no status.capacity." + name + ")");
  }
  return must(holder->where(), holder->get(name), holder->path(name), convert(quantity_text(*holder, name)));
}

struct GpuFacts {
  std::optional<std::int64_t> advertised;  // from allocatable/capacity
  GpuResource advertised_as = GpuResource::kAny;
  std::optional<std::int64_t> gfd_count;  // nvidia.com/gpu.count label
};

GpuFacts gpu_facts(const NodeResources& r, const Where& where, const Meta& meta, NodeTally& tally) {
  GpuFacts f;
  const Fields* nvidia = r.holder(kNvidiaGpu);
  const Fields* alpha = r.holder(kAlphaGpu);
  const Fields* aliyun = r.holder(kAliyunGpuCount);  // gpushare's device plugin
  if (nvidia != nullptr && alpha != nullptr) {
    alpha->fail(kAlphaGpu, fmt::format("the node also advertises {}; a node has one GPU resource", kNvidiaGpu));
  }
  if (aliyun != nullptr && (nvidia != nullptr || alpha != nullptr)) {
    aliyun->fail(kAliyunGpuCount, fmt::format("the node also advertises {}; a node has one GPU resource",
                                              nvidia != nullptr ? kNvidiaGpu : kAlphaGpu));
  }
  if (aliyun == nullptr && r.holder(kAliyunGpuMem) != nullptr) {
    const Fields* memory = r.holder(kAliyunGpuMem);
    memory->fail(kAliyunGpuMem, fmt::format("without {} (gpushare's device plugin advertises both)", kAliyunGpuCount));
  }
  const Fields* holder = nvidia != nullptr ? nvidia : alpha != nullptr ? alpha : aliyun;
  if (holder != nullptr) {
    const std::string name = nvidia != nullptr ? kNvidiaGpu : alpha != nullptr ? kAlphaGpu : kAliyunGpuCount;
    f.advertised = must(where, holder->get(name), holder->path(name),
                        whole_count(quantity_text(*holder, name), cluster::kMaxGpusPerNode));
    f.advertised_as = nvidia != nullptr  ? GpuResource::kNvidiaGpu
                      : alpha != nullptr ? GpuResource::kAlphaNvidiaGpu
                                         : GpuResource::kAliyunGpuMem;
    // A device plugin leaves unhealthy GPUs out of allocatable; gpusim simulates health itself.
    if (r.allocatable && holder == &*r.allocatable && r.capacity && r.capacity->has(name)) {
      const auto capacity = whole_count(quantity_text(*r.capacity, name), cluster::kMaxGpusPerNode);
      if (!capacity) r.capacity->fail(name, capacity.error);
      if (*capacity.value != *f.advertised) {
        tally.count_notes.push_back(
            fmt::format("node {} has {} {} allocatable of {} in capacity (unhealthy GPUs when it was "
                        "dumped?): gpusim uses {}, all healthy at the start",
                        meta.name, *f.advertised, name, *capacity.value, *f.advertised));
      }
    }
  }
  if (const Entry* e = find(meta.labels, kGfdCount)) {
    f.gfd_count = must(where, e->node, e->path, whole_count(e->value, cluster::kMaxGpusPerNode));
  }
  return f;
}

// The node's GPU model from gpusim.io/gpu-model (an exact catalog id or alias), GFD's product
// label or 1.6's GPU-name label; the ones given must agree.
GpuModelId node_gpu_model(const Where& where, const Meta& meta, const Fields& metadata, const GpuCatalog& catalog) {
  std::optional<std::int64_t> memory;
  if (const Entry* e = find(meta.labels, kGfdMemory)) {
    memory = must(where, e->node, e->path, whole_count(e->value, kMaxQuantity));
  }
  std::optional<GpuModelId> chosen;
  const Entry* chosen_from = nullptr;
  if (const Entry* e = find(meta.annotations, "gpusim.io/gpu-model")) {
    chosen = catalog.find(e->value);
    if (!chosen) {
      where.fail(e->node, e->path, fmt::format("unknown GPU model '{}' (catalog ids: {})", e->value, catalog.ids()));
    }
    chosen_from = e;
  }
  for (const char* label : {kGfdProduct, kAlphaGpuName}) {
    const Entry* e = find(meta.labels, label);
    if (e == nullptr) continue;
    std::string why;
    const auto id = resolve_gpu_product(e->value, memory, catalog, &why);
    const bool pinned = chosen_from != nullptr && chosen_from->key == "gpusim.io/gpu-model";
    if (!id && pinned) continue;  // the annotation settles what the label leaves open
    if (!id) where.fail(e->node, e->path, why);
    if (chosen && *chosen != *id) {
      where.fail(e->node, e->path,
                 fmt::format("'{}' is catalog model {}, but {} says {}", e->value, catalog.at(*id).id, chosen_from->key,
                             catalog.at(*chosen).id));
    }
    if (!chosen) {
      chosen = id;
      chosen_from = e;
    }
  }
  if (!chosen) {
    where.fail(metadata.node(), metadata.path("labels"),
               fmt::format("the node has GPUs but no GPU model: give label {} or {}, or annotation gpusim.io/gpu-model "
                           "(catalog ids: {})",
                           kGfdProduct, kAlphaGpuName, catalog.ids()));
  }
  return *chosen;
}

std::vector<cluster::Taint> read_taints(const Fields& spec) {
  std::vector<cluster::Taint> taints;
  for (const auto& [node, path] : spec.list("taints")) {
    const Fields t(spec.where(), node, path);
    cluster::Taint taint;
    taint.key = t.required_string("key");
    taint.value = t.string("value").value_or("");
    taint.effect = t.required_string("effect");
    if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" && taint.effect != "NoExecute") {
      t.fail("effect", fmt::format("'{}' is not NoSchedule, PreferNoSchedule or NoExecute", taint.effect));
    }
    taints.push_back(std::move(taint));
  }
  return taints;
}

// Which device-plugin model a node without gpusim.io/device-plugin gets, and checks that an
// explicit one fits the resource the node advertises.
void settle_device_plugin(const Where& where, const Meta& meta, const GpuFacts& gpus, NodeKube& kube,
                          NodeTally& tally) {
  if (const Entry* e = find(meta.annotations, "gpusim.io/device-plugin")) {
    const bool alpha_model = e->value == "accelerators-1.6" || e->value == "alpha-1.3";
    if (e->value == "device-plugin" && gpus.advertised_as == GpuResource::kAlphaNvidiaGpu) {
      where.fail(e->node, e->path,
                 fmt::format("device-plugin, but the node advertises {} (device plugins advertise {})", kAlphaGpu,
                             kNvidiaGpu));
    }
    if (alpha_model && gpus.advertised_as == GpuResource::kNvidiaGpu) {
      where.fail(
          e->node, e->path,
          fmt::format("{}, but the node advertises {} (that era advertised {})", e->value, kNvidiaGpu, kAlphaGpu));
    }
    if ((e->value == "gpushare") != (gpus.advertised_as == GpuResource::kAliyunGpuMem) &&
        gpus.advertised_as != GpuResource::kAny) {
      where.fail(e->node, e->path,
                 fmt::format("{}, but the node advertises {} (gpushare's device plugin advertises {})", e->value,
                             gpus.advertised_as == GpuResource::kAliyunGpuMem ? kAliyunGpuCount
                                                                              : cluster::to_string(gpus.advertised_as),
                             kAliyunGpuCount));
    }
    return;
  }
  if (gpus.advertised_as == GpuResource::kAliyunGpuMem) {
    kube.device_plugin = "gpushare";
    ++tally.plugin_defaults[static_cast<std::size_t>(PluginDefault::kGpushare)];
    return;
  }
  if (gpus.advertised_as == GpuResource::kAlphaNvidiaGpu) {
    kube.device_plugin = "accelerators-1.6";
    ++tally.plugin_defaults[static_cast<std::size_t>(PluginDefault::kAlpha)];
  } else if (gpus.advertised_as == GpuResource::kNvidiaGpu) {
    kube.device_plugin = "device-plugin";
    kube.device_plugin_implied = true;
    ++tally.plugin_defaults[static_cast<std::size_t>(PluginDefault::kNvidia)];
  } else if (gpus.gfd_count.value_or(0) > 0) {
    kube.device_plugin = "device-plugin";
    kube.device_plugin_implied = true;
    ++tally.plugin_defaults[static_cast<std::size_t>(PluginDefault::kGfdOnly)];
  }
}

// The node's physical GPUs: what it advertises, else GFD's count. A 1.3 kubelet flag exposes one
// GPU whatever the node has, so an alpha-1.3 node's physical count is GFD's when given.
std::int32_t node_gpu_count(const std::string& name, const GpuFacts& gpus, const NodeKube& kube, NodeTally& tally) {
  std::int64_t count = 0;
  if (kube.device_plugin == "alpha-1.3" && gpus.gfd_count) {
    count = *gpus.gfd_count;
  } else if (gpus.advertised) {
    count = *gpus.advertised;
    if (gpus.gfd_count && *gpus.gfd_count != count) {
      tally.count_notes.push_back(fmt::format("node {} advertises {} GPUs but its label {} says {}: gpusim uses {}",
                                              name, count, kGfdCount, *gpus.gfd_count, count));
    }
  } else if (gpus.gfd_count) {
    count = *gpus.gfd_count;
  }
  return static_cast<std::int32_t>(count);
}

GpuResource node_gpu_resource(const GpuFacts& gpus, const NodeKube& kube) {
  if (gpus.advertised_as != GpuResource::kAny) return gpus.advertised_as;
  if (kube.device_plugin == "device-plugin") return GpuResource::kNvidiaGpu;
  if (kube.device_plugin == "gpushare") return GpuResource::kAliyunGpuMem;
  if (kube.device_plugin == "accelerators-1.6" || kube.device_plugin == "alpha-1.3") {
    return GpuResource::kAlphaNvidiaGpu;
  }
  return GpuResource::kAny;
}

void tally_unmodelled(const NodeResources& r, NodeTally& tally) {
  std::vector<std::string> names;
  for (const auto* map : {&r.allocatable, &r.capacity}) {
    if (!*map) continue;
    for (const auto& kv : (*map)->node()) {
      const std::string& key = kv.first.Scalar();
      // Every quantity is checked, read or not: a malformed one is a malformed manifest.
      must((*map)->where(), kv.second, (*map)->path(key), parse_quantity(quantity_text(**map, key)));
      if (!modelled_node_resource(key) && std::find(names.begin(), names.end(), key) == names.end()) {
        names.push_back(key);
      }
    }
  }
  for (const auto& n : names) ++tally.unmodelled[n];
}


// The memory of each GPU in HAMi's registration annotation: devices separated by ':', each
// "uuid,split count,memory MiB,cores,type,numa,healthy", or a JSON list of objects with `devmem`.
// The smallest, as gpusim gives a node's GPUs one size.
std::int64_t hami_registered_memory(const Where& where, const Entry& e, const std::string& node, NodeTally& tally) {
  std::vector<std::int64_t> sizes;
  const auto bad = [&](const std::string& why) {
    where.fail(e.node, e.path, fmt::format("{} (expected devices \"uuid,count,memory MiB,cores,type,numa,healthy\" "
                                           "separated by ':', or a JSON list with devmem)", why));
  };
  if (!e.value.empty() && e.value.front() == '[') {
    Node list;
    try {
      list = YAML::Load(e.value);
    } catch (const YAML::Exception& ex) {
      bad(fmt::format("not valid JSON: {}", ex.msg));
    }
    if (!list.IsSequence()) bad("not a list");
    for (const Node& device : list) {
      if (!device.IsMap() || !device["devmem"] || !device["devmem"].IsScalar()) bad("a device without devmem");
      const auto mib = whole_count(device["devmem"].Scalar(), kMaxQuantity);
      if (!mib.value) bad(fmt::format("devmem '{}' is not a whole number of MiB", device["devmem"].Scalar()));
      sizes.push_back(*mib.value);
    }
  } else {
    std::string_view rest = e.value;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view device = rest.substr(0, colon);
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
      if (device.empty()) continue;
      std::vector<std::string_view> fields;
      for (std::size_t from = 0;;) {
        const std::size_t comma = device.find(',', from);
        fields.push_back(device.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
      if (fields.size() < 3) bad(fmt::format("device '{}' has {} fields", truncated(device), fields.size()));
      const auto mib = whole_count(fields[2], kMaxQuantity);
      if (!mib.value) bad(fmt::format("memory '{}' of device '{}' is not a whole number of MiB", truncated(fields[2]), truncated(fields[0])));
      sizes.push_back(*mib.value);
    }
  }
  if (sizes.empty()) bad("no device");
  const auto [low, high] = std::minmax_element(sizes.begin(), sizes.end());
  if (*low == 0) bad("a device with 0 MiB");
  if (*low != *high) {
    tally.count_notes.push_back(fmt::format("node {}: {} registers GPUs of {} to {} MiB; gpusim gives each the smallest",
                                            node, kHamiRegister, *low, *high));
  }
  return *low;
}

// Each GPU's memory as the node reports it: gpushare's aliyun.com/gpu-mem over its GPU count (the
// extender's own division, whole GiB), HAMi's registration, or GFD's nvidia.com/gpu.memory; else
// the catalog's. Which one was used is counted for a note, and a figure other than the catalog's
// is named.
void read_gpu_memory(const NodeResources& r, const Where& where, const Meta& meta, cluster::NodeSpec& node,
                     const GpuCatalog& catalog, NodeTally& tally) {
  const std::int64_t nominal = catalog.at(node.gpu_model).memory_mib;
  std::string from;
  if (const Fields* holder = r.holder(kAliyunGpuMem); holder != nullptr && node.gpu_resource == GpuResource::kAliyunGpuMem) {
    const std::int64_t total = must(holder->where(), holder->get(kAliyunGpuMem), holder->path(kAliyunGpuMem),
                                    whole_count(quantity_text(*holder, kAliyunGpuMem), kMaxQuantity));
    const std::int64_t per_gpu = total / node.gpu_count;
    if (per_gpu == 0) {
      holder->fail(kAliyunGpuMem, fmt::format("{} GiB over {}: less than 1 GiB per GPU", total,
                                              plural(node.gpu_count, "GPU", "GPUs")));
    }
    node.gpu_memory_mib = per_gpu * 1024;
    from = fmt::format("{} / {}", kAliyunGpuMem, kAliyunGpuCount);
    ++tally.memory_sources[0];
  } else if (const Entry* e = find(meta.annotations, kHamiRegister)) {
    node.gpu_memory_mib = hami_registered_memory(where, *e, node.name, tally);
    node.gpu_memory_registered = true;
    from = kHamiRegister;
    ++tally.memory_sources[1];
  } else if (const Entry* label = find(meta.labels, kGfdMemory)) {
    node.gpu_memory_mib = must(where, label->node, label->path, whole_count(label->value, kMaxQuantity));
    if (node.gpu_memory_mib == 0) where.fail(label->node, label->path, "0 MiB");
    from = kGfdMemory;
    ++tally.memory_sources[2];
  } else {
    ++tally.memory_sources[3];
    return;
  }
  if (node.gpu_memory_mib != nominal && tally.memory_notes < kListedNodes) {
    ++tally.memory_notes;
    tally.count_notes.push_back(fmt::format("node {}: {} MiB per GPU from {} (the catalog's {} has {} MiB)", node.name,
                                            node.gpu_memory_mib, from, catalog.at(node.gpu_model).id, nominal));
  }
}

std::pair<cluster::NodeSpec, NodeKube> read_node(const Object& object, const GpuCatalog& catalog, NodeTally& tally) {
  const Fields& fields = object.fields;
  const Where& where = fields.where();
  const Meta meta = read_meta(fields);
  const Fields metadata = fields.required_map("metadata");
  cluster::NodeSpec node;
  NodeKube kube;
  node.name = meta.name;
  node.labels.reserve(meta.labels.size());
  for (const Entry& e : meta.labels) node.labels.emplace_back(e.key, e.value);
  read_node_kube(where, meta.annotations, kube);

  if (const auto spec = fields.map("spec")) {
    node.taints = read_taints(*spec);
    if (spec->boolean("unschedulable").value_or(false)) {
      // What the node lifecycle controller does for a cordoned node.
      const bool tainted = std::any_of(node.taints.begin(), node.taints.end(), [](const cluster::Taint& t) {
        return t.key == "node.kubernetes.io/unschedulable";
      });
      if (!tainted) node.taints.push_back({"node.kubernetes.io/unschedulable", "", "NoSchedule"});
      tally.cordoned.push_back(node.name);
    }
  }

  NodeResources r{std::nullopt, std::nullopt, fields.map("status"), &fields};
  if (r.status) {
    r.allocatable = r.status->map("allocatable");
    r.capacity = r.status->map("capacity");
  }
  node.cpu_milli = node_size(r, "cpu", cpu_millicores);
  node.memory_mib = node_size(r, "memory", memory_mib);
  if (const Fields* holder = r.holder("pods")) {
    // NodeResourcesFit's pod count; a node that allows none is refused (nothing could run there).
    node.max_pods = static_cast<std::int32_t>(
        must(holder->where(), holder->get("pods"), holder->path("pods"), whole_count(quantity_text(*holder, "pods"), std::numeric_limits<std::int32_t>::max())));
    if (node.max_pods == 0) holder->fail("pods", "0: no pod could run on the node");
  } else {
    ++tally.default_max_pods;  // the kubelet's default maxPods
  }
  tally_unmodelled(r, tally);

  const GpuFacts gpus = gpu_facts(r, where, meta, tally);
  settle_device_plugin(where, meta, gpus, kube, tally);
  node.gpu_count = node_gpu_count(node.name, gpus, kube, tally);
  node.gpu_resource = node_gpu_resource(gpus, kube);
  if (node.gpu_count > 0) {
    node.gpu_model = node_gpu_model(where, meta, metadata, catalog);
    read_gpu_memory(r, where, meta, node, catalog, tally);
  } else if (const Entry* e = find(meta.annotations, "gpusim.io/gpu-model")) {
    where.fail(e->node, e->path, "given for a node without GPUs");
  }
  return {std::move(node), std::move(kube)};
}

void node_notes(const NodeTally& tally, ClusterSpec& spec) {
  struct Why {
    const char* plugin;
    const char* one;
    const char* many;
  };
  const std::array<Why, 4> whys{{
      {"accelerators-1.6", "it advertises alpha.kubernetes.io/nvidia-gpu",
       "they advertise alpha.kubernetes.io/nvidia-gpu"},
      {"device-plugin", "it advertises nvidia.com/gpu", "they advertise nvidia.com/gpu"},
      {"device-plugin", "it has only GPU feature discovery labels (nvidia.com/gpu.count)",
       "they have only GPU feature discovery labels (nvidia.com/gpu.count)"},
      {"gpushare", "it advertises aliyun.com/gpu-count", "they advertise aliyun.com/gpu-count"},
  }};
  if (tally.memory_sources[0] + tally.memory_sources[1] + tally.memory_sources[2] > 0) {
    spec.notes.push_back(fmt::format("GPU memory per device: {} from {} / {}, {} from {}, {} from {}, {} from the catalog",
                                     plural(tally.memory_sources[0], "node", "nodes"), kAliyunGpuMem, kAliyunGpuCount,
                                     tally.memory_sources[1], kHamiRegister, tally.memory_sources[2], kGfdMemory,
                                     tally.memory_sources[3]));
  }
  if (tally.default_max_pods > 0) {
    spec.notes.push_back(fmt::format("{} without status.allocatable.pods: {} pods at most (the kubelet's default maxPods)",
                                     plural(tally.default_max_pods, "node", "nodes"), cluster::kDefaultMaxPods));
  }
  for (std::size_t i = 0; i < whys.size(); ++i) {
    const int n = tally.plugin_defaults[i];
    if (n == 0) continue;
    const bool soft = static_cast<PluginDefault>(i) == PluginDefault::kNvidia || static_cast<PluginDefault>(i) == PluginDefault::kGfdOnly;
    spec.notes.push_back(fmt::format("{} without gpusim.io/device-plugin: {} ({}){}", plural(n, "node", "nodes"),
                                     whys[i].plugin, n == 1 ? whys[i].one : whys[i].many,
                                     soft ? ", unless a --kube pool or devicePlugin names another model" : ""));
  }
  if (!tally.unmodelled.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : tally.unmodelled) {
      parts.push_back(fmt::format("{} ({})", name, plural(n, "node", "nodes")));
    }
    spec.notes.push_back(fmt::format("node resources gpusim does not model (ignored): {}", fmt::join(parts, ", ")));
  }
  if (!tally.cordoned.empty()) {
    spec.notes.push_back(
        fmt::format("{} spec.unschedulable: tainted node.kubernetes.io/unschedulable:NoSchedule, as Kubernetes "
                    "does: {}",
                    plural(static_cast<std::int64_t>(tally.cordoned.size()), "node has", "nodes have"),
                    fmt::join(tally.cordoned, ", ")));
  }
  spec.notes.insert(spec.notes.end(), tally.count_notes.begin(), tally.count_notes.end());
}

// ---------------------------------------------------------------- priority classes

struct PriorityClass {
  std::int32_t value = 0;
  int line = 0;
};

struct PriorityClasses {
  std::unordered_map<std::string, PriorityClass> by_name;
  std::optional<std::pair<std::string, std::int32_t>> global_default;

  std::optional<std::int32_t> value(const std::string& name) const {
    // Kubernetes' built-in classes exist in every cluster without a manifest.
    if (name == "system-cluster-critical") return 2'000'000'000;
    if (name == "system-node-critical") return 2'000'001'000;
    const auto it = by_name.find(name);
    if (it == by_name.end()) return std::nullopt;
    return it->second.value;
  }
};

// activeDeadlineSeconds: at most 100 years, well inside simulated time.
constexpr std::int64_t kMaxDeadlineSeconds = std::int64_t{100} * 365 * 24 * 3600;

void read_priority_class(const Object& object, PriorityClasses& classes) {
  const Fields& fields = object.fields;
  const Meta meta = read_meta(fields);
  if (meta.name.starts_with("system-")) {
    fields.required_map("metadata").fail("name", "the system- prefix is reserved for Kubernetes' built-in classes");
  }
  PriorityClass pc;
  pc.line = object.line;
  // Kubernetes keeps values above 10^9 for its built-in system classes.
  const auto value = fields.integer("value", kInt32Min, 1'000'000'000);
  if (!value) fields.missing("value");
  pc.value = static_cast<std::int32_t>(*value);
  const auto [it, inserted] = classes.by_name.emplace(meta.name, pc);
  if (!inserted) {
    fields.required_map("metadata")
        .fail("name", fmt::format("duplicate PriorityClass name '{}' (first at line {})", meta.name, it->second.line));
  }
  if (fields.boolean("globalDefault").value_or(false)) {
    if (classes.global_default) {
      fields.fail("globalDefault",
                  fmt::format("PriorityClass '{}' is already the global default (Kubernetes allows one)",
                              classes.global_default->first));
    }
    classes.global_default = std::make_pair(meta.name, pc.value);
  }
}

// ---------------------------------------------------------------- pods

struct WorkloadTally {
  std::int64_t default_arrival = 0;
  std::int64_t default_duration = 0;
  std::map<std::string, std::int64_t> unmodelled;  // resource name -> pods
  std::int64_t node_name = 0;
  std::int64_t preferred_affinity = 0;
  std::int64_t pod_affinity = 0;
  std::int64_t default_completions = 0;  // Jobs
  std::int64_t default_restart_policy = 0;  // Jobs whose template names no restartPolicy
  std::map<std::string, std::int64_t> unmodelled_job_fields;  // spec field -> Jobs
  std::int64_t other_conditions = 0;        // podFailurePolicy rules on conditions gpusim never sets
};

// Which GPU resource name the pod's containers ask, and where it was first asked.
struct GpuName {
  GpuResource resource = GpuResource::kAny;
  std::string path;
};

// A container's cpu and memory for Kubernetes' QoS class.
struct QosFacts {
  bool any = false;        // some non-zero cpu or memory request or limit
  bool guaranteed = true;  // every container: cpu and memory limits, requests equal to them
};

// What one container asks of a sharing device plugin beside its GPU count.
struct ShareFacts {
  std::string path;          // the container's resources.limits, for messages
  int line = 0;
  std::int32_t gpus = 0;     // nvidia.com/gpu
  bool hami_asked = false;   // nvidia.com/gpumem, gpumem-percentage or gpucores given
  cluster::HamiAsk hami;     // with HAMi's defaults filled in
  std::int64_t gpu_memory_gib = 0;  // aliyun.com/gpu-mem
  bool init = false;
};

struct PodFacts {
  GpuName gpu;
  QosFacts qos;
  std::vector<std::string> unmodelled;  // resource names, once each
  std::unordered_map<std::string, int> container_names;
  std::vector<ShareFacts> shares;  // per container, init containers first
  std::string mig_profile;         // nvidia.com/mig-<profile>, once asked
};

// requests default to limits (Kubernetes' defaulting), and may not exceed them.
std::int64_t request_or_limit(const std::optional<Fields>& requests, const std::optional<Fields>& limits,
                              const std::string& name, Parsed<std::int64_t> (*convert)(std::string_view), bool& limited,
                              bool& equal) {
  std::optional<std::int64_t> request;
  std::optional<std::int64_t> limit;
  if (limits && limits->has(name)) {
    limit = must(limits->where(), limits->get(name), limits->path(name), convert(quantity_text(*limits, name)));
  }
  if (requests && requests->has(name)) {
    request =
        must(requests->where(), requests->get(name), requests->path(name), convert(quantity_text(*requests, name)));
  }
  if (request && limit && *request > *limit) {
    requests->fail(name, fmt::format("request {} exceeds the limit {} (Kubernetes refuses the pod)",
                                     quantity_text(*requests, name), quantity_text(*limits, name)));
  }
  limited = limit.has_value() && *limit > 0;
  equal = !request || !limit || *request == *limit;
  return request.value_or(limit.value_or(0));
}

// An extended resource such as nvidia.com/gpu: the limit is the ask; a request must equal it.
std::int64_t extended_ask(const std::optional<Fields>& requests, const std::optional<Fields>& limits,
                          const std::string& name, std::int64_t max = cluster::kMaxGpusPerNode) {
  std::optional<std::int64_t> limit;
  if (limits && limits->has(name)) {
    limit = must(limits->where(), limits->get(name), limits->path(name), whole_count(quantity_text(*limits, name), max));
  }
  if (requests && requests->has(name)) {
    const std::int64_t request = must(requests->where(), requests->get(name), requests->path(name),
                                      whole_count(quantity_text(*requests, name), max));
    if (!limit) {
      requests->fail(
          name,
          "a request without a limit (Kubernetes requires limits for extended resources; requests default to them)");
    }
    if (request != *limit) {
      requests->fail(
          name, fmt::format("request {} differs from the limit {} (Kubernetes requires them equal)", request, *limit));
    }
  }
  return limit.value_or(0);
}

constexpr std::array<const char*, 3> kPodGpuNames = {kNvidiaGpu, kAlphaGpu, kNvidiaGpuShared};
// Sharing device plugins' resources (sim/k8s/README.md, "GPU sharing"): HAMi's per-vGPU asks beside
// nvidia.com/gpu, gpushare's GiB of one GPU, NVIDIA's MIG profiles under strategy mixed.
constexpr const char* kHamiMemory = "nvidia.com/gpumem";
constexpr const char* kHamiMemoryPercent = "nvidia.com/gpumem-percentage";
constexpr const char* kHamiCores = "nvidia.com/gpucores";
constexpr std::string_view kMigPrefix = "nvidia.com/mig-";
// HAMi keeps gpumem in an int32 of MiB; gpushare's GiB of one GPU are far below this.
constexpr std::int64_t kMaxGpuMemoryMib = 2147483647;
constexpr std::int64_t kMaxGpuMemoryGib = 1 << 21;

bool is_mig_name(std::string_view name) { return name.starts_with(kMigPrefix); }

bool is_gpu_name(std::string_view name) {
  return std::find(kPodGpuNames.begin(), kPodGpuNames.end(), name) != kPodGpuNames.end() || is_mig_name(name);
}

GpuResource gpu_resource_named(std::string_view name) {
  if (name == kNvidiaGpu) return GpuResource::kNvidiaGpu;
  if (name == kNvidiaGpuShared) return GpuResource::kNvidiaGpuShared;
  if (is_mig_name(name)) return GpuResource::kMigProfile;
  return GpuResource::kAlphaNvidiaGpu;
}

void note_gpu_name(const Fields& map, const std::string& name, PodFacts& facts) {
  const GpuResource resource = gpu_resource_named(name);
  if (facts.gpu.resource == GpuResource::kAny) {
    facts.gpu = {resource, map.path(name)};
  } else if (facts.gpu.resource != resource) {
    map.fail(name, fmt::format("the pod also asks {} ({}); a pod may ask one GPU resource",
                               cluster::to_string(facts.gpu.resource), facts.gpu.path));
  }
}

// HAMi's per-vGPU asks and gpushare's GiB, which ride beside (HAMi) or instead of (gpushare) a GPU count.
void read_share_asks(int line, const std::string& path, const std::optional<Fields>& limits,
                     const std::optional<Fields>& requests, const cluster::Container& container, bool init,
                     PodFacts& facts) {
  const auto asks = [&](const char* name) { return (limits && limits->has(name)) || (requests && requests->has(name)); };
  const auto holder = [&](const char* name) -> const Fields& { return (limits && limits->has(name)) ? *limits : *requests; };
  ShareFacts share;
  share.path = path + ".resources.limits";
  share.line = line;
  share.gpus = container.gpus;
  share.init = init;
  const bool memory = asks(kHamiMemory);
  const bool percent = asks(kHamiMemoryPercent);
  const bool cores = asks(kHamiCores);
  share.hami_asked = memory || percent || cores;
  if (share.hami_asked) {
    const char* first = memory ? kHamiMemory : percent ? kHamiMemoryPercent : kHamiCores;
    if (container.gpus == 0 || facts.gpu.resource != GpuResource::kNvidiaGpu || !asks(kNvidiaGpu)) {
      holder(first).fail(first, "needs nvidia.com/gpu in the same container (HAMi gives a container without it no GPU)");
    }
    if (memory) {
      share.hami.memory_mib = extended_ask(requests, limits, kHamiMemory, kMaxGpuMemoryMib);
      if (share.hami.memory_mib == 0) holder(kHamiMemory).fail(kHamiMemory, "0 MiB; leave it out for the whole memory");
    }
    if (percent) {
      share.hami.memory_percent = static_cast<std::int32_t>(extended_ask(requests, limits, kHamiMemoryPercent, 100));
    }
    if (cores) share.hami.cores_percent = static_cast<std::int32_t>(extended_ask(requests, limits, kHamiCores, 100));
  }
  // HAMi 2.8: a vGPU asking neither memory nor cores is a whole GPU (100 % cores).
  if (!memory && !percent && !cores) share.hami.cores_percent = 100;
  if (asks(kAliyunGpuMem)) {
    share.gpu_memory_gib = extended_ask(requests, limits, kAliyunGpuMem, kMaxGpuMemoryGib);
    if (share.gpu_memory_gib > 0) {
      const Fields& map = holder(kAliyunGpuMem);
      if (facts.gpu.resource == GpuResource::kAny) {
        facts.gpu = {GpuResource::kAliyunGpuMem, map.path(kAliyunGpuMem)};
      } else if (facts.gpu.resource != GpuResource::kAliyunGpuMem) {
        map.fail(kAliyunGpuMem, fmt::format("the pod also asks {} ({}); a pod may ask one GPU resource",
                                            cluster::to_string(facts.gpu.resource), facts.gpu.path));
      }
    }
  }
  facts.shares.push_back(std::move(share));
}

cluster::Container read_container(const Where& where, const Node& node, const std::string& path, bool init,
                                  PodFacts& facts) {
  const Fields c(where, node, path);
  cluster::Container out;
  out.name = c.required_string("name");
  if (!dns_label(out.name)) {
    c.fail("name", fmt::format("'{}' is not a valid container name (lower-case letters, digits and '-', at most 63)",
                               out.name));
  }
  const auto [it, inserted] = facts.container_names.emplace(out.name, where.line(node));
  if (!inserted) c.fail("name", fmt::format("duplicate container name '{}' (first at line {})", out.name, it->second));
  if (init && c.has("restartPolicy")) {
    c.fail("restartPolicy", "sidecar init containers (restartPolicy Always) are not modelled");
  }
  const auto resources = c.map("resources");
  const std::optional<Fields> limits = resources ? resources->map("limits") : std::nullopt;
  const std::optional<Fields> requests = resources ? resources->map("requests") : std::nullopt;
  bool cpu_limited = false;
  bool cpu_equal = true;
  bool memory_limited = false;
  bool memory_equal = true;
  out.cpu_milli = request_or_limit(requests, limits, "cpu", cpu_millicores, cpu_limited, cpu_equal);
  out.memory_mib = request_or_limit(requests, limits, "memory", memory_mib, memory_limited, memory_equal);
  facts.qos.any = facts.qos.any || out.cpu_milli > 0 || out.memory_mib > 0 || cpu_limited || memory_limited;
  facts.qos.guaranteed = facts.qos.guaranteed && cpu_limited && memory_limited && cpu_equal && memory_equal;

  bool asked_gpu_name = false;
  for (const auto* map : {&limits, &requests}) {
    if (!*map) continue;
    for (const auto& kv : (*map)->node()) {
      const std::string& name = kv.first.Scalar();
      if (name == "cpu" || name == "memory") continue;
      if (name == kHamiMemory || name == kHamiMemoryPercent || name == kHamiCores || name == kAliyunGpuMem) continue;
      if (is_gpu_name(name)) {
        if (asked_gpu_name) continue;  // the same name in requests (any other failed below)
        asked_gpu_name = true;
        // Any other GPU resource in either map, MIG profiles and gpushare's memory included.
        for (const auto* other_map : {&limits, &requests}) {
          if (!*other_map) continue;
          for (const auto& other : (*other_map)->node()) {
            const std::string& other_name = other.first.Scalar();
            if (other_name == name || (!is_gpu_name(other_name) && other_name != kAliyunGpuMem)) continue;
            (*other_map)->fail(other_name, fmt::format("the container also asks {}; a pod may ask one GPU resource", name));
          }
        }
        if (is_mig_name(name)) {
          const std::string profile = name.substr(kMigPrefix.size());
          if (!cluster::is_mig_profile_name(profile)) {
            (*map)->fail(name, fmt::format("'{}' is not a MIG profile of any GPU in the catalog ({})", profile,
                                           cluster::all_mig_profile_names()));
          }
          if (!facts.mig_profile.empty() && facts.mig_profile != profile) {
            (*map)->fail(name, fmt::format("the pod also asks nvidia.com/mig-{} ({}); a pod may ask one GPU resource",
                                           facts.mig_profile, facts.gpu.path));
          }
        }
        const std::int64_t gpus = extended_ask(requests, limits, name);
        out.gpus = static_cast<std::int32_t>(gpus);
        if (gpus > 0) {
          note_gpu_name(**map, name, facts);
          if (is_mig_name(name)) facts.mig_profile = name.substr(kMigPrefix.size());
        }
        continue;
      }
      must((*map)->where(), kv.second, (*map)->path(name), parse_quantity(quantity_text(**map, name)));
      if (std::find(facts.unmodelled.begin(), facts.unmodelled.end(), name) == facts.unmodelled.end()) {
        facts.unmodelled.push_back(name);
      }
    }
  }
  read_share_asks(where.line(node), path, limits, requests, out, init, facts);
  return out;
}

cluster::SelectorOperator selector_operator(const Fields& r) {
  const std::string op = r.required_string("operator");
  if (op == "In") return cluster::SelectorOperator::kIn;
  if (op == "NotIn") return cluster::SelectorOperator::kNotIn;
  if (op == "Exists") return cluster::SelectorOperator::kExists;
  if (op == "DoesNotExist") return cluster::SelectorOperator::kDoesNotExist;
  if (op == "Gt") return cluster::SelectorOperator::kGt;
  if (op == "Lt") return cluster::SelectorOperator::kLt;
  r.fail("operator", fmt::format("'{}' is not In, NotIn, Exists, DoesNotExist, Gt or Lt", op));
}

// One matchExpressions entry with Kubernetes' value rules.
cluster::SelectorRequirement read_requirement(const Fields& r) {
  cluster::SelectorRequirement req;
  req.key = r.required_string("key");
  req.op = selector_operator(r);
  for (const auto& [node, path] : r.list("values")) {
    if (!node.IsScalar()) r.where().fail(node, path, fmt::format("expected a string, found {}", shape(node)));
    req.values.push_back(node.Scalar());
  }
  switch (req.op) {
    case cluster::SelectorOperator::kIn:
    case cluster::SelectorOperator::kNotIn:
      if (req.values.empty()) r.fail("values", "In and NotIn need at least one value");
      break;
    case cluster::SelectorOperator::kExists:
    case cluster::SelectorOperator::kDoesNotExist:
      if (!req.values.empty()) r.fail("values", "Exists and DoesNotExist take no values");
      break;
    case cluster::SelectorOperator::kGt:
    case cluster::SelectorOperator::kLt: {
      if (req.values.size() != 1) r.fail("values", "Gt and Lt take exactly one value");
      std::int64_t bound = 0;
      const std::string& v = req.values.front();
      const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), bound);
      if (error != std::errc{} || end != v.data() + v.size()) {
        r.fail("values", fmt::format("'{}' is not an integer (Gt and Lt compare integers)", v));
      }
      break;
    }
  }
  return req;
}

struct AffinityFacts {
  bool preferred = false;
  bool pod_affinity = false;
};

// spec.affinity (or the 1.6 annotation's JSON, the same shape): the required node-affinity terms.
std::vector<cluster::NodeSelectorTerm> read_affinity(const Fields& affinity, AffinityFacts& facts) {
  std::vector<cluster::NodeSelectorTerm> terms;
  facts.pod_affinity = facts.pod_affinity || affinity.has("podAffinity") || affinity.has("podAntiAffinity");
  const auto node_affinity = affinity.map("nodeAffinity");
  if (!node_affinity) return terms;
  facts.preferred = facts.preferred || node_affinity->has("preferredDuringSchedulingIgnoredDuringExecution");
  const auto required = node_affinity->map("requiredDuringSchedulingIgnoredDuringExecution");
  if (!required) return terms;
  const auto items = required->list("nodeSelectorTerms");
  if (items.empty()) required->fail("nodeSelectorTerms", "at least one term is required");
  for (const auto& [node, path] : items) {
    const Fields term(affinity.where(), node, path);
    if (term.has("matchFields")) {
      term.fail("matchFields", "not modelled (gpusim reads matchExpressions on node labels)");
    }
    cluster::NodeSelectorTerm t;
    for (const auto& [rnode, rpath] : term.list("matchExpressions")) {
      t.match_expressions.push_back(read_requirement(Fields(affinity.where(), rnode, rpath)));
    }
    if (t.match_expressions.empty()) {
      term.where().fail(node, path, "a term without matchExpressions matches no node in Kubernetes");
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

// scheduler.alpha.kubernetes.io/affinity: Kubernetes 1.6's annotation, a JSON string.
std::optional<std::vector<cluster::NodeSelectorTerm>> alpha_affinity(const Where& where, const Entries& annotations,
                                                                     AffinityFacts& facts) {
  const Entry* e = find(annotations, kAlphaAffinity);
  if (e == nullptr) return std::nullopt;
  Node doc;
  try {
    doc = YAML::Load(e->value);
  } catch (const YAML::Exception& ex) {
    where.fail(e->node, e->path, fmt::format("not valid JSON: {}", ex.msg));
  }
  const Where inside = where.inside_string_at(where.line(e->node));
  return read_affinity(Fields(inside, doc, e->path), facts);
}

std::vector<cluster::Toleration> read_tolerations(const Fields& spec) {
  std::vector<cluster::Toleration> out;
  for (const auto& [node, path] : spec.list("tolerations")) {
    const Fields t(spec.where(), node, path);
    cluster::Toleration tol;
    tol.key = t.string("key").value_or("");
    const std::string op = t.string("operator").value_or("Equal");
    if (op != "Equal" && op != "Exists") t.fail("operator", fmt::format("'{}' is not Equal or Exists", op));
    tol.exists = op == "Exists";
    tol.value = t.string("value").value_or("");
    tol.effect = t.string("effect").value_or("");
    if (tol.key.empty() && !tol.exists) t.fail("operator", "a toleration without a key must use Exists");
    if (tol.exists && !tol.value.empty()) t.fail("value", "must be empty with operator Exists");
    if (!tol.effect.empty() && tol.effect != "NoSchedule" && tol.effect != "PreferNoSchedule" &&
        tol.effect != "NoExecute") {
      t.fail("effect", fmt::format("'{}' is not NoSchedule, PreferNoSchedule or NoExecute", tol.effect));
    }
    tol.toleration_seconds = t.integer("tolerationSeconds", std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max());
    if (tol.toleration_seconds && tol.effect != "NoExecute") t.fail("tolerationSeconds", "only with effect NoExecute");
    out.push_back(std::move(tol));
  }
  return out;
}

std::int32_t pod_priority(const Fields& spec, const std::string& class_name, const PriorityClasses& classes) {
  const auto explicit_value = spec.integer("priority", kInt32Min, kInt32Max);
  const auto class_value = class_name.empty() ? std::nullopt : classes.value(class_name);
  if (explicit_value) {
    if (class_value && *class_value != *explicit_value) {
      spec.fail("priority", fmt::format("{} differs from PriorityClass '{}' ({}); Kubernetes refuses the pod",
                                        *explicit_value, class_name, *class_value));
    }
    return static_cast<std::int32_t>(*explicit_value);
  }
  if (!class_name.empty()) {
    if (!class_value) {
      spec.fail("priorityClassName",
                fmt::format("unknown PriorityClass '{}' (not in this file; built in: system-cluster-critical, "
                            "system-node-critical)",
                            class_name));
    }
    return *class_value;
  }
  return classes.global_default ? classes.global_default->second : 0;
}

struct PodRead {
  cluster::PodSpec pod;  // without its name
  cluster::PodConstraints constraints;
};

std::int64_t checked_total(const Fields& spec, std::int64_t total, std::int64_t max, std::string_view what) {
  if (total > max) {
    spec.fail("containers", fmt::format("the pod's {} total {} is out of range (at most {})", what, total, max));
  }
  return total;
}

// The pod's asks of a sharing device plugin, from its containers'. The replay turns them into a
// share of a GPU once it knows the nodes (sim/experiment/replay_experiment.cpp).
void read_pod_share(const Fields& spec, const PodFacts& facts, cluster::PodSpec& pod, cluster::PodConstraints& c) {
  c.mig_profile = facts.mig_profile;
  if (c.gpu_resource == GpuResource::kAliyunGpuMem) {
    // gpushare puts the whole pod on one GPU and its extender sums the app containers' asks only.
    std::int64_t gib = 0;
    for (const ShareFacts& share : facts.shares) {
      if (!share.init) {
        gib += share.gpu_memory_gib;
      } else if (share.gpu_memory_gib > 0) {
        spec.where().fail_at(share.line, share.path + "." + kAliyunGpuMem,
                             "an init container's ask, which gpushare's extender does not count (it sums the app "
                             "containers'): ask it in an app container");
      }
    }
    c.gpu_memory_gib = checked_total(spec, gib, kMaxGpuMemoryGib, "aliyun.com/gpu-mem");
    pod.gpu_count = 1;
    pod.gpu_milli = cluster::kMilliPerGpu;  // until the replay knows the GPUs' memory
    return;
  }
  const auto asked = std::find_if(facts.shares.begin(), facts.shares.end(), [](const ShareFacts& f) { return f.hami_asked; });
  if (asked == facts.shares.end()) return;
  // gpusim gives a pod one share of each of its GPUs, so its vGPUs must all ask the same.
  for (const ShareFacts& share : facts.shares) {
    if (share.gpus == 0) continue;
    const cluster::HamiAsk& a = share.hami;
    const cluster::HamiAsk& b = asked->hami;
    if (a.memory_mib != b.memory_mib || a.memory_percent != b.memory_percent || a.cores_percent != b.cores_percent) {
      spec.where().fail_at(share.line, share.path, fmt::format(
          "asks nvidia.com/gpumem {} MiB / {} %, gpucores {} of each vGPU, but {} asks {} MiB / {} %, gpucores {} "
          "(HAMi's defaults filled in); gpusim models one share per pod: give every GPU container the same",
          a.memory_mib, a.memory_percent, a.cores_percent, asked->path, b.memory_mib, b.memory_percent, b.cores_percent));
    }
  }
  c.gpu_resource = GpuResource::kHamiVgpu;
  c.hami = asked->hami;
}

// A pod spec (a Pod's, or a Job's template's) with its annotations (for a Job, the Job's
// overlaid by the template's).
PodRead read_pod_spec(const Fields& spec, const Entries& annotations, const PriorityClasses& classes,
                      WorkloadTally& tally) {
  const Where& where = spec.where();
  PodRead out;
  cluster::PodConstraints& c = out.constraints;
  PodFacts facts;
  const auto containers = spec.list("containers");
  if (containers.empty()) spec.fail("containers", "a pod needs at least one container");
  for (const auto& [node, path] : spec.list("initContainers")) {
    c.init_containers.push_back(read_container(where, node, path, true, facts));
  }
  for (const auto& [node, path] : containers) c.containers.push_back(read_container(where, node, path, false, facts));
  c.gpu_resource = facts.gpu.resource;

  // Kubernetes' effective request: init containers run one at a time before the others.
  std::int64_t cpu = 0, memory = 0, gpus = 0;
  for (const auto& k : c.containers) {
    cpu += k.cpu_milli;
    memory += k.memory_mib;
    gpus += k.gpus;
  }
  for (const auto& k : c.init_containers) {
    cpu = std::max(cpu, k.cpu_milli);
    memory = std::max(memory, k.memory_mib);
    gpus = std::max<std::int64_t>(gpus, k.gpus);
  }
  cluster::PodSpec& pod = out.pod;
  pod.cpu_milli = checked_total(spec, cpu, kMaxQuantity, "cpu");
  pod.memory_mib = checked_total(spec, memory, kMaxQuantity, "memory");
  pod.gpu_count = static_cast<std::int32_t>(checked_total(spec, gpus, cluster::kMaxGpusPerNode, "GPU"));
  pod.gpu_milli = pod.gpu_count > 0 ? cluster::kMilliPerGpu : 0;
  read_pod_share(spec, facts, pod, c);
  pod.qos = !facts.qos.any         ? cluster::Qos::kBestEffort
            : facts.qos.guaranteed ? cluster::Qos::kGuaranteed
                                   : cluster::Qos::kBurstable;
  for (const auto& name : facts.unmodelled) ++tally.unmodelled[name];

  for (const Entry& e : string_map(spec, "nodeSelector")) c.node_selector.emplace_back(e.key, e.value);
  AffinityFacts affinity;
  if (const auto field = spec.map("affinity")) c.required_terms = read_affinity(*field, affinity);
  if (auto alpha = alpha_affinity(where, annotations, affinity)) {
    if (!c.required_terms.empty()) {
      spec.fail("affinity", fmt::format("required node affinity is given both here and in annotation {}; give one",
                                        kAlphaAffinity));
    }
    c.required_terms = std::move(*alpha);
  }
  tally.preferred_affinity += affinity.preferred ? 1 : 0;
  tally.pod_affinity += affinity.pod_affinity ? 1 : 0;
  c.tolerations = read_tolerations(spec);
  c.scheduler_name = spec.string("schedulerName").value_or("default-scheduler");
  if (c.scheduler_name.empty()) spec.fail("schedulerName", "empty");
  c.priority_class = spec.string("priorityClassName").value_or("");
  pod.priority = pod_priority(spec, c.priority_class, classes);
  if (spec.has("nodeName")) ++tally.node_name;

  // Times from gpusim's annotations.
  core::Time arrival = core::Time::zero();
  core::Time duration = core::Time::from_seconds(3600);
  if (const Entry* e = find(annotations, "gpusim.io/arrival")) {
    arrival = duration_entry(where, *e);
  } else {
    ++tally.default_arrival;
  }
  if (const Entry* e = find(annotations, "gpusim.io/duration")) {
    duration = duration_entry(where, *e);
  } else {
    ++tally.default_duration;
  }
  pod.phase = cluster::TracePhase::kSucceeded;
  pod.creation_time = arrival;
  pod.duration = duration;
  pod.deletion_time = arrival + duration;
  return out;
}

constexpr std::array<std::string_view, 2> kPodAnnotations{"gpusim.io/arrival", "gpusim.io/duration"};

struct WorkloadBuilder {
  Workload workload;
  WorkloadTally tally;
  std::unordered_map<std::string, int> pod_names;  // a Job's pods share the Job's line
  std::unordered_map<std::string, int> job_names;

  void add_pod(const Object& object, const PriorityClasses& classes) {
    const Fields& fields = object.fields;
    const Meta meta = read_meta(fields);
    check_gpusim_annotations(fields.where(), meta.annotations, kPodAnnotations, "Pod");
    PodRead read = read_pod_spec(fields.required_map("spec"), meta.annotations, classes, tally);
    read.pod.name = meta.name;
    read.constraints.ownerless = true;  // nothing recreates a bare Pod
    read.pod.constraints = std::make_shared<const cluster::PodConstraints>(std::move(read.constraints));
    add(std::move(read.pod), fields);
  }

  void add_job(const Object& object, const PriorityClasses& classes) {
    const Fields& fields = object.fields;
    const Meta meta = read_meta(fields);
    const auto [it, inserted] = job_names.emplace(meta.name, object.line);
    if (!inserted) {
      fields.required_map("metadata")
          .fail("name", fmt::format("duplicate Job name '{}' (first at line {})", meta.name, it->second));
    }
    check_gpusim_annotations(fields.where(), meta.annotations, kPodAnnotations, "Job");
    const Fields spec = fields.required_map("spec");
    if (spec.boolean("suspend").value_or(false)) spec.fail("suspend", "suspended Jobs are not modelled");
    JobSpec job;
    job.name = meta.name;
    job.parallelism = static_cast<std::int32_t>(spec.integer("parallelism", 1, kInt32Max).value_or(1));
    if (const auto completions = spec.integer("completions", 1, kMaxPods)) {
      job.completions = static_cast<std::int32_t>(*completions);
    } else {
      job.completions = job.parallelism;
      ++tally.default_completions;
    }
    if (static_cast<std::int64_t>(workload.pods.size()) + job.completions > kMaxPods) {
      spec.fail(spec.has("completions") ? "completions" : "parallelism",
                fmt::format("more than {} pods in the workload", kMaxPods));
    }
    read_job_failure_handling(spec, job);
    const Fields pod_template = spec.required_map("template");
    read_restart_policy(pod_template, job);
    // gpusim annotations may sit on the Job or on its template; the template's win.
    Entries annotations = meta.annotations;
    if (const auto template_meta = pod_template.map("metadata")) {
      const Entries own = string_map(*template_meta, "annotations");
      check_gpusim_annotations(fields.where(), own, kPodAnnotations, "Job's pod template");
      for (const Entry& e : own) {
        const auto same =
            std::find_if(annotations.begin(), annotations.end(), [&](const Entry& a) { return a.key == e.key; });
        if (same != annotations.end()) {
          *same = e;
        } else {
          annotations.push_back(e);
        }
      }
    }
    WorkloadTally one;  // the template is read once; its tallies count every pod of the Job
    PodRead read = read_pod_spec(pod_template.required_map("spec"), annotations, classes, one);
    read.constraints.job = static_cast<std::int32_t>(workload.jobs.size());
    read.constraints.restart_on_failure = job.restart_on_failure;
    scale_tally(one, job.completions);
    const auto constraints = std::make_shared<const cluster::PodConstraints>(std::move(read.constraints));
    for (std::int32_t k = 0; k < job.completions; ++k) {
      cluster::PodSpec pod = read.pod;
      pod.name = fmt::format("{}-{}", job.name, k);
      pod.constraints = constraints;
      add(std::move(pod), fields);
    }
    workload.jobs.push_back(std::move(job));
  }

  // backoffLimit, activeDeadlineSeconds and podFailurePolicy; other spec fields that change how a
  // Job runs are named in a note.
  void read_job_failure_handling(const Fields& spec, JobSpec& job) {
    if (const auto limit = spec.integer("backoffLimit", 0, kInt32Max)) job.backoff_limit = static_cast<std::int32_t>(*limit);
    if (const auto deadline = spec.integer("activeDeadlineSeconds", 1, kMaxDeadlineSeconds)) {
      job.active_deadline = core::Time::from_seconds(*deadline);
    }
    if (const auto policy = spec.map("podFailurePolicy")) {
      for (const auto& [node, path] : policy->list("rules")) job.pod_failure_rules.push_back(read_failure_rule(Fields(spec.where(), node, path)));
      if (!policy->has("rules")) policy->missing("rules");
    }
    for (const char* field : {"completionMode", "backoffLimitPerIndex", "maxFailedIndexes", "podReplacementPolicy",
                              "successPolicy", "managedBy"}) {
      if (spec.has(field)) ++tally.unmodelled_job_fields[field];
    }
  }

  PodFailureRule read_failure_rule(const Fields& r) {
    PodFailureRule rule;
    const std::string action = r.required_string("action");
    if (action == "FailJob") rule.action = FailureAction::kFailJob;
    else if (action == "Ignore") rule.action = FailureAction::kIgnore;
    else if (action == "Count") rule.action = FailureAction::kCount;
    else if (action == "FailIndex") r.fail("action", "FailIndex needs completionMode Indexed, which gpusim does not model");
    else r.fail("action", fmt::format("'{}' is not FailJob, Ignore or Count", action));
    const bool on_codes = r.has("onExitCodes");
    if (on_codes == r.has("onPodConditions")) r.fail("action", "a rule needs exactly one of onExitCodes and onPodConditions");
    if (on_codes) {
      const Fields codes = r.required_map("onExitCodes");
      rule.container = codes.string("containerName").value_or("");
      const std::string op = codes.required_string("operator");
      if (op != "In" && op != "NotIn") codes.fail("operator", fmt::format("'{}' is not In or NotIn", op));
      rule.exit_codes_in = op == "In";
      for (const auto& [node, path] : codes.list("values")) {
        if (!node.IsScalar()) r.where().fail(node, path, "expected an integer");
        std::int32_t code = 0;
        const std::string& text = node.Scalar();
        const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), code);
        if (error != std::errc{} || stop != text.data() + text.size()) r.where().fail(node, path, fmt::format("'{}' is not an integer", text));
        if (code == 0 && rule.exit_codes_in) r.where().fail(node, path, "0 cannot be used with operator In");
        rule.exit_codes.push_back(code);
      }
      if (rule.exit_codes.empty()) codes.fail("values", "missing or empty");
      return rule;
    }
    for (const auto& [node, path] : r.list("onPodConditions")) {
      const Fields condition(r.where(), node, path);
      const std::string type = condition.required_string("type");
      const std::string status = condition.string("status").value_or("True");
      if (status != "True" && status != "False" && status != "Unknown") {
        condition.fail("status", fmt::format("'{}' is not True, False or Unknown", status));
      }
      if (type == "DisruptionTarget" && status == "True") rule.on_disruption = true;
      else ++tally.other_conditions;  // a condition no simulated pod ever has: never matches
    }
    return rule;
  }

  void read_restart_policy(const Fields& pod_template, JobSpec& job) {
    const Fields pod_spec = pod_template.required_map("spec");
    const auto policy = pod_spec.string("restartPolicy");
    if (!policy) {
      ++tally.default_restart_policy;
    } else if (*policy == "OnFailure") {
      if (!job.pod_failure_rules.empty()) {
        pod_spec.fail("restartPolicy", "spec.podFailurePolicy needs restartPolicy Never (Kubernetes refuses the Job)");
      }
      job.restart_on_failure = true;
    } else if (*policy != "Never") {
      pod_spec.fail("restartPolicy", fmt::format("'{}': a Job's pods use Never or OnFailure", *policy));
    }
  }

  void add(cluster::PodSpec pod, const Fields& owner) {
    check_unique(pod_names, pod.name, owner, "pod");
    workload.pods.push_back(std::move(pod));
  }

  void scale_tally(const WorkloadTally& one, std::int64_t pods) {
    tally.default_arrival += one.default_arrival * pods;
    tally.default_duration += one.default_duration * pods;
    for (const auto& [name, n] : one.unmodelled) tally.unmodelled[name] += n * pods;
    tally.node_name += one.node_name * pods;
    tally.preferred_affinity += one.preferred_affinity * pods;
    tally.pod_affinity += one.pod_affinity * pods;
  }
};

void workload_notes(const WorkloadTally& t, Workload& w) {
  if (t.default_arrival > 0) {
    w.notes.push_back(fmt::format("{} without gpusim.io/arrival: arrive at 0s (the simulation start)",
                                  plural(t.default_arrival, "pod", "pods")));
  }
  if (t.default_duration > 0) {
    w.notes.push_back(fmt::format("{} without gpusim.io/duration: run 1h", plural(t.default_duration, "pod", "pods")));
  }
  if (t.default_completions > 0) {
    w.notes.push_back(fmt::format("{} without spec.completions: completions = parallelism (one pod per worker)",
                                  plural(t.default_completions, "Job", "Jobs")));
  }
  if (t.default_restart_policy > 0) {
    w.notes.push_back(fmt::format("{} without spec.template.spec.restartPolicy: Never (Kubernetes asks for Never or "
                                  "OnFailure)",
                                  plural(t.default_restart_policy, "Job", "Jobs")));
  }
  if (!t.unmodelled_job_fields.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : t.unmodelled_job_fields) parts.push_back(fmt::format("{} ({})", name, plural(n, "Job", "Jobs")));
    w.notes.push_back(fmt::format("Job spec fields gpusim does not model (ignored): {}", fmt::join(parts, ", ")));
  }
  if (t.other_conditions > 0) {
    w.notes.push_back(fmt::format("podFailurePolicy: {} on a condition other than DisruptionTarget=True never match "
                                  "(no simulated pod has one)",
                                  plural(t.other_conditions, "rule", "rules")));
  }
  if (!t.unmodelled.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : t.unmodelled) parts.push_back(fmt::format("{} ({})", name, plural(n, "pod", "pods")));
    w.notes.push_back(fmt::format("resources gpusim does not model (ignored): {}", fmt::join(parts, ", ")));
  }
  if (t.node_name > 0) {
    w.notes.push_back(
        fmt::format("spec.nodeName ignored (gpusim schedules the pod itself): {}", plural(t.node_name, "pod", "pods")));
  }
  if (t.preferred_affinity > 0) {
    w.notes.push_back(
        fmt::format("preferred node affinity not modelled (ignored): {}", plural(t.preferred_affinity, "pod", "pods")));
  }
  if (t.pod_affinity > 0) {
    w.notes.push_back(fmt::format("pod affinity and anti-affinity not modelled (ignored): {}",
                                  plural(t.pod_affinity, "pod", "pods")));
  }
}
}  // namespace

ClusterSpec parse_k8s_nodes(const std::string& text, const std::string& source, const GpuCatalog& catalog) {
  const std::vector<Object> objects = read_objects(Where(source), text);
  ClusterSpec spec;
  spec.source = source;
  NodeTally tally;
  std::unordered_map<std::string, int> names;
  std::vector<const Object*> skipped;
  for (const Object& object : objects) {
    check_kind(object, {"Node"});
    if (object.kind != "Node") {
      skipped.push_back(&object);
      continue;
    }
    auto [node, kube] = read_node(object, catalog, tally);
    check_unique(names, node.name, object.fields, "node");
    spec.nodes.push_back(std::move(node));
    spec.kube.push_back(std::move(kube));
  }
  if (spec.nodes.empty()) nothing_read(source, "Node object");
  node_notes(tally, spec);
  if (!skipped.empty()) spec.notes.push_back(skipped_note(skipped, "Node"));
  return spec;
}

Workload parse_k8s_workload(const std::string& text, const std::string& source, const GpuCatalog& /*catalog*/) {
  const std::vector<Object> objects = read_objects(Where(source), text);
  // PriorityClasses may come after the pods that name them.
  PriorityClasses classes;
  for (const Object& object : objects) {
    check_kind(object, {"Pod", "Job", "PriorityClass"});
    if (object.kind == "PriorityClass") read_priority_class(object, classes);
  }
  WorkloadBuilder b;
  b.workload.source = source;
  b.workload.has_times = true;
  std::vector<const Object*> skipped;
  for (const Object& object : objects) {
    if (object.kind == "Pod") {
      b.add_pod(object, classes);
    } else if (object.kind == "Job") {
      b.add_job(object, classes);
    } else if (object.kind != "PriorityClass") {
      skipped.push_back(&object);
    }
  }
  if (b.workload.pods.empty()) nothing_read(source, "Pod or Job object");
  workload_notes(b.tally, b.workload);
  if (!skipped.empty()) b.workload.notes.push_back(skipped_note(skipped, "Pod, Job and PriorityClass"));
  return std::move(b.workload);
}

ClusterSpec read_k8s_nodes(const std::filesystem::path& path, const GpuCatalog& catalog) {
  return parse_k8s_nodes(io::read_file(path, "node manifest"), path.string(), catalog);
}

Workload read_k8s_workload(const std::filesystem::path& path, const GpuCatalog& catalog) {
  return parse_k8s_workload(io::read_file(path, "workload manifest"), path.string(), catalog);
}

}  // namespace gpusim::traces
