// The framework's remembered filter verdicts (sim/sched/filter_verdicts.hpp) and per-shape rankings
// (sim/sched/shape_rankings.hpp): node-local filters and scores run again only on nodes that changed
// since the framework last saw the pod's shape, and the placements are those of a framework that
// filters and scores every node every time.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>

#include "sim/config/profiles.hpp"
#include "sim/sched/filter_verdicts.hpp"
#include "tests/scenario/test_cluster.hpp"

namespace gpusim::testing {
namespace {

// Passes every node and counts its calls into the test's counter; node-local or not, as built.
class CountingFilter final : public sched::FilterPlugin {
 public:
  CountingFilter(int* calls, bool node_local) : calls_(calls), node_local_(node_local) {}
  std::string_view name() const override { return node_local_ ? "counting-local" : "counting-global"; }
  bool node_local() const override { return node_local_; }
  sched::Status filter(const sched::PodSpec&, sched::NodeIndex, const sched::ClusterState&,
                       sched::CycleState&) const override {
    ++*calls_;
    return sched::Status::ok();
  }

 private:
  int* calls_;
  bool node_local_;
};

// Scores a node by its free CPU (more is better) and counts its calls; node-local or not, as built.
class CountingScore final : public sched::ScorePlugin {
 public:
  CountingScore(int* calls, bool node_local) : calls_(calls), node_local_(node_local) {}
  std::string_view name() const override { return node_local_ ? "counting-score-local" : "counting-score-global"; }
  bool node_local() const override { return node_local_; }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState& cluster,
                     sched::CycleState&) override {
    ++*calls_;
    return cluster.cpu_free(n) / 1000;
  }

 private:
  int* calls_;
  bool node_local_;
};

// CountingScore's min-max twin: normalises onto [0, 100] rounded down, as best-fit does, so the
// top normalised score is the top raw score (normalize_keeps_the_best).
class CountingMinMaxScore final : public sched::ScorePlugin {
 public:
  explicit CountingMinMaxScore(int* calls) : calls_(calls) {}
  std::string_view name() const override { return "counting-score-min-max"; }
  bool node_local() const override { return true; }
  bool normalize_keeps_the_best() const override { return true; }
  std::int64_t score(const sched::PodSpec&, sched::NodeIndex n, const sched::ClusterState& cluster,
                     sched::CycleState&) override {
    ++*calls_;
    return cluster.cpu_free(n) / 1000;
  }
  void normalize(std::span<sched::NodeScore> scores) const override {
    std::int64_t lo = scores.front().score;
    std::int64_t hi = lo;
    for (const sched::NodeScore& s : scores) lo = std::min(lo, s.score), hi = std::max(hi, s.score);
    for (sched::NodeScore& s : scores) s.score = hi == lo ? 0 : (s.score - lo) * 100 / (hi - lo);
  }

