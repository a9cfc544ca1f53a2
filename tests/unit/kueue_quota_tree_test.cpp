// Kueue's quota arithmetic on the worked examples of its documentation
// (site/content/en/docs/concepts/cluster_queue.md: borrowing, borrowingLimit, lendingLimit;
// concepts/cohort.md: a Cohort's own quota) and a hierarchy from its integration tests
// (test/integration/singlecluster/scheduler/preemption_test.go, "In a multi-level cohort").
#include <gtest/gtest.h>

#include <string>

#include "sim/k8s/kueue_objects.hpp"
#include "sim/k8s/kueue_quota_tree.hpp"

namespace gpusim::k8s::kueue {
namespace {

// A ClusterQueue with one cpu quota on default-flavor; `extra` adds limits to the resource.
std::string cluster_queue(const std::string& name, const std::string& cohort, const std::string& cpu, const std::string& extra = "") {
  return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + name + "}\nspec:\n" +
         (cohort.empty() ? "" : "  cohortName: " + cohort + "\n") +
         "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default-flavor\n"
         "      resources: [{name: cpu, nominalQuota: " + cpu + extra + "}]\n";
}

std::string cohort(const std::string& name, const std::string& parent, const std::string& cpu) {
  return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: " + name + "}\nspec:\n" +
         (parent.empty() ? "" : "  parentName: " + parent + "\n") +
         (cpu.empty() ? "" : "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default-flavor\n"
                              "      resources: [{name: cpu, nominalQuota: " + cpu + "}]\n");
}

QuotaTree tree(const std::string& text) {
  Objects objects;
  parse_kueue_objects("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n" + text, "q.yaml",
                      objects);
  check_kueue_references(objects);
  return QuotaTree(objects);
}

constexpr std::int64_t kCpu = 1000;  // millicores

TEST(KueueQuotaTree, BorrowingUpToTheCohortsUnusedQuota) {
  QuotaTree t = tree(cluster_queue("team-a-cq", "team-ab", "9") + cluster_queue("team-b-cq", "team-ab", "12"));
  const NodeId a = *t.cluster_queue("team-a-cq"), b = *t.cluster_queue("team-b-cq");
  const std::uint32_t cpu = *t.flavor_resource("default-flavor", "cpu");
  // "If team-b-cq has no pending workloads, team-a-cq can admit workloads of up to 21 CPUs."
  EXPECT_EQ(t.available(a, cpu), 21 * kCpu);
  EXPECT_EQ(t.potential_available(a, cpu), 21 * kCpu);
  t.add_usage(a, cpu, 21 * kCpu);
  EXPECT_TRUE(t.borrowing(a, cpu));
  EXPECT_EQ(t.usage(*t.cohort("team-ab"), cpu), 21 * kCpu);
  // team-b's own quota is lent out: it gets it back only by reclaiming.
  EXPECT_EQ(t.available(b, cpu), 0);
  t.add_usage(a, cpu, -12 * kCpu);
  EXPECT_EQ(t.available(b, cpu), 12 * kCpu);
  EXPECT_FALSE(t.borrowing(a, cpu));
}

TEST(KueueQuotaTree, ABorrowingLimitCapsWhatAQueueTakes) {
  QuotaTree t = tree(cluster_queue("team-a-cq", "team-ab", "9", ", borrowingLimit: 1") + cluster_queue("team-b-cq", "team-ab", "12"));
  const std::uint32_t cpu = 0;
  // "team-a-cq can admit workloads of up to 10 CPUs; team-b-cq of up to 21."
  EXPECT_EQ(t.available(*t.cluster_queue("team-a-cq"), cpu), 10 * kCpu);
  EXPECT_EQ(t.potential_available(*t.cluster_queue("team-a-cq"), cpu), 10 * kCpu);
  EXPECT_EQ(t.available(*t.cluster_queue("team-b-cq"), cpu), 21 * kCpu);
}

TEST(KueueQuotaTree, ALendingLimitKeepsTheRestForTheQueue) {
  QuotaTree t = tree(cluster_queue("team-a-cq", "team-ab", "9") + cluster_queue("team-b-cq", "team-ab", "12", ", lendingLimit: 1"));
  const NodeId a = *t.cluster_queue("team-a-cq"), b = *t.cluster_queue("team-b-cq");
  const std::uint32_t cpu = 0;
  // "team-a-cq can admit workloads of up to 10 CPUs" (its 9 and the 1 team-b lends); team-b up to 21.
  EXPECT_EQ(t.subtree_quota(*t.cohort("team-ab"), cpu), 10 * kCpu);
  EXPECT_EQ(t.local_quota(b, cpu), 11 * kCpu);
  EXPECT_EQ(t.available(a, cpu), 10 * kCpu);
  EXPECT_EQ(t.available(b, cpu), 21 * kCpu);
  // team-b's usage reaches the cohort only above the 11 it keeps.
  t.add_usage(b, cpu, 11 * kCpu);
  EXPECT_EQ(t.usage(*t.cohort("team-ab"), cpu), 0);
  EXPECT_EQ(t.available(a, cpu), 10 * kCpu);
  t.add_usage(b, cpu, 1 * kCpu);
  EXPECT_EQ(t.usage(*t.cohort("team-ab"), cpu), 1 * kCpu);
  EXPECT_EQ(t.available(a, cpu), 9 * kCpu);
  t.add_usage(b, cpu, -12 * kCpu);
  EXPECT_EQ(t.usage(*t.cohort("team-ab"), cpu), 0);
}

TEST(KueueQuotaTree, ACohortsOwnQuotaIsSharedByItsQueues) {
  // concepts/cohort.md: a ClusterQueue with nominal quota 0 in a Cohort of 12 CPUs admits up to 12.
  QuotaTree t = tree(cohort("hello-cohort", "", "12") + cluster_queue("hello-cq", "hello-cohort", "0"));
  EXPECT_EQ(t.available(*t.cluster_queue("hello-cq"), 0), 12 * kCpu);
  EXPECT_FALSE(t.borrowing(*t.cohort("hello-cohort"), 0));
}

TEST(KueueQuotaTree, AHierarchyGuaranteesItsSubtreesQuota) {
  // Cohort root; cohort guaranteed (parent root, 3 CPUs); ClusterQueues best-effort (in root) and
  // guaranteed (in guaranteed), 0 CPUs each. best-effort may use all 3; once it does, guaranteed
  // has nothing available and must reclaim what its cohort deserves.
  QuotaTree t = tree(cohort("root", "", "") + cohort("guaranteed", "root", "3") + cluster_queue("best-effort", "root", "0") +
                     cluster_queue("guaranteed", "guaranteed", "0"));
  const NodeId best = *t.cluster_queue("best-effort"), guaranteed = *t.cluster_queue("guaranteed");
  EXPECT_EQ(t.subtree_quota(*t.cohort("root"), 0), 3 * kCpu);
  EXPECT_EQ(t.available(best, 0), 3 * kCpu);
  t.add_usage(best, 0, 3 * kCpu);
  EXPECT_EQ(t.available(guaranteed, 0), 0);
  EXPECT_TRUE(t.borrowing(best, 0));
  // An implicit cohort (named, never defined) has no quota of its own.
  QuotaTree implicit = tree(cluster_queue("a", "nowhere", "2"));
  EXPECT_EQ(implicit.subtree_quota(*implicit.cohort("nowhere"), 0), 2 * kCpu);
}

}  // namespace
}  // namespace gpusim::k8s::kueue
