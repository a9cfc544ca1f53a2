#pragma once
// How fast pods run on GPUs they share (time-slicing, MPS). A pod's progress is work done at a
// rate: it holds `work` microseconds of solo run time and advances at `rate` (solo = 1) between
// changes. When the set of processes on a GPU changes, the pods there are brought up to date, their
// rates recomputed and their finish times moved; the cost is proportional to the processes on the
// GPUs the change touches, never to the cluster.
//
// Rates (calibration design §3.4 and §5.7), for processes with GPU demand d_j (the share of the
// GPU each would use alone; 1 for a whole-GPU request):
//   time-slicing: the GPU's time, less a context-switch overhead when several processes are
//     resident (capacity C_N = 1 / (1 + d_inf (N - 1) / N), the calibration's time-slice term),
//     is shared max-min fair over the demands; a process runs at its share / d_j (1 when the
//     demands fit).
//   MPS: spatial sharing; a client is capped at its active-thread fraction a and all clients share
//     the GPU's stream capacity c: min(1, a / d_j, c / max(1, sum d)).
//   HAMi vGPU: time-slicing, each process also capped at its gpucores share k_j: min(.., k_j / d_j),
//     whichever binds (a capped process's demand is min(d_j, k_j) in the water-filling).
//   Measured pairs: where a GPU holds exactly two pods, one process each, and the pair-rate
//     function knows their pair (Gavel's co-location table: both jobs of known types at one scale),
//     each runs at its measured speed beside the other instead (at most its HAMi gpucores or MPS
//     active-thread cap), with no separate context-switch cost: the measurement includes it.
// A pod with processes on several GPUs runs at its slowest process; several replicas of one GPU
// are one process there.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/time.hpp"

namespace gpusim::k8s {

// How a GPU's time is divided among its processes: CUDA's time-slicing (max-min fair over the
// demands, as above), or an NVIDIA vGPU scheduler over the GPU's vGPUs (each pod one process).
enum class TimeShare : std::uint8_t {
  kCuda,        // time-slicing, gpushare, HAMi; vGPU's best effort is the same division
  kEqualShare,  // vGPU equal share: capacity / n each, n the powered-on vGPUs (busy or idle)
  kFixedShare,  // vGPU fixed share: capacity x `fixed_share` each, whatever runs
};

struct SharedGpuModel {
  bool mps = false;
  double time_slice_overhead = 0;  // d_inf
  double stream_capacity = 1;      // c
  double thread_fraction = 1;      // a (MPS)
  TimeShare time_share = TimeShare::kCuda;
  double fixed_share = 1;  // kFixedShare: 1 / the vGPU type's maximum per GPU (per GPU instance)
  // The share of a physical GPU this unit is, for the time integrals: 1, or 1 / the instances of a
  // GPU cut into MIG-backed vGPUs (each its own unit), so that a GPU's units add up to one GPU.
  double gpu_weight = 1;
  // The unit's compute as a share of the whole GPU's (demands are shares of the whole GPU): 1, or
  // a GPU instance's SM share; its processes share that.
  double compute = 1;
};

class SharedProgress {
 public:
  static constexpr int kCorunnerBuckets = 9;  // GPU time with 0, 1, ..., 7 and 8 or more pods
  // A finish time past every simulated time (4e18 us) is reported as this.
  static constexpr double kFinishOutOfRange = 8e18;

  // The speed of a pod of pair class `self` beside one of class `other` on one GPU, against its
  // speed alone; <= 0 where none is known (then the model above applies).
  using PairRate = std::function<double(std::int32_t self, std::int32_t other)>;

  // Time is integrated for the metrics from `start` (the first arrival). `pair_rate`: measured pair
  // speeds, or empty for none.
  explicit SharedProgress(std::vector<SharedGpuModel> gpus, core::Time start = core::Time::zero(), PairRate pair_rate = {});
  // GPUs [first, first + count) are there or not (their node joined or was removed); time is
  // integrated only while they are.
  void set_present(std::uint32_t first, std::uint32_t count, bool present, core::Time now);

