#pragma once
// Outcome of a plugin call. Reasons are static strings so that the hot path never allocates.
#include <cstdint>

namespace gpusim::sched {

enum class Code : std::uint8_t { kOk, kUnschedulable, kUnresolvable, kWait, kSkip, kError };

struct Status {
  Code code = Code::kOk;
  const char* reason = "";
  const char* plugin = "";

  static constexpr Status ok() { return {}; }
  static constexpr Status unschedulable(const char* why, const char* by) {
    return {Code::kUnschedulable, why, by};
  }
  constexpr bool is_ok() const { return code == Code::kOk; }
};

}  // namespace gpusim::sched
