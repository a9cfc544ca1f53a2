#include "sim/k8s/vgpu_layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/mig.hpp"
#include "sim/cluster/vgpu_types.hpp"
#include "sim/core/status.hpp"

namespace gpusim::k8s {

std::string vgpu_resource(const std::string& type) { return "NVIDIA_" + type; }

namespace {

// The entry of `config` that applies to GPU `index` of a board with PCI id `device_id`, or null.
const VgpuDmEntry* entry_for(const VgpuDmConfig& config, int index, std::uint32_t device_id, const std::string& where) {
  const VgpuDmEntry* applies = nullptr;
  for (const VgpuDmEntry& e : config.entries) {
    const bool filtered = e.device_filter.empty() ||
                          std::any_of(e.device_filter.begin(), e.device_filter.end(),
                                      [&](const std::string& id) { return vgpu_filter_matches(id, device_id); });
    const bool listed = e.all_devices || std::find(e.devices.begin(), e.devices.end(), index) != e.devices.end();
    if (!filtered || !listed) continue;
    if (applies != nullptr) {
      throw core::InputError(fmt::format("{}: entries at lines {} and {} both apply to GPU {}; gpusim takes one entry per GPU",
                                         where, applies->line, e.line, index));
    }
    applies = &e;
  }
  return applies;
}

}  // namespace

namespace {
void resolve_mig_backed(NodeSetup& chosen, const VgpuDmEntry& entry, const cluster::VgpuGpu& board,
                        const cluster::GpuModel& model, const std::string& at);
void resolve_time_sliced(NodeSetup& chosen, const VgpuDmEntry& entry, const cluster::VgpuGpu& board,
                         const cluster::GpuModel& model, const std::string& at);
}  // namespace

void resolve_vgpu(NodeSetup& chosen, const VgpuDmConfigs& configs, const cluster::NodeSpec& node, const std::string& from,
                  const cluster::GpuCatalog& catalog) {
  chosen.vgpu_devices.clear();
  if (node.gpu_count == 0) return;
  const VgpuDmConfig& config = configs.for_node(node);
  const std::string where = fmt::format("node {} ({} gives it devicePlugin kubevirt-vgpu): vGPU config '{}' ({}:{})", node.name,
                                        from, config.name, configs.file, config.line);
  const auto entry_field = [&](const VgpuDmEntry& e) {
    const auto index = static_cast<std::size_t>(&e - config.entries.data());
    return fmt::format("node {} ({} gives it devicePlugin kubevirt-vgpu): {}:{}: vgpu-configs.{}[{}]", node.name, from,
                       configs.file, e.line, config.name, index);
  };
  const cluster::GpuModel& model = catalog.at(node.gpu_model);
  const cluster::VgpuGpu* board = cluster::vgpu_gpu(model.id);
  if (board == nullptr) {
    throw core::InputError(fmt::format("{}: its GPUs ({}) have no vGPU type table in gpusim (GPUs with one: {})", where,
                                       model.id, cluster::vgpu_gpu_names()));
  }
  const VgpuDmEntry* first = nullptr;
  for (int g = 0; g < node.gpu_count; ++g) {
    const VgpuDmEntry* e = entry_for(config, g, board->pci_device_id, where);
    if (g > 0 && e != first && (e == nullptr || first == nullptr || e->vgpu_devices != first->vgpu_devices)) {
      throw core::InputError(fmt::format("{}: GPU {} gets other vGPUs than GPU 0; gpusim gives every GPU of a node the same",
                                         where, g));
    }
    if (g == 0) first = e;
  }
  if (first == nullptr || first->vgpu_devices.empty()) {
    throw core::InputError(fmt::format("{}: no entry gives its GPUs (PCI id 0x{:08X}) vGPUs, so the node would serve none; give it "
                                       "an entry (device-filter and devices select GPUs) or another devicePlugin",
                                       where, board->pci_device_id));
  }
  const std::string at = entry_field(*first);
  if (first->mig_backed) {
    resolve_mig_backed(chosen, *first, *board, model, at);
  } else {
    resolve_time_sliced(chosen, *first, *board, model, at);
  }
  if (node.gpu_count * chosen.replicas() > cluster::kMaxGpusPerNode) {
    throw core::InputError(fmt::format("{}: {} GPUs x {} vGPUs is more than the {} devices a node may have", where, node.gpu_count,
                                       chosen.replicas(), cluster::kMaxGpusPerNode));
  }
}

namespace {

// The type `name` of the board, or the manager's refusal.
const cluster::VgpuType& supported(const cluster::VgpuGpu& board, const cluster::GpuModel& model, const std::string& name,
                                   const std::string& at) {
  const cluster::VgpuType* type = cluster::vgpu_type(board, name);
  if (type == nullptr) {
    throw core::InputError(fmt::format("{}: vGPU type {} is not supported on GPU (index=0): the node's GPUs are {} (its types: {})",
                                       at, name, model.id, cluster::vgpu_type_names(board)));
  }
  return *type;
}

double framebuffer_share(const cluster::VgpuType& type, const cluster::GpuModel& model) {
  return std::min(1.0, type.framebuffer_gib * 1024.0 / static_cast<double>(model.memory_mib));
}

// MIG-backed vGPU: the manager has mig-parted create the GPU instances (A100DX-1-10C on a 1g.10gb
// instance each), so they must fit the GPU as the driver places them. A type of one vGPU per
// instance runs on its instance's SMs alone (the vGPU schedulers time-slice only time-sliced
// vGPUs); a time-sliced MIG-backed type (GB20x: DC-1-8C, 3 per 1g.24gb) fills each instance with
// its most per instance, in the config's order, the last taking the rest, and its vGPUs
// time-slice the instance. One type per instance (the driver's heterogeneous mode per instance is
// not modelled). The VDM v0.5.0 itself would ask mig-parted for a profile named after the vGPU's
// framebuffer (1g.8gb for DC-1-8C, spec.go ToMigConfigSpecSlice), which the GPU lacks; gpusim
// creates the instance the type runs on, as NVIDIA's vGPU documentation sets such a host up.
void resolve_mig_backed(NodeSetup& chosen, const VgpuDmEntry& entry, const cluster::VgpuGpu& board,
                        const cluster::GpuModel& model, const std::string& at) {
  const cluster::MigGeometry* geometry = cluster::mig_geometry(model.id);
  if (geometry == nullptr) {
    throw core::InputError(fmt::format("{}: MIG-backed vGPU on {}, which gpusim has no MIG geometry for", at, model.id));
  }
  std::vector<int> shapes;                       // per instance
  std::vector<const cluster::VgpuType*> types;   // per instance
  std::vector<int> vgpus;                        // per instance
  for (const auto& [name, count] : entry.vgpu_devices) {
    const cluster::VgpuType& type = supported(board, model, name, at);
    if (type.per_instance > 1 && !chosen.vgpu.mig_time_slicing) {
      throw core::InputError(fmt::format("{}: vGPU type {} is not supported on GPU (index=0): it is a time-sliced MIG-backed type "
                                         "({} per {} instance), which the driver offers only with the GPU's MIG time-slicing "
                                         "mode on; set vgpu.migTimeSlicing: true for a host where it is", at, name,
                                         type.per_instance, type.mig_profile));
    }
    const auto shape = geometry->shape(type.mig_profile);
    if (!shape) {
      throw core::InputError(fmt::format("{}: {} runs on MIG profile {}, which gpusim does not model (its profiles: {})", at, name,
                                         type.mig_profile, geometry->profile_names()));
    }
    if (count > type.max_equal) {
      throw core::InputError(fmt::format("{}: failed to create {} {} vGPU devices on GPU (index=0): ensure '{}' does not exceed the "
                                         "maximum supported instances for '{}' ({} per GPU)", at, count, name, count, name,
                                         type.max_equal));
    }
    for (int left = count; left > 0; left -= type.per_instance) {
      shapes.push_back(*shape);
      types.push_back(&type);
      vgpus.push_back(std::min(left, type.per_instance));
    }
  }
  if (!cluster::mig_placement(*geometry, shapes)) {
    throw core::InputError(fmt::format("{}: the GPU instances these vGPUs need ({}) do not fit one {} (at most {} compute slices, "
                                       "each instance at a memory slice where its profile may start); the MIG manager would fail",
                                       at, shapes.size(), model.id, geometry->compute_slices));
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (int k = 0; k < vgpus[i]; ++k) {
      NodeSetup::VgpuDevice device;
      device.type = std::string(board.prefix) + "-" + std::string(types[i]->suffix);
      device.framebuffer_share = framebuffer_share(*types[i], model);
      device.max_instances = types[i]->max_equal;
      device.mig_shape = shapes[i];
      device.compute_share = geometry->compute_share(shapes[i]);
      device.instance = static_cast<int>(i);
      device.per_instance = types[i]->per_instance;
      chosen.vgpu_devices.push_back(device);
    }
  }
}

// Time-sliced vGPU: one framebuffer size per GPU unless the host is in mixed-size mode.
void resolve_time_sliced(NodeSetup& chosen, const VgpuDmEntry& entry, const cluster::VgpuGpu& board,
                         const cluster::GpuModel& model, const std::string& at) {
  const VgpuDmEntry* first = &entry;
  // Per framebuffer size, the vGPUs asked and the most the GPU allows of it.
  std::map<int, std::pair<int, int>> by_size;
  int framebuffer = 0;
  for (const auto& [name, count] : first->vgpu_devices) {
    const cluster::VgpuType* type = &supported(board, model, name, at);
    auto& [asked, most] = by_size[type->framebuffer_gib];
    asked += count;
    most = type->max_equal;
    framebuffer += count * type->framebuffer_gib;
  }
  const bool mixed = by_size.size() > 1;
  if (mixed && !chosen.vgpu.mixed_size) {
    throw core::InputError(fmt::format("{}: vGPUs of {} framebuffer sizes on one GPU need mixed-size mode, and the GPU starts "
                                       "in equal-size mode (neither the vGPU Device Manager nor the GPU Operator changes it): "
                                       "the driver would create no vGPU of the second size; set vgpu.mixedSizeMode: true "
                                       "for a host where `nvidia-smi vgpu -shm 1` was run", at, by_size.size()));
  }
  if (mixed && !board.mixed_size) {
    throw core::InputError(fmt::format("{}: {} has no mixed-size vGPU mode in gpusim's tables (NVIDIA AI Enterprise 5.0 lists none "
                                       "for it)", at, model.id));
  }
  if (mixed && chosen.vgpu.scheduler == VgpuScheduler::kFixedShare) {
    throw core::InputError(fmt::format("{}: the fixed share scheduler is not supported with vGPUs of different framebuffer sizes "
                                       "on one GPU (NVIDIA AI Enterprise 5.0 §7.1): use best-effort or equal-share", at));
  }
  const int memory_gib = static_cast<int>(model.memory_mib / 1024);
  if (mixed && framebuffer > memory_gib) {
    throw core::InputError(fmt::format("{}: the vGPUs' framebuffers add up to {} GiB, more than the GPU's {} GiB", at, framebuffer,
                                       memory_gib));
  }
  for (const auto& [name, count] : first->vgpu_devices) {
    const cluster::VgpuType* type = cluster::vgpu_type(board, name);
    const int most = mixed ? type->max_mixed : by_size[type->framebuffer_gib].second;
    const int asked = mixed ? count : by_size[type->framebuffer_gib].first;
    if (most == 0) {
      throw core::InputError(fmt::format("{}: {} has no mixed-size figure in gpusim's tables (NVIDIA AI Enterprise 5.0 gives "
                                         "C-series ones only)", at, name));
    }
    if (asked > most) {
      throw core::InputError(fmt::format("{}: failed to create {} {} vGPU devices on GPU (index=0): ensure '{}' does not exceed the "
                                         "maximum supported instances for '{}' ({} per GPU in {}-size mode{})", at, asked, name,
                                         asked, name, most, mixed ? "mixed" : "equal",
                                         mixed || count == asked ? "" : ", counting the other types of its size"));
    }
  }
  if (mixed && board.placement_region_gib > 0) {
    std::vector<int> sizes;
    for (const auto& [name, count] : first->vgpu_devices) {
      const int size = cluster::vgpu_type(board, name)->framebuffer_gib;
      if (cluster::mixed_placement_ids(board, size).empty()) {
        throw core::InputError(fmt::format("{}: {} has no placement ID in mixed-size mode in gpusim's tables", at, name));
      }
      sizes.insert(sizes.end(), static_cast<std::size_t>(count), size);
    }
    if (!cluster::mixed_placement_fits(board, sizes)) {
      throw core::InputError(fmt::format("{}: these vGPUs cannot all be placed on one GPU in mixed-size mode: each starts at one of "
                                         "its size's placement IDs in a {} GB region and they may not overlap (NVIDIA AI "
                                         "Enterprise 5.0 §2.10)", at, board.placement_region_gib));
    }
  }
  for (const auto& [name, count] : first->vgpu_devices) {
    const cluster::VgpuType* type = cluster::vgpu_type(board, name);
    for (int k = 0; k < count; ++k) {
      NodeSetup::VgpuDevice device;
      device.type = name;
      device.framebuffer_share = framebuffer_share(*type, model);
      device.max_instances = mixed ? type->max_mixed : type->max_equal;
      chosen.vgpu_devices.push_back(device);
    }
  }
}

}  // namespace

std::vector<std::string> vgpu_types_by_class(const std::vector<NodeSetup>& setup) {
  std::vector<std::string> names;
  for (const NodeSetup& node : setup) {
    for (const NodeSetup::VgpuDevice& d : node.vgpu_devices) names.push_back(d.type);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  names.insert(names.begin(), "");
  return names;
}

void number_vgpu_types(std::vector<NodeSetup>& setup) {
  const std::vector<std::string> names = vgpu_types_by_class(setup);
  if (names.size() > cluster::ClusterState::kDeviceClasses) {
    throw core::InputError(fmt::format("the vGPU configs create {} vGPU types over the nodes ({}); gpusim tells at most {} apart in "
                                       "one run", names.size() - 1, fmt::join(names.begin() + 1, names.end(), ", "),
                                       cluster::ClusterState::kDeviceClasses - 1));
  }
  for (NodeSetup& node : setup) {
    for (NodeSetup::VgpuDevice& d : node.vgpu_devices) {
      d.device_class = static_cast<std::uint8_t>(std::find(names.begin(), names.end(), d.type) - names.begin());
    }
  }
}

}  // namespace gpusim::k8s
