// Kueue's objects as its documentation writes them (kubernetes-sigs/kueue site/content/en/docs/concepts/
// cluster_queue.md, resource_flavor.md, local_queue.md, cohort.md; v1beta2, and v1beta1 as older
// clusters hold them), and the webhooks' refusals, each at its file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/status.hpp"
#include "sim/k8s/kueue_objects.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::k8s::kueue {
namespace {

constexpr const char* kDocsExample = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: "spot"
spec:
  nodeLabels:
    instance-type: spot
  nodeTaints:
  - effect: NoSchedule
    key: spot
    value: "true"
  tolerations:
  - key: "spot-taint"
    operator: "Exists"
    effect: "NoSchedule"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: "team-a-cq"
spec:
  namespaceSelector: {} # match all.
  cohortName: "team-ab"
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
        borrowingLimit: 6
      - name: "memory"
        nominalQuota: 36Gi
        lendingLimit: 12Gi
      - name: "nvidia.com/gpu"
        nominalQuota: 4
    - name: spot
      resources:
      - {name: cpu, nominalQuota: 500m}
      - {name: memory, nominalQuota: "1.5"}
      - {name: nvidia.com/gpu, nominalQuota: 0}
  preemption:
    reclaimWithinCohort: Any
    borrowWithinCohort:
      policy: LowerPriority
      maxPriorityThreshold: 100
    withinClusterQueue: LowerPriority
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: TryNextFlavor
    preference: PreemptionOverBorrowing
  fairSharing:
    weight: "0.5"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: team-a
  name: team-a-queue
spec:
  clusterQueue: team-a-cq
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: sample-priority
value: 10000
description: "Sample priority"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata:
  name: team-ab
spec:
  parentName: root
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: 12
        lendingLimit: 20
)";

Objects read(const std::string& text, const std::string& file = "kueue.yaml") {
  Objects objects;
  parse_kueue_objects(text, file, objects);
  return objects;
}

