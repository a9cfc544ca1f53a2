// The synthetic job log (traces/synth.hpp) and the trace statistics of `gpusim trace inspect`
// (traces/trace_stats.hpp): what is fitted, worked out by hand on small logs, and that a log drawn
// from the bundled Philly trace has its distributions and rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/metrics/sample_stats.hpp"
#include "traces/bundled.hpp"
#include "traces/philly_reader.hpp"
#include "traces/synth.hpp"
#include "traces/trace_stats.hpp"

namespace gpusim::testing {
namespace {

traces::Workload log_of(const std::string& rows) {
  std::istringstream in("timestamp,duration,num_gpus,gpu_time,cluster\n" + rows);
  return traces::read_philly_jobs(in, "small.csv", 8);
}

// Five jobs: at 0, 600 and 1200 s (hour 0) and at 4000 and 7000 s (hour 1); a 16-GPU gang at 600.
traces::Workload small_log() {
  return log_of(
      "2017-10-01 00:00:00,100.0,1,100.0,a\n"
      "2017-10-01 00:10:00,50.0,16,800.0,b\n"
      "2017-10-01 00:20:00,3600.0,2,7200.0,a\n"
      "2017-10-01 01:06:40,10.0,1,10.0,a\n"
      "2017-10-01 01:56:40,1000.0,1,1000.0,b\n");
}

TEST(Synth, FitsArrivalsPerHourOfTheWeekGpusAndQueues) {
  const traces::TraceModel model = traces::fit_trace(small_log());
  // Hours 0 and 1 (the last arrival's, counted whole) have 3 and 2 arrivals.
  EXPECT_DOUBLE_EQ(model.arrivals_per_s[0], 3.0 / 3600);
  EXPECT_DOUBLE_EQ(model.arrivals_per_s[1], 2.0 / 3600);
  EXPECT_EQ(model.arrivals_per_s[2], 0);
  EXPECT_EQ(model.source_jobs, 5);  // the gang's two workers are one job
  EXPECT_EQ(model.gpu_values, (std::vector<std::int32_t>{1, 2, 16}));
  EXPECT_EQ(model.gpu_cdf, (std::vector<double>{0.6, 0.8, 1.0}));
  EXPECT_EQ(model.queues, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(model.queue_cdf, (std::vector<double>{0.6, 1.0}));
  // Fewer than 20 jobs in every class: each class draws from all five run times.
  EXPECT_EQ(model.run_s[0], (std::vector<double>{10, 50, 100, 1000, 3600}));
}

TEST(Synth, TheSameSeedGivesTheSameLog) {
  const traces::TraceModel model = traces::fit_trace(small_log());
  const auto a = traces::synthesize(model, 500, 1.0, 7);
  const auto b = traces::synthesize(model, 500, 1.0, 7);
  const auto c = traces::synthesize(model, 500, 1.0, 8);
  std::ostringstream sa, sb, sc;
  traces::write_philly_log(sa, a, model.queues);
  traces::write_philly_log(sb, b, model.queues);
  traces::write_philly_log(sc, c, model.queues);
  EXPECT_EQ(sa.str(), sb.str());
  EXPECT_NE(sa.str(), sc.str());
  // Only hours 0 and 1 of each week have arrivals; run times lie within the trace's range.
  for (const auto& job : a) {
    EXPECT_LT(job.submit_s % (168 * 3600), 2 * 3600);
    EXPECT_GE(job.run_s, 10);
    EXPECT_LE(job.run_s, 3600);
  }
  // The log reads back as a Philly log with the same jobs.
  const traces::Workload back = log_of(sa.str().substr(sa.str().find('\n') + 1));
  EXPECT_EQ(traces::trace_jobs(back).size(), 500u);
}

TEST(Synth, ADrawFromPhillyHasItsDistributionsAndRate) {
  const traces::Workload philly = traces::read_philly_jobs(traces::resolve_workload("philly", traces::data_root()), 8);
  const traces::TraceModel model = traces::fit_trace(philly);
  const std::vector<traces::TraceJob> source = traces::trace_jobs(philly);
  for (const double load : {1.0, 2.0}) {
    const auto jobs = traces::synthesize(model, 100'000, load, 42);
    const auto share_one = static_cast<double>(std::count_if(jobs.begin(), jobs.end(), [](const auto& j) { return j.gpus == 1; })) / 1e5;
    EXPECT_NEAR(share_one, 76'627.0 / 82'247, 0.005) << load;  // the trace's 93.17 %
    std::vector<double> runs;
    for (const auto& job : jobs) runs.push_back(static_cast<double>(job.run_s));
    std::sort(runs.begin(), runs.end());
    EXPECT_NEAR(metrics::percentile_of_sorted(runs, 0.5), 1144, 1144 * 0.03) << load;  // the trace's median
    // Rate: the trace's 82,247 jobs over 108.9 days, times the load.
    const double rate = static_cast<double>(jobs.size()) / static_cast<double>(jobs.back().submit_s);
    EXPECT_NEAR(rate / (load * 82'246.0 / model.source_span_s), 1.0, 0.02) << load;
  }
}

TEST(Synth, AnArrivalAtTheStartOfAnHourCountsAndLowLoadsStayWithinDates) {
  // Arrivals at 0 and 3600 s: hour 1 has its arrival over a whole hour.
  const traces::TraceModel model = traces::fit_trace(log_of("2017-10-01 00:00:00,10.0,1,10.0,a\n"
                                                            "2017-10-01 01:00:00,10.0,1,10.0,a\n"));
  EXPECT_DOUBLE_EQ(model.arrivals_per_s[1], 1.0 / 3600);
  // Two arrivals a week at a hundredth of the rate: 2,000 jobs take 100,000 weeks (1,917 years) on
  // average, drawn without walking every empty hour.
  const auto slow = traces::synthesize(model, 2000, 0.01, 1);
  EXPECT_GT(slow.back().submit_s, 1'800LL * 365 * 86400);
  EXPECT_LT(slow.back().submit_s, 2'050LL * 365 * 86400);
  // A thousandth of it would run past the year 9999.
  EXPECT_THROW(traces::synthesize(model, 2000, 0.001, 1), core::InputError);
}

TEST(Synth, RefusesWhatIsNotAJobLogOfWholeGpus) {
  traces::Workload fractions = small_log();
  fractions.pods[0].gpu_milli = 500;
  EXPECT_THROW(traces::fit_trace(fractions), core::InputError);
  traces::Workload untimed = small_log();
  untimed.pods[1].duration.reset();
  EXPECT_THROW(traces::fit_trace(untimed), core::InputError);
  EXPECT_THROW(traces::fit_trace(log_of("2017-10-01 00:00:00,100.0,1,100.0,a\n")), core::InputError);  // one arrival
}

TEST(TraceStats, CountsArrivalsAndTheDemandTheyOffer) {
  // Two bins of 3500 s over the span of 7000 s. Bin 0 has the jobs at 0, 600 and 1200: 1 GPU for
  // 100 s, 16 for 50 s, 2 for 3600 s of which 2300 in bin 0 and 1300 in bin 1. Bin 1 has the jobs at
  // 4000 (1 GPU, 10 s) and 7000 (1 GPU, 1000 s: it starts at the end of the span, so adds nothing).
  const traces::TraceStats s = traces::trace_stats(small_log(), 2);
  EXPECT_EQ(s.jobs, 5);
  EXPECT_EQ(s.pods, 6);
  EXPECT_EQ(s.gangs, 1);
  EXPECT_DOUBLE_EQ(s.gpus_asked, 21);
  EXPECT_EQ(s.arrivals, (std::vector<std::int64_t>{3, 2}));
  EXPECT_NEAR(s.demand_gpus[0], (100.0 + 16 * 50 + 2 * 2300) / 3500, 1e-9);
  EXPECT_NEAR(s.demand_gpus[1], (2 * 1300 + 10.0) / 3500, 1e-9);
  EXPECT_NEAR(s.gpu_hours, (100.0 + 800 + 7200 + 10 + 1000) / 3600, 1e-9);
  ASSERT_EQ(s.gpu_counts.size(), 3u);
  EXPECT_EQ(s.gpu_counts[0], (std::pair<double, std::int64_t>{1, 3}));
}

}  // namespace
}  // namespace gpusim::testing
