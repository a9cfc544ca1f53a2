#include "sim/sched/fit_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <span>


namespace gpusim::sched {
namespace {

bool same_text(const std::string& text, std::span<const std::string_view> parts) {
  std::size_t at = 0;
  for (const std::string_view part : parts) {
    if (text.compare(at, part.size(), part) != 0) return false;
    at += part.size();
  }
  return at == text.size();
}

// Whether two reasons read the same, however they are split into parts.
bool same_text(std::span<const std::string_view> a, std::span<const std::string_view> b) {
  // A cursor over the characters of one reason's parts.
  struct Cursor {
    std::span<const std::string_view> parts;
    std::size_t part = 0, at = 0;
    bool done() {
      while (part < parts.size() && at == parts[part].size()) {
        ++part;
        at = 0;
      }
      return part == parts.size();
    }
    char next() { return parts[part][at++]; }
  };
  Cursor x{a}, y{b};
  while (!x.done() && !y.done()) {
    if (x.next() != y.next()) return false;
  }
  return x.done() && y.done();
}

}  // namespace

bool NodeReasons::end_node() {
  if (node_size_ == 0) return false;
  if (node_size_ == 1) {  // the common case: one reason
    count(node_[0]);
    node_size_ = 0;
    return true;
  }
  KubeFilter first = KubeFilter::kOther;
  for (std::size_t i = 0; i < node_size_; ++i) first = std::min(first, node_[i].by);
  for (std::size_t i = 0; i < node_size_; ++i) {
    if (node_[i].by != first) continue;
    // A reason the node gave twice (two of gpusim's filters stand for one kube-scheduler plugin)
    // counts once, as kube-scheduler's plugin would give it once.
    const std::span<const std::string_view> parts(node_[i].parts.data(), node_[i].size);
    bool repeated = false;
    for (std::size_t j = 0; j < i && !repeated; ++j) {
      repeated = node_[j].by == first && node_[j].length == node_[i].length &&
                 same_text(parts, std::span<const std::string_view>(node_[j].parts.data(), node_[j].size));
    }
    if (!repeated) count(node_[i]);
  }
  node_size_ = 0;
  return true;
}

void NodeReasons::count(const Pending& reason) {
  const std::span<const std::string_view> parts(reason.parts.data(), reason.size);
  const auto same_views = [&](const Pending& first) {
    if (first.size != reason.size) return false;
    for (std::size_t p = 0; p < reason.size; ++p) {
      if (first.parts[p].data() != parts[p].data() || first.parts[p].size() != parts[p].size()) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (same_views(first_parts_[i])) {
      ++counts_[i].second;
      return;
    }
  }
  for (auto& [text, nodes] : counts_) {
    if (text.size() == reason.length && same_text(text, parts)) {
      ++nodes;
      return;
    }
  }
  first_parts_.push_back(reason);
  std::string text;
  for (const std::string_view part : parts) text += part;
  counts_.emplace_back(std::move(text), 1);
}

std::string FitError::message() const {
  if (nodes == 0) return "no nodes available to schedule pods";
  std::string message = fmt::format("0/{} nodes are available:", nodes);
  if (!pre_filter.empty()) return message + " " + pre_filter + ".";
  std::vector<std::string> histogram;
  histogram.reserve(reasons.size());
  for (const auto& [reason, count] : reasons) histogram.push_back(fmt::format("{} {}", count, reason));
  // std::string compares bytes as unsigned char, as Go's sort.Strings does.
  std::sort(histogram.begin(), histogram.end());
  if (!histogram.empty()) message += fmt::format(" {}.", fmt::join(histogram, ", "));
  return message;
}

std::vector<std::string> FitError::causes() const {
  std::vector<std::string> causes;
  if (nodes == 0) return {"no nodes available to schedule pods"};
  if (!pre_filter.empty()) return {pre_filter};
  for (const auto& reason : reasons) causes.push_back(reason.first);
  std::sort(causes.begin(), causes.end());
  return causes;
}

}  // namespace gpusim::sched
