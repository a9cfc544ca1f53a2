#include "traces/k8s/node_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "traces/k8s/node_gpus.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces::k8s {

using cluster::GpuCatalog;

namespace {

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

}  // namespace

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

}  // namespace gpusim::traces::k8s
