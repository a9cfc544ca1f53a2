#pragma once
// The workload being built from a file's Pod and Job objects: its pods in file order (a Job's
// consecutive), pod and Job names unique in the file, and what the notes say about them
// (defaults applied, fields gpusim reads but does not model), tallied per pod and per Job.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "sim/cluster/pod.hpp"
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

  // Appends a pod whose name must be unique in the file; `owner` is the Pod or Job object.
  void add(cluster::PodSpec pod, const Fields& owner);
  // Adds the per-pod tallies of one pod template (`one`) for each of a Job's `pods`.
  void scale_tally(const WorkloadTally& one, std::int64_t pods);
};

// The notes of a file's pods and Jobs, appended to w.notes.
void workload_notes(const WorkloadTally& t, Workload& w);

}  // namespace gpusim::traces::k8s
