#pragma once
// The reader of `kind: Job` objects (batch/v1): spec.parallelism and spec.completions (the Job's
// pods, named <job>-0, <job>-1, ...), its failure handling (backoffLimit, activeDeadlineSeconds,
// podFailurePolicy's rules on exit codes and the DisruptionTarget condition), the template's
// restartPolicy (Never or OnFailure) and the template's pod spec (pod_reader.hpp), with gpusim's
// annotations on the Job or its template. Spec fields that change how a Job runs but gpusim does
// not model are named in a note; suspended Jobs and FailIndex rules are refused. Field rules:
// traces/README.md, "Workload (kind: Pod, kind: Job, kind: PriorityClass)"; what the owners do
// with them: sim/k8s/README.md, "Owners".
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/priority_class_reader.hpp"
#include "traces/k8s/workload_builder.hpp"

namespace gpusim::traces::k8s {

// One Job object (its kind checked by the caller): its pods and its JobSpec into the workload.
void read_job(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder);

}  // namespace gpusim::traces::k8s
