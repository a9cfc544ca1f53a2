#pragma once
// What the commands share to read their inputs: which reader a file is for, and a range check
// for numbers that CLI11 would let NaN through.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "traces/philly_reader.hpp"

namespace gpusim::app {

// Kubernetes manifests are told by their extension.
inline bool is_manifest(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// A Philly job log is told from an openb pod list by its header.
inline bool is_philly_log(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first;
  std::getline(in, first);
  return traces::is_philly_header(first);
}

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
