#pragma once
// How the simulated Kubernetes behaves: the kubelets' timings, the owners' backoff, which device
// plugin serves each node pool, and which GPU failures happen. Defaults are Kubernetes' own
// where it has one (sources in sim/k8s/README.md); every field can be set in a --kube YAML file.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/mig.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/queue_quotas.hpp"

namespace gpusim::k8s {

namespace kai {
struct Setup;
}
namespace kueue {
struct Setup;
}

struct DevicePluginConfigs;  // sim/k8s/device_plugin_config.hpp
struct HamiSettings;         // sim/k8s/hami_settings.hpp
struct MigPartedConfigs;     // sim/k8s/mig_parted_config.hpp
struct VgpuDmConfigs;        // sim/k8s/vgpu_dm_config.hpp

// How a node's GPUs are advertised to the scheduler and handed to containers (sim/k8s/README.md).
enum class DevicePluginModel : std::uint8_t {
  // The scheduler (or its extender) chooses GPU indices and passes them as a pod annotation that
  // the plugin's Allocate honours: gpushare, HAMi and the FGD policies. gpu-milli sharing works.
  kSchedulerAssigned,
  // nvidia.com/gpu (1.10+): Register, ListAndWatch with health, Allocate. The scheduler sees
  // counts; the kubelet picks the devices (first fit or the plugin's preferred allocation).
  kDevicePlugin,
  // The Accelerators feature gate (1.6): alpha.kubernetes.io/nvidia-gpu, all GPUs, each exclusive;
  // the kubelet's GPU manager frees a terminated pod's GPUs only after `gpu_free_delay`.
  kAccelerators16,
  // Kubernetes 1.3: alpha.kubernetes.io/nvidia-gpu set by a kubelet flag; at most one GPU per
  // node, the first.
  kAlpha13,
  // NVIDIA's device plugin with sharing.timeSlicing: each GPU advertised as `replicas` devices
  // that CUDA time-slices; no memory or fault isolation.
  kTimeSlicing,
  // NVIDIA's device plugin with sharing.mps: `replicas` devices per GPU, each an MPS client
  // limited to an equal share of the SMs; a pod may ask one replica only.
  kMps,
  // Alibaba's gpushare: pods ask a share of one GPU's memory (aliyun.com/gpu-mem); the scheduler
  // extender's bind puts each on the GPU that fits it most tightly, one GPU per pod; no isolation,
  // so co-located pods time-slice the GPU.
  kGpushare,
  // HAMi's vGPU: the HAMi scheduler picks GPUs (its GPU policy, spread by default) and libvgpu.so
  // enforces each pod's gpumem (allocations past it fail in that pod only) and caps its compute at
  // gpucores; pods on a GPU time-slice it. A trace fraction asks that share of memory and cores.
  kHamiVgpu,
  // NVIDIA's device plugin on MIG-enabled GPUs: each GPU is cut into instances (a static layout
  // per node pool), each a device of its own, isolated from the others: a pod runs on its
  // instance's SMs alone. Strategy `single` advertises them as nvidia.com/gpu; `mixed` as one
  // resource per profile (nvidia.com/mig-3g.40gb, ...).
  kMig,
  // NVIDIA vGPU for virtual machines, as the GPU Operator's sandbox workloads run it: the vGPU
  // Device Manager divides each GPU into the vGPUs (mdevs) its config names, and KubeVirt's GPU
  // device plugin advertises each type as nvidia.com/NVIDIA_<TYPE>; a VM (its virt-launcher pod)
  // holds whole vGPUs, each with its own framebuffer, and the vGPU scheduler shares the GPU's time
  // (sim/k8s/README.md, "NVIDIA vGPU").
  kKubevirtVgpu,
};

// HAMi's GPU scheduler policy: which GPU of the chosen node a pod gets (sim/k8s/README.md).
enum class HamiGpuPolicy : std::uint8_t {
  kSpread,         // the least used GPU (HAMi's default)
  kBinpack,        // the most used GPU that fits
  kTopologyAware,  // by link scores: one GPU the worst connected, several the best connected set
};

// HAMi's node scheduler policy: its extender's filter returns the one node its score ranks first.
enum class HamiNodePolicy : std::uint8_t {
  kBinpack,  // the most used node (HAMi's default)
  kSpread,   // the least used node
};

// The HAMi scheduler's and device plugin's options (charts/hami values: deviceSplitCount,
// deviceMemoryScaling; the scheduler's node and GPU policies).
struct HamiConfig {
  HamiGpuPolicy gpu_policy = HamiGpuPolicy::kSpread;
  HamiNodePolicy node_policy = HamiNodePolicy::kBinpack;
  // At most this many pods on one GPU (the plugin registers each GPU with this count).
  int device_split_count = 10;
  // Each GPU registers this many times its memory: above 1, gpumem asks can add up to more than
  // the GPU has (HAMi's virtual device memory). A trace fraction asks its share of the physical
  // memory, so of the registered memory it asks fraction / scaling.
  double device_memory_scaling = 1;
  // Whether a trace fraction also asks that share of nvidia.com/gpucores (its compute cap), or
  // gpumem alone (gpucores 0: no cap, and no core reservation).
  bool fraction_asks_cores = true;
  friend bool operator==(const HamiConfig&, const HamiConfig&) = default;
};

// Whether a model's devices are replicas of shared GPUs (NVIDIA's plugin's sharing).
inline bool is_shared(DevicePluginModel model) {
  return model == DevicePluginModel::kTimeSlicing || model == DevicePluginModel::kMps;
}
// Whether a model's devices are slices of physical GPUs, several devices per GPU, that time-share it.
inline bool is_sliced(DevicePluginModel model) { return is_shared(model) || model == DevicePluginModel::kKubevirtVgpu; }
// Whether pods on one GPU slow each other down (the shared-GPU speed model applies).
inline bool shares_speed(DevicePluginModel model) {
  return is_sliced(model) || model == DevicePluginModel::kGpushare || model == DevicePluginModel::kHamiVgpu;
}
// Whether the scheduler (or its extender) names the GPUs and the plugin honours them.
inline bool scheduler_picks_gpus(DevicePluginModel model) {
  return model == DevicePluginModel::kSchedulerAssigned || model == DevicePluginModel::kGpushare ||
         model == DevicePluginModel::kHamiVgpu;
}

// NVIDIA's device plugin migStrategy.
enum class MigStrategy : std::uint8_t {
  kSingle,  // every GPU of the node has the same layout of one profile: nvidia.com/gpu
  kMixed,   // nvidia.com/mig-<profile>, one resource per profile
};

// A MIG node pool: the instances every GPU of its nodes is cut into (profile names of the
// node's GPU model, e.g. [3g.40gb, 2g.20gb, 2g.20gb]).
struct MigConfig {
  MigStrategy strategy = MigStrategy::kSingle;
  std::vector<std::string> layout;
  // Dynamic MIG (HAMi's): an idle GPU is re-partitioned to the first of HAMi's templates for its
  // model that has the instance a pending pod asks; it serves nothing for `reconfigure_time`.
  // `layout` is then every GPU's layout at the start.
  bool dynamic = false;
  core::Time reconfigure_time = core::Time::from_seconds(60);
  // Whether the --kube file wrote `strategy` (a device-plugin config's migStrategy must then agree).
  bool strategy_given = false;
};

// Which replicas the plugin's GetPreferredAllocation picks (NVIDIA's greedy allocators).
enum class ReplicaPolicy : std::uint8_t {
  kDistributed,  // the GPU with the fewest allocated replicas first (the plugin's default)
  kPacked,       // the GPU with the most allocated replicas first
};

// sharing.timeSlicing / sharing.mps of NVIDIA's device plugin.
struct SharingConfig {
  int replicas = 1;
  // The plugin advertises the replicas as nvidia.com/gpu.shared instead of nvidia.com/gpu, so
  // only pods that ask that resource land there (trace pods name no resource and still do).
  bool rename_by_default = false;
  // Allocate fails for a container asking more than one replica. The plugin forces it on for MPS.
  bool fail_requests_greater_than_one = false;
  ReplicaPolicy policy = ReplicaPolicy::kDistributed;
  // MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of each client; 0: the plugin's 100 / replicas.
  double mps_active_thread_percentage = 0;
  friend bool operator==(const SharingConfig&, const SharingConfig&) = default;
};

// device-plugin nodes: how the kubelet's device manager picks devices.
enum class DeviceChoice : std::uint8_t {
  kFirstFit,   // the lowest free healthy indices
  kPreferred,  // the plugin's GetPreferredAllocation: NVIDIA's best-effort link-score policy
};

const char* to_string(DevicePluginModel model);
const char* to_string(DeviceChoice choice);
const char* to_string(ReplicaPolicy policy);
const char* to_string(MigStrategy strategy);

// The vGPU scheduler of the host's vGPU Manager (NVIDIA AI Enterprise 5.0 §7; RmPVMRL).
enum class VgpuScheduler : std::uint8_t {
  kBestEffort,  // the default: the GPU's time goes to the vGPUs that are busy
  kEqualShare,  // 1/n of the GPU to each of the n running (powered-on) vGPUs, busy or idle
  kFixedShare,  // 1 / the type's maximum vGPUs per GPU, whatever runs
};
const char* to_string(VgpuScheduler scheduler);

// What a vGPU node's host runs beside the vGPU Device Manager's config: its vGPU scheduler (the
// nvidia module's RmPVMRL registry key, which no Kubernetes object holds), whether its GPUs were
// put into mixed-size mode (`nvidia-smi vgpu -shm 1`), and how long a VM boots before its workload
// starts (gpusim's assumption: no source gives a figure).
struct VgpuConfig {
  VgpuScheduler scheduler = VgpuScheduler::kBestEffort;
  // RmPVMRL's time slice TT in ms (1-30); 0: the default (2 ms up to 8 vGPUs per GPU, else 1 ms).
  int time_slice_ms = 0;
  bool mixed_size = false;
  // The GPU's MIG time-slicing mode (GB20x GPUs): on, the driver offers the MIG-backed types that
  // put several vGPUs on one GPU instance (DC-1-8C: 3 per 1g.24gb); off, it hides them.
  bool mig_time_slicing = false;
  core::Time boot_time = core::Time::from_seconds(60);
  friend bool operator==(const VgpuConfig&, const VgpuConfig&) = default;
};

// Nodes a pool applies to: every condition given must hold (an empty one always does).
struct NodeSelector {
  std::string name_prefix;
  std::string gpu_model;  // catalog id or alias
};

struct NodePool {
  std::string name;
  NodeSelector match;
  DevicePluginModel model = DevicePluginModel::kSchedulerAssigned;
  DeviceChoice choice = DeviceChoice::kFirstFit;
  std::string topology;  // a template of sim/topology ("" = none known)
  SharingConfig sharing;  // time-slicing and mps
  HamiConfig hami{};   // hami-vgpu
  MigConfig mig{};                                          // mig
  VgpuConfig vgpu{};                                        // kubevirt-vgpu
  // Node labels the pool's nodes get, as `kubectl label` sets them (a device-plugin ConfigMap's
  // config is chosen by nvidia.com/device-plugin.config).
  std::vector<std::pair<std::string, std::string>> labels{};
};

// A failure read from a file or drawn by the seeded process.
struct GpuFailure {
  core::Time at;
  std::uint32_t node = 0;
  int gpu = 0;
  int xid = 0;           // 0: the GPU is repaired
};

struct PluginRestart {
  core::Time at;
  std::uint32_t node = 0;
  core::Time down_for;   // until the plugin registers again
};

// A change of the cluster's membership or a node's reachability.
enum class NodeEventKind : std::uint8_t { kJoin, kRemove, kLost, kRecovered };
struct NodeEvent {
  core::Time at;
  std::uint32_t node = 0;
  NodeEventKind kind = NodeEventKind::kJoin;
};

struct KubeSettings {
  core::Time node_status_period = core::Time::from_seconds(10);  // kubelet nodeStatusUpdateFrequency
  core::Time bind_latency = core::Time::zero();                  // scheduler bind to kubelet admission
  core::Time container_start_latency = core::Time::zero();       // Allocate to containers running
  core::Time gpu_free_delay = core::Time::zero();                // accelerators-1.6 only
  // A removed node's pods get this long to exit (Kubernetes' terminationGracePeriodSeconds default).
  core::Time termination_grace_period = core::Time::from_seconds(30);
  // The Job controller's pod-failure backoff: base x 2^(failures - 1), capped; after
  // `backoff_limit` failures the owner gives up.
  core::Time backoff_base = core::Time::from_seconds(10);
  core::Time backoff_max = core::Time::from_seconds(600);
  int backoff_limit = 6;