 private:
  int* calls_;
};

sched::Registry registry_with_counters(int* calls) {
  sched::Registry registry = policy::builtin_registry();
  registry.add("counting-local", [calls](const sched::PluginContext&) { return std::make_unique<CountingFilter>(calls, true); });
  registry.add("counting-global", [calls](const sched::PluginContext&) { return std::make_unique<CountingFilter>(calls, false); });
  registry.add("counting-score-local", [calls](const sched::PluginContext&) { return std::make_unique<CountingScore>(calls, true); });
  registry.add("counting-score-global", [calls](const sched::PluginContext&) { return std::make_unique<CountingScore>(calls, false); });
  registry.add("counting-score-min-max", [calls](const sched::PluginContext&) { return std::make_unique<CountingMinMaxScore>(calls); });
  return registry;
}

sched::Profile scored_by(const char* score) {
  sched::Profile profile = config::builtin_profile("bestfit");
  profile.score = {{score, 1}};
  return profile;
}

// A built-in profile, or "scored-by-fit": bestfit's filters with NodeResourcesFit's score alone
// (LeastAllocated), which is node-local, so that profile is ranked as fgd's is.
sched::Profile base_profile(const std::string& name) {
  if (name != "scored-by-fit") return config::builtin_profile(name);
  sched::Profile profile = config::builtin_profile("bestfit");
  profile.score = {{"node-resources-fit", 1}};
  return profile;
}

sched::Profile with_filter(const char* profile_name, const char* filter) {
  sched::Profile profile = base_profile(profile_name);
  profile.filter.emplace_back(filter);
  return profile;
}

TEST(FilterVerdicts, NodeLocalFiltersRunAgainOnlyOnChangedNodes) {
  Bench bench;
  int calls = 0;
  const sched::Registry registry = registry_with_counters(&calls);
  sched::Framework framework(with_filter("bestfit", "counting-local"), registry, bench.context(), bench.state);
  const cluster::PodSpec cpu_pod = pod(1000, 0, 0);
  ASSERT_TRUE(framework.schedule(cpu_pod));
  EXPECT_EQ(calls, 3) << "first cycle of the shape: every node";
  const auto second = framework.schedule(cpu_pod);
  ASSERT_TRUE(second);
  EXPECT_EQ(calls, 4) << "second cycle: only the node the first pod took";
  cluster::PodSpec other = cpu_pod;
  other.cpu_milli = 2000;  // another shape: every node again
  const auto third = framework.schedule(other);
  ASSERT_TRUE(third);
  EXPECT_EQ(calls, 7);
  framework.release(cpu_pod, *second);  // that node changes again
  ASSERT_TRUE(framework.schedule(cpu_pod));
  EXPECT_EQ(calls, 7 + (second->node == third->node ? 1 : 2)) << "the nodes changed since the shape's last cycle";
}

TEST(FilterVerdicts, AFilterThatIsNotNodeLocalFiltersEveryNodeEveryCycle) {
  Bench bench;
  int calls = 0;
  const sched::Registry registry = registry_with_counters(&calls);
  sched::Framework framework(with_filter("bestfit", "counting-global"), registry, bench.context(), bench.state);
  const cluster::PodSpec cpu_pod = pod(1000, 0, 0);
  for (int cycle = 1; cycle <= 3; ++cycle) {
    ASSERT_TRUE(framework.schedule(cpu_pod));
    EXPECT_EQ(calls, 3 * cycle);
  }
}

// 60 nodes, 3000 cycles of pods of 12 shapes (GPU shares, whole GPUs, CPU only, a model rule) with
// ends in between: the framework that remembers verdicts (and, for fgd and scored-by-fit, ranks each
// shape's nodes) places every pod where the one that filters and scores every node each cycle (a
// filter that is not node-local turns both off) places it.
TEST(FilterVerdicts, PlacementsEqualThoseOfFilteringEveryNode) {
  const cluster::GpuCatalog catalog = two_model_catalog();
  std::vector<cluster::NodeSpec> nodes;
  for (int i = 0; i < 60; ++i) {
    nodes.push_back({"n" + std::to_string(i), 16000 + 8000 * (i % 4), 65536, 1 + i % 8, static_cast<cluster::GpuModelId>(i % 3 == 0 ? 1 : 0), {}, {}});
  }
  for (const char* profile_name : {"fgd", "bestfit", "gpu-packing", "scored-by-fit"}) {
    int calls = 0;
    const sched::Registry registry = registry_with_counters(&calls);
    cluster::ClusterState remembered_state(catalog, nodes);
    cluster::ClusterState every_state(catalog, nodes);
    std::vector<cluster::PodSpec> workload;
    for (int s = 0; s < 12; ++s) {
      const std::int32_t milli = s % 4 == 3 ? 0 : s % 2 == 0 ? 1000 : 100 + 80 * s;
      cluster::PodSpec p = pod(1000 * (1 + s % 5), milli == 0 ? 0 : milli < 1000 ? 1 : 1 + s % 3, milli);
      if (s == 5) p.allowed_models.add(1);
      workload.push_back(p);
    }
    const sched::PluginContext remembered_context{&catalog, workload, 7, remembered_state.node_count()};
    const sched::PluginContext every_context{&catalog, workload, 7, every_state.node_count()};
    sched::Framework remembered(with_filter(profile_name, "counting-local"), registry, remembered_context, remembered_state);
    sched::Framework every(with_filter(profile_name, "counting-global"), registry, every_context, every_state);
    std::mt19937 rng(11);
    std::vector<std::pair<cluster::PodSpec, cluster::Placement>> running;
    int placed = 0;
    for (int cycle = 0; cycle < 3000; ++cycle) {
      if (!running.empty() && rng() % 3 == 0) {
        const std::size_t victim = rng() % running.size();
        remembered.release(running[victim].first, running[victim].second);
        every.release(running[victim].first, running[victim].second);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(victim));
        continue;
      }
      const cluster::PodSpec& p = workload[rng() % workload.size()];
      const auto a = remembered.schedule(p);
      const auto b = every.schedule(p);
      ASSERT_EQ(a.has_value(), b.has_value()) << profile_name << " cycle " << cycle;
      if (!a) continue;
      ASSERT_EQ(*a, *b) << profile_name << " cycle " << cycle;
      running.emplace_back(p, *a);
      ++placed;
    }
    EXPECT_GT(placed, 500) << profile_name;
    remembered_state.check_invariants();
  }
}

