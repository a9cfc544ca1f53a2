#include "sim/sched/shape_rankings.hpp"

namespace gpusim::sched {

ShapeRankings::Ranking* ShapeRankings::ranking(const cluster::PodSpec& pod) {
  const FilterShape shape = filter_shape(pod);
  const auto found = slots_.find(shape);
  if (found != slots_.end()) return rankings_[found->second].get();
  if (nodes_ == 0 || (rankings_.size() + 1) * nodes_ > kMaxShapeNodes) return nullptr;
  slots_.emplace(shape, static_cast<std::uint32_t>(rankings_.size()));
  if (pod.constraints != nullptr) kept_rules_.push_back(pod.constraints);
  auto made = std::make_unique<Ranking>();
  made->stamps.assign(nodes_, 0);
  // Framework::rank_node compacts the heap once it passes 2N + 64 entries, so it never holds more
  // than 2N + 65: room for that up front, and a scheduling cycle never grows it (a test counts).
  made->heap.reserve(2 * nodes_ + 65);
  rankings_.push_back(std::move(made));
  return rankings_.back().get();
}

}  // namespace gpusim::sched
