#pragma once
// gpusim-calib-shaped samples generated from known parameters (with optional multiplicative
// noise), so the fitting code can be tested without a GPU.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/core/rng.hpp"

namespace gpusim::testing {

struct Truth {
  double launch_us = 2.0;
  double dram_t0_us = 3.0;
  double dram_bytes_per_s = 3.0e12;
  double l2_bytes_per_s = 7.0e12;
  double l2_bytes = 50.0 * 1024 * 1024;
  double gemm_t0_us = 9.0;
  double bf16_flops_per_s = 790e12;
  double fp32_flops_per_s = 51e12;
  double time_slice_delta = 0.05;
  double stream_capacity = 1.3;
  double copy_gbps = 3000;
};
inline constexpr Truth kTruth{};

inline nlohmann::json synthetic_samples(const Truth& truth, double noise, int sweeps) {
  core::Rng rng(5);
  const auto jitter = [&] { return 1.0 + noise * (2 * rng.uniform_unit() - 1); };
  nlohmann::json memory = nlohmann::json::array();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (int h = 20; h <= 60; ++h) {
      const double n = std::floor(std::pow(2.0, h / 2.0) / 4) * 4;
      const double bytes = 12 * n;
      const bool in_l2 = bytes <= truth.l2_bytes / 2;
      const double rate = in_l2 ? truth.l2_bytes_per_s : truth.dram_bytes_per_s;
      const double t = ((in_l2 ? 1.0 : truth.dram_t0_us) + bytes / rate * 1e6) * jitter();
      memory.push_back({{"n", n}, {"bytes", bytes}, {"median_us", t}, {"sweep", sweep}});
    }
  }
  nlohmann::json gemm;
  for (const auto& [name, rate] : {std::pair{"bf16_cublas", truth.bf16_flops_per_s}, std::pair{"fp32_cublas", truth.fp32_flops_per_s}}) {
    nlohmann::json samples = nlohmann::json::array();
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      for (const int s : {1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384}) {
        const double flops = 2.0 * s * s * static_cast<double>(s);
        samples.push_back({{"m", s}, {"n", s}, {"k", s}, {"flops", flops},
                           {"median_us", (truth.gemm_t0_us + flops / rate * 1e6) * jitter()}, {"sweep", sweep}});
      }
    }
    gemm[name] = {{"samples", samples}};
  }
  nlohmann::json processes = nlohmann::json::array(), streams = nlohmann::json::array();
  for (const int n : {1, 2, 4, 8}) {
    const double slice = 1.0 / (n * (1.0 + truth.time_slice_delta * (n - 1.0) / n));
    processes.push_back({{"class", "vadd"}, {"n", n}, {"norm_throughput", std::vector<double>(static_cast<std::size_t>(n), slice * jitter())}});
    streams.push_back({{"class", "vadd"}, {"n", n}, {"norm_throughput", std::vector<double>(static_cast<std::size_t>(n), std::min(1.0, truth.stream_capacity / n))}});
  }
  return {{"schema", "gpusim-calib-samples/1"},
          {"device", {{"name", "Synthetic GPU"}, {"l2_bytes", truth.l2_bytes}}},
          {"run", {{"tool", "synthetic"}}},
          {"launch", {{"async", {{"median_us", truth.launch_us}}}, {"sync_roundtrip", {{"median_us", 3 * truth.launch_us}}}}},
          {"memory", {{"samples", memory}, {"copy_d2d", {{{"bytes", 1e9}, {"gbps_read_plus_write", truth.copy_gbps}}}}}},
          {"gemm", gemm},
          {"colocation", {{"processes", processes}, {"streams", streams},
                          {"process_pairs", {{{"a", "vadd"}, {"b", "vadd"}, {"norm_throughput", {0.49, 0.48}}}}}}}};
}

}  // namespace gpusim::testing
