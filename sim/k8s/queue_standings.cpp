#include "sim/k8s/queue_standings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpusim::k8s {

QueueStandings::QueueStandings(QueueSeries& series, std::string system, std::vector<std::string> queues)
    : series_(series), system_(std::move(system)), queues_(std::move(queues)) {
  for (const std::string& q : queues_) {
    const std::string labels = fmt::format("system=\"{}\",queue=\"{}\"", system_, q);
    const auto waiting = [&](const char* reason) {
      return series_.add("gpusim_queue_pending_workloads", fmt::format("{},reason=\"{}\"", labels, reason));
    };
    ids_.push_back(Ids{series_.add("gpusim_queue_deserved_gpus", labels), series_.add("gpusim_queue_fair_share_gpus", labels),
                       series_.add("gpusim_queue_allocated_gpus", labels), series_.add("gpusim_queue_borrowed_gpus", labels),
                       series_.add("gpusim_queue_lent_gpus", labels), waiting("quota"), waiting("flavor"), waiting("fit"),
                       series_.add("gpusim_queue_starved", labels), series_.add("gpusim_queue_starved_seconds_total", labels)});
  }
  starved_.assign(queues_.size(), 0);
  starved_us_.assign(queues_.size(), 0);
  since_.assign(queues_.size(), core::Time::zero());
}

void QueueStandings::update(core::Time now, std::size_t queue, const QueueStanding& s) {
  const Ids& id = ids_[queue];
  if (starved_[queue]) starved_us_[queue] += (now - since_[queue]).micros();
  since_[queue] = now;
  starved_[queue] = s.starved ? 1 : 0;
  series_.set(id.deserved, now, s.deserved_gpus);
  if (!std::isnan(s.fair_share_gpus)) series_.set(id.fair_share, now, s.fair_share_gpus);
  series_.set(id.allocated, now, s.allocated_gpus);
  series_.set(id.borrowed, now, s.borrowed_gpus);
  series_.set(id.lent, now, s.lent_gpus);
  series_.set(id.quota, now, static_cast<double>(s.waiting_quota));
  series_.set(id.flavor, now, static_cast<double>(s.waiting_flavor));
  series_.set(id.fit, now, static_cast<double>(s.waiting_fit));
  series_.set(id.starved, now, s.starved ? 1.0 : 0.0);
  series_.set(id.starved_seconds, now, static_cast<double>(starved_us_[queue]) / 1e6);
}

void QueueStandings::preempted(core::Time now, std::size_t queue, const std::string& reason) {
  auto it = preemptions_.find({queue, reason});
  if (it == preemptions_.end()) {
    const std::uint32_t id = series_.add("gpusim_queue_preemptions_total",
                                         fmt::format("system=\"{}\",queue=\"{}\",reason=\"{}\"", system_, queues_[queue], reason));
    series_.set(id, now, 0.0);
    it = preemptions_.emplace(std::pair{queue, reason}, std::pair{id, 0.0}).first;
  }
  it->second.second += 1;
  series_.set(it->second.first, now, it->second.second);
}

double QueueStandings::starved_seconds(std::size_t queue, core::Time now) const {
  return static_cast<double>(starved_us_[queue] + (starved_[queue] ? (now - since_[queue]).micros() : 0)) / 1e6;
}

std::vector<double> lent_gpus(const std::vector<double>& deserved, const std::vector<double>& allocated) {
  double borrowed = 0, unused = 0;
  for (std::size_t q = 0; q < deserved.size(); ++q) {
    borrowed += std::max(0.0, allocated[q] - deserved[q]);
    unused += std::max(0.0, deserved[q] - allocated[q]);
  }
  std::vector<double> lent(deserved.size(), 0.0);
  if (unused <= 0 || borrowed <= 0) return lent;
  const double part = std::min(1.0, borrowed / unused);
  for (std::size_t q = 0; q < deserved.size(); ++q) lent[q] = std::max(0.0, deserved[q] - allocated[q]) * part;
  return lent;
}

}  // namespace gpusim::k8s
