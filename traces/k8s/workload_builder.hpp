#pragma once
// The workload being built from a file's Pod and Job objects: its pods in file order (a Job's
// consecutive), pod and Job names unique in the file, and what the notes say about them
// (defaults applied, fields gpusim reads but does not model), tallied per pod and per Job.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "sim/cluster/pod.hpp"
#include "traces/k8s/object_meta.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces::k8s {

struct WorkloadTally {
  std::int64_t default_arrival = 0;
  std::int64_t default_duration = 0;
  std::map<std::string, std::int64_t> unmodelled;  // resource name -> pods
  std::int64_t node_name = 0;
  std::int64_t preferred_affinity = 0;
  std::int64_t pod_affinity = 0;
  std::int64_t default_completions = 0;  // Jobs
  std::int64_t default_restart_policy = 0;  // Jobs whose template names no restartPolicy
  std::map<std::string, std::int64_t> unmodelled_job_fields;  // spec field -> Jobs
  std::int64_t other_conditions = 0;        // podFailurePolicy rules on conditions gpusim never sets
};

struct WorkloadBuilder {
  Workload workload;
  WorkloadTally tally;
  std::unordered_map<std::string, int> pod_names;  // a Job's pods share the Job's line
  std::unordered_map<std::string, int> job_names;
  std::int64_t generated_names = 0;  // metadata.generateName used so far
  // Per pod: its LocalQueue as "<namespace>/<name>", or its namespace alone when its object names none.
  std::vector<std::pair<std::string, bool>> queue_of_pod;
  // Per pod: the KAI Queue its object's kai.scheduler/queue label names, or "".
  std::vector<Workload::KaiQueueLabel> kai_queue_of_pod;

  // Appends a pod whose name must be unique in the file; `owner` is the Pod or Job object, `meta`
  // its metadata (the kueue.x-k8s.io/queue-name label names the pod's queue).
  // `template_labels`: a Job's pod template's, where KAI looks for its queue label after the Job's.
  void add(cluster::PodSpec pod, const Fields& owner, const Meta& meta, const Entries& template_labels = {});
  // Once every object is read: where some object names a Kueue LocalQueue, each pod's queue is
  // "<namespace>/<LocalQueue>", and a pod whose object names none has "<namespace>/default" (Kueue
  // gives a Job without the label its namespace's LocalQueue "default", if there is one:
  // LocalQueueDefaulting). Where none does, the workload has no queues.
  void assign_queues();
  // Adds the per-pod tallies of one pod template (`one`) for each of a Job's `pods`.
  void scale_tally(const WorkloadTally& one, std::int64_t pods);
};

// The object's kueue.x-k8s.io/priority-class label, if any, into `constraints` (a valid name, and its line).
void read_workload_priority_class(const Where& where, const Meta& meta, cluster::PodConstraints& constraints);

// The notes of a file's pods and Jobs, appended to w.notes.
void workload_notes(const WorkloadTally& t, Workload& w);

}  // namespace gpusim::traces::k8s
