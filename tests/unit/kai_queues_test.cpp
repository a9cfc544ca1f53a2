// KAI's Queues as its documentation writes them (kai-scheduler/KAI-Scheduler docs/queues/README.md and
// docs/quickstart/default-queues.yaml, read as-is), the defaults KAI applies, the trace queues' leaf
// queues, and the refusals, each at its file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/status.hpp"
#include "sim/k8s/kai_queues.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::k8s::kai {
namespace {

// docs/queues/README.md: "Basic Queue", "Hierarchical Queue" and "Unlimited Queue", as written.
constexpr const char* kDocsQueues = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: research-team
spec:
  displayName: "Research Team"
  resources:
    cpu:
      quota: 1000
      limit: 2000
    gpu:
      quota: 1
      limit: 2
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-team
spec:
  displayName: "ML Team"
  parentQueue: "research-team"
  priority: 200
  resources:
    cpu:
      quota: 500
      overQuotaWeight: 2
    gpu:
      quota: 1
      overQuotaWeight: 1
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: burst-queue
spec:
  resources:
    cpu:
      quota: -1                          # Unlimited quota
      limit: -1                          # No limit
    gpu:
      quota: 0                           # No guarantee
      limit: -1                          # No limit
)";

// docs/quickstart/default-queues.yaml, as written.
constexpr const char* kQuickstart = R"(# Copyright 2025 NVIDIA CORPORATION
# SPDX-License-Identifier: Apache-2.0

apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default-parent-queue
spec:
  resources:
    cpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    gpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    memory:
      limit: -1
      overQuotaWeight: 1
      quota: 0
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default-queue
spec:
  parentQueue: default-parent-queue
  resources:
    cpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    gpu:
      limit: -1
      overQuotaWeight: 1
      quota: 0
    memory:
      limit: -1
      overQuotaWeight: 1
      quota: 0
)";

Queues read(const std::string& text) {
  Queues q;
  parse_kai_queues(text, "queues.yaml", q);
  check_kai_queues(q);
  return q;
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KaiQueues, TheDocumentationsQueuesReadAsWritten) {
  const Queues q = read(kDocsQueues);
  ASSERT_EQ(q.queues.size(), 3U);
  const Queue& research = q.queues[0];
  EXPECT_EQ(research.name, "research-team");
  EXPECT_EQ(research.display_name, "Research Team");
  EXPECT_EQ(research.priority, 100);  // KAI's default
  EXPECT_EQ(research.cpu.quota, 1000);
  EXPECT_EQ(research.cpu.limit, 2000);
  EXPECT_EQ(research.gpu.quota, 1);
  EXPECT_EQ(research.gpu.limit, 2);
  // What the file omits is 0, as KAI reads an omitted float64: no weight, and a limit of nothing.
  EXPECT_EQ(research.gpu.over_quota_weight, 0);
  EXPECT_EQ(research.memory.limit, 0);
  const Queue& ml = q.queues[1];
  EXPECT_EQ(ml.parent, "research-team");
  EXPECT_EQ(ml.priority, 200);
  EXPECT_EQ(ml.cpu.over_quota_weight, 2);
  EXPECT_EQ(ml.gpu.limit, 0);
  EXPECT_EQ(q.queues[2].cpu.quota, kUnlimited);
  // ml-team's gpu limit, omitted, is 0: below its quota, which is said.
  ASSERT_FALSE(q.notes.empty());
  EXPECT_EQ(q.notes.front(), "Queue ml-team: gpu limit 0 is below its quota 1 (an omitted limit is 0): KAI caps the queue at 0, so a "
                             "job asking more gpu than that never runs in it");
  EXPECT_EQ(q.queues[2].gpu.limit, kUnlimited);
}

TEST(KaiQueues, TheQuickstartsDefaultQueuesTakeEveryTraceQueue) {
  const Queues q = read(kQuickstart);
  ASSERT_EQ(q.queues.size(), 2U);
  EXPECT_TRUE(is_kai_file(traces::load_yaml_documents(kQuickstart, "q.yaml").front()));
  // A trace queue without a Queue of its own goes to KAI's podgrouper default, default-queue.
  const auto leaves = leaves_of_trace_queues(q, {"vc1", "vc2"});
  EXPECT_EQ(leaves, (std::vector<std::uint32_t>{1, 1}));
  EXPECT_EQ(leaves_of_trace_queues(q, {}), (std::vector<std::uint32_t>{1}));
}