  // Node lifecycle: the controller marks a silent node unreachable after the grace period; pods
  // that do not tolerate node.kubernetes.io/unreachable for longer are then evicted after the
  // toleration the DefaultTolerationSeconds admission plugin gives every pod.
  core::Time node_monitor_grace_period = core::Time::from_seconds(50);
  // Node agents' usage reports (Koordinator's koordlet, read by the load-aware plugin): one every
  // reportInterval, each the average over the last aggregateDuration (koordlet's defaults).
  core::Time node_metric_report_interval = core::Time::from_seconds(60);
  core::Time node_metric_aggregate_duration = core::Time::from_seconds(300);
  core::Time default_unreachable_toleration = core::Time::from_seconds(300);
  // GPU Operator on a node that joins (time 0 included): its GPUs are advertised only after the
  // driver, the container toolkit, the device plugin and GPU feature discovery are in place.
  core::Time operator_driver = core::Time::zero();
  core::Time operator_toolkit = core::Time::zero();
  core::Time operator_device_plugin = core::Time::zero();
  core::Time operator_feature_discovery = core::Time::zero();
  core::Time gpu_operator_delay() const {
    return operator_driver + operator_toolkit + operator_device_plugin + operator_feature_discovery;
  }
  std::vector<NodeEvent> node_events;
  // Run-time factor of a multi-GPU pod by the slowest link inside its placement on a node with a
  // known topology, indexed by topology::LinkClass (cross-cpu ... nvlink). 1 (none) unless the
  // user states one: gpusim has no measured figures for it.
  std::array<double, 7> link_slowdown = {1, 1, 1, 1, 1, 1, 1};

