#pragma once
// How a usage error (exit code 2) reads, whoever found it: CLI11 (an unknown option, a value out
// of range) or gpusim's own checks (an option that does not apply to the mode). The same prefix as
// bad input's "gpusim: error:", so a script or a person finds every error the same way.
#include <string>
#include <string_view>

namespace gpusim::app {

inline std::string usage_error_text(std::string_view what) {
  return "gpusim: error: " + std::string(what) + "\nRun with --help for more information.\n";
}

}  // namespace gpusim::app
