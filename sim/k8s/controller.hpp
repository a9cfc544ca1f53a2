#pragma once
// The pods' owners. Three kinds (sim/k8s/README.md, "Owners"):
// - a Job from a manifest follows its own spec: backoffLimit, podFailurePolicy,
//   activeDeadlineSeconds, and with restartPolicy OnFailure its pods' container restarts;
// - a trace row (openb, Philly, DLRM, native) has an implicit owner, a Job with the --kube
//   owners' backoffLimit whose disruptions (preemption, descheduling) never count;
// - a bare `kind: Pod` has none: a failed one stays Failed.
// A failed pod that counts is replaced after the Job controller's pod-failure backoff,
// base x 2^(failures since the owner's last success - 1) capped at the maximum; the owner gives up
// (a Job fails with BackoffLimitExceeded) when its failures, all counted, pass the limit.
// Trace-failed pods are not replaced: the trace says how they ended.
#include <array>
#include <vector>

#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

// Failures the Job controller replaces (restartPolicy Never): the pod ended for a reason outside
// the trace's own account of it. Any other end is the pod's last.
bool replaceable(Reason reason);

class Controller final : public Component {
 public:
  Controller(Bus& bus, const ApiServer& api, const KubeSettings& settings, const traces::Workload& workload);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  // Pods whose owner gave up (failures past the backoff limit, or their Job failed).
  std::int64_t given_up() const { return given_up_; }
  std::int64_t recreated() const { return recreated_; }
  // Manifest Jobs that failed, by their condition's reason: BackoffLimitExceeded,
  // DeadlineExceeded, PodFailurePolicy.
  std::array<std::int64_t, 3> jobs_failed() const { return jobs_failed_; }
  std::int64_t jobs_succeeded() const { return jobs_succeeded_; }
  // Containers the kubelets restarted in place (restartPolicy OnFailure).
  std::int64_t container_restarts() const { return container_restarts_; }

 private:
  // Failures count against the owner: a Job (all its pods together, as Kubernetes counts
  // backoffLimit) or the row's own implicit owner.
  std::size_t owner_of(std::uint32_t source) const;
  std::int32_t job_of(std::uint32_t source) const;
  void pod_failed(const Message& message, core::Time now);
  void fail_job(std::size_t job, Reason reason, core::Time now);
  // activeDeadlineSeconds from now (again, after a suspension), if the Job has one; or no more.
  void start_deadline(std::size_t job, core::Time now);
  void stop_deadline(std::size_t job);
  // A queueing system suspended (or resumed) the Job (kJobSuspended, kJobResumed).
  void job_suspension(std::size_t job, bool resumed, core::Time now);
  // restartPolicy OnFailure: a Job whose running and pending pods restarted as often as its
  // backoffLimit fails (the Job controller's pastBackoffLimitOnFailure).
  void container_restarted(const Message& message, core::Time now);

  Bus& bus_;
  const ApiServer& api_;
  const KubeSettings& settings_;
  const traces::Workload& workload_;
  std::vector<std::int32_t> failures_;        // per owner (rows first, then Jobs): all counted failures
  std::vector<std::int32_t> since_success_;   // per owner: counted failures since its last success
  std::vector<std::int32_t> attempt_;         // per trace row: replacements created
  std::vector<std::uint8_t> deleted_;         // the owner deleted it while a replacement was due
  std::vector<std::uint32_t> first_of_job_;   // per Job: its first row (its pods are consecutive)
  std::vector<std::int32_t> succeeded_;       // per Job: pods that succeeded
  std::vector<std::uint8_t> job_started_;     // per Job: its first pod was created
  std::vector<std::uint8_t> job_ended_;       // per Job: it failed or completed
  std::vector<core::EventId> deadline_timer_; // per Job: its activeDeadlineSeconds timer, if set
  std::vector<std::uint8_t> job_suspended_;   // per Job: a queueing system holds it suspended
  std::vector<std::int32_t> job_restarts_;    // per Job: container restarts of its pods not ended
  std::vector<std::int32_t> pod_restarts_;    // per pod object: its container restarts
  std::int64_t container_restarts_ = 0;
  std::int64_t given_up_ = 0;
  std::int64_t recreated_ = 0;
  std::array<std::int64_t, 3> jobs_failed_{};
  std::int64_t jobs_succeeded_ = 0;
};

}  // namespace gpusim::k8s
