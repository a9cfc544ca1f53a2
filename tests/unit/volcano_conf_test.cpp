// Volcano's scheduler configuration (sim/k8s/volcano_scheduler_conf.hpp): the installer's
// ConfigMap and Volcano's documentation examples map to the profile gpusim runs; Volcano's
// argument defaults; notes where gpusim differs; refusals (file:line: field) where it cannot model
// what the file asks.
#include <gtest/gtest.h>

#include "sim/config/profiles.hpp"
#include "policies/register_builtin.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::k8s {
namespace {

const sched::Registry& registry() {
  static const sched::Registry r = policy::builtin_registry();
  return r;
}

VolcanoSchedulerConf parse(const std::string& text, const std::string& file = "volcano-scheduler.conf") {
  return parse_volcano_scheduler_conf(text, file, &registry());
}

std::string error_of(const std::string& text) {
  try {
    parse(text, "v.conf");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

bool has_note(const VolcanoSchedulerConf& conf, const std::string& start) {
  return std::any_of(conf.notes.begin(), conf.notes.end(), [&](const std::string& n) { return n.starts_with(start); });
}

// The installer's volcano-scheduler-configmap (installer/volcano-development.yaml, Volcano 1.13).
const std::string kInstallerConfigMap = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
  namespace: volcano-system
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    tiers:
    - plugins:
      - name: priority
      - name: gang
        enablePreemptable: false
      - name: conformance
    - plugins:
      - name: overcommit
      - name: drf
        enablePreemptable: false
      - name: predicates
      - name: proportion
      - name: nodeorder
      - name: binpack
)";

TEST(VolcanoConf, TheInstallersConfigMap) {
  const VolcanoSchedulerConf conf = parse(kInstallerConfigMap, "cm.yaml");
  const sched::Profile& p = conf.profile;
  EXPECT_EQ(p.name, "volcano-scheduler-configmap");
  EXPECT_EQ(conf.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  EXPECT_TRUE(conf.gang);
  EXPECT_EQ(p.queue_sort, "priority");
  EXPECT_EQ(p.queue_quotas, sched::QueueQuotaMode::kProportion);
  EXPECT_FALSE(p.reclaim);  // no reclaim action: queues borrow and wait
  EXPECT_EQ(p.queue_mode, sched::QueueMode::kSkip);
  EXPECT_FALSE(p.drf);  // Volcano's drf orders jobs, not gpusim's queue-level DRF
  EXPECT_FALSE(p.gang_permit);
  EXPECT_EQ(p.preemption, sched::Preemption::kNone);
  EXPECT_EQ(p.filter, (std::vector<std::string>{"node-resources-fit", "gpu-fit", "node-affinity", "taint-toleration"}));
  // nodeorder's defaults (leastrequested 1, balancedresource 1, mostrequested 0) and binpack's
  // (binpack.weight 1 over CPU and memory).
  ASSERT_EQ(p.score.size(), 3u);
  EXPECT_EQ(p.score[0].name, "least-allocated");
  EXPECT_EQ(p.score[0].weight, 1);
  EXPECT_EQ(p.score[1].name, "balanced-allocation");
  EXPECT_EQ(p.score[1].weight, 1);
  EXPECT_EQ(p.score[2].name, "most-allocated");
  EXPECT_EQ(p.score[2].weight, 1);
  EXPECT_EQ(p.gpu_selection, "first-fit");
  EXPECT_EQ(p.tie_break, sched::TieBreak::kSeededRank);
  EXPECT_TRUE(has_note(conf, "action enqueue: gpusim admits every job at once"));
  EXPECT_TRUE(has_note(conf, "proportion: gpusim lets a queue take GPUs beyond its deserved share"));
  EXPECT_TRUE(has_note(conf, "binpack: gpusim's most-allocated"));
  EXPECT_TRUE(has_note(conf, "nodeorder: the nodeaffinity, podaffinity, tainttoleration, imagelocality, podtopologyspread scores"));
  EXPECT_TRUE(has_note(conf, "ties: Volcano picks one of the best-scored nodes at random"));
  EXPECT_FALSE(has_note(conf, "no backfill"));
}

TEST(VolcanoConf, TheBareFileIsTheSameConfiguration) {
  // The same text as the ConfigMap's, as installer/helm/chart/volcano/config/volcano-scheduler.conf;
  // its profile is named after the file.
  const std::string cm = kInstallerConfigMap;
  std::string bare;
  for (std::size_t pos = cm.find("    actions"); pos < cm.size();) {
    const std::size_t end = cm.find('\n', pos);
    bare += cm.substr(pos + 4, end - pos - 4) + "\n";
    pos = end + 1;
  }
  const VolcanoSchedulerConf conf = parse(bare, "deploy/volcano-scheduler.conf");
  EXPECT_EQ(conf.profile.name, "volcano-scheduler");
  EXPECT_EQ(conf.profile.score.size(), 3u);
  EXPECT_EQ(conf.notes, parse(cm, "cm.yaml").notes);
  EXPECT_EQ(parse(bare, "/tmp/my conf.yaml").profile.name, "volcano");  // not a plain name: the default
}

TEST(VolcanoConf, CapacityWithReclaimAsItsUserGuideWritesIt) {
  // docs/user-guide/how_to_use_capacity_plugin.md
  const VolcanoSchedulerConf conf = parse(R"(actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: capacity
  - name: nodeorder
  - name: binpack
)");
  EXPECT_EQ(conf.profile.queue_quotas, sched::QueueQuotaMode::kCapacity);
  EXPECT_TRUE(conf.profile.reclaim);
  EXPECT_TRUE(has_note(conf, "reclaim: victims follow capacity's rule (policies/README.md, \"Queue quotas\"); the victim "
                             "filters of gang and conformance are not modelled"));
  EXPECT_FALSE(has_note(conf, "proportion:"));
}

TEST(VolcanoConf, PluginArgumentsAndFlags) {
  const VolcanoSchedulerConf conf = parse(R"(actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
    enableJobOrder: false
  - name: gang
  - name: predicates
    arguments:
      predicate.TaintTolerationEnable: "false"
      predicate.CacheEnable: true
  - name: nodeorder
    arguments:
      leastrequested.weight: 0
      mostrequested.weight: 2
      balancedresource.weight: 0
      nodeaffinity.weight: 0
      podaffinity.weight: 0
      tainttoleration.weight: 0
      imagelocality.weight: 0
      podtopologyspread.weight: 0
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 3
      binpack.memory: 3
      binpack.resources: nvidia.com/gpu, cpu
      binpack.resources.nvidia.com/gpu: 0
)");
  const sched::Profile& p = conf.profile;
  EXPECT_EQ(p.queue_sort, "fifo");  // priority's job order off: creation time
  EXPECT_EQ(p.filter, (std::vector<std::string>{"node-resources-fit", "gpu-fit", "node-affinity"}));
  ASSERT_EQ(p.score.size(), 1u);  // nodeorder's MostAllocated (2) and binpack (10) are one score
  EXPECT_EQ(p.score[0].name, "most-allocated");
  EXPECT_EQ(p.score[0].weight, 12);
  EXPECT_EQ(p.queue_quotas, sched::QueueQuotaMode::kNone);
  EXPECT_TRUE(has_note(conf, "no proportion or capacity: Volcano serves queues one after another"));
  EXPECT_FALSE(has_note(conf, "nodeorder:"));
  // binpack's negative CPU or memory weight counts as 1 (calculateWeight); binpack.weight 0 drops it.
  EXPECT_EQ(parse("actions: allocate\ntiers: [{plugins: [{name: gang}, {name: binpack, arguments: {binpack.cpu: -4}}]}]\n")
                .profile.score.at(0).weight, 1);
  EXPECT_TRUE(parse("actions: allocate\ntiers: [{plugins: [{name: binpack, arguments: {binpack.weight: 0}}]}]\n").profile.score.empty());
  // Without predicates Volcano checks only that the resources fit.
  EXPECT_EQ(parse("actions: allocate\n").profile.filter, (std::vector<std::string>{"node-resources-fit", "gpu-fit"}));
}

TEST(VolcanoConf, GpusimsOwnPlacement) {
  const VolcanoSchedulerConf conf = parse(R"(actions: "allocate, reclaim"
tiers:
- plugins:
  - name: gang
  - name: capacity
  - name: gpusim
    arguments:
      gpusim.score: "FGD:2, bestfit"
      gpusim.gpuSelection: fgd
      gpusim.tieBreak: node-index
)");
  ASSERT_EQ(conf.profile.score.size(), 2u);
  EXPECT_EQ(conf.profile.score[0].name, "fgd");  // canonical names
  EXPECT_EQ(conf.profile.score[0].weight, 2);
  EXPECT_EQ(conf.profile.score[1].name, "best-fit");
  EXPECT_EQ(conf.profile.gpu_selection, "fgd");
  EXPECT_EQ(conf.profile.tie_break, sched::TieBreak::kNodeIndex);
  EXPECT_FALSE(has_note(conf, "ties:"));
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gpusim\n    arguments: {gpusim.score: bestest}\n")
                .find("v.conf:5: tiers[0].plugins[0].arguments.gpusim.score: 'bestest' is not a gpusim plugin (known: "),
            0u);
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n  - name: gpusim\n"),
            "v.conf:4: tiers[0].plugins[0].name: binpack and gpusim's own placement (plugin gpusim) both rank nodes; give one");
}

TEST(VolcanoConf, NotesForWhatGpusimDoesDifferently) {
  const VolcanoSchedulerConf conf = parse("actions: \"reclaim, allocate\"\ntiers:\n- plugins:\n  - name: capacity\n");
  EXPECT_FALSE(conf.gang);
  EXPECT_TRUE(has_note(conf, "no gang plugin: Volcano would bind a job's pods one by one"));
  EXPECT_TRUE(has_note(conf, "no backfill action: Volcano never places best-effort pods"));
  EXPECT_TRUE(has_note(conf, "actions: gpusim runs allocate, then reclaim, in every cycle"));
  EXPECT_TRUE(has_note(conf, "reclaim: victims follow capacity's rule (policies/README.md, \"Queue quotas\")"));
}

TEST(VolcanoConf, WhatGpusimCannotModelIsRefused) {
  const std::string t = "tiers:\n- plugins:\n  - name: gang\n";
  EXPECT_NE(error_of("actions: \"enqueue, allocate, preempt\"\n").find("v.conf:1: actions: preempt is not modelled"), std::string::npos);
  EXPECT_NE(error_of("actions: \"allocate, shuffle\"\n").find("v.conf:1: actions: shuffle"), std::string::npos);
  EXPECT_EQ(error_of("actions: \"enqueue, backfill\"\n").substr(0, 30), "v.conf:1: actions: no allocate");
  EXPECT_EQ(error_of("actions: \"allocate, reclaim\"\n" + t),
            "v.conf:1: actions: reclaim without proportion or capacity is not modelled: gpusim reclaims for queues below "
            "their deserved GPUs, which one of those plugins sets");
  EXPECT_EQ(error_of("actions: allocate\n" + t + "  - name: deviceshare\n"),
            "v.conf:5: tiers[0].plugins[1].name: Volcano's deviceshare plugin (GPU sharing and vGPU devices (gpusim models "
            "sharing in its device-plugin and HAMi settings)) is not modelled by gpusim");
  EXPECT_EQ(error_of("actions: allocate\n" + t + "  - name: proportion\n  - name: capacity\n"),
            "v.conf:6: tiers[0].plugins[2].name: proportion and capacity both set the queues' deserved resources; gpusim "
            "runs one (Volcano's documentation uses them as alternatives)");
  EXPECT_EQ(error_of("actions: allocate\n" + t + "  - name: drf\n    enableHierarchy: true\n"),
            "v.conf:6: tiers[0].plugins[1].enableHierarchy: hierarchical DRF (queues ordered and reclaimed by hierarchical "
            "dominant shares) is not modelled");
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobReady: false\n").substr(0, 70),
            "v.conf:5: tiers[0].plugins[0].enableJobReady: false is not modelled: g");
  EXPECT_EQ(error_of("actions: allocate\n" + t + "  - name: proportion\n    enableQueueOrder: false\n").substr(0, 72),
            "v.conf:6: tiers[0].plugins[1].enableQueueOrder: false is not modelled: g");
  EXPECT_NE(error_of("actions: allocate\n" + t + "  - name: binpack\n    arguments:\n      binpack.resources: nvidia.com/gpu\n")
                .find("v.conf:7: tiers[0].plugins[1].arguments.binpack.resources: weights for nvidia.com/gpu are not modelled"),
            std::string::npos);
  EXPECT_NE(error_of("actions: allocate\n" + t + "  - name: binpack\n    arguments: {binpack.cpu: 2}\n")
                .find("binpack.cpu 2 and binpack.memory 1 differ"),
            std::string::npos);
}

