#pragma once
// The kubelets, one per node, each with its device manager and device plugin. They hold the
// truth: which devices exist and are healthy, and which container holds which device. A bound
// pod is admitted against that truth (not against what the scheduler believed): if its devices are
// not there it fails with UnexpectedAdmissionError. Each kubelet publishes its node status on its
// nodeStatusUpdateFrequency grid when something the status shows has changed.
//
// All nodes' truths live in one flat ClusterState (the fleet), for speed; each node's state is
// touched only by that node's kubelet logic.
#include <cstdint>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/core/rng.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/device_plugin.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/shared_progress.hpp"
#include "sim/k8s/workload_times.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "sim/perf/performance_model.hpp"

namespace gpusim::k8s {

class KubeletFleet final : public Component {
 public:
  struct RunTimeModel {
    const perf::PerformanceModel* performance = nullptr;  // null: trace durations as they are
    perf::JobProfile job;
    std::uint64_t seed = 0;  // the run's seed: memory overruns and OOM victims
    // Gavel's throughput table: jobs with a job type run at its speed on their GPU type.
    const perf::JobTypeSpeeds* job_types = nullptr;
  };

  KubeletFleet(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
               const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
               const DeviceChooser& chooser, const std::vector<cluster::PodSpec>& pods, const WorkloadTimes& times,
               const KubeSettings& settings, RunTimeModel run_time, const std::vector<std::uint8_t>& present);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  const cluster::ClusterState& truth() const { return truth_; }
  // Pods the descheduler evicted and pods the scheduler preempted, and their work since the last
  // checkpoint (GPU-seconds).
  struct EvictionReport {
    std::int64_t evictions = 0;
    double lost_gpu_s = 0;
    std::int64_t preemptions = 0;
    double preempted_lost_gpu_s = 0;
  };
  EvictionReport eviction_report() const { return evictions_; }
  // Shared GPUs (time-slicing, MPS): what the speed model saw, for the metrics.
  SharingReport sharing_report(core::Time end);
  // Usage as a node agent measures it (Koordinator's koordlet, through NVML), on the nodes where
  // the shared-GPU speed model runs (measures_usage): GPU-seconds busy (the speed model's busy
  // share) and GPU memory in use (a share of one GPU's memory: the memory model's use, or the
  // pods' requests without gpuMemory), each integrated from the start to `now` over the node's
  // physical GPUs, or over pod object `pod`'s current run.
  struct UsageCounters {
    double busy_gpu_s = 0;
    double memory_gpu_s = 0;
  };
  bool measures_usage(std::uint32_t node) const { return shared_node(node); }
  bool node_up(std::uint32_t node) const { return state_[node] == NodeState::kUp; }
  // Physical GPUs (a GPU cut into MIG-backed vGPUs is several units of the speed model, one GPU).
  std::uint32_t physical_gpu_count(std::uint32_t node) const {
    const auto units = static_cast<std::uint32_t>(physical_offset_[node + 1] - physical_offset_[node]);
    return units / static_cast<std::uint32_t>(setup_[node].speed_units_per_gpu());
  }
  UsageCounters node_usage(std::uint32_t node, core::Time now) const;
  // The pod objects holding devices on a node, whether one's containers run on the speed model
  // (its usage is measured), and when its current run started.
  const std::vector<PodId>& pods_on(std::uint32_t node) const { return on_node_[node]; }
  bool usage_measured(PodId pod) const { return progress_.holds(pod); }
  core::Time run_started(PodId pod) const { return residents_[pod].started; }
  UsageCounters pod_usage(PodId pod, core::Time now) const;
  // The devices each container of pod object `pod` got (empty: no container detail or never
  // admitted).
  std::vector<cluster::GpuSet> container_devices(PodId pod) const;
  // MIG: the share of each GPU's SMs pod object `pod` held, per device it was admitted with (an
  // instance's compute slices / 7, in milli); -1: not admitted on MIG devices.
  std::int32_t mig_share_milli(PodId pod) const;
  // Once the run is over: keeps of each pod object only what the outputs read (the two above, for
  // the pod objects that have them) and frees the rest of its state, one of the run's largest
  // tables (about 150 bytes a pod object), before the outputs' own tables are built. Nothing else
  // about pods may be asked after it.
  void keep_outputs_only();

