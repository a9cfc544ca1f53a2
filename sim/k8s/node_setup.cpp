#include "sim/k8s/node_setup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/status.hpp"
#include "sim/k8s/mig_parted_config.hpp"
#include "sim/k8s/plugin_config_apply.hpp"
#include "sim/k8s/settings_reader.hpp"
#include "sim/k8s/vgpu_layout.hpp"

namespace gpusim::k8s {
namespace {

int topology_id(const std::string& name, const std::string& where, const topology::Library& topologies) {
  if (name.empty()) return -1;
  const auto id = topologies.find(name);
  if (!id) throw core::InputError(fmt::format("{}: unknown topology '{}' (known: {})", where, name, topologies.names()));
  return *id;
}

// A MIG node: its GPU model's geometry, and a layout of that model's profiles that the driver
// could create (each instance at an allowed start, none overlapping).
void resolve_mig(NodeSetup& chosen, const MigConfig& mig, const cluster::NodeSpec& node, const std::string& from,
                 const cluster::GpuCatalog& catalog) {
  const std::string where = fmt::format("node {}: {} gives it devicePlugin mig", node.name, from);
  if (node.gpu_count == 0) return;
  const std::string& gpu = catalog.at(node.gpu_model).id;
  chosen.mig_geometry = cluster::mig_geometry(gpu);
  if (chosen.mig_geometry == nullptr) {
    throw core::InputError(fmt::format("{}, but its GPU ({}) has no MIG (MIG-capable: a100-sxm4-40gb, a100-sxm4-80gb, "
                                       "h100-sxm5-80gb, h200-sxm-141gb)", where, gpu));
  }
  if (chosen.mig_geometry->compute_slices != 7) {
    // Its 4-slice geometry serves MIG-backed vGPU; the MIG device plugin's slice accounting and
    // HAMi's templates assume 7 slices.
    throw core::InputError(fmt::format("{}, but gpusim models MIG on its GPU ({}) only under MIG-backed vGPU (devicePlugin "
                                       "kubevirt-vgpu)", where, gpu));
  }
  if (mig.layout.empty()) {
    throw core::InputError(fmt::format("{} without a MIG layout: give NVIDIA's MIG manager config (--config, with the "
                                       "node labelled nvidia.com/mig.config) and its device-plugin config",
                                       where));
  }
  chosen.mig_strategy = mig.strategy;
  chosen.mig_dynamic = mig.dynamic;
  chosen.mig_reconfigure_time = mig.reconfigure_time;
  chosen.mig_shapes.clear();
  for (const std::string& name : mig.layout) {
    const auto shape = chosen.mig_geometry->shape(name);
    if (!shape) {
      throw core::InputError(fmt::format("{}: {} has no MIG profile '{}' (its profiles: {})", where, gpu, name,
                                         chosen.mig_geometry->profile_names()));
    }
    chosen.mig_shapes.push_back(*shape);
  }
  if (!cluster::mig_placement(*chosen.mig_geometry, chosen.mig_shapes)) {
    throw core::InputError(fmt::format("{}: the layout [{}] does not fit one {}: at most 7 compute slices, and each "
                                       "instance needs free memory slices where its profile may start (1g: any of "
                                       "0-6; 1g with two memory slices: 0, 2, 4, 6; 2g: 0, 2, 4; 3g: 0, 4; 4g and 7g: 0)",
                                       where, fmt::join(mig.layout, ", "), gpu));
  }
  if (node.gpu_count * chosen.replicas() > cluster::kMaxGpusPerNode) {
    throw core::InputError(fmt::format("{}: {} GPUs x {} instances is more than the {} devices a node may have", where,
                                       node.gpu_count, chosen.replicas(), cluster::kMaxGpusPerNode));
  }
  // Each GPU's layout travels in 4 bits of one 64-bit word whose top bit is a flag (NodeStatus::mig_layouts).
  if (chosen.mig_dynamic && node.gpu_count > NodeSetup::kMaxDynamicMigGpus) {
    throw core::InputError(fmt::format("{}: dynamic MIG on {} GPUs; gpusim re-partitions at most {} GPUs per node", where,
                                       node.gpu_count, NodeSetup::kMaxDynamicMigGpus));
  }
}

}  // namespace

std::vector<NodeSetup> resolve_node_setup(const KubeSettings& settings, const traces::ClusterSpec& cluster,
                                          const cluster::GpuCatalog& catalog, const topology::Library& topologies) {
  const std::vector<cluster::NodeSpec>& nodes = cluster.nodes;
  struct ResolvedPool {
    const NodePool* pool;
    std::optional<cluster::GpuModelId> model;
    int topology;
  };
  std::vector<ResolvedPool> pools;
  for (const NodePool& pool : settings.pools) {
    ResolvedPool resolved{&pool, std::nullopt, topology_id(pool.topology, "pool " + pool.name, topologies)};
    if (!pool.match.gpu_model.empty()) {
      resolved.model = catalog.find(pool.match.gpu_model);
      if (!resolved.model) {
        throw core::InputError(fmt::format("pool {}: unknown GPU model '{}' (catalog ids: {})", pool.name,
                                           pool.match.gpu_model, catalog.ids()));
      }
    }
    pools.push_back(resolved);
  }
  if (settings.mig_parted_configs && !settings.device_plugin_configs) {
    throw core::InputError("a mig-parted config cuts GPUs into MIG instances, but without NVIDIA's device-plugin config "
                           "nothing says how the plugin advertises them (flags.migStrategy single or mixed): give one with --config");
  }
  NodeSetup fallback;
  fallback.model = settings.default_model;
  fallback.choice = settings.default_choice;
  fallback.topology = topology_id(settings.default_topology, "defaults", topologies);
  fallback.sharing = settings.default_sharing;
  fallback.hami = settings.default_hami;
  fallback.vgpu = settings.default_vgpu;
  std::vector<NodeSetup> setup;
  setup.reserve(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const cluster::NodeSpec& node = nodes[n];
    NodeSetup chosen = fallback;
    MigConfig mig = settings.default_mig;
    std::string from = "the defaults";
    for (const ResolvedPool& pool : pools) {
      const bool name_ok = node.name.starts_with(pool.pool->match.name_prefix);
      const bool model_ok = !pool.model || (node.gpu_count > 0 && node.gpu_model == *pool.model);
      if (name_ok && model_ok) {
        chosen = NodeSetup{};
        chosen.model = pool.pool->model;
        chosen.choice = pool.pool->choice;
        chosen.topology = pool.topology;
        chosen.sharing = pool.pool->sharing;
        chosen.hami = pool.pool->hami;
        chosen.vgpu = pool.pool->vgpu;
        mig = pool.pool->mig;
        from = "pool " + pool.pool->name;
        break;
      }
    }
    if (n < cluster.kube.size()) {
      // The Node object's own gpusim annotations come first.
      const traces::NodeKube& own = cluster.kube[n];
      const std::string where = "node " + node.name;
      // A model implied by nvidia.com/gpu yields to a pool's or the --kube default's, unless that is
      // gpusim's default scheduler-assigned (a pool that sets only a topology or device choice keeps
      // device-plugin); it must be a model whose devices are nvidia.com/gpu (or their MIG or shared
      // variants).
      const std::string source = from == "the defaults" ? "the --kube devicePlugin" : from;
      if (own.device_plugin_implied) {
        if (chosen.model == DevicePluginModel::kSchedulerAssigned) {
          chosen.model = DevicePluginModel::kDevicePlugin;
        } else if (chosen.model == DevicePluginModel::kGpushare || chosen.model == DevicePluginModel::kAccelerators16 ||
                   chosen.model == DevicePluginModel::kAlpha13) {
          throw core::InputError(fmt::format("{}: {} names devicePlugin {}, whose resource is not nvidia.com/gpu, but the "
                                             "node's GPUs are nvidia.com/gpu devices", where, source, to_string(chosen.model)));
        }
      } else if (!own.device_plugin.empty()) {
        const auto model = device_plugin_model(own.device_plugin);
        if (!model) throw core::InputError(fmt::format("{}: unknown device-plugin model '{}'", where, own.device_plugin));
        // A gpushare node (aliyun.com/gpu-count) cannot be made another model by a pool.
        if (*model == DevicePluginModel::kGpushare && from != "the defaults" &&
            chosen.model != DevicePluginModel::kSchedulerAssigned && chosen.model != DevicePluginModel::kGpushare) {
          throw core::InputError(fmt::format("{}: {} names devicePlugin {}, but the node runs gpushare's device plugin "
                                             "(it advertises aliyun.com/gpu-count)", where, from, to_string(chosen.model)));
        }
        chosen.model = *model;
        from = "its annotations";
      }
      if (!own.device_choice.empty()) {
        const auto choice = device_choice(own.device_choice);
        if (!choice) throw core::InputError(fmt::format("{}: unknown device choice '{}'", where, own.device_choice));
        chosen.choice = *choice;
      }
      if (!own.topology.empty()) {
        chosen.topology = topology_id(own.topology, where, topologies);
        from = "its annotations";
      }
    }
    // The real configuration files (--config) give the parameters of the plugin serving the node.
    const std::string source = from == "the defaults" ? "the --kube devicePlugin" : from;
    if (settings.device_plugin_configs && served_by_nvidia_plugin(chosen.model)) {
      // Only a node whose --kube model is mig has a layout (its pool's or the defaults').
      if (chosen.model != DevicePluginModel::kMig) mig = MigConfig{};
      std::string layout_from = source;
      const DevicePluginModel declared = chosen.model;
      apply_device_plugin_config(*settings.device_plugin_configs, settings.mig_parted_configs.get(), node, catalog, source,
                                 chosen, mig, layout_from);
      // A node --kube calls time-slicing or mps must get that sharing from the config: otherwise the
      // user's intent and the config disagree, and either reading would be a silent guess.
      if (is_shared(declared) && chosen.model != declared) {
        throw core::InputError(fmt::format("node {}: devicePlugin {} (from {}), but the device-plugin config {} makes it {}: "
                                           "give the config sharing.{}, or say devicePlugin: device-plugin and let the "
                                           "config decide", node.name, to_string(declared), source,
                                           settings.device_plugin_configs->file, to_string(chosen.model),
                                           declared == DevicePluginModel::kMps ? "mps" : "timeSlicing"));
      }
      from = layout_from;
    }
    if (settings.hami_settings && chosen.model == DevicePluginModel::kHamiVgpu) {
      apply_hami_settings(*settings.hami_settings, node, source, chosen);
    }
    if (chosen.model == DevicePluginModel::kKubevirtVgpu) {
      if (!settings.vgpu_dm_configs) {
        throw core::InputError(fmt::format("node {}: devicePlugin kubevirt-vgpu (from {}), but no vGPU Device Manager config says "
                                           "its vGPUs: give one with --config (traces/vgpu/vgpu-configs.yaml is one)",
                                           node.name, from));
      }
      if (chosen.topology >= 0) {
        throw core::InputError(fmt::format("node {}: {} gives it kubevirt-vgpu with topology '{}'; topologies apply to whole GPUs only",
                                           node.name, from, topologies.at(chosen.topology).name()));
      }
      resolve_vgpu(chosen, *settings.vgpu_dm_configs, node, from, catalog);
    }
    if (chosen.topology >= 0 && topologies.at(chosen.topology).gpu_count() != node.gpu_count) {
      throw core::InputError(fmt::format("node {}: {} gives it topology '{}' of {} GPUs, but the node has {}", node.name,
                                         from, topologies.at(chosen.topology).name(),
                                         topologies.at(chosen.topology).gpu_count(), node.gpu_count));
    }
    if (chosen.model == DevicePluginModel::kMig) {
      // Instances are devices of their own; topologies are modelled for whole GPUs only.
      if (chosen.topology >= 0) {
        throw core::InputError(fmt::format("node {}: {} gives it mig with topology '{}'; topologies apply to whole GPUs only",
                                           node.name, from, topologies.at(chosen.topology).name()));
      }
      resolve_mig(chosen, mig, node, from, catalog);
    }
    if (is_shared(chosen.model) && settings.shared_nodes_need_config && !settings.device_plugin_configs) {
      const bool mps = chosen.model == DevicePluginModel::kMps;
      throw core::InputError(fmt::format("node {}: devicePlugin {} (from {}), but no device-plugin config says its replicas: "
                                         "give NVIDIA's device-plugin config with sharing.{} (--config; "
                                         "traces/sharing/{}.device-plugin.yaml is one)",
                                         node.name, to_string(chosen.model), from, mps ? "mps" : "timeSlicing",
                                         mps ? "mps-2" : "time-slicing-2"));
    }
    if (is_shared(chosen.model)) {
      // Replicas are devices of their own; gpusim models a node's topology for whole GPUs only.
      if (chosen.topology >= 0) {
        throw core::InputError(fmt::format("node {}: {} gives it {} with topology '{}'; topologies apply to whole GPUs only",
                                           node.name, from, to_string(chosen.model), topologies.at(chosen.topology).name()));
      }
      if (node.gpu_count * chosen.sharing.replicas > cluster::kMaxGpusPerNode) {
        throw core::InputError(fmt::format("node {}: {} GPUs x {} replicas ({}) is more than the {} devices a node may have",
                                           node.name, node.gpu_count, chosen.sharing.replicas,
                                           node.gpu_count * chosen.sharing.replicas, cluster::kMaxGpusPerNode));
      }
      // NVIDIA's plugin sets it for MPS whatever the config says (v0.15.0).
      if (chosen.model == DevicePluginModel::kMps) chosen.sharing.fail_requests_greater_than_one = true;
    }
    setup.push_back(chosen);
  }
  number_vgpu_types(setup);
  return setup;
}

}  // namespace gpusim::k8s