TEST(VolcanoConf, MistakesNameFileLineAndField) {
  EXPECT_EQ(error_of("actions: \"allocate, allocat\"\n").substr(0, 61), "v.conf:1: actions: 'allocat' is not a Volcano action (actions");
  EXPECT_EQ(error_of("actions: \"allocate,\"\n"),
            "v.conf:1: actions: an empty action name (Volcano fails to find an action named '')");
  EXPECT_EQ(error_of("actions: \"allocate, allocate\"\n"),
            "v.conf:1: actions: 'allocate' is listed twice (Volcano would run it twice a session)");
  EXPECT_EQ(error_of("tiers: []\n"), "v.conf:1: actions: missing: a comma-separated list such as \"enqueue, allocate, backfill\"");
  EXPECT_EQ(error_of("actions: allocate\ntier: []\n"), "v.conf:2: tier: unknown field (known: actions, tiers, configurations, metrics)");
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enablePreemtable: false\n")
                .find("v.conf:5: tiers[0].plugins[0].enablePreemtable: unknown field (known: name, arguments, enableJobOrder"),
            0u);
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gangs\n").substr(0, 60),
            "v.conf:4: tiers[0].plugins[0].name: 'gangs' is not a Volcano");
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: gang\n"),
            "v.conf:5: tiers[0].plugins[1].name: 'gang' is named twice (first at tiers[0].plugins[0])");
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    arguments: {x: 1}\n"),
            "v.conf:5: tiers[0].plugins[0].arguments.x: unknown argument: Volcano's gang plugin takes none");
  // Volcano's GetInt ignores a quoted number and keeps its default: refused rather than followed.
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments:\n"
                     "      leastrequested.weight: \"2\"\n"),
            "v.conf:6: tiers[0].plugins[0].arguments.leastrequested.weight: '2' is not an integer (it is quoted, a string): "
            "Volcano ignores it and keeps its default");
  EXPECT_EQ(error_of("actions: allocate\ntiers:\n- plugins:\n  - name: overcommit\n    arguments: {overcommit-factor: 0.5}\n"),
            "v.conf:5: tiers[0].plugins[0].arguments.overcommit-factor: 0.5 is below 1: Volcano ignores it and uses 1.2");
  EXPECT_EQ(error_of("actions: allocate\nconfigurations:\n- name: enqueue\n"),
            "v.conf:3: configurations[0].name: 'enqueue' is not among the actions (allocate)");
  EXPECT_EQ(error_of("actions: allocate\nconfigurations:\n- name: allocate\n  arguments: {predicateErrorCacheEnable: maybe}\n"),
            "v.conf:4: configurations[0].arguments.predicateErrorCacheEnable: 'maybe' is not true or false");
}

