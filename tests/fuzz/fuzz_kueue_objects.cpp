// Fuzz target: Kueue's objects reader (ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
// WorkloadPriorityClass, the Configuration; sim/k8s/kueue_objects.hpp), its cross-file checks, the
// trace-queue routes and the quota tree built on what it accepts. Accepted objects must hold what
// Kueue's webhooks admit (limits only with a cohort, weights >= 0, quotas >= 0); the tree, with some
// usage added to every ClusterQueue, never has negative availability nor more available than its
// potential, and gives the usage back exactly.
#include <cstdio>
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/k8s/kueue_objects.hpp"
#include "sim/k8s/kueue_quota_tree.hpp"
#include "traces/k8s/yaml_documents.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace gpusim::k8s::kueue;

// A broken invariant is a crash; the message says which.
void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz_kueue_objects: %s\n", what);
  std::abort();
}

void check_accepted(const Objects& objects) {
  for (const ClusterQueue& cq : objects.cluster_queues) {
    require(!(cq.fair_sharing_weight < 0), "cq.fair_sharing_weight < 0");
    for (const ResourceGroup& group : cq.resource_groups) {
      for (const FlavorQuotas& flavor : group.flavors) {
        require(!(flavor.resources.size() != group.covered_resources.size()), "flavor.resources.size() != group.covered_resources.size()");
        for (const ResourceQuota& quota : flavor.resources) {
          require(!(quota.nominal < 0 || (quota.borrowing_limit && *quota.borrowing_limit < 0)), "quota.nominal < 0 || (quota.borrowing_limit && *quota.borrowing_limit < 0)");
          require(!(quota.lending_limit && *quota.lending_limit < 0), "quota.lending_limit && *quota.lending_limit < 0");
          require(!(cq.cohort.empty() && (quota.borrowing_limit || quota.lending_limit)), "cq.cohort.empty() && (quota.borrowing_limit || quota.lending_limit)");
        }
      }
    }
  }
}

// Some usage for each ClusterQueue and (flavor, resource) pair: 1 to 3 units.
std::int64_t some_usage(NodeId node, std::uint32_t fr) { return 1 + static_cast<std::int64_t>((node + fr) % 3); }

void exercise_tree(const Objects& objects) {
  QuotaTree tree(objects);
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    if (!tree.is_cluster_queue(node)) continue;
    for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) tree.add_usage(node, fr, some_usage(node, fr));
  }
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) {
      require(!(tree.available(node, fr) < 0 || tree.local_quota(node, fr) < 0), "tree.available(node, fr) < 0 || tree.local_quota(node, fr) < 0");
      if (tree.is_cluster_queue(node)) (void)tree.borrowing_level(node, fr, 1);
    }
  }
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    if (!tree.is_cluster_queue(node)) continue;
    for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) tree.add_usage(node, fr, -some_usage(node, fr));
  }
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) {
      require(!(tree.usage(node, fr) != 0), "tree.usage(node, fr) != 0");
      require(!(tree.available(node, fr) > tree.potential_available(node, fr)), "tree.available(node, fr) > tree.potential_available(node, fr)");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const std::string text = fuzz::as_text(data, size);
  try {
    for (const YAML::Node& doc : traces::load_yaml_documents(text, "fuzz.yaml")) (void)is_kueue_file(doc);
  } catch (const core::InputError&) {
  }
  try {
    Objects objects;
    parse_kueue_objects(text, "fuzz.yaml", objects);
    check_accepted(objects);
    check_kueue_references(objects);
    exercise_tree(objects);
    std::vector<std::string> queues{"default", "a", "team-a", "vc1"};
    for (const LocalQueue& lq : objects.local_queues) queues.push_back(lq.name);
    const std::vector<QueueRoute> routes = routes_of_trace_queues(objects, queues);
    require(!(routes.size() != queues.size()), "routes.size() != queues.size()");
  } catch (const core::InputError&) {
  }
  return 0;
}