// The message of the refusal, or "" when the text is accepted.
std::string refusal(const std::string& text) {
  try {
    check_kueue_references(read(text));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kCq = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n";

TEST(KueueObjects, TheDocumentationsObjectsReadAsWritten) {
  const Objects objects = read(kDocsExample);
  EXPECT_NO_THROW(check_kueue_references([&] {
    Objects all = objects;
    parse_kueue_objects("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: root}\n", "root.yaml", all);
    return all;
  }()));
  ASSERT_EQ(objects.resource_flavors.size(), 2U);
  const ResourceFlavor& spot = objects.resource_flavors[0];
  EXPECT_EQ(spot.name, "spot");
  EXPECT_EQ(spot.line, 4);
  EXPECT_EQ(spot.node_labels, (cluster::Labels{{"instance-type", "spot"}}));
  ASSERT_EQ(spot.node_taints.size(), 1U);
  EXPECT_EQ(spot.node_taints[0].key, "spot");
  EXPECT_EQ(spot.node_taints[0].value, "true");
  ASSERT_EQ(spot.tolerations.size(), 1U);
  EXPECT_TRUE(spot.tolerations[0].exists);

  ASSERT_EQ(objects.cluster_queues.size(), 1U);
  const ClusterQueue& cq = objects.cluster_queues[0];
  EXPECT_EQ(cq.cohort, "team-ab");
  ASSERT_TRUE(cq.namespace_selector.has_value());
  EXPECT_TRUE(cq.namespace_selector->match_labels.empty());
  EXPECT_EQ(cq.queueing_strategy, QueueingStrategy::kStrictFifo);
  ASSERT_EQ(cq.resource_groups.size(), 1U);
  const ResourceGroup& group = cq.resource_groups[0];
  EXPECT_EQ(group.covered_resources, (std::vector<std::string>{"cpu", "memory", "nvidia.com/gpu"}));
  ASSERT_EQ(group.flavors.size(), 2U);
  // Kueue's amounts: cpu in millicores, memory in bytes, GPUs in units; fractions rounded up.
  const auto& quotas = group.flavors[0].resources;
  EXPECT_EQ(quotas[0].nominal, 9000);
  EXPECT_EQ(quotas[0].borrowing_limit, 6000);
  EXPECT_FALSE(quotas[0].lending_limit.has_value());
  EXPECT_EQ(quotas[1].nominal, 36LL << 30);
  EXPECT_EQ(quotas[1].lending_limit, 12LL << 30);
  EXPECT_EQ(quotas[2].nominal, 4);
  EXPECT_EQ(group.flavors[1].resources[0].nominal, 500);
  EXPECT_EQ(group.flavors[1].resources[1].nominal, 2);
  EXPECT_EQ(cq.preemption.reclaim_within_cohort, ReclaimWithinCohort::kAny);
  EXPECT_EQ(cq.preemption.borrow_within_cohort, BorrowWithinCohort::kLowerPriority);
  EXPECT_EQ(cq.preemption.max_priority_threshold, 100);
  EXPECT_EQ(cq.preemption.within_cluster_queue, WithinClusterQueue::kLowerPriority);
  EXPECT_EQ(cq.flavor_fungibility.preference, FungibilityPreference::kPreemptionOverBorrowing);
  EXPECT_DOUBLE_EQ(cq.fair_sharing_weight, 0.5);

  ASSERT_EQ(objects.local_queues.size(), 1U);
  EXPECT_EQ(objects.local_queues[0].namespace_name, "team-a");
  EXPECT_EQ(objects.local_queues[0].cluster_queue, "team-a-cq");
  ASSERT_EQ(objects.priority_classes.size(), 1U);
  EXPECT_EQ(objects.priority_classes[0].value, 10000);
  ASSERT_EQ(objects.cohorts.size(), 1U);
  EXPECT_EQ(objects.cohorts[0].parent, "root");
  // A Cohort may lend more than its own nominal quota (its members' quota goes up through it).
  EXPECT_EQ(objects.cohorts[0].resource_groups[0].flavors[0].resources[0].lending_limit, 20000);
}

TEST(KueueObjects, DefaultsAreKueues) {
  const Objects objects = read(std::string(kCq) + "  resourceGroups: []\n");
  const ClusterQueue& cq = objects.cluster_queues.at(0);
  EXPECT_EQ(cq.cohort, "");
  EXPECT_FALSE(cq.namespace_selector.has_value());  // null selects no namespace
  EXPECT_EQ(cq.queueing_strategy, QueueingStrategy::kBestEffortFifo);
  EXPECT_EQ(cq.preemption.within_cluster_queue, WithinClusterQueue::kNever);
  EXPECT_EQ(cq.preemption.reclaim_within_cohort, ReclaimWithinCohort::kNever);
  EXPECT_EQ(cq.flavor_fungibility.when_can_borrow, FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(cq.flavor_fungibility.when_can_preempt, FungibilityPolicy::kTryNextFlavor);
  EXPECT_DOUBLE_EQ(cq.fair_sharing_weight, 1.0);
  EXPECT_FALSE(objects.configuration.has_value());
}

TEST(KueueObjects, EachVersionSpellsTheCohortItsOwnWay) {
  EXPECT_EQ(read(std::string(kCq) + "  cohort: all\n").cluster_queues.at(0).cohort, "all");
  const std::string v1beta2 = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n  cohort: all\n";
  EXPECT_NE(refusal(v1beta2).find("kueue.yaml:6: spec.cohort: unknown field (known: cohortName,"), std::string::npos) << refusal(v1beta2);
  // v1beta1's deprecated fungibility names are MayStopSearch.
  const Objects old = read(std::string(kCq) + "  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}\n");
  EXPECT_EQ(old.cluster_queues.at(0).flavor_fungibility.when_can_preempt, FungibilityPolicy::kMayStopSearch);
  const std::string v1alpha1 = "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata: {name: c}\nspec: {parent: root}\n";
  EXPECT_EQ(read(v1alpha1).cohorts.at(0).parent, "root");
}

TEST(KueueObjects, TheWebhooksRefusalsNameTheLine) {
  const std::string group = "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n";
  const std::pair<std::string, std::string> cases[] = {
      {std::string(kCq) + group + "      - {name: cpu, nominalQuota: 4, borrowingLimit: 1}\n",
       "kueue.yaml:11: spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: must be nil when cohort is empty"},
      {std::string(kCq) + "  cohort: c\n" + group + "      - {name: cpu, nominalQuota: 4, lendingLimit: 5}\n",
       "kueue.yaml:12: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be less than or equal to the nominalQuota"},
      {std::string(kCq) + group + "      - {name: memory, nominalQuota: 4}\n",
       "kueue.yaml:11: spec.resourceGroups[0].flavors[0].resources[0].name: 'memory' must match the name in coveredResources: cpu"},
      {std::string(kCq) + group + "      - {name: cpu}\n", "kueue.yaml:11: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: missing"},
      {std::string(kCq) + group + "      - {name: cpu, nominalQuota: -1}\n",
       "kueue.yaml:11: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: '-1' is negative"},
      {std::string(kCq) + "  preemption: {borrowWithinCohort: {policy: LowerPriority}}\n",
       "kueue.yaml:6: spec.preemption.borrowWithinCohort.policy: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
      {std::string(kCq) + "  flavorFungibility: {preference: PreemptionOverBorrowing}\n",
       "kueue.yaml:6: spec.flavorFungibility.preference: only when whenCanBorrow and whenCanPreempt are both TryNextFlavor"},
      {std::string(kCq) + "  queueingStrategy: FIFO\n", "kueue.yaml:6: spec.queueingStrategy: 'FIFO' is not one of BestEffortFIFO, StrictFIFO"},
      {std::string(kCq) + "  fairSharing: {weight: 1n}\n", "kueue.yaml:6: spec.fairSharing.weight: when not 0, weight must be > 10e-9"},
      {std::string(kCq) + "  cohort: c\n---\n" + kCq + "  cohort: d\n", "kueue.yaml:11: metadata.name: a second ClusterQueue named 'cq' (the first: kueue.yaml:4)"},
      {"apiVersion: kueue.x-k8s.io/v1\nkind: ClusterQueue\nmetadata: {name: cq}\n",
       "kueue.yaml:1: apiVersion: 'kueue.x-k8s.io/v1': gpusim reads Kueue's ClusterQueue as kueue.x-k8s.io/v1beta1 or v1beta2"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n",
       "kueue.yaml:2: kind: 'Workload' is not a Kueue kind gpusim reads"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q}\n", "kueue.yaml:1: spec: missing"},
  };
  for (const auto& [text, message] : cases) {
    const std::string got = refusal(text);
    EXPECT_NE(got.find(message), std::string::npos) << "expected: " << message << "\ngot: " << got;
  }
}

TEST(KueueObjects, ReferencesAcrossFilesAreChecked) {
  Objects objects = read(std::string(kCq) + "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
                                            "    - {name: missing, resources: [{name: cpu, nominalQuota: 1}]}\n",
                         "cq.yaml");
  try {
    check_kueue_references(objects);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cq.yaml:4: ClusterQueue cq: flavor 'missing' has no ResourceFlavor"), std::string::npos) << e.what();
  }
  parse_kueue_objects("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: missing}\n", "flavors.yaml", objects);
  EXPECT_NO_THROW(check_kueue_references(objects));
  parse_kueue_objects("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q}\nspec: {clusterQueue: other}\n",
                      "lq.yaml", objects);
  EXPECT_THROW(check_kueue_references(objects), core::InputError);
  const std::string cycle =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: a}\nspec: {parentName: b}\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: b}\nspec: {parentName: a}\n";
  EXPECT_NE(refusal(cycle).find("kueue.yaml:3: Cohort a: its parents form a cycle (a, b)"), std::string::npos) << refusal(cycle);
}

TEST(KueueObjects, TheConfigurationsFairSharing) {
  const Objects v1beta1 = read("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n"
                               "  preemptionStrategies: [LessThanInitialShare]\n");
  ASSERT_TRUE(v1beta1.configuration.has_value());
  EXPECT_TRUE(v1beta1.configuration->fair_sharing);
  EXPECT_EQ(v1beta1.configuration->preemption_strategies, std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanInitialShare});
  EXPECT_FALSE(read("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing: {enable: false}\n")
                   .configuration->fair_sharing);
  // v1beta2 has no `enable`: the section turns it on.
  const Objects v1beta2 = read("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}\n");
  EXPECT_TRUE(v1beta2.configuration->fair_sharing);
  EXPECT_EQ(v1beta2.configuration->preemption_strategies.size(), 2U);
  EXPECT_NE(refusal("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n"
                    "  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n")
                .find("kueue.yaml:5: fairSharing.preemptionStrategies: must be"),
            std::string::npos);
}

TEST(KueueObjects, FilesAreToldApartByTheirFirstObject) {
  const auto first = [](const std::string& text) { return traces::load_yaml_documents(text, "x.yaml").at(0); };
  EXPECT_TRUE(is_kueue_file(first(kDocsExample)));
  EXPECT_TRUE(is_kueue_file(first("apiVersion: v1\nkind: List\nitems:\n- apiVersion: kueue.x-k8s.io/v1beta1\n  kind: ClusterQueue\n")));
  EXPECT_TRUE(is_kueue_file(first("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n")));
  EXPECT_FALSE(is_kueue_file(first("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n")));
  EXPECT_FALSE(is_kueue_file(first("- a\n- b\n")));
}

}  // namespace
}  // namespace gpusim::k8s::kueue