  DevicePluginModel default_model = DevicePluginModel::kSchedulerAssigned;
  DeviceChoice default_choice = DeviceChoice::kFirstFit;
  std::string default_topology;
  SharingConfig default_sharing;
  HamiConfig default_hami;
  MigConfig default_mig;
  VgpuConfig default_vgpu;
  std::vector<NodePool> pools;  // the first pool that matches a node wins
  // The real projects' configuration files (gpusim run --config): NVIDIA's device-plugin config
  // and HAMi's settings give the sharing, MIG and HAMi parameters of the nodes those plugins serve
  // (sim/k8s/plugin_config_apply.hpp); null: none given, the --kube parameters hold.
  // Set by the --kube reader: its time-slicing and mps nodes take their replicas from NVIDIA's
  // device-plugin config (--config), which the file no longer says (retired_kube_keys.hpp).
  bool shared_nodes_need_config = false;
  std::shared_ptr<const DevicePluginConfigs> device_plugin_configs;
  std::shared_ptr<const HamiSettings> hami_settings;
  // NVIDIA's MIG manager (mig-parted) config: the MIG layout of each node it serves, by label.
  std::shared_ptr<const MigPartedConfigs> mig_parted_configs;
  // The vGPU Device Manager's config (--config), which kubevirt-vgpu nodes need.
  std::shared_ptr<const VgpuDmConfigs> vgpu_dm_configs;