// n0 has 32 cores, n1 64, n2 16: the pod (20 cores) goes where the most CPU is free; a node that
// fails the filter is not scored.
TEST(ShapeRankings, NodeLocalScoresRunAgainOnlyOnChangedNodes) {
  Bench bench;
  int calls = 0;
  const sched::Registry registry = registry_with_counters(&calls);
  sched::Framework framework(scored_by("counting-score-local"), registry, bench.context(), bench.state);
  const cluster::PodSpec cpu_pod = pod(20000, 0, 0);
  const auto first = framework.schedule(cpu_pod);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->node, 1U);
  EXPECT_EQ(calls, 2) << "first cycle of the shape: every node that passes (n0, n1)";
  EXPECT_EQ(framework.last_feasible_count(), 2U);
  const auto second = framework.schedule(cpu_pod);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->node, 1U) << "n1 still has 44 cores free, n0 32";
  EXPECT_EQ(calls, 3) << "only n1 changed";
  const auto third = framework.schedule(cpu_pod);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->node, 0U) << "n1 has 24 free now, n0 32";
  EXPECT_EQ(calls, 4);
  const auto fourth = framework.schedule(cpu_pod);
  ASSERT_TRUE(fourth);
  EXPECT_EQ(fourth->node, 1U) << "n0 has 12 free, too few: n1 (24) is the only node left";
  EXPECT_EQ(calls, 4) << "n0 changed and now fails the filter";
  EXPECT_EQ(framework.last_feasible_count(), 1U);
  EXPECT_FALSE(framework.schedule(cpu_pod)) << "n0 12 free, n1 4, n2 16: none holds 20 cores";
  EXPECT_EQ(framework.last_outcome(), sched::Outcome::kNoFeasibleNode);
  EXPECT_EQ(framework.last_feasible_count(), 0U);
  framework.release(cpu_pod, *first);
  const auto fifth = framework.schedule(cpu_pod);
  ASSERT_TRUE(fifth);
  EXPECT_EQ(fifth->node, 1U) << "the release freed n1";
  EXPECT_EQ(calls, 5);
}

TEST(ShapeRankings, AScoreThatIsNotNodeLocalScoresEveryFeasibleNodeEveryCycle) {
  Bench bench;
  int calls = 0;
  const sched::Registry registry = registry_with_counters(&calls);
  sched::Framework framework(scored_by("counting-score-global"), registry, bench.context(), bench.state);
  const cluster::PodSpec cpu_pod = pod(1000, 0, 0);
  for (int cycle = 1; cycle <= 3; ++cycle) {
    ASSERT_TRUE(framework.schedule(cpu_pod));
    EXPECT_EQ(calls, 3 * cycle);
  }
}

// The node-local score ranks, its twin walks every node; 40 nodes so that ties and the change log's
// overflow (a shape unseen for many changes is ranked again from every node) both occur.
TEST(ShapeRankings, PlacementsEqualThoseOfScoringEveryNode) {
  const cluster::GpuCatalog catalog = two_model_catalog();
  std::vector<cluster::NodeSpec> nodes;
  for (int i = 0; i < 40; ++i) nodes.push_back({"n" + std::to_string(i), 8000 + 4000 * (i % 5), 65536, 0, 0, {}, {}});
  int calls = 0;
  const sched::Registry registry = registry_with_counters(&calls);
  cluster::ClusterState ranked_state(catalog, nodes);
  cluster::ClusterState walked_state(catalog, nodes);
  for (const sched::TieBreak tie : {sched::TieBreak::kNodeIndex, sched::TieBreak::kSeededRank}) {
    sched::Profile ranked_profile = scored_by("counting-score-local");
    sched::Profile walked_profile = scored_by("counting-score-global");
    ranked_profile.tie_break = walked_profile.tie_break = tie;
    sched::Framework ranked(ranked_profile, registry, {&catalog, {}, 3, ranked_state.node_count()}, ranked_state);
    sched::Framework walked(walked_profile, registry, {&catalog, {}, 3, walked_state.node_count()}, walked_state);
    std::mt19937 rng(5);
    std::vector<std::pair<cluster::PodSpec, cluster::Placement>> running;
    int placed = 0;
    for (int cycle = 0; cycle < 4000; ++cycle) {
      if (!running.empty() && rng() % 2 == 0) {
        const std::size_t victim = rng() % running.size();
        ranked.release(running[victim].first, running[victim].second);
        walked.release(running[victim].first, running[victim].second);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(victim));
        continue;
      }
      // Eight shapes, one of them rare, so that it meets a log that no longer holds its changes.
      const auto draw = static_cast<std::int64_t>(rng() % 400);
      const cluster::PodSpec p = pod(draw == 0 ? 3000 : 1000 * (1 + draw % 7), 0, 0);
      const auto a = ranked.schedule(p);
      const auto b = walked.schedule(p);
      ASSERT_EQ(a.has_value(), b.has_value()) << "cycle " << cycle;
      ASSERT_EQ(ranked.last_feasible_count(), walked.last_feasible_count()) << "cycle " << cycle;
      if (!a) continue;
      ASSERT_EQ(*a, *b) << "cycle " << cycle;
      running.emplace_back(p, *a);
      ++placed;
    }
    EXPECT_GT(placed, 1000);
    for (const auto& [p, placement] : running) {
      ranked.release(p, placement);
      walked.release(p, placement);
    }
  }
}