TEST(KaiQueues, TraceQueuesGoToTheirLeafQueue) {
  const Queues q = read(std::string(kDocsQueues) + R"(---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: vision
  annotations: {gpusim.io/trace-queues: "vc-a, vc-b"}
spec:
  resources: {gpu: {quota: 2, overQuotaWeight: 2, limit: -1}}
)");
  EXPECT_EQ(leaves_of_trace_queues(q, {"ml-team", "vc-b", "vc-a", "burst-queue"}), (std::vector<std::uint32_t>{1, 3, 3, 2}));
  // A queue with children schedules nothing; a queue nobody defines leaves its jobs pending.
  const auto parent_error = [&] {
    try {
      leaves_of_trace_queues(q, {"research-team"});
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_EQ(parent_error, "queues.yaml:4: Queue research-team: it has child queues, and only leaf queues schedule jobs (the trace's queue "
                          "'research-team' submits to it)");
  EXPECT_THROW(leaves_of_trace_queues(q, {"nobody"}), core::InputError);
}

TEST(KaiQueues, MistakesAreNamedAtTheirLine) {
  const std::string head = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\n";
  EXPECT_EQ(error_of(head), "queues.yaml:1: spec: missing");
  EXPECT_EQ(error_of(head + "spec: {priority: 3}\n"), "queues.yaml:4: spec.resources: resources must be specified (KAI's admission webhook)");
  EXPECT_EQ(error_of(head + "spec:\n  resources:\n    gpu: {quota: 2, overQuotaWeigth: 1}\n"),
            "queues.yaml:6: spec.resources.gpu.overQuotaWeigth: unknown field (known: quota, overQuotaWeight, limit)");
  EXPECT_EQ(error_of(head + "spec:\n  resources:\n    gpu: {quota: two}\n"), "queues.yaml:6: spec.resources.gpu.quota: 'two' is not a number");
  EXPECT_EQ(error_of(head + "spec:\n  resources:\n    gpu: {quota: -2}\n"),
            "queues.yaml:6: spec.resources.gpu.quota: '-2': KAI gives meaning to -1 (unlimited) and to amounts from 0 up, no other");
  EXPECT_EQ(error_of(head + "spec:\n  parentQueue: nobody\n  resources: {gpu: {quota: 1, limit: -1}}\n"),
            "queues.yaml:3: Queue q: spec.parentQueue 'nobody' names no Queue (KAI drops an orphan queue and its subtree, leaving their "
            "jobs pending)");
  EXPECT_EQ(error_of(head + "spec: {resources: {}}\n---\n" + head), "queues.yaml:8: metadata.name: a second Queue named 'q' (the first: queues.yaml:3)");
  const std::string cycle = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec: {parentQueue: b, resources: {}}\n---\n"
                            "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: b}\nspec: {parentQueue: a, resources: {}}\n";
  EXPECT_EQ(error_of(cycle), "queues.yaml:3: Queue a: its parents form a cycle through 'a'");
  EXPECT_EQ(error_of("apiVersion: scheduling.run.ai/v1\nkind: Queue\nmetadata: {name: q}\n"),
            "queues.yaml:1: apiVersion: 'scheduling.run.ai/v1': gpusim reads KAI's Queues as scheduling.run.ai/v2");
  EXPECT_EQ(error_of(head + "spec:\n  resources: {gpu: {quota: 1, limit: -1}}\n  preemptMinRuntime: 5 minutes\n"),
            "queues.yaml:6: spec.preemptMinRuntime: '5 minutes' is not a duration: unknown unit ' minutes' (units ns, us, ms, s, m, "
            "h; e.g. 90s, 1h30m, 500ms)");
}

}  // namespace
}  // namespace gpusim::k8s::kai