 private:
  static constexpr core::EventId kNoTimer = UINT64_MAX;
  // Fields grouped by size (eight-byte ones, then the small ones together): one per pod object,
  // so padding costs a megabyte per 80,000 pods.
  struct Resident {
    cluster::GpuSet gpus;
    std::vector<cluster::GpuSet> containers;  // per container, for pods with container detail
    core::EventId finish_timer = kNoTimer;
    cluster::GpuSet ghost;  // accelerators-1.6: GPUs still held after it ended
    core::Time run_for;   // how long this run takes (its remaining work), set at start
    core::Time full_run;  // how long all of its work would take here
    core::Time started;  // when its containers started
    double memory = 0;   // shared GPUs: its memory use per process, as a share of the GPU
    double mig_slowdown = 0;  // MIG: its run time on its instances over its run time alone
    // restartPolicy OnFailure: its container's restarts and the kubelet's crash-loop back-off
    // entry (client-go's flowcontrol.Backoff: zero when it has none).
    core::Time backoff = core::Time::zero();
    core::Time backoff_updated = core::Time::zero();
    core::EventId restart_timer = kNoTimer;
    std::int32_t restarts = 0;
    std::int32_t node = -1;
    std::int32_t mig_share_milli = -1;  // MIG: its instances' mean share of a GPU's SMs (milli)
    Reason crashed_for = Reason::kNone;  // why its container last failed
    bool holds = false;  // admitted and not yet ended
    bool overruns = false;
    bool spread = false;      // a gang worker whose gang the scheduler placed on several nodes
    bool containers_up = false;  // its containers run its work (started, not failed since)
    bool killed = false;         // its Job failed before this kubelet admitted it
  };

  void admit(PodId pod, core::Time now);
  void start(PodId pod, core::Time now);
  // A message about the pod's containers: its id, row, node and devices.
  Message about_container(Topic topic, PodId pod) const;
  // Starts (or restarts) the pod's containers: its run from the work it started with.
  void launch(PodId pod, core::Time now);
  // restartPolicy OnFailure: the container failed for `reason` (OOM-killed, its GPU lost); the pod
  // keeps its devices and the container restarts after the crash-loop back-off. False: the pod's
  // owner does not restart in place (the pod ends).
  bool restart_in_place(PodId pod, Reason reason, core::Time now);
  // Its Job's template says restartPolicy OnFailure.
  bool restarts_in_place(PodId pod) const;
  // Whether one of its devices is unhealthy now.
  bool gpu_lost(PodId pod) const;
  void restart(PodId pod, core::Time now);
  void end(PodId pod, Reason reason, core::Time now);
  // Gives back what the pod holds on its node (and keeps the 1.6 GPUs for the delay).
  void release(PodId pod, core::Time now);
  void cancel_finish(PodId pod);
  void node_event(const Message& message, core::Time now);
  void gpu_event(std::uint32_t node, int gpu, int xid, core::Time now);
  void status_changed(std::uint32_t node, core::Time now);
  void publish_status(std::uint32_t node, core::Time now);
  core::Time run_time(PodId pod, core::Time now);
  static core::Time scaled_duration(const cluster::PodSpec& pod, double factor);
  void count_pods(std::uint32_t node, cluster::GpuSet gpus, int delta);
  // Shared GPUs: starts, stops and re-times pods whose speed follows their co-runners.
  void start_shared(PodId pod, core::Time duration, core::Time now);
  void stop_shared(PodId pod, core::Time now);
  void retime();
  void count_replica_spread(cluster::GpuSet devices, int replicas);
  // Shared GPUs' memory: the pod's use (its request, times the overrun factor when it overruns),
  // charged whether or not gpuMemory is set (node_usage reads it); with gpuMemory, pods fail as
  // the mode does when it runs out.
  double memory_request(PodId pod) const;
  // kubevirt-vgpu: the share of its GPU's memory the resident's vGPUs each have.
  double vgpu_framebuffer(const Resident& r) const;
  // Its VM's vGPUs power on (+1, at admission) or off (-1, at release) for the vGPU scheduler.
  void power_vgpus(PodId pod, int delta, core::Time now);
  void charge_memory(PodId pod, int sign, core::Time now);
  void check_memory(PodId pod, core::Time now);
  void check_mig_memory(PodId pod, core::Time now);
  // MIG: the instance shape of node n's device d (kNoInstance: a slot without one), the devices
  // without an instance, a GPU's layout, dynamic re-partitioning and compute-slice accounting.
  static constexpr std::int8_t kNoInstance = -1;
  int shape_of(std::uint32_t n, int d) const { return slot_shape_[gpu_offset_[n] + static_cast<std::size_t>(d)]; }
  cluster::GpuSet mig_absent(std::uint32_t n) const;
  void set_layout(std::uint32_t n, int gpu, int layout);
  void reconfigure(std::uint32_t n, int gpu, int layout, core::Time now);
  void mig_account(std::uint32_t n, cluster::GpuSet devices, int sign, core::Time now);
  // Whether this pod object uses more GPU memory than it asked (a seeded draw per trace row and
  // attempt, or named in gpuMemory.overrunPods).
  bool draws_overrun(PodId pod) const;
  // `neighbour`: killed by another pod's start (not its own use).
  void oom_kill(PodId pod, bool neighbour, core::Time now);
  // The physical GPUs (one entry per device) of a resident on a sharing node.
  void physical_gpus(const Resident& r, std::vector<std::uint32_t>& out) const;
  void set_gpus_present(std::uint32_t node, bool present, core::Time now);
  // An eviction (the descheduler's, or the scheduler's preemption): the pod stops; its row keeps
  // the work done to its last checkpoint.
  // `kind`: kEvictRequest's value (messages.hpp).
  void evict(PodId pod, std::int64_t kind, core::Time now);
  bool shared_node(std::uint32_t node) const { return shares_speed(setup_[node].model); }
  Resident& resident(PodId pod);

