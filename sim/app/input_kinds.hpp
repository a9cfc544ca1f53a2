#pragma once
// What the commands share to read their inputs: which reader a file is for, and a range check
// for numbers that CLI11 would let NaN through.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "traces/read_workload.hpp"

namespace gpusim::app {

// Kubernetes manifests are told by their extension.
inline bool is_manifest(const std::filesystem::path& path) { return traces::is_manifest_path(path); }

// CLI11's Range lets NaN through; this one does not.
inline CLI::Validator finite_range(double low, double high) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return fmt::format("'{}' is not a number", text);
        if (!std::isfinite(value) || value < low || value > high) {
          return fmt::format("{} is out of range [{}, {}]", text, low, high);
        }
        return {};
      },
      fmt::format("NUMBER in [{} - {}]", low, high));
}

}  // namespace gpusim::app
