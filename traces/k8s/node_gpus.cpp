#include "traces/k8s/node_gpus.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_manifests.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::traces::k8s {

using YAML::Node;
using cluster::GpuCatalog;
using cluster::GpuModelId;
using cluster::GpuResource;

namespace {

// How many nodes a note names one by one (GPU memory other than the catalog's).
constexpr int kListedNodes = 10;

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

}  // namespace

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

}  // namespace gpusim::traces::k8s
