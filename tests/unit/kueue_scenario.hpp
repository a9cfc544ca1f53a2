#pragma once
// The scenario tests' fixture for Kueue's admission engine: objects written as Kueue's docs and
// integration tests write them, workloads of whole cpus, and the engine's cycles at one instant.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/k8s/kueue_admission.hpp"

namespace gpusim::k8s::kueue {

inline constexpr std::int64_t kCpu = 1000;

inline std::string flavor(const std::string& name, const std::string& spec = "") {
  return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: " + name + "}\n" + spec;
}

// A ClusterQueue with cpu quotas, one line per flavor ("default: 2" or "one: 1, borrowingLimit: 10").
inline std::string cluster_queue(const std::string& name, const std::string& cohort, const std::vector<std::string>& flavors,
                          const std::string& extra = "") {
  std::string text = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + name +
                     "}\nspec:\n  namespaceSelector: {}\n" + (cohort.empty() ? "" : "  cohortName: " + cohort + "\n") + extra +
                     "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n";
  for (const std::string& f : flavors) {
    const auto colon = f.find(':');
    text += "    - name: " + f.substr(0, colon) + "\n      resources: [{name: cpu, nominalQuota: " + f.substr(colon + 1) + "}]\n";
  }
  return text;
}

// A Cohort, with cpu quota of its own when `cpus` is not empty.
inline std::string cohort(const std::string& name, const std::string& parent, const std::string& cpus = "", const std::string& weight = "") {
  std::string text = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: " + name + "}\nspec:\n";
  if (!parent.empty()) text += "  parentName: " + parent + "\n";
  if (!weight.empty()) text += "  fairSharing: {weight: \"" + weight + "\"}\n";
  if (!cpus.empty()) {
    text += "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: " + cpus +
            "}]\n";
  }
  if (parent.empty() && weight.empty() && cpus.empty()) text += "  {}\n";
  return text;
}

// The Kueue Configuration with fair sharing on (v1beta1's enable: true) and the default strategies.
inline std::string fair_sharing_configuration() {
  return "---\napiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n";
}

class KueueScenario : public ::testing::Test {
 protected:
  void load(const std::string& text) {
    Objects objects;
    parse_kueue_objects(text, "scenario.yaml", objects);
    check_kueue_references(objects);
    admission_.emplace(objects);
  }
  WorkloadId submit(const std::string& name, const std::string& cq, std::int64_t cpus, std::int32_t priority) {
    WorkloadSpec spec;
    spec.name = name;
    spec.cluster_queue = *admission_->quotas().cluster_queue(cq);
    spec.priority = priority;
    spec.queue_order = ++clock_;
    spec.requests = {{"cpu", cpus * kCpu}};
    const WorkloadId id = admission_->add(std::move(spec));
    submitted_.push_back(id);
    return id;
  }
  // The workloads of a ClusterQueue holding quota.
  int admitted_in(const std::string& cq) const {
    const NodeId node = *admission_->quotas().cluster_queue(cq);
    int count = 0;
    for (const WorkloadId id : submitted_) {
      count += admission_->spec(id).cluster_queue == node && admission_->state(id) == WorkloadState::kAdmitted ? 1 : 0;
    }
    return count;
  }
  // Cycles until nothing changes, each preempted workload's pods going at once, a second passing
  // between rounds (so that batched requeues come due).
  void settle() {
    for (int round = 0; round < 1000; ++round) {
      const Decisions d = cycles();
      for (const auto& p : d.preempted) admission_->evicted_and_gone(p.victim, now_);
      preemptions_.insert(preemptions_.end(), d.preempted.begin(), d.preempted.end());
      now_ = now_ + core::Time::from_seconds(1);
      if (d.admitted.empty() && d.preempted.empty() && !admission_->next_requeue()) return;
    }
    FAIL() << "the cycles did not settle";
  }
  // A ClusterQueue's or Cohort's weighted share now.
  double weighted_share(const std::string& name) const {
    const auto& tree = admission_->quotas();
    const auto node = tree.cluster_queue(name) ? tree.cluster_queue(name) : tree.cohort(name);
    return admission_->share(*node).weighted();
  }
  // The flavor an admitted workload holds its cpu in.
  std::string flavor_of(WorkloadId id) const {
    const auto& usage = admission_->usage(id);
    return usage.empty() ? "" : admission_->quotas().pair(usage.front().first).first;
  }
  Decisions cycles() { return admission_->run_cycles(now_); }
  // A preempted workload's pods are gone, or a workload finished; the requeue of what waits aside
  // is due a second later, when the next cycles run.
  void gone(WorkloadId id) {
    admission_->evicted_and_gone(id, now_);
    now_ = now_ + core::Time::from_seconds(1);
  }
  void done(WorkloadId id) {
    admission_->finished(id, now_);
    now_ = now_ + core::Time::from_seconds(1);
  }
  std::optional<Admission> admission_;
  std::vector<WorkloadId> submitted_;
  std::vector<Decisions::Preemption> preemptions_;  // what settle() saw
  std::int64_t clock_ = 0;
  core::Time now_ = core::Time::zero();
};

}  // namespace gpusim::k8s::kueue
