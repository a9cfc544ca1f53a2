// Volcano's configuration runs: a scheduler ConfigMap and its Queues, in the shape of Volcano's
// capacity-plugin user guide (docs/user-guide/how_to_use_capacity_plugin.md: queue1 deserves a
// quarter of the cluster, queue2 the rest; queue1 fills the idle cluster, then queue2's pods
// reclaim what it deserves) in GPUs, replayed through the Kubernetes layer. Schedules are worked out
// by hand (times in seconds). Defaults that matter: checkpoints every 600 s of run time; a reclaimed
// pod's owner recreates it after the 10 s base backoff and it resumes from its last checkpoint.
// Every pod asks one GPU of identical nodes, so the seeded choice among equal nodes changes no time.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/k8s/volcano_queues.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

std::string config_map(const std::string& actions, const std::string& queue_plugin) {
  return "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: volcano-scheduler-configmap\n  namespace: volcano-system\n"
         "data:\n  volcano-scheduler.conf: |\n    actions: \"" + actions + "\"\n    tiers:\n    - plugins:\n"
         "      - name: priority\n      - name: gang\n        enablePreemptable: false\n      - name: conformance\n"
         "    - plugins:\n      - name: drf\n        enablePreemptable: false\n      - name: predicates\n"
         "      - name: " + queue_plugin + "\n      - name: nodeorder\n      - name: binpack\n";
}

const std::string kCapacityQueues = R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: queue1
spec:
  reclaimable: true
  deserved:
    nvidia.com/gpu: 2
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: queue2
spec:
  reclaimable: true
  deserved:
    nvidia.com/gpu: 6
)";

// Two nodes of 4 GPUs; queue1's 8 pods (1000 s) at 0, queue2's 8 pods (100 s) at 700.
K8sScenario two_queues() {
  K8sScenario s;
  s.node("n0", 4);
  s.node("n1", 4);
  s.workload.queues = {"queue1", "queue2"};
  for (int i = 1; i <= 8; ++i) s.pod("q1-" + std::to_string(i), 1, 0, 1000).queue = 0;
  for (int i = 1; i <= 8; ++i) s.pod("q2-" + std::to_string(i), 1, 700, 100).queue = 1;
  return s;
}

experiment::RunResult run(K8sScenario& s, const std::string& conf_text, const std::string& queues_text) {
  const k8s::VolcanoSchedulerConf conf = k8s::parse_volcano_scheduler_conf(conf_text, "volcano-scheduler-configmap.yaml", &s.registry);
  s.kube.queue_quotas = k8s::volcano_queue_quotas(k8s::parse_volcano_queue_list(queues_text, "queues.yaml"), s.workload.queues);
  experiment::RunConfig config;
  config.mode = experiment::Mode::kReplay;
  config.seed = s.seed;
  const experiment::RunInputs inputs{&s.catalog, &s.cluster, &s.workload, &s.registry, nullptr, {}, nullptr, &s.kube};
  return experiment::run_replay(inputs, conf.profile, config);
}

// How many of rows [first, last) started (last start) at `start_s`.
int started_at(const experiment::RunResult& result, std::size_t first, std::size_t last, double start_s) {
  int n = 0;
  for (std::size_t row = first; row < last; ++row) n += seconds(record(result, row).start_us) == start_s ? 1 : 0;
  return n;
}

TEST(VolcanoScenario, CapacityUserGuideQueue2ReclaimsWhatItDeserves) {
  // 0: queue2 asks nothing, so queue1 borrows all 8 GPUs. 700: queue2 (0 of its 6) reclaims; each
  // queue1 pod would lose the 100 s since its checkpoint at 600. One job reclaims per cycle and the
  // cycle runs again at once, so q2-1..q2-6 each take a GPU from a queue1 pod at 700, until queue2
  // holds its 6 (q2-7 would pass them) and queue1 its 2 (no longer above what it deserves). 710:
  // the six evicted pods' owners recreate them (400 s left). 800: q2-1..q2-6 end; queue2 (0 of 6)
  // goes first: q2-7, q2-8, 800-900; queue1 may take the other 4 GPUs (capacity: up to the
  // cluster): four resumed pods, 800-1200. 900: the last two, 900-1300. 1000: the two queue1 pods
  // never evicted end.
  K8sScenario s = two_queues();
  const auto result = run(s, config_map("enqueue, allocate, backfill, reclaim", "capacity"), kCapacityQueues);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 6);
  EXPECT_EQ(started_at(result, 8, 16, 700), 6);
  EXPECT_EQ(started_at(result, 8, 16, 800), 2);
  int kept = 0, resumed_800 = 0, resumed_900 = 0;
  for (std::size_t row = 0; row < 8; ++row) {
    const auto& r = record(result, row);
    EXPECT_EQ(seconds(r.first_start_us), 0) << row;
    if (r.attempts == 1) {
      ++kept;
      EXPECT_EQ(seconds(r.end_us), 1000) << row;
    } else {
      EXPECT_EQ(r.attempts, 2u) << row;
      const double start = seconds(r.start_us);
      resumed_800 += start == 800 ? 1 : 0;
      resumed_900 += start == 900 ? 1 : 0;
      EXPECT_NEAR(seconds(r.end_us), start + 400, 2e-6) << row;
    }
  }
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(resumed_800, 4);
  EXPECT_EQ(resumed_900, 2);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 6 * 100 / 3600.0, 1e-9);
}