  // Pod `pod` starts with `work_us` of solo run time and one process of demand `demand` on each
  // GPU listed (a GPU listed twice would hold two of its processes; the kubelet lists each GPU
  // once, however many of its replicas the pod holds). `fixed_end`: it ends at a set
  // time whatever its speed (a trace-Pending pod deleted at its deadline); it still takes its
  // share of the GPU.
  // `core_cap`: the share of the GPU's compute it may use at most (HAMi's gpucores; 1: none).
  // `pair_class`: its class for measured pair speeds, -1 for none.
  void add(std::uint32_t pod, const std::vector<std::uint32_t>& gpus, double demand, double work_us, bool fixed_end,
           core::Time now, double core_cap = 1, std::int32_t pair_class = -1);
  // The pod stops (ended, or its node went down); its co-runners speed up.
  void remove(std::uint32_t pod, core::Time now);
  // vGPUs on `gpu` that are powered on (their VM holds them, booting or running) change by
  // `delta`: equal share divides the GPU among max(powered on, processes).
  void power(std::uint32_t gpu, int delta, core::Time now);
  bool holds(std::uint32_t pod) const { return pod < pods_.size() && pods_[pod].active; }
  const SharedGpuModel& model(std::uint32_t gpu) const { return gpus_[gpu].model; }

  // Pods whose finish time the last add or remove changed (the added pod included), with the new
  // time. Valid until the next call.
  struct Finish {
    std::uint32_t pod;
    core::Time at;
  };
  const std::vector<Finish>& moved() const { return moved_; }

  // The pod's run so far against running alone: elapsed / work done (1 without co-runners).
  double slowdown(std::uint32_t pod, core::Time now) const;
  // The pods with processes on `gpu`, ascending, each once (into `out`).
  void pods_on(std::uint32_t gpu, std::vector<std::uint32_t>& out) const;
  // What a node agent measures (Koordinator's koordlet, through NVML): GPU `gpu`'s busy share
  // integrated from the start to `now` (GPU-seconds, counted while the GPU is present), and the
  // work pod `pod` has done in its current run (microseconds of solo run time; a pod with a fixed
  // end keeps no work account: its run time so far, as if it ran at full speed).
  double busy_seconds(std::uint32_t gpu, core::Time now) const;
  double work_done_us(std::uint32_t pod, core::Time now) const;
  // Whether it ever ran beside another pod on one of its GPUs.
  bool had_corunner(std::uint32_t pod) const { return pods_[pod].had_corunner; }
  // Whether it ever ran at a measured pair speed.
  bool had_measured_pair(std::uint32_t pod) const { return pods_[pod].had_measured_pair; }

  // Integrals up to `now` (call once at the end): GPU-seconds busy (the speed model's
  // utilisation: demand x the pod's rate), GPU-seconds lost to context switches, GPU-seconds by
  // number of pods; each GPU counted while it is present.
  struct Totals {
    double busy_gpu_s = 0;
    double switch_gpu_s = 0;
    double measured_pair_gpu_s = 0;  // GPU-seconds holding a pair that ran at measured speeds
    std::array<double, kCorunnerBuckets> gpu_s_by_pods{};
  };
  Totals totals(core::Time now);

 private:
  struct Process {
    std::uint32_t pod;
    double demand;
    double core_cap = 1;
    std::int32_t pair_class = -1;
    double rate = 1;  // of this process, on its GPU
  };
  struct Gpu {
    SharedGpuModel model;
    std::vector<Process> processes;
    int pods = 0;  // distinct pods
    int powered_on = 0;  // vGPUs held by VMs (equal share)
    bool present = true;
    bool measured_pair = false;  // its two pods run at measured pair speeds
    double busy = 0;
    double busy_seconds = 0;  // busy integrated up to `since`
    double switching = 0;
    core::Time since = core::Time::zero();
  };
  struct PodState {
    bool active = false;
    bool fixed_end = false;
    bool had_corunner = false;
    bool had_measured_pair = false;
    double remaining_us = 0;
    double rate = 1;
    core::Time updated = core::Time::zero();
    core::Time started = core::Time::zero();
    double work_us = 0;
    std::vector<std::uint32_t> gpus;  // one entry per process
  };

