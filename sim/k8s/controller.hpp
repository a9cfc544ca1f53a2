#pragma once
// The pods' owners (a Job, a ReplicaSet): when a pod fails for a reason outside its own program
// (refused at admission, its GPU or node lost, evicted, its node removed) the owner creates a replacement after the Job controller's
// pod-failure backoff, base x 2^(failures - 1) capped at the maximum, and gives up after
// backoff_limit failures (a Job's pods count together). Trace-failed pods are not replaced: the trace says how they ended.
#include <vector>

#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

class Controller final : public Component {
 public:
  Controller(Bus& bus, const KubeSettings& settings, const traces::Workload& workload);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t source, core::Time now) override;

  // Pods whose owner gave up (failures past the backoff limit).
  std::int64_t given_up() const { return given_up_; }
  std::int64_t recreated() const { return recreated_; }

 private:
  Bus& bus_;
  const KubeSettings& settings_;
  // Failures count against the owner: a Job (all its pods together, as Kubernetes counts
  // backoffLimit) or the row's own owner.
  std::size_t owner_of(std::uint32_t source) const;
  const traces::Workload& workload_;
  std::vector<std::int32_t> failures_;  // per owner: rows first, then Jobs
  std::vector<std::int32_t> attempt_;   // per trace row: replacements created
  std::vector<std::uint8_t> deleted_;   // the owner deleted it while a replacement was due
  std::int64_t given_up_ = 0;
  std::int64_t recreated_ = 0;
};

}  // namespace gpusim::k8s
