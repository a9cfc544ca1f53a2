#include "sim/app/error_exit.hpp"

#include <fmt/format.h>

#include <typeinfo>

#include "sim/app/exit_codes.hpp"
#include "sim/app/simulate_command.hpp"
#include "sim/app/usage_error.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"

namespace gpusim::app {
namespace {

// The exit code, and the message when `print`.
int handle(const std::exception_ptr& error, bool print) {
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    if (print) fmt::print(stderr, "{}", usage_error_text(e.what()));
    return kExitUsage;
  } catch (const core::InputError& e) {
    if (print) fmt::print(stderr, "gpusim: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const core::InvariantViolation& e) {
    if (print) fmt::print(stderr, "gpusim: internal error: {}\n", e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    if (print) fmt::print(stderr, "gpusim: internal error (uncaught {}): {}\n", typeid(e).name(), e.what());
    return kExitInternal;
  } catch (...) {
    if (print) fmt::print(stderr, "gpusim: internal error: unknown exception\n");
    return kExitInternal;
  }
}

}  // namespace

int exit_code_of(const std::exception_ptr& error) { return handle(error, false); }

int report_error(const std::exception_ptr& error) { return handle(error, true); }

}  // namespace gpusim::app
