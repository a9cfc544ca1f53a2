#pragma once
// Kueue's objects (kubernetes-sigs/kueue, read at v0.19.2) as users write them, in either served
// version: kueue.x-k8s.io/v1beta1 (ClusterQueue `spec.cohort`) and v1beta2 (the storage version
// the current docs write: `spec.cohortName`), several in one file as YAML documents or a kind:
// List. Kinds: ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, and the
// controller's Configuration (config.kueue.x-k8s.io/v1beta1 or v1beta2). Fields, defaults and the
// webhooks' and CRDs' validation follow apis/kueue/v1beta1/*_types.go, pkg/webhooks/*_webhook.go and
// apis/config/v1beta1/{configuration_types,defaults}.go; what gpusim leaves out (admission checks,
// topology-aware scheduling, admission fair sharing) is refused or noted, field by field.
// Amounts are held as Kueue holds them (pkg/resources/amount.go, AmountFromQuantity): cpu in
// millicores, every other resource in whole units (memory in bytes, nvidia.com/gpu in GPUs),
// fractions rounded up. Errors name the file, the line and the field.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod_constraints.hpp"

namespace gpusim::k8s::kueue {

// One resource of one flavor in a resource group: its nominal quota and limits (null: none).
struct ResourceQuota {
  std::string resource;
  std::int64_t nominal = 0;
  std::optional<std::int64_t> borrowing_limit;
  std::optional<std::int64_t> lending_limit;
};

struct FlavorQuotas {
  std::string flavor;
  std::vector<ResourceQuota> resources;  // in coveredResources' order
};

struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;  // tried in this order
};

enum class QueueingStrategy : std::uint8_t { kBestEffortFifo, kStrictFifo };
enum class WithinClusterQueue : std::uint8_t { kNever, kLowerPriority, kLowerOrNewerEqualPriority };
enum class ReclaimWithinCohort : std::uint8_t { kNever, kLowerPriority, kAny };
enum class BorrowWithinCohort : std::uint8_t { kNever, kLowerPriority };
enum class FungibilityPolicy : std::uint8_t { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference : std::uint8_t { kBorrowingOverPreemption, kPreemptionOverBorrowing };
enum class StopPolicy : std::uint8_t { kNone, kHold, kHoldAndDrain };

struct PreemptionPolicy {
  WithinClusterQueue within_cluster_queue = WithinClusterQueue::kNever;
  ReclaimWithinCohort reclaim_within_cohort = ReclaimWithinCohort::kNever;
  BorrowWithinCohort borrow_within_cohort = BorrowWithinCohort::kNever;
  std::optional<std::int32_t> max_priority_threshold;  // borrowWithinCohort's
};

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::kBorrowingOverPreemption;
};

// A metav1.LabelSelector: every matchLabels entry and every requirement must hold.
struct LabelSelector {
  cluster::Labels match_labels;
  std::vector<cluster::SelectorRequirement> match_expressions;  // In, NotIn, Exists, DoesNotExist
};

struct ResourceFlavor {
  std::string name;
  cluster::Labels node_labels;
  std::vector<cluster::Taint> node_taints;
  std::vector<cluster::Toleration> tolerations;
  std::string file;  // where it was read, and metadata.name's line, for messages
  int line = 0;
};

struct ClusterQueue {
  std::string name;
  std::string cohort;  // "" : none (it neither borrows nor lends)
  // Null selects no namespace (Kueue's default); an empty selector selects every one.
  std::optional<LabelSelector> namespace_selector;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFifo;
  std::vector<ResourceGroup> resource_groups;
  PreemptionPolicy preemption;
  FlavorFungibility flavor_fungibility;
  double fair_sharing_weight = 1.0;  // 0: an infinite share when it borrows
  StopPolicy stop_policy = StopPolicy::kNone;
  std::string file;
  int line = 0;
};

struct Cohort {
  std::string name;
  std::string parent;  // "" : a root
  std::vector<ResourceGroup> resource_groups;  // quota the subtree shares, on top of its members'
  double fair_sharing_weight = 1.0;
  std::string file;
  int line = 0;
};

