// KAI's smallest failed jobs (policies/quotas/kai_failed_jobs.hpp) against the rules of KAI's
// minimal_job_comparison.go: which later jobs a failed one stands for, per queue and signature.
#include "policies/quotas/kai_failed_jobs.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/cluster/pod_constraints.hpp"

namespace gpusim::policy {
namespace {

cluster::PodSpec pod(std::int32_t gpus, std::int64_t cpu = 0, std::int64_t memory = 0) {
  cluster::PodSpec p;
  p.gpu_count = gpus;
  p.gpu_milli = gpus > 0 ? cluster::kMilliPerGpu : 0;
  p.cpu_milli = cpu;
  p.memory_mib = memory;
  return p;
}

std::vector<KaiPodAsk> asks(std::initializer_list<cluster::PodSpec> pods) {
  std::vector<KaiPodAsk> out;
  for (const cluster::PodSpec& p : pods) out.push_back(KaiPodAsk::of(p));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(KaiEasierToSchedule, OnlyAJobStrictlySmallerOrOfFewerPodsIsEasier) {
  const auto rep = asks({pod(4, 1000)});
  EXPECT_TRUE(kai_easier_to_schedule(asks({pod(3, 1000)}), rep));
  EXPECT_TRUE(kai_easier_to_schedule(asks({pod(4, 500)}), rep));
  EXPECT_FALSE(kai_easier_to_schedule(asks({pod(4, 1000)}), rep)) << "equal: it would fail too";
  EXPECT_FALSE(kai_easier_to_schedule(asks({pod(5, 1000)}), rep));
  // Smaller in GPUs, larger in CPU: neither is at most the other, so KAI skips it.
  EXPECT_FALSE(kai_easier_to_schedule(asks({pod(2, 2000)}), rep));
  // Fewer pods than the representative is easier, whatever they ask. More pods is easier too when a
  // pod, sorted, is smaller than the representative's at its place (KAI's loop decides there before
  // it runs out of the representative's pods); not when they all match it.
  EXPECT_TRUE(kai_easier_to_schedule(asks({pod(8, 9000)}), asks({pod(1), pod(1)})));
  EXPECT_TRUE(kai_easier_to_schedule(asks({pod(1), pod(1)}), rep));
  EXPECT_FALSE(kai_easier_to_schedule(asks({pod(4, 1000), pod(4, 1000)}), rep));
  // With as many pods, the first (sorted) pod smaller than the representative's decides, and one
  // that is larger is passed over.
  EXPECT_TRUE(kai_easier_to_schedule(asks({pod(1), pod(8)}), asks({pod(2), pod(4)})));
  EXPECT_FALSE(kai_easier_to_schedule(asks({pod(2), pod(8)}), asks({pod(2), pod(4)})));
  EXPECT_FALSE(kai_easier_to_schedule({}, rep));
}

TEST(KaiFootprintSmaller, EveryPodAtMostTheRepresentativesAndNoMorePods) {
  EXPECT_TRUE(kai_footprint_smaller(asks({pod(2)}), asks({pod(4)})));
  EXPECT_TRUE(kai_footprint_smaller(asks({pod(4)}), asks({pod(4)})));
  EXPECT_FALSE(kai_footprint_smaller(asks({pod(2, 2000)}), asks({pod(4, 1000)})));
  EXPECT_TRUE(kai_footprint_smaller(asks({pod(4)}), asks({pod(4), pod(4)})));
  EXPECT_FALSE(kai_footprint_smaller(asks({pod(1), pod(1)}), asks({pod(4)})));
}

TEST(KaiFailedJobs, AFailureStandsForItsQueueAndSignatureUntilTheNextAction) {
  KaiFailedJobs failed;
  const cluster::PodSpec big = pod(4), smaller = pod(3), bigger = pod(6);
  const cluster::PodSpec* big_job[] = {&big};
  const cluster::PodSpec* smaller_job[] = {&smaller};
  const cluster::PodSpec* bigger_job[] = {&bigger};
  EXPECT_TRUE(failed.worth_trying(0, bigger_job)) << "nothing failed yet";
  failed.failed(0, big_job);
  EXPECT_FALSE(failed.worth_trying(0, bigger_job));
  // A gang of two pods is another signature than a job of one (KAI hashes every pending pod's).
  const cluster::PodSpec* two_pods[] = {&bigger, &bigger};
  EXPECT_TRUE(failed.worth_trying(0, two_pods));
  EXPECT_TRUE(failed.worth_trying(0, smaller_job));
  EXPECT_TRUE(failed.worth_trying(1, bigger_job)) << "another queue";
  // Another priority is another signature.
  cluster::PodSpec urgent = pod(6);
  urgent.priority = 100;
  const cluster::PodSpec* urgent_job[] = {&urgent};
  EXPECT_TRUE(failed.worth_trying(0, urgent_job));
  // A smaller failure replaces the representative; a larger one does not.
  failed.failed(0, smaller_job);
  EXPECT_FALSE(failed.worth_trying(0, big_job));
  failed.failed(0, bigger_job);
  EXPECT_FALSE(failed.worth_trying(0, big_job));
  failed.clear();
  EXPECT_TRUE(failed.worth_trying(0, bigger_job));
  // A job whose pods differ in signature stands for jobs with the same mix of pods.
  const cluster::PodSpec* mixed[] = {&urgent, &big};
  const cluster::PodSpec* mixed_larger[] = {&bigger, &urgent};
  failed.failed(0, mixed);
  EXPECT_FALSE(failed.worth_trying(0, mixed_larger));
  const cluster::PodSpec* alike[] = {&big, &bigger};
  EXPECT_TRUE(failed.worth_trying(0, alike)) << "another mix of signatures";
}

TEST(KaiSchedulingConstraints, TheSignatureIsWhereAPodMayRunNotWhatItAsks) {
  const cluster::PodSpec a = pod(1), b = pod(8, 5000);
  EXPECT_TRUE(same_scheduling_constraints(a, b)) << "resources are not in the signature";
  auto selected = std::make_shared<cluster::PodConstraints>();
  selected->node_selector = {{"nvidia.com/gpu.product", "H100"}};
  auto same = std::make_shared<cluster::PodConstraints>(*selected);
  same->containers.push_back({"main", 1000, 0, 1});  // containers are resources, not constraints
  auto tolerated = std::make_shared<cluster::PodConstraints>(*selected);
  tolerated->tolerations.push_back({"gpu", true, "", "NoSchedule", std::nullopt});
  cluster::PodSpec x = pod(1), y = pod(2), z = pod(1);
  x.constraints = selected;
  y.constraints = same;
  z.constraints = tolerated;
  EXPECT_TRUE(same_scheduling_constraints(x, y)) << "equal constraints in two objects";
  EXPECT_FALSE(same_scheduling_constraints(x, z));
  EXPECT_FALSE(same_scheduling_constraints(x, a)) << "a pod with Kubernetes detail and one without";
  // A toleration's seconds are not in KAI's signature.
  auto timed = std::make_shared<cluster::PodConstraints>(*tolerated);
  timed->tolerations.back().toleration_seconds = 30;
  cluster::PodSpec w = pod(1);
  w.constraints = timed;
  EXPECT_TRUE(same_scheduling_constraints(z, w));
}

}  // namespace
}  // namespace gpusim::policy