  Bus& bus_;
  const ApiServer& api_;
  const std::vector<NodeSetup>& setup_;
  const DeviceChooser& chooser_;
  const std::vector<cluster::PodSpec>& pods_;
  const WorkloadTimes& times_;
  const KubeSettings& settings_;
  RunTimeModel run_time_;
  cluster::ClusterState truth_;
  std::vector<Resident> residents_;          // per pod object (empty after keep_outputs_only())
  // keep_outputs_only(): the pod objects with container detail or a MIG share, by id.
  bool outputs_only_ = false;
  std::vector<std::pair<PodId, std::vector<cluster::GpuSet>>> kept_containers_;
  std::vector<std::pair<PodId, std::int32_t>> kept_mig_share_;
  std::vector<std::vector<PodId>> on_node_;  // pods holding devices, per node
  std::vector<std::uint8_t> registered_;     // device plugin registered, per node
  enum class NodeState : std::uint8_t { kUp, kAbsent, kLost };
  std::vector<NodeState> state_;
  std::vector<std::vector<PodId>> waiting_;  // bound to a lost node: admitted if it comes back
  std::vector<std::uint8_t> publish_queued_;
  std::vector<std::size_t> gpu_offset_;
  std::vector<int> pods_on_gpu_;
  std::vector<std::size_t> physical_offset_;  // per node: index of its first physical GPU
  SharedProgress progress_;
  std::vector<std::uint32_t> scratch_gpus_;
  std::vector<std::uint32_t> scratch_victims_;
  std::vector<std::uint32_t> scratch_memory_gpus_;
  std::vector<std::uint32_t> scratch_power_gpus_;
  std::vector<double> gpu_memory_;  // per physical GPU: memory in use, as a share
  // Per physical GPU: gpu_memory_ integrated up to memory_since_ (GPU-seconds), for node_usage.
  std::vector<double> memory_seconds_;
  std::vector<core::Time> memory_since_;
  core::Rng oom_rng_;
  std::vector<std::uint8_t> always_overruns_;  // per trace row: named in gpuMemory.overrunPods
  // Per trace row: its work still to do (evictions), in microseconds of its trace run time.
  std::vector<std::int64_t> remaining_work_;
  EvictionReport evictions_;
  SharingReport sharing_;
  std::vector<std::int8_t> slot_shape_;  // per device (MIG nodes): its instance's shape
  std::vector<std::int8_t> mig_target_;  // per first device of a GPU being re-partitioned: its new layout
  std::vector<cluster::GpuSet> incoming_;  // per node (dynamic MIG): instances named by pods bound, not yet admitted
  std::vector<std::uint64_t> mig_layouts_;  // per node (dynamic MIG): each GPU's layout id, 4 bits each, bit 63 set
  std::int64_t mig_slices_in_use_ = 0;
  core::Time mig_last_change_ = core::Time::zero();
  core::Time first_arrival_ = core::Time::zero();

};

}  // namespace gpusim::k8s