struct LocalQueue {
  std::string namespace_name = "default";
  std::string name;
  std::string cluster_queue;
  // gpusim's annotation gpusim.io/trace-queues (comma-separated): the trace's queues (Philly's
  // virtual clusters) whose jobs name this LocalQueue, besides the one it is named after.
  std::vector<std::string> trace_queues;
  StopPolicy stop_policy = StopPolicy::kNone;
  std::string file;
  int line = 0;
};

struct WorkloadPriorityClass {
  std::string name;
  std::int32_t value = 0;
  std::string file;
  int line = 0;
};

enum class FairSharingStrategy : std::uint8_t { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

// The Kueue controller's Configuration, the parts that change admission.
struct Configuration {
  bool fair_sharing = false;
  std::vector<FairSharingStrategy> preemption_strategies{FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                                         FairSharingStrategy::kLessThanInitialShare};
  bool manage_jobs_without_queue_name = false;
  std::vector<std::string> exclude_resource_prefixes;
  // v1beta2's resources.quotaCheckStrategy: a resource no group covers blocks admission
  // (BlockUndeclared, the default) or is ignored (IgnoreUndeclared).
  bool ignore_undeclared_resources = false;
  bool wait_for_pods_ready = false;
  std::string file;  // where it was read; "" : the defaults
  int fair_sharing_line = 0;
};

struct Objects {
  std::vector<ResourceFlavor> resource_flavors;
  std::vector<ClusterQueue> cluster_queues;
  std::vector<Cohort> cohorts;
  std::vector<LocalQueue> local_queues;
  std::vector<WorkloadPriorityClass> priority_classes;
  std::optional<Configuration> configuration;
  // What gpusim reads but does not model (status, admission-check names, ...), for the user.
  std::vector<std::string> notes;
};

// Whether a file's first YAML document is a Kueue object, a Kueue Configuration, or a List whose
// first item is one (looks at apiVersion and kind only; never throws).
bool is_kueue_file(const YAML::Node& first_document);

// Every object of the text, added to `into` (several files make one set); throws
// core::InputError "file:line: field: why". Checks within the file only: names unique per kind,
// limits only with a cohort, one Configuration.
void parse_kueue_objects(const std::string& text, const std::string& source, Objects& into);

// Checks across the files, once all are read: every flavor a ClusterQueue or Cohort names exists,
// every LocalQueue's ClusterQueue exists, no cycle of Cohort parents (Kueue would keep such queues
// inactive, their workloads pending for ever: in a simulation that is a mistake to report); throws
// core::InputError naming the object's file and line.
void check_kueue_references(const Objects& objects);

// Where a workload queue's jobs go: the ClusterQueue ("" : none, Kueue leaves them alone), the
// LocalQueue's namespace (the Workloads'), and whether the LocalQueue is stopped (its jobs stay
// suspended: Kueue queues no Workload of a stopped LocalQueue).
struct QueueRoute {
  std::string cluster_queue;
  std::string namespace_name = "default";
  std::string local_queue;
  bool stopped = false;
};

// What a run gives the kueue policy: the objects, and per workload queue (Workload::queues; one,
// "default", for a workload without queues) where its jobs go.
struct Setup {
  Objects objects;
  std::vector<QueueRoute> routes;
  // Per Job of a manifest (Workload::jobs): the count of its Workload's pod set, min(parallelism,
  // completions), as Kueue's Job integration counts it.
  std::vector<std::int32_t> job_pod_counts;
};

// The ClusterQueue each of a workload's queues (a trace's, e.g. Philly's virtual clusters) submits
// to: through the LocalQueue in namespace default named as the queue (a manifest's queue,
// "<namespace>/<name>" from its kueue.x-k8s.io/queue-name label, names it whole), or the one whose
// gpusim.io/trace-queues annotation lists it; "" when none, and Kueue leaves those jobs alone (a
// Job without the queue-name label). A workload without queues submits to LocalQueue
// default/default if there is one (Kueue's webhook labels Jobs so). Throws core::InputError when
// two LocalQueues claim one queue.
std::vector<QueueRoute> routes_of_trace_queues(const Objects& objects, const std::vector<std::string>& queues);

}  // namespace gpusim::k8s::kueue
