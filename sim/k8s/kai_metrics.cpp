#include "sim/k8s/kai_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace gpusim::k8s::kai {
namespace {

std::vector<std::string> names_of(const std::vector<Queue>& queues, const std::vector<std::uint32_t>& leaves) {
  std::vector<std::string> names;
  for (const std::uint32_t q : leaves) names.push_back(queues[q].name);
  return names;
}

}  // namespace

KaiMetrics::KaiMetrics(QueueSeries& series, const std::vector<Queue>& queues, std::vector<std::uint32_t> leaves)
    : series_(series), queues_(queues), leaves_(std::move(leaves)), standings_(series, "kai", names_of(queues, leaves_)) {
  standing_of_.assign(queues.size(), SIZE_MAX);
  for (std::size_t i = 0; i < leaves_.size(); ++i) standing_of_[leaves_[i]] = i;
  for (const Queue& q : queues) {
    // queue_name is the display name when there is one (queue_info.go); the id is queue_metadata_name.
    const std::string labels = fmt::format("queue_name=\"{}\",queue_metadata_name=\"{}\",queue_display_name=\"{}\"",
                                           q.display_name.empty() ? q.name : q.display_name, q.name, q.display_name);
    ids_.push_back(Ids{series_.add("kai_queue_fair_share_gpu", labels), series_.add("kai_queue_fair_share_cpu_cores", labels),
                       series_.add("kai_queue_fair_share_memory_gb", labels), series_.add("kai_queue_deserved_gpus", labels),
                       series_.add("kai_queue_allocated_gpus", labels), series_.add("kai_queue_allocated_cpu_cores", labels),
                       series_.add("kai_queue_allocated_memory_bytes", labels)});
  }
}

void KaiMetrics::update(core::Time now, const std::vector<QueueNow>& state) {
  // Lent GPUs: among the leaves of each top-level tree.
  std::vector<std::int32_t> root(queues_.size(), -1);
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    std::size_t r = q;
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t p = 0; p < queues_.size(); ++p) {
        if (queues_[p].name == queues_[r].parent) {
          r = p;
          moved = true;
          break;
        }
      }
    }
    root[q] = static_cast<std::int32_t>(r);
  }
  const auto deserved = [&](std::uint32_t q) { return queues_[q].gpu.quota == kUnlimited ? 0.0 : queues_[q].gpu.quota; };
  std::vector<double> lent(queues_.size(), 0.0);
  std::map<std::int32_t, std::vector<std::uint32_t>> trees;
  for (const std::uint32_t q : leaves_) trees[root[q]].push_back(q);
  for (const auto& [r, members] : trees) {
    std::vector<double> d, a;
    for (const std::uint32_t q : members) {
      d.push_back(deserved(q));
      a.push_back(state[q].allocated[0]);
    }
    const std::vector<double> l = lent_gpus(d, a);
    for (std::size_t k = 0; k < members.size(); ++k) lent[members[k]] = l[k];
  }
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    const Ids& id = ids_[q];
    const QueueNow& s = state[q];
    // KAI's units in its metrics: GPUs, cores, GB (10^9 bytes) for the fair share, bytes for allocation.
    series_.set(id.fair_gpu, now, s.fair_share[0]);
    series_.set(id.fair_cpu, now, s.fair_share[1] / 1000.0);
    series_.set(id.fair_memory, now, s.fair_share[2] / 1000.0);
    series_.set(id.deserved, now, queues_[q].gpu.quota);
    series_.set(id.allocated_gpu, now, s.allocated[0]);
    series_.set(id.allocated_cpu, now, s.allocated[1] / 1000.0);
    series_.set(id.allocated_memory, now, s.allocated[2] * 1e6);
    if (standing_of_[q] == SIZE_MAX) continue;
    QueueStanding st;
    st.deserved_gpus = queues_[q].gpu.quota;
    st.fair_share_gpus = s.fair_share[0];
    st.allocated_gpus = s.allocated[0];
    st.borrowed_gpus = queues_[q].gpu.quota == kUnlimited ? 0.0 : std::max(0.0, s.allocated[0] - queues_[q].gpu.quota);
    st.lent_gpus = lent[q];
    st.waiting_quota = s.waiting_quota;
    st.waiting_fit = s.waiting_fit;
    st.starved = s.waiting_quota + s.waiting_fit > 0 && s.allocated[0] < s.fair_share[0];
    standings_.update(now, standing_of_[q], st);
  }
}

void KaiMetrics::evicted(core::Time now, std::uint32_t leaf, const char* action) {
  if (standing_of_[leaf] != SIZE_MAX) standings_.preempted(now, standing_of_[leaf], action);
}

double KaiMetrics::starved_seconds(core::Time now) const {
  double total = 0;
  for (std::size_t i = 0; i < leaves_.size(); ++i) total += standings_.starved_seconds(i, now);
  return total;
}

}  // namespace gpusim::k8s::kai
