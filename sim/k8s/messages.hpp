#pragma once
// What the Kubernetes layer's components tell each other. Every message is a small plain value
// delivered through the event queue, so that components never call one another and a new
// component only subscribes to the topics it cares about.
#include <cstdint>

#include "sim/cluster/node.hpp"

namespace gpusim::k8s {

using PodId = std::uint32_t;  // index of a pod object in the API server (one per incarnation)
inline constexpr PodId kNoPod = UINT32_MAX;

enum class Topic : std::uint8_t {
  kPodCreated,     // a pod object was created: `source` (trace row), `value` (attempt); the API
                   // server fills in `pod`
  kPodDeleted,     // its owner deleted a pod that was still pending (`pod`, or kNoPod when the
                   // owner deleted it before creating it: `source`)
  kPodBound,       // the scheduler bound `pod` to `node`; `gpus`: its GPU annotation (honoured
                   // on scheduler-assigned nodes, ignored elsewhere)
  kPodAdmitted,    // the kubelet admitted `pod`; Allocate mapped the devices `gpus`
  kPodRunning,     // its containers started
  kPodTerminated,  // `pod` ended for `reason` (after running, or refused at admission)
  kNodeStatus,     // the kubelet published `node`'s status: `value` GPUs allocatable, `gpus` the
                   // devices it does not advertise (scheduler-assigned nodes read them)
  kGpuEvent,       // an XID `value` on device `gpus` (one bit) of `node`; `value` 0: repaired
  kPluginRestart,  // `node`'s device plugin restarts and registers again after `value` seconds
  kGpusReleased,   // the kubelet gave `pod`'s devices `gpus` back (after the 1.6 freeing delay)
  kCycleDone,      // the scheduler finished one scheduling cycle
  kNodeJoined,     // `node` joined the cluster (or was there from the start: not published)
  kNodeRemoved,    // `node` was removed (drained and deleted): its pods end
  kNodeLost,       // `node` stopped answering (crashed): its pods stop, the API server does not know
  kNodeRecovered,  // a lost `node` is back: its kubelet reports its pods failed
  kNodeTaints,     // the node lifecycle controller set `node`'s lifecycle taints (`value`: NodeTaint bits)
  kEvictRequest,   // the descheduler (`value` 0) or the scheduler asks to evict `pod` (on `node`)
                   // through the eviction API: 1 a preemption, 2 a suspension at a time-sharing
                   // round's end (after a checkpoint: nothing lost), 3 a preemption that keeps all
                   // its work (--free-preemption)
  kMigReconfigure, // the MIG partitioner asks `node`'s kubelet to re-partition GPU `value` to HAMi
                   // template `layout` (ignored unless the GPU is idle)
  kPodKill,        // the Job controller deletes admitted `pod` because its Job failed: its kubelet
                   // stops it and reports it ended for `reason`
  kJobFailed,      // Job `value` (an index of Workload::jobs) failed for `reason`: no more pods
  kOwnerGaveUp,    // the implicit owner of trace row `source` (a row of no Job) replaces its failed
                   // `pod` no more: more failures than the backoff limit; the row has ended
  kJobSuspended,   // a queueing system (Kueue) suspended Job `value`, or created it suspended:
                   // its activeDeadlineSeconds timer stops
  kJobResumed,     // it resumed Job `value` (admitted it): the timer starts again from now
  kPodUnschedulable,  // the scheduler found at `pod`'s creation that no node could ever take it (larger
                      // than any node): it stays Pending, out of the queue, and blocks nothing
  kContainerFailed,     // `pod`'s container failed for `reason` (OOMKilled, GpuLost) and will restart in
                        // place (restartPolicy OnFailure): its devices `gpus`; `value` 1 if it was running
                        // its work (0: it failed as it started, on a GPU still lost)
  kContainerRestarted,  // the kubelet restarted `pod`'s failed container in place (restartPolicy
                        // OnFailure): `value` is the pod's restart count now
  kNodeMetrics,         // koordlet's agents wrote their NodeMetric reports (cluster/node_metrics.hpp):
                        // pods the load-aware plugin turned away are tried again, as Koordinator's
                        // plugin registers NodeMetric updates as its cluster events
  kCount,
};

enum class Reason : std::uint8_t {
  kNone,
  kSucceeded,                 // ran its trace duration
  kTraceFailed,               // the trace says it failed: ran until its failure
  kDeletedByOwner,            // a trace-Pending pod gpusim ran; its owner deleted it at its deadline
  kUnexpectedAdmissionError,  // the scheduler counted devices the kubelet did not have
  kGpuLost,                   // its GPU fell off the bus (XID) while it ran
  kEvicted,                   // its node was unreachable past its toleration (taint manager)
  kNodeLost,                  // its node crashed and came back: the kubelet reports it failed
  kNodeRemoved,               // its node was removed from the cluster
  kOomKilled,                 // its GPU memory ran out (a co-runner's overrun, or its own past an MPS limit)
  kDescheduled,               // evicted by the descheduler to defragment GPUs
  kPreempted,                 // evicted by the scheduler to make room for a pod it ranks higher
  kSuspended,                 // suspended at a time-sharing round's end (it comes back, like a
                              // suspended Job: no failure counted)
  // The Job controller deleted the pod because its Job failed (the Job's condition reason).
  kBackoffLimitExceeded,      // more failed pods than spec.backoffLimit
  kDeadlineExceeded,          // spec.activeDeadlineSeconds passed
  kPodFailurePolicy,          // a spec.podFailurePolicy rule with action FailJob matched
  kUnschedulable,             // still Pending: no node could ever take it (kPodUnschedulable)
};

// Taints the node lifecycle controller manages, as bits of kNodeTaints' value.
enum NodeTaint : std::uint32_t {
  kUnreachableNoSchedule = 1,  // node.kubernetes.io/unreachable:NoSchedule
  kUnreachableNoExecute = 2,   // node.kubernetes.io/unreachable:NoExecute
};

const char* to_string(Reason reason);

// kPodTerminated with Reason::kPreempted or kDescheduled carries in `value` the pod's work still to
// do (what its last checkpoint left), in microseconds of its trace run time: an integer, so that
// work is conserved exactly over any number of suspensions.

struct Message {
  Topic topic = Topic::kPodCreated;
  Reason reason = Reason::kNone;
  PodId pod = kNoPod;
  std::uint32_t source = 0;  // trace row
  std::uint32_t node = 0;
  cluster::GpuSet gpus;
  std::int64_t value = 0;
  // Dynamic MIG: per GPU of `node` (4 bits each, GPU 0 lowest) its layout id (NodeSetup), and
  // bit 63 set; kMigReconfigure: the new layout id.
  std::uint64_t layout = 0;
};

// `pod` (of trace row `source`, bound to `node`, holding `gpus`) ended for `reason`.
inline Message pod_terminated(PodId pod, std::uint32_t source, std::uint32_t node, Reason reason,
                              cluster::GpuSet gpus = {}) {
  Message message;
  message.topic = Topic::kPodTerminated;
  message.reason = reason;
  message.pod = pod;
  message.source = source;
  message.node = node;
  message.gpus = gpus;
  return message;
}

}  // namespace gpusim::k8s
