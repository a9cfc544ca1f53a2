#pragma once
// Volcano's Queue objects (scheduling.volcano.sh/v1beta1, kind Queue; several in one file as YAML
// documents or a kind: List) read into the per-queue GPU quotas of sim/k8s/queue_quotas.hpp, the
// QueueQuotas the policies proportion and capacity read. Fields, defaults and validation follow
// volcano-sh/apis pkg/apis/scheduling/v1beta1/types.go (QueueSpec; weight 1..65535, default 1;
// reclaimable default true) and Volcano's admission webhooks (volcano-sh/volcano
// pkg/webhooks/admission/queues/{mutate,validate}: weight 0 becomes 1; a guarantee needs a deserved
// amount at least as large, and deserved must not pass capability, resource by resource; extended
// resources such as nvidia.com/gpu in whole units). The mapping, and what is not modelled, is in
// policies/README.md, "Volcano's configuration". Errors name the file, the line and the field.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/k8s/queue_quotas.hpp"

namespace gpusim::k8s {

struct VolcanoQueue {
  std::string name;  // metadata.name
  QueueQuota quota;  // its nvidia.com/gpu amounts, weight and reclaimable
  int line = 0;      // metadata.name's line, for messages
};

struct VolcanoQueueList {
  std::string file;
  std::vector<VolcanoQueue> queues;  // in file order
  // What gpusim leaves out (CPU and memory amounts, status.state, ...), for the user.
  std::vector<std::string> notes;
};

// Whether a file's first YAML document is a Volcano Queue, or a List whose first item is one
// (cheap: looks at apiVersion and kind only; never throws).
bool is_volcano_queue_list(const YAML::Node& first_document);

// Every Queue of the text; throws core::InputError "file:line: field: why".
VolcanoQueueList parse_volcano_queue_list(const std::string& text, const std::string& source);
VolcanoQueueList load_volcano_queue_list(const std::filesystem::path& path);

// The quotas of the workload's queues, indexed as `workload_queues` (Workload::queues), followed by
// the Queue objects no workload queue names: no job uses them, but their guarantees stay reserved,
// as Volcano subtracts every queue's guarantee from what the others may hold. A workload without
// queues runs in Volcano's queue "default". Every workload queue needs a Queue object (Volcano
// leaves the jobs of a queue that does not exist pending), except "default", which Volcano always
// creates (weight 1). Throws core::InputError.
QueueQuotas volcano_queue_quotas(const VolcanoQueueList& list, const std::vector<std::string>& workload_queues);

}  // namespace gpusim::k8s
