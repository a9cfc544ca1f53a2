#pragma once
// The KAI Scheduler's Queue objects (kai-scheduler/KAI-Scheduler, read at d5bc503a:
// pkg/apis/scheduling/v2/{queue_types.go,resources.go}, docs/queues/README.md) as users write them:
// scheduling.run.ai/v2, kind Queue, several in one file as YAML documents or a kind: List. Per
// resource (gpu in devices, cpu in millicores, memory in megabytes of 10^6 bytes) a quota (deserved;
// -1: unlimited), an over-quota weight and a limit (-1: none; 0 or omitted: nothing, as KAI reads an
// omitted float64), and per queue its parent, its over-quota priority (default 100) and the minimum
// runtimes of its jobs before preemption or reclaim. KAI validates little (only spec.resources is
// required); gpusim refuses what KAI would turn into a queue that never schedules (a missing parent
// deletes the subtree as an orphan; a cycle of parents) and values KAI gives no meaning (negative
// amounts other than -1). Errors name the file, the line and the field.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/k8s/kai_fair_share.hpp"  // kUnlimited: a quota or limit of -1

namespace gpusim::k8s::kai {

struct QueueResource {
  double quota = 0;
  double over_quota_weight = 0;
  double limit = 0;
};

struct Queue {
  std::string name;          // metadata.name: the queue's id
  std::string display_name;  // spec.displayName ("" : none)
  std::string parent;        // spec.parentQueue ("" : a top-level queue)
  std::int32_t priority = 100;
  QueueResource gpu, cpu, memory;
  std::optional<core::Time> preempt_min_runtime, reclaim_min_runtime;
  // gpusim's annotation gpusim.io/trace-queues (comma-separated): the trace's queues (Philly's
  // virtual clusters) whose jobs name this queue, besides the one it is named after.
  std::vector<std::string> trace_queues;
  std::string file;  // where it was read, and metadata.name's line, for messages
  int line = 0;
};

struct Queues {
  std::vector<Queue> queues;  // in the order read (KAI's creation order in ties)
  // What gpusim reads but does not model, for the user.
  std::vector<std::string> notes;
};

// Whether a file's first YAML document is a KAI Queue, or a List whose first item is one (looks at
// apiVersion and kind only; never throws).
bool is_kai_file(const YAML::Node& first_document);

// Every Queue of the text, added to `into` (several files make one set); throws core::InputError
// "file:line: field: why". Names are unique across the set.
void parse_kai_queues(const std::string& text, const std::string& source, Queues& into);

// Checks across the files, once all are read: every parent exists (KAI drops a queue whose parent is
// missing, with its subtree, and leaves its jobs pending), no cycle of parents.
void check_kai_queues(const Queues& queues);
// The cycles of parents alone (a parent not among `queues` ends the walk): what one file can tell.
void check_kai_parent_cycles(const Queues& queues);

// The leaf queue each of a workload's queues submits to, by index into `queues.queues`: the queue
// named as the trace's queue, or the one whose gpusim.io/trace-queues lists it, else KAI's
// podgrouper default, default-queue. A workload without queues submits to default-queue. Throws
// core::InputError when a trace queue has no Queue (KAI would leave its jobs pending:
// QueueDoesNotExist), names a queue with children (only leaf queues schedule jobs), or is claimed
// by two queues.
std::vector<std::uint32_t> leaves_of_trace_queues(const Queues& queues, const std::vector<std::string>& trace_queues);

// What a run gives the kai policy.
struct Setup {
  Queues queues;
  std::vector<std::uint32_t> leaf_of_trace_queue;  // per workload queue
};

}  // namespace gpusim::k8s::kai
