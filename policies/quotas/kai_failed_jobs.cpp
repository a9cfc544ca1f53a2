#include "policies/quotas/kai_failed_jobs.hpp"

#include <algorithm>

#include "sim/cluster/pod_constraints.hpp"

namespace gpusim::policy {
namespace {

bool same_requirement(const cluster::SelectorRequirement& a, const cluster::SelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}

bool same_term(const cluster::NodeSelectorTerm& a, const cluster::NodeSelectorTerm& b) {
  return std::equal(a.match_expressions.begin(), a.match_expressions.end(), b.match_expressions.begin(), b.match_expressions.end(),
                    same_requirement);
}

// KAI's signature keeps a toleration's key, operator, value and effect (not its seconds).
bool same_toleration(const cluster::Toleration& a, const cluster::Toleration& b) {
  return a.key == b.key && a.exists == b.exists && a.value == b.value && a.effect == b.effect;
}

bool same_constraints(const cluster::PodConstraints& a, const cluster::PodConstraints& b) {
  return a.node_selector == b.node_selector &&
         std::equal(a.required_terms.begin(), a.required_terms.end(), b.required_terms.begin(), b.required_terms.end(), same_term) &&
         std::equal(a.tolerations.begin(), a.tolerations.end(), b.tolerations.begin(), b.tolerations.end(), same_toleration) &&
         a.priority_class == b.priority_class && a.gpu_resource == b.gpu_resource && a.mig_profile == b.mig_profile;
}

}  // namespace

KaiPodAsk KaiPodAsk::of(const cluster::PodSpec& spec) {
  return {spec.device_class, spec.gpu_count, spec.gpu_milli, spec.cpu_milli, spec.memory_mib, spec.rdma_percent};
}

bool KaiPodAsk::less_equal(const KaiPodAsk& other) const {
  return device_class == other.device_class && gpu_count <= other.gpu_count && gpu_milli <= other.gpu_milli &&
         cpu_milli <= other.cpu_milli && memory_mib <= other.memory_mib && rdma_percent <= other.rdma_percent;
}

bool same_scheduling_constraints(const cluster::PodSpec& a, const cluster::PodSpec& b) {
  if (a.priority != b.priority || a.allowed_models != b.allowed_models) return false;
  // A per-node limit of a service's instances is a pod anti-affinity: part of the signature.
  if (a.max_per_node != b.max_per_node || (a.max_per_node > 0 && a.app != b.app)) return false;
  if (a.constraints == b.constraints) return true;  // the same object (or both none)
  // A pod without Kubernetes detail and one with it are told apart (a manifest pod always has some).
  return a.constraints != nullptr && b.constraints != nullptr && same_constraints(*a.constraints, *b.constraints);
}

bool same_job_signature(std::span<const cluster::PodSpec* const> a, std::span<const cluster::PodSpec* const> b) {
  if (a.size() != b.size()) return false;
  if (a.size() == 1) return same_scheduling_constraints(*a.front(), *b.front());
  // As multisets: each pod's class counts as many pods in both (gangs are small).
  const auto count = [](std::span<const cluster::PodSpec* const> pods, const cluster::PodSpec& like) {
    return std::count_if(pods.begin(), pods.end(), [&](const cluster::PodSpec* p) { return same_scheduling_constraints(*p, like); });
  };
  return std::all_of(a.begin(), a.end(), [&](const cluster::PodSpec* p) { return count(a, *p) == count(b, *p); });
}

bool kai_easier_to_schedule(std::span<const KaiPodAsk> job, std::span<const KaiPodAsk> representative) {
  if (job.empty() || representative.empty()) return false;
  if (representative.size() > job.size()) return true;
  for (std::size_t i = 0; i < job.size(); ++i) {
    if (i >= representative.size()) return false;
    if (job[i].less_equal(representative[i])) {
      if (representative[i].less_equal(job[i])) continue;  // equal
      return true;
    }
  }
  return false;
}

bool kai_footprint_smaller(std::span<const KaiPodAsk> job, std::span<const KaiPodAsk> representative) {
  if (job.empty() || representative.empty() || job.size() > representative.size()) return false;
  for (std::size_t i = 0; i < job.size(); ++i) {
    if (!job[i].less_equal(representative[i])) return false;
  }
  return true;
}

void KaiFailedJobs::sorted_asks(std::span<const cluster::PodSpec* const> workers, std::vector<KaiPodAsk>& out) const {
  out.clear();
  for (const cluster::PodSpec* w : workers) out.push_back(KaiPodAsk::of(*w));
  std::sort(out.begin(), out.end());
}

KaiFailedJobs::Representative* KaiFailedJobs::find(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers) {
  for (std::size_t i = 0; i < used_; ++i) {
    Representative& r = representatives_[i];
    if (r.queue == queue && same_job_signature(r.pods, workers)) return &r;
  }
  return nullptr;
}

bool KaiFailedJobs::worth_trying(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers) {
  const Representative* r = find(queue, workers);
  if (r == nullptr) return true;
  sorted_asks(workers, asks_);
  return kai_easier_to_schedule(asks_, r->asks);
}

void KaiFailedJobs::failed(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers) {
  if (workers.empty()) return;
  Representative* r = find(queue, workers);
  sorted_asks(workers, asks_);
  if (r != nullptr) {
    if (kai_footprint_smaller(asks_, r->asks)) r->asks.assign(asks_.begin(), asks_.end());
    return;
  }
  if (used_ == representatives_.size()) representatives_.emplace_back();
  Representative& fresh = representatives_[used_++];
  fresh.queue = queue;
  fresh.pods.assign(workers.begin(), workers.end());
  fresh.asks.assign(asks_.begin(), asks_.end());
}

}  // namespace gpusim::policy
