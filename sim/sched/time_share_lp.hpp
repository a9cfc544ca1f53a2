#pragma once
// Gavel's allocation policies (Narayanan et al., OSDI'20) as linear programs solved by COIN-OR
// CLP: the share of time X[j][t] each job j should spend on each GPU type t. Every policy keeps
// Sum_t X[j][t] <= 1 per job and Sum_j scale_j X[j][t] <= GPUs of type t per type.
//  - Max-min fairness: with speeds all 1 (heterogeneity-agnostic, Gavel's LAS), maximise the
//    smallest scale_j Sum_t X[j][t]. Heterogeneity-aware, maximise the smallest
//    Sum_t speed[j][t] X[j][t] / isolated_j, where isolated_j is the job's throughput
//    with its agnostic share of time (z' / scale_j, z' the agnostic optimum) spread over the types
//    it can run on in proportion to their GPUs (the paper's equal allocation X^equal).
//    Both are solved over classes of jobs the LP cannot tell apart (same GPUs, coefficients and
//    weight), a row per class instead of per job: the same optimum from an LP of tens of rows
//    instead of thousands, whose class totals do not depend on the jobs' order (max_min()).
//  - Finish-time fairness: minimise the largest rho_j = (elapsed_j + remaining_j / thr_j(X)) /
//    (elapsed_j + remaining_j / isolated_j), thr_j(X) = Sum_t speed[j][t] X[j][t]. Since X' gives
//    every rho_j = 1, the optimum lies in (0, 1] (else the bound doubles until feasible); it is
//    found to half a percent by bisection on the bound c, starting around the last solve's
//    optimum, each step a feasibility LP (thr_j(X) >= remaining_j / (c (elapsed_j + remaining_j /
//    isolated_j) - elapsed_j)) warm-started from the last, which maximises total throughput.
#include <cstdint>
#include <memory>
#include <vector>

namespace gpusim::sched {

enum class TimeShareObjective : std::uint8_t { kMaxMin, kFinishTimeFair };

// Every job must ask at least one GPU and be able to run on some type (the scheduler leaves others
// out): one that cannot would hold every job's max-min share at 0.
struct TimeShareJob {
  int scale = 1;               // GPUs it runs on at once, >= 1
  std::vector<double> speed;   // per GPU type, relative to the reference GPU; 0: cannot run there
  double elapsed_s = 0;        // finish-time fairness: time since it arrived
  double remaining_s = 0;      // finish-time fairness: work left, in seconds on the reference GPU
};

class TimeShareLp {
 public:
  TimeShareLp();
  ~TimeShareLp();
  TimeShareLp(const TimeShareLp&) = delete;
  TimeShareLp& operator=(const TimeShareLp&) = delete;

  // Fills `shares` (jobs x types, row-major) with the policy's allocation for `jobs` on a
  // cluster of `gpus_of_type` GPUs per type. `aware`: use the jobs' speeds; else every type a job
  // can run on counts as speed 1. Returns the objective (the smallest normalised share, or the
  // largest rho).
  double solve(TimeShareObjective objective, bool aware, const std::vector<TimeShareJob>& jobs,
               const std::vector<double>& gpus_of_type, std::vector<double>& shares);
  // Linear programs solved so far (for the report).
  std::uint64_t solves() const { return solves_; }

 private:
  // Max-min over `weight[j] * Sum_t coefficient[j][t] X[j][t]`.
  double max_min(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                 const std::vector<double>& weight, bool use_speed, std::vector<double>& shares);
  void load_shares(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                   const std::vector<double>& weight, bool use_speed, bool cost_of_share,
                   const std::vector<double>* count);
  double finish_time_fair(const std::vector<TimeShareJob>& jobs, const std::vector<double>& gpus_of_type,
                          const std::vector<double>& isolated, bool use_speed, std::vector<double>& shares);
  std::uint64_t solves_ = 0;
  double last_rho_ = 0;  // finish-time fairness: the last optimum, where the next search starts
  // Scratch arrays of the column-major matrix, reused across solves.
  std::vector<int> starts_, rows_;
  std::vector<double> values_, column_lower_, column_upper_, cost_, row_lower_, row_upper_;
  // Max-min's classes of interchangeable jobs (max_min()), reused across solves.
  std::vector<std::size_t> order_, class_of_;
  std::vector<TimeShareJob> class_jobs_;
  std::vector<double> class_weight_, class_count_;
  // How a class's shares go to its jobs (max_min()).
  enum class Layout : std::uint8_t { kThroughput, kTime, kShares };
  std::vector<Layout> layout_;
  std::vector<double> need_;            // per class: what each job gets, in the layout's unit
  std::vector<std::size_t> wrap_type_;  // per class: the type its next job's piece comes from
  std::vector<double> wrap_left_;       // per class: what is left to give on that type
};

}  // namespace gpusim::sched
