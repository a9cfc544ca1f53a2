#pragma once
// A scheduling profile: which plugin runs at each extension point, the score weights, how the
// GPUs inside the chosen node are picked and how equal scores are broken. Built-in profiles
// carry the policy names; a KubeSchedulerConfiguration defines others (sim/config/).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.hpp"

namespace gpusim::sched {

class PluginArgs;

struct WeightedPlugin {
  std::string name;
  std::int64_t weight = 1;
};

enum class TieBreak : std::uint8_t {
  // Among nodes with the top score, the one with the smallest rank in a seeded random
  // permutation of the nodes (the FGD artifact: random name prefixes, then the smallest name).
  kSeededRank,
  // The lowest node index: fully deterministic across seeds.
  kNodeIndex,
};

// What a scheduling cycle does when a pod (or gang) at the front of the queue does not fit.
enum class QueueMode : std::uint8_t {
  // Tries the pods behind it (kube-scheduler: an unschedulable pod waits aside).
  kSkip,
  // Stops the cycle: no pod starts before the ones queued ahead of it (strict FIFO; head-of-line
  // blocking).
  kStrict,
  // EASY backfilling: the first pod (or gang) that does not fit gets a reservation, the earliest
  // time its GPUs will be free given the running pods' expected ends (their trace run times); a pod
  // behind it may start now if it will end by then, or if it fits without the reserved nodes.
  kBackfill,
};

// Which pods a waiting pod may preempt (PostFilter) and how the queue is ordered then: by a
// priority that changes as jobs run (policies/job_rank/job_priority.hpp), not by QueueSort.
enum class Preemption : std::uint8_t {
  kNone,
  // kube-scheduler's DefaultPreemption: pods of a lower PriorityClass value.
  kPriority,
  // Shortest remaining time first (oracle: the trace's run times): jobs with more time left.
  kSrtf,
  // Tiresias' discretised two-dimensional least-attained-service (NSDI'19): jobs in a lower
  // priority queue, i.e. with more attained GPU-time.
  kTiresias,
};

// Tiresias' knobs: a job starts in queue 0 and moves down one queue each time its attained service
// (GPUs x run time, in GPU-seconds) passes the next threshold; with starvation_knob k > 0, a waiting
// job goes back to queue 0, its service counted from zero, once it has waited (since its first run
// after it was last put there) k times as long as it has run since.
// Tiresias' discretised 2D-LAS. The defaults are its simulator's for dlas-gpu: 3 queues, demoted at
// 3,250 and 7,200 GPU-seconds of attained service (SymbioticLab/Tiresias, simulator/jobs.py,
// num_queue and queue_limit; its README's example has one threshold at 3,600).
// The order within a queue: kCreation, FIFO by creation time (a job never preempts one of its own
// queue); kSimulator, the order of Tiresias' simulator (run_sim.py, dlas_sim_jobs): a job joins
// the tail of its queue when it arrives, is demoted or promoted, and after each pass the running
// jobs of a queue move ahead of its waiting ones, so a job just demoted while running sits behind
// the waiting jobs of its new queue and may be preempted by them.
enum class TiresiasQueueOrder : std::uint8_t { kCreation, kSimulator };

struct TiresiasSettings {
  std::vector<std::int64_t> thresholds_gpu_s{3250, 7200};
  std::int64_t starvation_knob = 0;
  TiresiasQueueOrder queue_order = TiresiasQueueOrder::kCreation;
};

// Gavel's round-based time sharing (replay): a linear program gives each job its share of time
// on each GPU type, and every round (RoundSettings) gives the GPUs to the jobs furthest below their
// shares; jobs left out of a round are preempted at its end, when they checkpoint (no work lost).
// Themis (kThemis) needs no LP: each round is a lease of the GPUs, offered first to the jobs
// furthest from finish-time fairness (policies/time_sharing/time_share_rounds.hpp).
enum class TimeSharePolicy : std::uint8_t { kNone, kMaxMin, kFinishTimeFair, kThemis };

// Per-queue GPU quotas in the style of Volcano (sim/k8s/queue_quotas.hpp): deserved GPUs from the
// queues' weights (proportion) or from each queue's deserved value (capacity).
enum class QueueQuotaMode : std::uint8_t { kNone, kProportion, kCapacity };

struct Profile {
  std::string name;
  std::string queue_sort = "priority";
  std::vector<std::string> pre_filter;
  std::vector<std::string> filter;
  std::vector<std::string> post_filter;
  std::vector<WeightedPlugin> score;
  std::string gpu_selection = "best";
  std::vector<std::string> reserve;
  std::vector<std::string> permit;
  std::string bind = "default-binder";
  TieBreak tie_break = TieBreak::kSeededRank;
  // kube-scheduler's percentageOfNodesToScore: the filter stage stops once it has found this
  // share of the nodes feasible (at least 100 nodes); 0: kube-scheduler's adaptive default; 100:
  // every node (the built-in policies, as the FGD artifact scores every node).
  std::int32_t percentage_of_nodes_to_score = 100;
  QueueMode queue_mode = QueueMode::kSkip;
  Preemption preemption = Preemption::kNone;
  TiresiasSettings tiresias;
  // Dominant resource fairness across the workload's queues (replay, skip mode): each step of a
  // cycle tries the next pod of the queue with the smallest dominant share (max over GPUs, CPU and
  // memory of what it holds / the cluster's total), ties to the lower queue index.
  bool drf = false;
  TimeSharePolicy time_share = TimeSharePolicy::kNone;
  // With time_share: the LP uses each job's speed on each GPU type (Gavel's *_perf policies);
  // else every GPU counts the same (Gavel's heterogeneity-agnostic baselines).
  bool heterogeneity_aware = false;
  // Themis: the fairness knob f; each lease is offered to the ceil((1 - f) x n) of the n active jobs
  // with the largest estimated finish-time fairness rho (CLI --themis-fairness).
  double themis_fairness = 0.8;
  // Time sharing (Gavel's and Themis' rounds): the length of a round, or of a lease (Gavel's default).
  core::Time round_length = core::Time::from_seconds(360);
  // Gangs through Permit (the coscheduling plugin, policy gang): a gang's workers are placed one by
  // one and wait at Permit, holding what they reserved, until every worker is placed; then all are
  // bound. Otherwise (false) a gang is placed whole within one cycle or not at all.
  bool gang_permit = false;
  // With gang_permit, the coscheduling plugin's defaults: how long reserved workers wait at Permit
  // for the rest of their gang (permitWaitingTimeSeconds), and how long a rejected gang is kept out
  // of scheduling before it is tried again (deniedPGExpirationTimeSeconds).
  core::Time gang_timeout = core::Time::from_seconds(60);
  core::Time gang_denied_backoff = core::Time::from_seconds(20);
  // Queue quotas (replay, skip mode): each step of a cycle tries the next pod of the queue with the
  // least held over deserved GPUs, if its queue may take it; then a queue within its deserved GPUs
  // reclaims from queues above theirs (victims restart from their last checkpoint).
  QueueQuotaMode queue_quotas = QueueQuotaMode::kNone;
  // Per plugin (canonical name), its args from the configuration's pluginConfig; a plugin that
  // takes args and has none here gets its reader's defaults when the framework builds it.
  std::map<std::string, std::shared_ptr<const PluginArgs>> plugin_args;
  // gpusim's extension points for queueing (sim/k8s/queueing_plugin.hpp): the plugin enabled at
  // each, by registry name, or "" for none. The configuration readers set them with the settings
  // above, which are those plugins' args.
  std::string round_plugin;            // round: gavel, themis
  std::string gang_permit_plugin;      // permit: coscheduling
  std::string queue_admission_plugin;  // queueAdmission: strict, backfill, drf, proportion, capacity
  std::string job_rank_plugin;         // jobRank: srtf, tiresias; default-preemption (priorities)
  // With queue_quotas: whether the reclaim step runs after the walk (Volcano's reclaim action; a
  // Volcano configuration without it only borrows and waits). The built-in profiles reclaim.
  bool reclaim = true;
};

// A name that may become a file or folder name: starts with a letter or digit, then letters,
// digits, '.', '_' and '-' only (so never "..", "/x" or empty).
bool is_plain_name(std::string_view name);
// Names of the built-in profiles, in a fixed order.
std::vector<std::string> builtin_profile_names();
// The canonical built-in policy `asked` names (any spelling sched/names.hpp accepts, the FGD
// paper's names included), if any.
std::optional<std::string> builtin_policy_name(const std::string& asked);
// The FGD paper's name of a built-in policy ("BestFit"), or "" if the paper has none.
std::string paper_name(const std::string& policy);
// One line on what a built-in policy does (`gpusim policies`).
std::string policy_summary(const std::string& policy);
// The built-in profiles are KubeSchedulerConfiguration files: sim/config/profiles.hpp.

}  // namespace gpusim::sched
