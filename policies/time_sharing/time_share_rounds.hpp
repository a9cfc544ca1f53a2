#pragma once
// Gavel's round-based mechanism (Narayanan et al., OSDI'20, §5), as the scheduler uses it for the
// time-sharing profiles (sched::TimeSharePolicy). GPU types are Gavel's worker types when a
// throughput table is loaded (k80, p100, v100), else the cluster's GPU models. Each round:
//  1. when the set of jobs changed since the last solve, the policy's LP (sched::TimeShareLp) gives
//     every job j a share of time X[j][t] on each type t;
//  2. each job's priority on type t is X[j][t] over the share of its rounds (since it arrived) in
//     which it ran there: infinite for a job that got none yet; ties by the deficit
//     X[j][t] * rounds - got, then X[j][t], then the job's trace row. Gavel counts the time
//     fractions since its last reallocation (and carries only the deficits across); counting since
//     arrival keeps a job's history when others come and go, which in a trace where jobs arrive
//     every few minutes would otherwise be lost at every round;
//  3. types in turn (V100, P100, K80; in a seeded random order each round for heterogeneity-
//     agnostic policies, as Gavel shuffles them), the jobs with a share there take the type's GPUs
//     in priority order while their GPUs fit, one type per job. Then GPUs left idle go to jobs
//     without a share there, those already running there first, as Gavel's non-FIFO policies let
//     any job take what is left.
// Themis (sched::TimeSharePolicy::kThemis, Mahajan et al., NSDI'20) is approximated on the same
// rounds, each round a lease of every GPU: the ceil((1 - f) n) active jobs with the largest
// estimated finish-time fairness rho take GPUs first, by rho per GPU asked (a greedy stand-in for
// the partial-allocation auction's product of gains), each on its fastest type with room; the
// other jobs then take what is left by rho (work-conserving). No LP.
// Only GPU jobs that some type can hold whole (by GPU counts) are time-shared (plannable()).
// A job planned on another type than it runs on (or not planned) is suspended at the round's end.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/job_ledger.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "sim/sched/profile.hpp"
#include "sim/sched/time_share_lp.hpp"

namespace gpusim::k8s {

class TimeShareRounds {
 public:
  static constexpr std::int8_t kNone = -1;

  // `speeds`: Gavel's table (jobs carry job types), or null (every GPU runs every job alike).
  TimeShareRounds(const sched::Profile& profile, const std::vector<cluster::NodeSpec>& nodes,
                  const std::vector<cluster::PodSpec>& pods, const perf::JobTypeSpeeds* speeds, const JobLedger& ledger,
                  std::uint64_t seed);

  // The job a trace row belongs to (its gang's first row, or itself).
  std::uint32_t job_of(std::uint32_t row) const { return job_of_row_[row]; }
  // The GPU type of a GPU model (kNone: not a type of this cluster).
  std::int8_t type_of_model(cluster::GpuModelId model) const { return type_of_model_.at(model); }
  // Whether the job is time-shared: it asks GPUs and some type can hold it whole. Others are not
  // planned: CPU-only pods are placed as they come; a GPU job no type can hold never starts.
  bool plannable(std::uint32_t job) const { return jobs_[job].plannable != 0; }
  // The GPU models of type t, as a pod's allowed models.
  cluster::GpuModelSet models_of(std::int8_t type) const { return types_.at(static_cast<std::size_t>(type)).models; }

  // A pod of the job was created / a pod of it ended for good (not suspended by a round).
  void arrive(std::uint32_t job, core::Time now);
  void leave(std::uint32_t job);
  bool active(std::uint32_t job) const { return jobs_[job].active != 0; }
  bool any_active() const { return !active_.empty(); }
  // A pod of the job was bound on type `type`: it runs there (its round counts, if planned there).
  void started(std::uint32_t job, std::int8_t type);
  // A pod of the job ended: it runs nowhere until bound again.
  void stopped(std::uint32_t job) { jobs_[job].running = kNone; }
  std::int8_t running(std::uint32_t job) const { return jobs_[job].running; }

  // Plans the round starting now: planned(job) is the type it runs on in it, kNone if none.
  void plan(core::Time now);
  std::int8_t planned(std::uint32_t job) const { return jobs_[job].planned; }

  std::uint64_t lp_solves() const { return lp_.solves(); }
  std::uint64_t rounds() const { return rounds_; }

 private:
  struct Type {
    cluster::GpuModelSet models;
    std::int32_t gpus = 0;           // in the cluster
    std::int32_t largest_node = 0;   // most GPUs on one node
    std::optional<std::size_t> worker;  // Gavel worker type
  };
  struct Job {
    std::uint8_t active = 0;
    std::uint8_t plannable = 0;
    std::int32_t gpus = 0;          // all its pods together (the LP's scale factor)
    std::int32_t largest_pod = 0;   // GPUs of its largest pod (must fit one node)
    std::int8_t running = kNone;
    std::int8_t planned = kNone;
    core::Time arrival = core::Time::zero();
    std::int32_t rounds = 0;             // rounds it was active in
    std::vector<std::int32_t> received;  // rounds it was planned on each type
  };
  double speed(std::uint32_t job, std::size_t type) const;
  // Gavel's rounds: the LP's shares, then the rounds' priorities.
  void plan_shares(core::Time now);
  // Themis: leases offered by estimated finish-time fairness.
  void plan_leases(core::Time now);
  // rho = (time since arrival + remaining work at its best speed) / its time alone on an equal 1/n
  // share of the GPUs it may use.
  double estimated_rho(std::uint32_t job, core::Time now) const;
  // Work left in seconds on the reference GPU (finish-time fairness).
  double remaining_s(std::uint32_t job, core::Time now) const;

  sched::TimeSharePolicy policy_;
  bool aware_;
  double themis_fairness_;
  const std::vector<cluster::PodSpec>& pods_;
  const perf::JobTypeSpeeds* speeds_;
  const JobLedger& ledger_;
  core::Rng rng_;
  std::vector<Type> types_;
  std::vector<std::int8_t> type_of_model_;
  std::vector<std::uint32_t> job_of_row_;
  std::vector<Job> jobs_;                 // per trace row; only jobs' first rows are used
  std::vector<std::uint32_t> active_;     // active jobs, ascending
  bool changed_ = false;                  // jobs came or went since the last solve
  std::uint64_t rounds_ = 0;
  sched::TimeShareLp lp_;
  // Scratch, reused every round.
  std::vector<sched::TimeShareJob> lp_jobs_;
  std::vector<double> gpus_of_type_;
  std::vector<std::int32_t> free_;
  std::vector<double> share_;  // per active job and type: the last solve's X, row-major by active_
  std::vector<std::uint32_t> solved_jobs_;  // the jobs of the last solve, ascending
  struct Entry {
    double priority, deficit, share;
    std::uint32_t job;
  };
  std::vector<Entry> entries_;
  std::vector<std::size_t> type_order_;
};

}  // namespace gpusim::k8s