  // XIDs the device plugin ignores (NVIDIA's default list), and those that also kill the pods
  // on the GPU (it fell off the bus).
  std::vector<int> ignored_xids = {13, 31, 43, 45, 68, 109};
  std::vector<int> fatal_xids = {79};
  std::vector<GpuFailure> gpu_failures;        // from a failure file
  std::vector<PluginRestart> plugin_restarts;  // from a failure file
  // Seeded failures: each GPU fails after an exponential time with this mean (0: none), with
  // `random_failure_xid`, and is repaired `repair_time` later.
  double mtbf_hours = 0;
  // Per GPU model (catalog id or alias), overriding mtbf_hours for that model's GPUs.
  std::vector<std::pair<std::string, double>> mtbf_hours_by_model;
  int random_failure_xid = 79;
  core::Time repair_time = core::Time::from_seconds(4 * 3600);

  // A trace pod asking a fraction of one GPU (gpu-milli): kept as it is (it runs only where the
  // scheduler assigns GPUs), or turned into a request for one device, as a user of a sharing
  // plugin writes it; its fraction stays its GPU demand in the speed model.
  bool fraction_as_one_device = false;

  // GPU memory on shared GPUs (time-slicing, MPS, gpushare); off unless the settings ask for it.
  // A pod uses its request (gpushare: its memory share; time-slicing and MPS: its fraction, or
  // 1 / replicas for a whole device); with this seeded probability it uses `overrun_factor` times
  // that. Without isolation (time-slicing, gpushare) an over-full GPU fails random pods on it until
  // the rest fit; MPS limits each client to 1 / replicas of the memory, so only a pod past its
  // limit fails.
  bool memory_model = false;
  double memory_overrun_probability = 0;
  double memory_overrun_factor = 1.5;
  std::vector<std::string> overrun_pods;  // pods (trace names) that always overrun