TEST(VolcanoConf, TheConfigMapsLinesCountInTheFile) {
  const std::string cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vc\ndata:\n  volcano-scheduler.conf: |\n"
      "    actions: \"allocate\"\n    tiers:\n    - plugins:\n      - name: gangs\n";
  EXPECT_EQ(error_of(cm).substr(0, 49), "v.conf:10: tiers[0].plugins[0].name: 'gangs' is n");
  EXPECT_EQ(error_of("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vc}\ndata:\n  other.conf: x\n"),
            "v.conf:5: data.other.conf: unknown key: the scheduler reads volcano-scheduler.conf (its --scheduler-conf file)");
  EXPECT_EQ(error_of("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"../x\"}\ndata:\n  volcano-scheduler.conf: |\n    actions: allocate\n")
                .substr(0, 40),
            "v.conf:3: metadata.name: '../x' must be ");
  EXPECT_EQ(error_of("actions: allocate\n---\nactions: allocate\n"),
            "v.conf:3: yaml: a second document: give the scheduler configuration (or its ConfigMap) alone in its file");
}

TEST(VolcanoConf, TheRecogniser) {
  const auto first = [](const std::string& text) { return traces::load_yaml_documents(text, "x.yaml").at(0); };
  EXPECT_TRUE(is_volcano_scheduler_conf(first(kInstallerConfigMap)));
  EXPECT_TRUE(is_volcano_scheduler_conf(first("actions: allocate\n")));
  EXPECT_TRUE(is_volcano_scheduler_conf(first("tiers: []\n")));
  EXPECT_FALSE(is_volcano_scheduler_conf(first("apiVersion: v1\nkind: ConfigMap\ndata: {config.yaml: x}\n")));
  EXPECT_FALSE(is_volcano_scheduler_conf(first("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")));
  EXPECT_FALSE(is_volcano_scheduler_conf(first("name: my-policy\nfilter: [gpu-fit]\n")));
}