TEST(FilterVerdicts, ATableThatIsFullRemembersNoNewShape) {
  sched::FilterVerdicts verdicts(sched::FilterVerdicts::kMaxEntries / 2);
  const cluster::PodSpec a = pod(1000, 1, 500), b = pod(2000, 1, 500), c = pod(3000, 1, 500);
  EXPECT_EQ(verdicts.slot(a), 0U);
  EXPECT_EQ(verdicts.slot(b), 1U);
  EXPECT_EQ(verdicts.slot(c), sched::FilterVerdicts::kNoSlot);
  EXPECT_EQ(verdicts.slot(a), 0U) << "a shape it has keeps its slot";
  verdicts.remember(1, 7, 41, true);
  EXPECT_EQ(verdicts.find(1, 7, 41), sched::FilterVerdicts::Verdict::kPass);
  EXPECT_EQ(verdicts.find(1, 7, 42), sched::FilterVerdicts::Verdict::kUnknown) << "the node changed since";
  EXPECT_EQ(verdicts.find(0, 7, 41), sched::FilterVerdicts::Verdict::kUnknown) << "another shape";
  verdicts.remember(1, 7, 42, false);
  EXPECT_EQ(verdicts.find(1, 7, 42), sched::FilterVerdicts::Verdict::kFail);
}

// The shape's key holds the rules' address: the table keeps them alive, so no later rules can take
// that address and be mistaken for them.
TEST(FilterVerdicts, ARememberedShapeKeepsItsPlacementRulesAlive) {
  sched::FilterVerdicts verdicts(3);
  cluster::PodSpec ruled = pod(1000, 1, 500);
  auto rules = std::make_shared<cluster::PodConstraints>();
  const std::weak_ptr<const cluster::PodConstraints> watch = rules;
  ruled.constraints = std::move(rules);
  EXPECT_EQ(verdicts.slot(ruled), 0U);
  ruled.constraints.reset();
  EXPECT_FALSE(watch.expired());
}

}  // namespace
}  // namespace gpusim::testing

namespace gpusim::testing {
namespace {

// A score that normalises but keeps the best (best-fit's min-max) is ranked when it is the only
// score plugin: n1 changed, so n1 alone is scored again. Beside another score plugin its normalised
// values count, and every feasible node is scored every cycle.
TEST(ShapeRankings, AMinMaxScoreIsRankedOnlyWhenAlone) {
  for (const bool alone : {true, false}) {
    Bench bench;
    int calls = 0;
    const sched::Registry registry = registry_with_counters(&calls);
    sched::Profile profile = scored_by("counting-score-min-max");
    if (!alone) profile.score.push_back({"counting-score-local", 1});
    sched::Framework framework(profile, registry, bench.context(), bench.state);
    const cluster::PodSpec cpu_pod = pod(20000, 0, 0);
    const auto first = framework.schedule(cpu_pod);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->node, 1U) << "n1 has the most CPU free";
    const int first_calls = calls;
    const auto second = framework.schedule(cpu_pod);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->node, 1U) << "n1 still has 44 cores free, n0 32";
    EXPECT_EQ(calls - first_calls, alone ? 1 : 4) << (alone ? "ranked: only n1 changed" : "two scores on n0 and n1");
  }
}

}  // namespace
}  // namespace gpusim::testing
