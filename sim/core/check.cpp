#include "sim/core/check.hpp"

#include <fmt/format.h>

namespace gpusim::core {

void fail_check(const char* condition, const std::string& message, const char* file, int line) {
  throw InvariantViolation(
      fmt::format("invariant violated at {}:{}: {} ({})", file, line, message, condition));
}

}  // namespace gpusim::core