TEST(VolcanoConf, TheBundledPhillyConfigMapIsTheProportionPolicy) {
  const VolcanoSchedulerConf conf = load_volcano_scheduler_conf(
      std::string(GPUSIM_SOURCE_DIR) + "/traces/queues/philly-proportion-configmap.yaml", &registry());
  sched::Profile builtin = config::builtin_profile("proportion");
  const sched::Profile& p = conf.profile;
  EXPECT_EQ(p.name, "volcano-proportion");
  EXPECT_EQ(p.queue_sort, builtin.queue_sort);
  EXPECT_EQ(p.filter, builtin.filter);
  ASSERT_EQ(p.score.size(), builtin.score.size());
  EXPECT_EQ(p.score[0].name, builtin.score[0].name);
  EXPECT_EQ(p.score[0].weight, builtin.score[0].weight);
  EXPECT_EQ(p.gpu_selection, builtin.gpu_selection);
  EXPECT_EQ(p.tie_break, builtin.tie_break);
  EXPECT_EQ(p.queue_mode, builtin.queue_mode);
  EXPECT_EQ(p.queue_quotas, builtin.queue_quotas);
  EXPECT_EQ(p.reclaim, builtin.reclaim);
  EXPECT_EQ(p.reserve, builtin.reserve);
  EXPECT_EQ(p.pre_filter, builtin.pre_filter);
  EXPECT_EQ(p.post_filter, builtin.post_filter);
  EXPECT_EQ(p.permit, builtin.permit);
  EXPECT_EQ(p.bind, builtin.bind);
}

}  // namespace
}  // namespace gpusim::k8s
