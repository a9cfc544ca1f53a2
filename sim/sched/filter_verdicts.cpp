#include "sim/sched/filter_verdicts.hpp"

namespace gpusim::sched {

std::uint32_t FilterVerdicts::slot(const cluster::PodSpec& pod) {
  const FilterShape shape = filter_shape(pod);
  const auto found = slots_.find(shape);
  if (found != slots_.end()) return found->second;
  if (nodes_ == 0 || (slots_.size() + 1) * nodes_ > kMaxEntries) return kNoSlot;
  const auto slot = static_cast<std::uint32_t>(slots_.size());
  slots_.emplace(shape, slot);
  if (pod.constraints != nullptr) kept_rules_.push_back(pod.constraints);
  stamps_.resize(stamps_.size() + nodes_, 0);
  return slot;
}

}  // namespace gpusim::sched
