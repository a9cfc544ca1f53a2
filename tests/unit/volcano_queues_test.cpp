// Volcano's Queue objects (sim/k8s/volcano_queues.hpp): Volcano's defaults (weight 1, reclaimable),
// its admission rules (weight 0 becomes 1; guarantee needs deserved >= it; deserved <= capability;
// whole GPUs), the List and multi-document forms, what is ignored with a note, what is refused
// (file:line: field), and the mapping onto a workload's queues.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/volcano_queues.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::k8s {
namespace {

std::string queue(const std::string& name, const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: " + name + "\nspec:\n" + spec;
}

std::string error_of(const std::string& text) {
  try {
    parse_volcano_queue_list(text, "q.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(VolcanoQueues, DefaultsAreVolcanos) {
  // A Queue with nothing but a name: weight 1, reclaimable, no limits (the CRD's and the mutating
  // webhook's defaults).
  const auto list = parse_volcano_queue_list("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: a}\n", "q.yaml");
  ASSERT_EQ(list.queues.size(), 1u);
  const QueueQuota& q = list.queues[0].quota;
  EXPECT_EQ(list.queues[0].name, "a");
  EXPECT_EQ(list.queues[0].line, 3);
  EXPECT_EQ(q.weight, 1);
  EXPECT_TRUE(q.reclaimable);
  EXPECT_FALSE(q.deserved_milli);
  EXPECT_FALSE(q.capability_milli);
  EXPECT_EQ(q.guarantee_milli, 0);
  EXPECT_TRUE(list.notes.empty());
}

TEST(VolcanoQueues, GpuAmountsWeightAndReclaimable) {
  const auto list = parse_volcano_queue_list(
      queue("research", "  weight: 3\n  reclaimable: false\n  capability:\n    nvidia.com/gpu: 12\n  deserved:\n"
                        "    nvidia.com/gpu: \"8\"\n  guarantee:\n    resource:\n      nvidia.com/gpu: 4\n"),
      "q.yaml");
  const QueueQuota& q = list.queues.at(0).quota;
  EXPECT_EQ(q.weight, 3);
  EXPECT_FALSE(q.reclaimable);
  EXPECT_EQ(q.capability_milli, 12000);
  EXPECT_EQ(q.deserved_milli, 8000);
  EXPECT_EQ(q.guarantee_milli, 4000);
}

TEST(VolcanoQueues, WeightZeroBecomesOneAsTheWebhookSets) {
  EXPECT_EQ(parse_volcano_queue_list(queue("a", "  weight: 0\n"), "q.yaml").queues[0].quota.weight, 1);
  EXPECT_EQ(error_of(queue("a", "  weight: 65536\n")), "q.yaml:6: spec.weight: '65536' is not an integer from 0 to 65535");
  EXPECT_EQ(error_of(queue("a", "  weight: -1\n")), "q.yaml:6: spec.weight: '-1' is not an integer from 0 to 65535");
}

TEST(VolcanoQueues, AListAndSeveralDocumentsAndTheirLines) {
  const std::string list =
      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: scheduling.volcano.sh/v1beta1\n  kind: Queue\n"
      "  metadata: {name: a}\n  spec: {weight: 2}\n";
  const auto read = parse_volcano_queue_list(list + "---\n" + queue("b", "  weight: 5\n"), "q.yaml");
  ASSERT_EQ(read.queues.size(), 2u);
  EXPECT_EQ(read.queues[0].quota.weight, 2);
  EXPECT_EQ(read.queues[1].name, "b");
  EXPECT_EQ(read.queues[1].line, 12);  // the second document's metadata.name, counted in the file
  // An error in the second document names the file's line.
  EXPECT_EQ(error_of(list + "---\n" + queue("b", "  wieght: 5\n")),
            "q.yaml:14: spec.wieght: unknown field (known: weight, capability, reclaimable, extendClusters, guarantee, "
            "affinity, type, parent, deserved, priority, dequeueStrategy)");
  EXPECT_EQ(error_of(list.substr(0, list.find("- apiVersion")) + "- apiVersion: v1\n  kind: Pod\n"), "q.yaml:5: items[0].kind: expected Queue");
}

TEST(VolcanoQueues, TheWebhooksRulesAreKept) {
  EXPECT_EQ(error_of(queue("a", "  guarantee:\n    resource:\n      nvidia.com/gpu: 4\n")),
            "q.yaml:8: spec.deserved.nvidia.com/gpu: missing: Volcano requires deserved[nvidia.com/gpu] >= "
            "guarantee[nvidia.com/gpu] = 4");
  EXPECT_EQ(error_of(queue("a", "  deserved:\n    nvidia.com/gpu: 2\n  guarantee:\n    resource:\n      nvidia.com/gpu: 4\n")),
            "q.yaml:7: spec.deserved.nvidia.com/gpu: 2 is less than guarantee.resource[nvidia.com/gpu] = 4 (Volcano "
            "requires deserved >= guarantee)");
  EXPECT_EQ(error_of(queue("a", "  capability:\n    cpu: 4\n  deserved:\n    cpu: 4500m\n")),
            "q.yaml:9: spec.deserved.cpu: 4500m is more than capability[cpu] = 4 (Volcano requires deserved <= capability)");
  EXPECT_EQ(error_of(queue("a", "  deserved:\n    nvidia.com/gpu: 1.5\n")),
            "q.yaml:7: spec.deserved.nvidia.com/gpu: '1.5' is not a whole number (Kubernetes requires whole numbers for "
            "extended resources)");
  EXPECT_EQ(error_of(queue("a", "  capability:\n    memory: -1Gi\n")).substr(0, 34), "q.yaml:7: spec.capability.memory: ");
}

TEST(VolcanoQueues, CpuMemoryAndStatusAreNotedNotEnforced) {
  const auto list = parse_volcano_queue_list(
      queue("q1", "  reclaimable: true\n  deserved:\n    cpu: 2\n    memory: 8Gi\n") + "status:\n  state: Closed\n---\n" +
          queue("q2", "  deserved:\n    cpu: 6\n    memory: 24Gi\n  extendClusters:\n  - {name: c2}\n"),
      "q.yaml");
  ASSERT_EQ(list.queues.size(), 2u);
  EXPECT_FALSE(list.queues[0].quota.deserved_milli);  // no GPU amount: deserves 0 GPUs under capacity
  ASSERT_EQ(list.notes.size(), 4u);
  EXPECT_EQ(list.notes[0], "queue q1: status.state Closed ignored: gpusim schedules every queue as Open");
  EXPECT_EQ(list.notes[1], "queue q2: spec.extendClusters ignored: it serves multi-cluster dispatch, not the scheduler of one cluster");
  EXPECT_EQ(list.notes[2], "cpu amounts ignored: gpusim's queue quotas count nvidia.com/gpu only (q1 deserved, q2 deserved)");
  EXPECT_EQ(list.notes[3], "memory amounts ignored: gpusim's queue quotas count nvidia.com/gpu only (q1 deserved, q2 deserved)");
}

TEST(VolcanoQueues, WhatGpusimCannotModelIsRefused) {
  EXPECT_EQ(error_of(queue("child", "  parent: research\n")),
            "q.yaml:6: spec.parent: 'research': hierarchical queues (capacity's enableHierarchy) are not modelled; "
            "gpusim's queues are flat, children of root");
  EXPECT_EQ(error_of(queue("a", "  parent: root\n")), "(accepted)");
  EXPECT_NE(error_of(queue("a", "  priority: 10\n")).find("q.yaml:6: spec.priority: queue priorities are not modelled"),
            std::string::npos);
  EXPECT_EQ(error_of(queue("a", "  priority: 0\n  dequeueStrategy: traverse\n")), "(accepted)");
  EXPECT_NE(error_of(queue("a", "  dequeueStrategy: fifo\n")).find("q.yaml:6: spec.dequeueStrategy: fifo (a job that"),
            std::string::npos);
  EXPECT_EQ(error_of(queue("a", "  affinity:\n    nodeGroupAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution: [g1]\n")),
            "q.yaml:7: spec.affinity: queue affinity (nodeGroupAffinity, enforced by the nodegroup plugin) is not modelled");
}

TEST(VolcanoQueues, MistakesNameFileLineAndField) {
  EXPECT_EQ(error_of("apiVersion: scheduling.volcano.sh/v1alpha1\nkind: Queue\nmetadata: {name: a}\n"),
            "q.yaml:1: apiVersion: 'scheduling.volcano.sh/v1alpha1': Volcano serves Queues as scheduling.volcano.sh/v1beta1");
  EXPECT_EQ(error_of("apiVersion: v1\nkind: ConfigMap\n"),
            "q.yaml:2: kind: 'ConfigMap': a Volcano Queue file holds Queues (scheduling.volcano.sh/v1beta1), or Lists of them");
  EXPECT_EQ(error_of(queue("Research", "")).substr(0, 45), "q.yaml:4: metadata.name: 'Research' is not a ");
  EXPECT_EQ(error_of(queue("a", "") + "---\n" + queue("a", "")), "q.yaml:10: metadata.name: queue 'a' is given twice (first on line 4)");
  EXPECT_EQ(error_of(queue("a", "  weight: 1\n  weight: 2\n")), "q.yaml:7: spec.weight: given twice (first on line 6)");
  EXPECT_EQ(error_of(queue("a", "  reclaimable: yes\n")), "q.yaml:6: spec.reclaimable: 'yes' is not true or false");
  EXPECT_EQ(error_of(""), "q.yaml: no Queue objects");
  EXPECT_EQ(error_of("a: [1,\n"), "q.yaml:2: yaml: end of sequence flow not found");
}

TEST(VolcanoQueues, TheWorkloadsQueuesComeFirstAndTheOthersKeepTheirGuarantees) {
  const auto list = parse_volcano_queue_list(
      queue("idle", "  deserved: {nvidia.com/gpu: 2}\n  guarantee: {resource: {nvidia.com/gpu: 2}}\n") + "---\n" +
          queue("b", "  weight: 2\n") + "---\n" + queue("a", "  weight: 3\n"),
      "q.yaml");
  const QueueQuotas quotas = volcano_queue_quotas(list, {"a", "b"});
  ASSERT_EQ(quotas.queues.size(), 3u);
  EXPECT_EQ(quotas.file, "q.yaml");
  EXPECT_EQ(quotas.queues[0].weight, 3);
  EXPECT_EQ(quotas.queues[1].weight, 2);
  EXPECT_EQ(quotas.queues[2].guarantee_milli, 2000);
  // The idle queue's guarantee is kept from the others: on 8 GPUs, a may hold 6.
  QuotaBook book(quotas, true, 8000);
  EXPECT_EQ(book.real_capability(0), 6000);
  // A workload without queues runs in "default", which Volcano always has.
  EXPECT_EQ(volcano_queue_quotas(list, {}).queues.size(), 4u);
  try {
    volcano_queue_quotas(list, {"a", "c", "d"});
    ADD_FAILURE();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "q.yaml: the workload's queues c, d have no Queue object (Volcano leaves the jobs of a queue "
                           "that does not exist pending)");
  }
}

TEST(VolcanoQueues, TheRecogniserLooksAtKindAndApiVersionOnly) {
  const auto first = [](const std::string& text) { return traces::load_yaml_documents(text, "x.yaml").at(0); };
  EXPECT_TRUE(is_volcano_queue_list(first(queue("a", ""))));
  EXPECT_TRUE(is_volcano_queue_list(first("kind: List\nitems:\n- {apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue}\n")));
  EXPECT_FALSE(is_volcano_queue_list(first("kind: Queue\napiVersion: kueue.x-k8s.io/v1beta1\n")));
  EXPECT_FALSE(is_volcano_queue_list(first("[1, 2]\n")));
  EXPECT_FALSE(is_volcano_queue_list(first("kind: [Queue]\n")));
}

TEST(VolcanoQueues, TheBundledPhillyQueuesAreEveryVirtualClusterWeightOne) {
  const auto list = load_volcano_queue_list(std::string(GPUSIM_SOURCE_DIR) + "/traces/queues/philly-queues.yaml");
  ASSERT_EQ(list.queues.size(), 15u);
  for (const auto& q : list.queues) {
    EXPECT_EQ(q.quota.weight, 1) << q.name;
    EXPECT_FALSE(q.quota.deserved_milli || q.quota.capability_milli || q.quota.guarantee_milli) << q.name;
  }
  EXPECT_TRUE(list.notes.empty());
}

}  // namespace
}  // namespace gpusim::k8s