TEST(VolcanoScenario, WithoutTheReclaimActionQueue2Waits) {
  // The installer's actions ("enqueue, allocate, backfill"): no reclaim, so queue2 waits for
  // queue1's pods to end at 1000 and its 8 pods run 1000-1100. Nothing is evicted.
  K8sScenario s = two_queues();
  const auto result = run(s, config_map("enqueue, allocate, backfill", "capacity"), kCapacityQueues);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
  EXPECT_EQ(started_at(result, 0, 8, 0), 8);
  EXPECT_EQ(started_at(result, 8, 16, 1000), 8);
}

TEST(VolcanoScenario, ProportionSharesByTheQueuesWeights) {
  // Weights 1 and 3 (example/deployment/queue.yaml's shape). At 700 queue1 holds 8 and asks
  // nothing more; queue2 asks 8: water-filling gives queue1 8 x 1/4 = 2 and queue2 6, so queue2
  // reclaims 6, as under capacity above. 800: queue2 asks 2 and gets them first; queue1's four
  // resumed pods take the rest.
  K8sScenario s = two_queues();
  const std::string queues =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: queue1\nspec:\n  weight: 1\n"
      "  reclaimable: true\n---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: queue2\n"
      "spec:\n  weight: 3\n  reclaimable: true\n";
  const auto result = run(s, config_map("enqueue, allocate, backfill, reclaim", "proportion"), queues);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 6);
  EXPECT_EQ(started_at(result, 8, 16, 700), 6);
  EXPECT_EQ(started_at(result, 8, 16, 800), 2);
  EXPECT_EQ(started_at(result, 0, 8, 800), 4);
  // With equal weights queue2 deserves only 4: four evictions.
  K8sScenario equal = two_queues();
  std::string even = queues;
  even.replace(even.find("weight: 3"), 9, "weight: 1");
  const auto halves = run(equal, config_map("allocate, backfill, reclaim", "proportion"), even);
  EXPECT_EQ(metric(halves, "reclaim_evictions"), 4);
  EXPECT_EQ(started_at(halves, 8, 16, 700), 4);
}

TEST(VolcanoScenario, CapabilityAndANonReclaimableQueue) {
  // queue1 is capped at 4 GPUs (spec.capability), so it leaves 4 idle although queue2 asks nothing
  // until 700: q1-1..q1-4 run 0-1000, the rest wait. 700: queue2 takes the 4 idle GPUs; its other 4
  // pods may not reclaim: queue1 is not reclaimable. 800: q2-5..q2-8 take the freed GPUs, 800-900.
  // 1000: q1-5..q1-8, 1000-2000.
  K8sScenario s = two_queues();
  const std::string queues =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: queue1\nspec:\n  reclaimable: false\n"
      "  capability:\n    nvidia.com/gpu: 4\n  deserved:\n    nvidia.com/gpu: 2\n---\napiVersion: scheduling.volcano.sh/v1beta1\n"
      "kind: Queue\nmetadata:\n  name: queue2\nspec:\n  deserved:\n    nvidia.com/gpu: 6\n";
  const auto result = run(s, config_map("enqueue, allocate, backfill, reclaim", "capacity"), queues);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
  EXPECT_EQ(started_at(result, 0, 8, 0), 4);
  EXPECT_EQ(started_at(result, 0, 8, 1000), 4);
  EXPECT_EQ(started_at(result, 8, 16, 700), 4);
  EXPECT_EQ(started_at(result, 8, 16, 800), 4);
}

}  // namespace
}  // namespace gpusim::testing
