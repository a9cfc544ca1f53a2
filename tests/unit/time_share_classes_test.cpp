// Max-min's LP is solved over classes of interchangeable jobs (sim/sched/time_share_lp.cpp). These
// tests hold it to the per-job LP it replaces, solved here with CLP directly: the same optimum,
// an allocation the per-job LP accepts, and shares that depend on what a job asks, not on where
// it stands in the list.
#include <gtest/gtest.h>

#include <ClpSimplex.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sim/sched/time_share_lp.hpp"

namespace gpusim {
namespace {

// The heterogeneity-agnostic max-min LP with a column per job and type: maximise z plus the small
// reward per GPU-second the simulator adds, s.t. scale_j Sum_t X[j][t] >= z, Sum_t X[j][t] <= 1,
// Sum_j scale_j X[j][t] <= GPUs of t; X[j][t] = 0 where the job cannot run. Returns z.
double per_job_agnostic_optimum(const std::vector<sched::TimeShareJob>& jobs, const std::vector<double>& gpus) {
  const int n = static_cast<int>(jobs.size());
  const int types = static_cast<int>(gpus.size());
  ClpSimplex model;
  model.setLogLevel(0);
  model.resize(2 * n + types, 0);
  for (int j = 0; j < n; ++j) {
    model.setRowLower(j, 0.0);
    model.setRowUpper(j, COIN_DBL_MAX);
    model.setRowLower(n + j, -COIN_DBL_MAX);
    model.setRowUpper(n + j, 1.0);
  }
  for (int t = 0; t < types; ++t) {
    model.setRowLower(2 * n + t, -COIN_DBL_MAX);
    model.setRowUpper(2 * n + t, gpus[static_cast<std::size_t>(t)]);
  }
  const double reward = 1e-7 / std::accumulate(gpus.begin(), gpus.end(), 0.0);
  for (int j = 0; j < n; ++j) {
    const sched::TimeShareJob& job = jobs[static_cast<std::size_t>(j)];
    for (int t = 0; t < types; ++t) {
      const bool runs = job.speed[static_cast<std::size_t>(t)] > 0 && gpus[static_cast<std::size_t>(t)] >= job.scale;
      const int rows[] = {j, n + j, 2 * n + t};
      const double values[] = {static_cast<double>(job.scale), 1.0, static_cast<double>(job.scale)};
      model.addColumn(3, rows, values, 0.0, runs ? 1.0 : 0.0, reward * job.scale);
    }
  }
  std::vector<int> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  const std::vector<double> minus_one(static_cast<std::size_t>(n), -1.0);
  model.addColumn(n, rows.data(), minus_one.data(), 0.0, COIN_DBL_MAX, 1.0);
  model.setOptimizationDirection(-1);
  model.dual();
  EXPECT_EQ(model.status(), 0);
  return model.primalColumnSolution()[n * types];
}

// Jobs as on the bundled Philly cluster: 1-2 GPU jobs run on both types (2-GPU P100 nodes, 8-GPU
// P40 nodes), larger ones only on the P40s.
std::vector<sched::TimeShareJob> philly_like_jobs(std::mt19937& rng, int n) {
  const int scales[] = {1, 1, 1, 1, 2, 2, 4, 8, 16};
  std::vector<sched::TimeShareJob> jobs;
  for (int j = 0; j < n; ++j) {
    const int scale = scales[rng() % std::size(scales)];
    jobs.push_back({scale, {scale <= 2 ? 1.0 : 0.0, 1.0}, 0, 0});
  }
  return jobs;
}

void expect_feasible(const std::vector<sched::TimeShareJob>& jobs, const std::vector<double>& gpus,
                     const std::vector<double>& shares, double z) {
  const std::size_t types = gpus.size();
  std::vector<double> used(types, 0.0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    double time = 0;
    for (std::size_t t = 0; t < types; ++t) {
      const double x = shares[j * types + t];
      if (jobs[j].speed[t] <= 0) {
        EXPECT_EQ(x, 0.0);
      }
      time += x;
      used[t] += jobs[j].scale * x;
    }
    EXPECT_LE(time, 1 + 1e-7) << "job " << j;
    EXPECT_GE(jobs[j].scale * time, z - 1e-6) << "job " << j;
  }
  for (std::size_t t = 0; t < types; ++t) EXPECT_LE(used[t], gpus[t] + 1e-6) << "type " << t;
}

TEST(TimeShareClasses, TheClassLpReachesThePerJobOptimumWithAnAllocationItAccepts) {
  std::mt19937 rng(7);
  const std::vector<double> gpus{642, 1848};
  // From underloaded (spare GPUs beyond every job's share) to 3,000 jobs in flight.
  for (const int n : {5, 60, 400, 1500, 3000}) {
    const std::vector<sched::TimeShareJob> jobs = philly_like_jobs(rng, n);
    sched::TimeShareLp lp;
    std::vector<double> shares;
    const double z = lp.solve(sched::TimeShareObjective::kMaxMin, false, jobs, gpus, shares);
    EXPECT_NEAR(z, per_job_agnostic_optimum(jobs, gpus), 1e-7 * std::max(1.0, z)) << n << " jobs";
    expect_feasible(jobs, gpus, shares, z);
  }
}

TEST(TimeShareClasses, AlikeJobsGetAlikeThroughputsWhereverTheyStand) {
  std::mt19937 rng(11);
  const std::vector<double> gpus{642, 1848};
  std::vector<sched::TimeShareJob> jobs = philly_like_jobs(rng, 800);
  // Speeds that tell the types apart, so that the aware policy solves its own LP too.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (j % 3 == 0 && jobs[j].speed[0] > 0) jobs[j].speed[0] = 0.5;
  }
  const std::size_t n = jobs.size(), types = gpus.size();
  for (const bool aware : {false, true}) {
    sched::TimeShareLp lp;
    std::vector<double> shares, reversed_shares;
    (void)lp.solve(sched::TimeShareObjective::kMaxMin, aware, jobs, gpus, shares);
    const std::vector<sched::TimeShareJob> reversed(jobs.rbegin(), jobs.rend());
    (void)lp.solve(sched::TimeShareObjective::kMaxMin, aware, reversed, gpus, reversed_shares);
    // Per class of alike jobs (named by its first job): its time on each type in both orders, how
    // many of its jobs have time on more than one type, and whether all took the first's shares.
    std::vector<std::size_t> first(n);
    std::vector<std::vector<double>> time(n, std::vector<double>(types, 0.0)), reversed_time = time;
    std::vector<int> split(n, 0);
    std::vector<bool> all_alike(n, true);
    const auto throughput = [&](const std::vector<double>& x, std::size_t at, std::size_t job) {
      double sum = 0;
      for (std::size_t t = 0; t < types; ++t) sum += (aware ? jobs[job].speed[t] : 1.0) * x[at * types + t];
      return sum;
    };
    for (std::size_t j = 0; j < n; ++j) {
      first[j] = j;
      for (std::size_t k = 0; k < j; ++k) {
        if (jobs[k].scale == jobs[j].scale && jobs[k].speed == jobs[j].speed) {
          first[j] = k;
          break;
        }
      }
      const std::size_t c = first[j];
      int on = 0;
      double total = 0;
      for (std::size_t t = 0; t < types; ++t) {
        const double x = shares[j * types + t];
        time[c][t] += x;
        reversed_time[c][t] += reversed_shares[(n - 1 - j) * types + t];
        on += x > 0 ? 1 : 0;
        total += x;
        if (x != shares[c * types + t]) all_alike[c] = false;
      }
      split[c] += on > 1 ? 1 : 0;
      EXPECT_LE(total, 1 + 1e-9) << "job " << j;
      // Every job of a class as fast as the first, in either order.
      EXPECT_NEAR(throughput(shares, j, j), throughput(shares, c, c), 1e-9) << "job " << j << (aware ? " aware" : "");
      EXPECT_NEAR(throughput(reversed_shares, n - 1 - j, j), throughput(shares, c, c), 1e-9) << "job " << j;
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (first[c] != c) continue;
      for (std::size_t t = 0; t < types; ++t) EXPECT_NEAR(time[c][t], reversed_time[c][t], 1e-9) << "class " << c;
      // Laid out by type (all but a job per type boundary on one type), or every job alike.
      EXPECT_TRUE(split[c] <= static_cast<int>(types) - 1 || all_alike[c]) << "class " << c;
      // Where a job runs as fast everywhere (always, to the agnostic policy), the layout holds.
      const bool same_speed = !aware || jobs[c].speed[0] == 0 || jobs[c].speed[0] == jobs[c].speed[1];
      if (same_speed) {
        EXPECT_LE(split[c], static_cast<int>(types) - 1) << "class " << c;
      }
    }
  }
}

}  // namespace
}  // namespace gpusim
