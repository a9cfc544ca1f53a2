#pragma once
// What a trace reader produces: a cluster description and a list of pods, both in gpusim's own
// types, with the source they came from (for reports and manifests).
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/core/time.hpp"

namespace gpusim::traces {

// What a Kubernetes Node object (or its gpusim annotations) says about the simulated Kubernetes
// layer of that node; empty strings leave the --kube settings' choice.
struct NodeKube {
  std::string device_plugin;  // scheduler-assigned, device-plugin, accelerators-1.6, alpha-1.3, gpushare
  // device-plugin taken from what the node advertises (nvidia.com/gpu, GFD labels), not from an
  // annotation: a --kube pool or default model may name another model that advertises nvidia.com/gpu.
  bool device_plugin_implied = false;
  std::string device_choice;  // first-fit, preferred
  std::string topology;       // a template of sim/topology
  core::Time joins_at;        // when the node joins the cluster (0: from the start)
  std::optional<core::Time> leaves_at;  // when it is removed, if ever
};

struct ClusterSpec {
  std::string source;  // path or bundled name
  std::vector<cluster::NodeSpec> nodes;
  std::vector<NodeKube> kube;  // empty, or one per node (manifests)
  std::vector<std::string> notes;  // defaults applied and what was not understood, for the user
  int skipped_lines = 0;  // blank and comment lines in the file
};

// One rule of a Job's spec.podFailurePolicy (batch/v1). The first rule that matches a failed pod
// decides what its failure does (sim/k8s/README.md, "Jobs"); a failure no rule matches counts.
enum class FailureAction : std::uint8_t { kCount, kFailJob, kIgnore };
struct PodFailureRule {
  FailureAction action = FailureAction::kCount;
  // onPodConditions: [{type: DisruptionTarget}] (the one condition gpusim's disruptions set).
  bool on_disruption = false;
  // onExitCodes: operator In (else NotIn) over `exit_codes`, for the container `container` ("":
  // any). Empty `exit_codes`: the rule is on conditions.
  bool exit_codes_in = true;
  std::vector<std::int32_t> exit_codes;
  std::string container;
};

// A Job: `completions` pods in all, at most `parallelism` at once; its pods are consecutive rows
// of Workload::pods whose constraints name it.
struct JobSpec {
  std::string name;
  std::int32_t parallelism = 1;
  std::int32_t completions = 1;
  std::optional<std::int32_t> backoff_limit;  // spec.backoffLimit; none: the owners' setting (6)
  std::optional<core::Time> active_deadline;  // spec.activeDeadlineSeconds, from the Job's start
  bool restart_on_failure = false;            // the template's restartPolicy OnFailure (else Never)
  std::optional<int> suspend_line;            // spec.suspend: true, at this line of the file
  std::vector<PodFailureRule> pod_failure_rules;
};

struct Workload {
  std::string source;
  std::vector<cluster::PodSpec> pods;
  std::vector<JobSpec> jobs;
  std::vector<std::string> notes;  // defaults applied and what was not understood, for the user
  bool has_times = false;  // whether creation/deletion times were present
  int skipped_lines = 0;   // blank and comment lines in the file
  // Queue names (PodSpec::queue indexes them); empty: the trace has no queues.
  std::vector<std::string> queues;
  // Per pod, the KAI Queue its manifest's kai.scheduler/queue label names ("" none); empty when no
  // object names one. Under policy kai these replace `queues` (unlabelled pods: default-queue).
  struct KaiQueueLabel {
    std::string queue;  // "" none
    int line = 0;       // the label's, for messages
  };
  std::vector<KaiQueueLabel> kai_queue_of_pod;
  // Service names (PodSpec::app indexes them); empty: the trace has none.
  std::vector<std::string> apps;
  // Whether some pods form gangs (PodSpec::gang).
  bool has_gangs = false;
};

}  // namespace gpusim::traces