  // The defragmenting descheduler (what-if; off unless set): every interval while whole-GPU pods
  // wait, it evicts the fractions on one GPU per waiting pod, at most evictions_per_cycle pods.
  // Evicted pods resume from their last checkpoint (every checkpoint_interval of their run).
  bool descheduler = false;
  core::Time descheduler_interval = core::Time::from_seconds(60);
  int descheduler_evictions_per_cycle = 1;
  core::Time checkpoint_interval = core::Time::from_seconds(600);
  // Preemption costs nothing (--free-preemption): a preempted job keeps all its work and may be
  // preempted again at once, as in Tiresias' own simulator. Otherwise it loses the work since its
  // last checkpoint, and srtf and tiresias take a victim only once it ran a checkpoint interval.
  bool free_preemption = false;
  // The run-time factor of a job the trace ran on one server whose workers scattered placement put
  // on more than one node (CLI --scatter-slowdown; 1: none). With Gavel's throughput table its
  // `_unconsolidated` figures apply instead.
  double scatter_slowdown = 1;
  // Queue-quota policies (proportion, capacity): the queues' quotas (Volcano Queues in --config); none
  // read: every queue has the defaults (weight 1, no guarantee, capability or deserved GPUs).
  QueueQuotas queue_quotas;
  // The kueue policy: Kueue's objects (--config) and the ClusterQueue each workload queue submits to.
  std::shared_ptr<const kueue::Setup> kueue;
  // The kai policy: KAI's Queues (--config) and the leaf queue each workload queue submits to.
  std::shared_ptr<const kai::Setup> kai;
  core::Time descheduler_min_run_time = core::Time::zero();
};

// Per node, after pools are matched.
struct NodeSetup {
  DevicePluginModel model = DevicePluginModel::kSchedulerAssigned;
  DeviceChoice choice = DeviceChoice::kFirstFit;
  int topology = -1;  // index into the topology templates, -1: none
  SharingConfig sharing;  // time-slicing and mps: device d is replica d % replicas of GPU d / replicas
  HamiConfig hami{};  // hami-vgpu
  // mig: the strategy, the GPU model's geometry and the shape of each instance of a GPU (device d
  // is instance d % instances of GPU d / instances).
  MigStrategy mig_strategy = MigStrategy::kSingle;
  const cluster::MigGeometry* mig_geometry = nullptr;
  std::vector<int> mig_shapes{};  // dynamic: the layout at the start
  bool mig_dynamic = false;
  core::Time mig_reconfigure_time = core::Time::zero();
  // kubevirt-vgpu: the vGPUs of each GPU, in device order (device d is vGPU d % count of GPU
  // d / count; every GPU of a node has the same), and the host's vGPU settings.
  struct VgpuDevice {
    std::string type;               // NVIDIA's type name, e.g. "A10-12Q"
    double framebuffer_share = 0;   // of the GPU's memory
    int max_instances = 0;          // the type's most per GPU (Fixed Share's 1/n)
    std::uint8_t device_class = 0;  // its resource nvidia.com/NVIDIA_<type>, numbered over the run
    int mig_shape = -1;             // MIG-backed: its GPU instance's shape (mig_geometry); -1: time-sliced
    double compute_share = 1;       // MIG-backed: its instance's share of the GPU's SMs
    int instance = 0;               // MIG-backed: its GPU instance, 0, 1, ... in device order
    int per_instance = 1;           // MIG-backed: its type's most per instance (Fixed Share's 1/n there)
  };
  std::vector<VgpuDevice> vgpu_devices{};
  VgpuConfig vgpu{};
  // Units of the shared-GPU speed model: a GPU's replicas or time-sliced vGPUs share one; under
  // MIG-backed vGPU each GPU instance is one, shared by its vGPUs (one, or several time-sliced).
  bool vgpu_mig_backed() const { return !vgpu_devices.empty() && vgpu_devices.front().mig_shape >= 0; }
  int speed_units_per_gpu() const { return vgpu_mig_backed() ? vgpu_devices.back().instance + 1 : 1; }
  // The unit device d runs on, counted over the node's units.
  int speed_unit(int d) const {
    const int per_gpu = replicas();
    const int within = vgpu_mig_backed() ? vgpu_devices[static_cast<std::size_t>(d % per_gpu)].instance : 0;
    return d / per_gpu * speed_units_per_gpu() + within;
  }
  // A GPU's layout as node status reports it for dynamic MIG: a HAMi template's index, or this.
  static constexpr int kInitialLayout = 15;
  // Dynamic MIG: GPUs per node at most (each one's layout is 4 bits of NodeStatus::mig_layouts,
  // whose top bit is a flag).
  static constexpr int kMaxDynamicMigGpus = 15;
  // Devices per physical GPU: replicas (time-slicing, MPS) or MIG instances (dynamic: as many as
  // a GPU can have, the slots past its layout's instances not advertised).
  int replicas() const {
    if (model == DevicePluginModel::kMig) {
      if (mig_dynamic) return 7;
      return mig_shapes.empty() ? 1 : static_cast<int>(mig_shapes.size());
    }
    if (model == DevicePluginModel::kKubevirtVgpu) return std::max<int>(1, static_cast<int>(vgpu_devices.size()));
    return is_shared(model) ? sharing.replicas : 1;
  }
  // The instance shapes of a layout id, in device order.
  const std::vector<int>& mig_layout(int id) const {
    return id == kInitialLayout ? mig_shapes : mig_geometry->templates[static_cast<std::size_t>(id)];
  }
};

}  // namespace gpusim::k8s
