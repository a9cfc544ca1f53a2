#pragma once
// Always-on invariant checks for engine bugs (never for bad input, which gets a Status).
// A failed check throws InvariantViolation so tests can observe it; the program's top level
// reports it and exits non-zero.
#include <stdexcept>
#include <string>

namespace gpusim::core {

class InvariantViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* condition, const std::string& message, const char* file,
                             int line);

}  // namespace gpusim::core

#define GPUSIM_CHECK(condition, message)                                            \
  do {                                                                              \
    if (!(condition)) [[unlikely]]                                                  \
      ::gpusim::core::fail_check(#condition, (message), __FILE__, __LINE__);        \
  } while (false)
