// The KubeSchedulerConfiguration reader (sim/config/kube_scheduler_config.hpp): kube-scheduler's
// default plugins and its merging of enabled/disabled sets, gpusim's points and policy plugins,
// pluginConfig args, and errors that name file, line and field.
#include "sim/config/kube_scheduler_config.hpp"

#include <gtest/gtest.h>

#include "policies/register_builtin.hpp"
#include "sim/core/status.hpp"

namespace gpusim::config {
namespace {

SchedulerConfiguration parse(const std::string& text) {
  const sched::Registry registry = policy::builtin_registry();
  return parse_kube_scheduler_config(text, "sched.yaml", registry);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::vector<std::string> score_names(const sched::Profile& p) {
  std::vector<std::string> out;
  for (const auto& s : p.score) out.push_back(s.name + "=" + std::to_string(s.weight));
  return out;
}

constexpr const char* kHeader = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

TEST(KubeSchedulerConfig, TheDocumentationsTwoProfilesExample) {
  // kubernetes.io, "Scheduler Configuration", multiple profiles: the defaults, and no scoring.
  const auto config = parse(std::string(kHeader) + R"(profiles:
  - schedulerName: default-scheduler
  - schedulerName: no-scoring-scheduler
    plugins:
      preScore:
        disabled:
        - name: '*'
      score:
        disabled:
        - name: '*'
)");
  ASSERT_EQ(config.profiles.size(), 2U);
  const sched::Profile& defaults = config.profiles[0];
  EXPECT_EQ(defaults.name, "default-scheduler");
  EXPECT_EQ(defaults.queue_sort, "priority");
  // The default multiPoint order: TaintToleration, NodeAffinity, then NodeResourcesFit (gpusim's
  // node-resources-fit and gpu-fit).
  EXPECT_EQ(defaults.filter, (std::vector<std::string>{"taint-toleration", "node-affinity", "node-resources-fit", "gpu-fit"}));
  EXPECT_EQ(score_names(defaults), (std::vector<std::string>{"node-resources-fit=1", "balanced-allocation=1"}));
  EXPECT_EQ(defaults.preemption, sched::Preemption::kPriority) << "DefaultPreemption is a default plugin";
  EXPECT_EQ(defaults.bind, "default-binder");
  EXPECT_EQ(defaults.gpu_selection, "first-fit");
  EXPECT_EQ(defaults.percentage_of_nodes_to_score, 0) << "kube-scheduler's adaptive default";
  EXPECT_TRUE(config.profiles[1].score.empty());
  EXPECT_EQ(config.profiles[1].filter, defaults.filter);
  // What gpusim does not run is said once.
  bool image_note = false;
  for (const auto& note : config.notes) image_note = image_note || note.find("ImageLocality is not run") != std::string::npos;
  EXPECT_TRUE(image_note);
}

TEST(KubeSchedulerConfig, NoProfilesIsOneDefaultProfile) {
  const auto config = parse(std::string(kHeader) + "percentageOfNodesToScore: 40\n");
  ASSERT_EQ(config.profiles.size(), 1U);
  EXPECT_EQ(config.profiles[0].name, "default-scheduler");
  EXPECT_EQ(config.profiles[0].percentage_of_nodes_to_score, 40);
}

TEST(KubeSchedulerConfig, ARoundRunsWithoutAQueueAdmissionOrAGangsPermitWait) {
  const std::string round = std::string(kHeader) + "profiles:\n- schedulerName: r\n  plugins:\n    round:\n      enabled: [{name: Gavel}]\n";
  EXPECT_EQ(error_of(round + "    queueAdmission:\n      enabled: [{name: Drf}]\n"),
            "sched.yaml:9: profiles[0].plugins.queueAdmission: 'Drf' cannot run with the round plugin 'Gavel': a round plans "
            "and places the jobs of each round itself");
  EXPECT_NE(error_of(round + "    permit:\n      enabled: [{name: Coscheduling}]\n").find("cannot run with the round plugin"),
            std::string::npos);
  EXPECT_EQ(parse(round).profiles.at(0).round_plugin, "gavel");
}

TEST(KubeSchedulerConfig, AnEmptyProfileListIsOneDefaultProfileToo) {
  const auto config = parse(std::string(kHeader) + "profiles: []\n");
  ASSERT_EQ(config.profiles.size(), 1U);
  EXPECT_EQ(config.profiles[0].name, "default-scheduler");
}

TEST(KubeSchedulerConfig, AReEnabledDefaultKeepsItsPlaceWithTheNewWeight) {
  // mergePluginSet: NodeResourcesBalancedAllocation re-enabled with weight 5 stays where the
  // defaults have it (after NodeResourcesFit); the score point's own entry sets the weight.
  const auto config = parse(std::string(kHeader) + R"(profiles:
- schedulerName: weighted
  percentageOfNodesToScore: 70
  plugins:
    score:
      enabled:
      - name: NodeResourcesBalancedAllocation
        weight: 5
      - name: fgd
        weight: 1000
    gpuSelection:
      enabled: [{name: fgd}]
)");
  const sched::Profile& p = config.profiles[0];
  // Point's own entries overriding a multiPoint one first, then multiPoint's, then the rest.
  EXPECT_EQ(score_names(p), (std::vector<std::string>{"balanced-allocation=5", "node-resources-fit=1", "fgd=1000"}));
  EXPECT_EQ(p.gpu_selection, "fgd");
  EXPECT_EQ(p.percentage_of_nodes_to_score, 70);
}

TEST(KubeSchedulerConfig, GpusimPolicyPluginsAndTheirArgs) {
  const auto config = parse(std::string(kHeader) + R"(profiles:
- schedulerName: my-tiresias
  tieBreak: NodeIndex
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
    queueSort: {enabled: [{name: PrioritySort}]}
    filter: {enabled: [{name: NodeResourcesFit}]}
    score: {enabled: [{name: best-fit}]}
    bind: {enabled: [{name: DefaultBinder}]}
    jobRank: {enabled: [{name: Tiresias}]}
  pluginConfig:
  - name: Tiresias
    args:
      queueThresholdsGpuSeconds: [3600]
      starvationKnob: 2
      queueOrder: Simulator
- schedulerName: my-gavel
  plugins:
    round: {enabled: [{name: Gavel}]}
    postFilter: {disabled: [{name: DefaultPreemption}]}
  pluginConfig:
  - name: Gavel
    args: {objective: FinishTimeFairness, heterogeneityAware: false, roundLengthSeconds: 120}
- schedulerName: my-gang
  plugins:
    permit: {enabled: [{name: Coscheduling}]}
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 30, podGroupBackoffSeconds: 5}
)");
  ASSERT_EQ(config.profiles.size(), 3U);
  const sched::Profile& t = config.profiles[0];
  EXPECT_EQ(t.preemption, sched::Preemption::kTiresias);
  EXPECT_EQ(t.tiresias.thresholds_gpu_s, (std::vector<std::int64_t>{3600}));
  EXPECT_EQ(t.tiresias.starvation_knob, 2);
  EXPECT_EQ(t.tiresias.queue_order, sched::TiresiasQueueOrder::kSimulator);
  EXPECT_EQ(t.tie_break, sched::TieBreak::kNodeIndex);
  EXPECT_EQ(t.filter, (std::vector<std::string>{"node-resources-fit", "gpu-fit"}));
  EXPECT_EQ(score_names(t), (std::vector<std::string>{"best-fit=1"}));
  const sched::Profile& g = config.profiles[1];
  EXPECT_EQ(g.time_share, sched::TimeSharePolicy::kFinishTimeFair);
  EXPECT_FALSE(g.heterogeneity_aware);
  EXPECT_EQ(g.round_length, core::Time::from_seconds(120));
  EXPECT_EQ(g.preemption, sched::Preemption::kNone);
  const sched::Profile& c = config.profiles[2];
  EXPECT_TRUE(c.gang_permit);
  EXPECT_EQ(c.gang_timeout, core::Time::from_seconds(30));
  EXPECT_EQ(c.gang_denied_backoff, core::Time::from_seconds(5));
}

TEST(KubeSchedulerConfig, ErrorsNameFileLineAndField) {
  const std::string h = kHeader;
  EXPECT_NE(error_of("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n")
                .find("sched.yaml:1: apiVersion: 'kubescheduler.config.k8s.io/v1beta3': gpusim reads"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled: [{name: Bogus}]\n")
                .find("sched.yaml:7: profiles[0].plugins.score: unknown plugin 'Bogus'"),
            std::string::npos)
      << error_of(h + "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled: [{name: Bogus}]\n");
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    scoring: {}\n").find("sched.yaml:5: profiles[0].plugins.scoring: unknown extension point"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- schedulerName: a\n- schedulerName: a\n").find("sched.yaml:5: profiles[1].schedulerName: 'a' names another profile"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- pluginConfig:\n  - name: Tiresias\n    args: {starvationKnob: 1}\n")
                .find("sched.yaml:5: profiles[0].pluginConfig[0].name: 'Tiresias' is not enabled"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    jobRank: {enabled: [{name: Tiresias}]}\n  pluginConfig:\n  - name: Tiresias\n"
                         "    args: {queueThresholdsGpuSeconds: [10, 5]}\n")
                .find("sched.yaml:8: profiles[0].pluginConfig[0].args.queueThresholdsGpuSeconds[1]: thresholds must increase"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    queueSort: {enabled: [{name: fifo}]}\n").find("exactly one queueSort plugin"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    filter: {disabled: [{name: NodeResourcesFit}]}\n").find("NodeResourcesFit must be enabled"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    score: {enabled: [{name: gpu-fit}]}\n").find("plugin 'gpu-fit' does not run at score"),
            std::string::npos);
  EXPECT_NE(error_of(h + "extenders: [{urlPrefix: 'http://x'}]\n").find("sched.yaml:3: extenders:"), std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- schedulerName: ../x\n").find("profiles[0].schedulerName: '../x' must start"), std::string::npos);
  EXPECT_NE(error_of(h + "profilez: []\n").find("sched.yaml:3: profilez: unknown field"), std::string::npos)
      << error_of(h + "profilez: []\n");
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    score:\n     enabled: [{name: fgd, weight: -1}]\n").find("weight"),
            std::string::npos);
}

TEST(KubeSchedulerConfig, GpusimsNameOfADefaultPluginIsThatPlugin) {
  // balanced-allocation is NodeResourcesBalancedAllocation: enabling it re-weights the default in
  // place (not a second copy), disabling it removes the default, and its pluginConfig is accepted.
  const auto config = parse(std::string(kHeader) + R"(profiles:
- schedulerName: again
  plugins:
    score: {enabled: [{name: balanced-allocation, weight: 4}]}
  pluginConfig:
  - name: balanced-allocation
    args: {resources: [{name: cpu}, {name: memory}]}
- schedulerName: without
  plugins:
    score: {disabled: [{name: balanced-allocation}]}
)");
  EXPECT_EQ(score_names(config.profiles[0]), (std::vector<std::string>{"balanced-allocation=4", "node-resources-fit=1"}));
  EXPECT_EQ(score_names(config.profiles[1]), (std::vector<std::string>{"node-resources-fit=1"}));
}

TEST(KubeSchedulerConfig, ArgsGpusimCannotHonourAreRefused) {
  const std::string h = kHeader;
  EXPECT_NE(error_of(h + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {}}\n")
                .find("sched.yaml:5: profiles[0].pluginConfig[0].name: gpusim runs NodeAffinity without args"),
            std::string::npos);
  EXPECT_NE(error_of(h + "profiles:\n- plugins:\n    permit: {enabled: [{name: Coscheduling}]}\n  pluginConfig:\n"
                         "  - name: Coscheduling\n    args: {deniedPGExpirationTimeSeconds: 5, podGroupBackoffSeconds: 3}\n")
                .find("not both"),
            std::string::npos);
}

}  // namespace
}  // namespace gpusim::config
