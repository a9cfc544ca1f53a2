#pragma once
// Why no node could take a pod, in kube-scheduler's words: its FitError, the message that
// `kubectl describe pod` shows in the FailedScheduling event, e.g.
//   0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient nvidia.com/gpu.
// kube-scheduler builds it in pkg/scheduler/framework/types.go, FitError.Error(): each rejected
// node contributes the reasons of the first Filter plugin that rejected it, every reason is
// counted over the nodes ("N reason"), those strings are sorted as Go's sort.Strings sorts them
// (bytewise, so "10 x" comes before "2 y") and joined with ", ", and the message ends with ".".
// kube-scheduler with DefaultPreemption appends the PostFilter's own message (" preemption: 0/3
// nodes are available: 3 Preemption is not helpful for scheduling."); gpusim's profiles do not run
// that plugin, so the message stops at the Filter part.
//
// Diagnosis code, not the hot path: it runs once per pod that never ran, at the end of a run.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/check.hpp"

namespace gpusim::sched {

// kube-scheduler's default Filter plugins in the order it runs them: the first that rejects a
// node gives that node's reasons. gpusim's filters may run in another order (feasibility does not
// depend on it), so each reason names the kube-scheduler plugin it stands for.
enum class KubeFilter : std::uint8_t {
  kNodeUnschedulable,
  kTaintToleration,
  kNodeAffinity,
  kNodeResourcesFit,
  kOther,  // gpusim's own checks, which kube-scheduler has no plugin for (after the defaults)
};

// The reasons nodes were rejected for, counted without building a string per node: a reason is
// up to five parts (a static text and names that live as long as the diagnosis, e.g.
// "Insufficient " + "nvidia.com/gpu"), compared in place with those counted already.
class NodeReasons {
 public:
  static constexpr std::size_t kMaxParts = 5;
  static constexpr std::size_t kMaxPerNode = 8;

  // One reason of the node being diagnosed, given by the kube-scheduler plugin `by`. Inline: the
  // filters call it for most nodes of the cluster, once per pod shape diagnosed.
  void reject(KubeFilter by, std::initializer_list<std::string_view> parts) {
    // More parts or reasons than any filter gives would be a bug; they are not dropped silently.
    GPUSIM_CHECK(parts.size() <= kMaxParts && node_size_ < kMaxPerNode, "a filter reason of too many parts, or too many reasons");
    Pending& reason = node_[node_size_++];
    reason.by = by;
    reason.size = 0;
    reason.length = 0;
    for (const std::string_view part : parts) {
      reason.parts[reason.size++] = part;
      reason.length += part.size();
    }
  }
  // The node is done: its reasons of the first plugin (in kube-scheduler's order) that gave any
  // are counted, once each. Returns whether the node was rejected at all.
  bool end_node();
  // Reason text and how many nodes gave it, in first-counted order.
  const std::vector<std::pair<std::string, std::int64_t>>& counts() const { return counts_; }

 private:
  struct Pending {
    KubeFilter by;
    std::array<std::string_view, kMaxParts> parts;
    std::size_t size;
    std::size_t length;  // of the text: reasons of other lengths differ without a look at their characters
  };
  void count(const Pending& reason);
  std::array<Pending, kMaxPerNode> node_{};
  std::size_t node_size_ = 0;
  std::vector<std::pair<std::string, std::int64_t>> counts_;
  // Per counted reason, the parts it was first given as: the same static texts and names come
  // back node after node, so most reasons are found by comparing pointers, not characters.
  std::vector<Pending> first_parts_;
};

struct FitError {
  std::int64_t nodes = 0;  // NumAllNodes: the nodes the scheduler knew of
  // A PreFilter plugin's rejection of the pod as a whole (then no node was looked at).
  std::string pre_filter;
  std::vector<std::pair<std::string, std::int64_t>> reasons;  // reason -> nodes that gave it

  // "0/N nodes are available: ..." (kube-scheduler's FitError.Error(), Filter part), or, with no
  // node at all, kube-scheduler's ErrNoNodesAvailable text.
  std::string message() const;
  // The distinct reasons without their node counts, sorted bytewise: what the pod is counted
  // under in summary.json (two messages that differ only in node counts have the same causes).
  std::vector<std::string> causes() const;
};

// Why a pod never ran: pods.csv's reason (`text`) and what summary.json counts it under
// (`causes`: a FitError's reasons without node counts, or one short name for other waits).
struct NeverRanReason {
  std::string text;
  std::vector<std::string> causes;
};

inline NeverRanReason never_ran_reason(const FitError& fit) { return {fit.message(), fit.causes()}; }

}  // namespace gpusim::sched