  void advance(PodState& pod, core::Time now);
  void integrate(Gpu& gpu, core::Time now);
  void recompute(Gpu& gpu);
  // Sets the rates of a GPU's two pods from their measured pair speeds; false where none is known.
  bool recompute_measured_pair(Gpu& gpu);
  // Busy share of a GPU from its processes' demands and their pods' rates (a pod runs at its
  // slowest process, so a process held back elsewhere keeps its GPU busy less).
  void recompute_busy(Gpu& gpu);
  // Brings every pod on the touched GPUs up to `now`, lets `change` edit the GPUs, recomputes.
  template <typename Change>
  void update(const std::vector<std::uint32_t>& touched, core::Time now, Change change);
  double pod_rate(const PodState& pod, std::uint32_t id) const;

  std::vector<Gpu> gpus_;
  PairRate pair_rate_;
  std::vector<PodState> pods_;
  std::vector<Finish> moved_;
  Totals totals_;
  std::vector<std::uint32_t> removed_gpus_;  // scratch
  std::vector<std::uint32_t> busy_gpus_;     // scratch
  // Removals: when the GPU's time was integrated to before, and when it was removed. A removal
  // after the run's end must not count the empty time past the end.
  struct Removal {
    core::Time since;
    core::Time removed;
    double weight;
  };
  std::vector<Removal> removals_;
  std::vector<std::uint32_t> touched_pods_;  // scratch
  std::vector<std::uint32_t> touched_gpu_;   // scratch
  std::vector<double> scratch_;
};

// What the kubelets saw of shared GPUs during a run, for the metrics.
struct SharingReport {
  bool any = false;                        // some node shares its GPUs
  std::int64_t physical_gpus = 0;          // on sharing nodes
  std::vector<double> slowdowns;           // per pod that finished its work on a sharing node
  std::int64_t pods_with_corunners = 0;    // of those, pods that ever had a co-runner
  bool measured_pairs = false;             // pair speeds come from Gavel's table
  std::int64_t pods_with_measured_pair = 0;  // of the finished pods, those that ran at a measured pair speed
  std::int64_t refused_multi_replica = 0;  // failRequestsGreaterThanOne refusals
  std::int64_t split_across_gpus = 0;      // pods given replicas of several GPUs
  std::int64_t stacked_on_one_gpu = 0;     // pods given several replicas of one GPU
  bool memory_model = false;
  std::int64_t overrunning_pods = 0;       // pods started that use more GPU memory than asked
  std::int64_t oom_kills = 0;              // pods failed for GPU memory
  std::int64_t oom_neighbours = 0;         // of those, pods killed by another pod's start
  double oom_run_hours_lost = 0;           // the killed pods' run time so far
  double time_slice_overhead = 0;          // the largest d_inf and c in use (c: 1 when none known)
  double stream_capacity = 0;
  SharedProgress::Totals totals;
  // MIG nodes: their physical GPUs, and each finished pod's run time over its run time alone.
  std::int64_t mig_gpus = 0;
  std::vector<double> mig_slowdowns;
  double mig_slice_seconds = 0;  // compute slices held by pods, integrated over time
  double mig_span_s = 0;         // first arrival to the makespan's end
  std::int64_t mig_reconfigurations = 0;       // dynamic MIG re-partitions
  double mig_reconfiguration_gpu_s = 0;        // GPU time they took (serving nothing)
};

}  // namespace gpusim::k8s
