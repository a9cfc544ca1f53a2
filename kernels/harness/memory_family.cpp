// Vector add over 2^10 .. 2^30 floats in half-octave steps (launch-bound, L2-resident and DRAM
// regimes), two buffer sets used in turn where they fit so repeats cannot hit L2, and the
// device-to-device copy bandwidth measured in the same run as the reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/device/kernels.hpp"
#include "kernels/harness/cuda_check.hpp"
#include "kernels/harness/families.hpp"
#include "kernels/harness/timing.hpp"

namespace gpusim::calib {
namespace {

struct Buffers {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
};

// Checks c = a + b on a sample of indices (first, last and strided) after poisoning c.
void verify_vector_add(const Buffers& set, std::size_t n, int sm_count) {
  CUDA_CHECK(cudaMemset(set.c, 0xFF, n * sizeof(float)));  // NaN pattern: a skipped element fails
  launch_vector_add(set.a, set.b, set.c, n, true, sm_count, nullptr);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 256); ++i) indices.push_back(i);
  for (std::size_t i = n - std::min<std::size_t>(n, 256); i < n; ++i) indices.push_back(i);
  for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, n / 1024)) indices.push_back(i);
  for (const std::size_t i : indices) {
    float a = 0, b = 0, c = 0;
    CUDA_CHECK(cudaMemcpy(&a, set.a + i, sizeof a, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&b, set.b + i, sizeof b, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&c, set.c + i, sizeof c, cudaMemcpyDeviceToHost));
    if (!(std::fabs(c - (a + b)) <= 1e-6f * (std::fabs(a) + std::fabs(b)) + 1e-30f) || (a == 0 && b == 0)) {
      throw std::runtime_error("vector add wrong at index " + std::to_string(i) + " of " + std::to_string(n));
    }
  }
}

}  // namespace

nlohmann::json measure_memory(const DeviceContext& device, const SweepOptions& options) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const int max_log2 = options.quick ? 24 : 30;
  // Largest size whose three arrays fit in 40% of free memory.
  std::size_t max_n = std::size_t{1} << max_log2;
  while (max_n * 12 > free_bytes * 4 / 10) max_n /= 2;
  const bool two_sets = max_n * 12 * 2 <= free_bytes * 6 / 10;
  std::vector<Buffers> sets(two_sets ? 2 : 1);
  for (auto& set : sets) {
    CUDA_CHECK(cudaMalloc(&set.a, max_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&set.b, max_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&set.c, max_n * sizeof(float)));
    launch_fill_random(set.a, max_n, 1, nullptr);
    launch_fill_random(set.b, max_n, 2, nullptr);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  nlohmann::json samples = nlohmann::json::array();
  for (int sweep = 0; sweep < options.sweeps; ++sweep) {
    for (int half_octaves = 20; half_octaves <= 2 * max_log2; half_octaves += options.quick ? 2 : 1) {
      // n = 2^(h/2), rounded to a multiple of 4 for the float4 kernel.
      auto n = static_cast<std::size_t>(std::pow(2.0, half_octaves / 2.0));
      n -= n % 4;
      if (n > max_n) break;
      std::size_t turn = 0;
      const auto launch = [&](cudaStream_t stream) {
        const Buffers& set = sets[turn++ % sets.size()];
        launch_vector_add(set.a, set.b, set.c, n, true, device.sm_count, stream);
      };
      const Stats stats = time_launches(launch, nullptr, options.reps);
      if (sweep == 0) verify_vector_add(sets[0], n, device.sm_count);
      nlohmann::json sample = to_json(stats);
      sample["n"] = n;
      sample["bytes"] = n * 12;  // two reads and one write of 4 bytes
      sample["sweep"] = sweep;
      samples.push_back(sample);
    }
  }
  // Scalar (non-vectorised) variant at the largest size: the cost of not using 16-byte loads.
  const Stats scalar = time_launches([&](cudaStream_t s) {
    launch_vector_add(sets[0].a, sets[0].b, sets[0].c, max_n, false, device.sm_count, s);
  }, nullptr, options.reps);

  // Device-to-device copy reference (cudaMemcpy), bytes counted as read plus written.
  nlohmann::json copies = nlohmann::json::array();
  for (std::size_t bytes = max_n * 4 / 4; bytes <= max_n * 4; bytes *= 2) {
    const Stats stats = time_launches([&](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(sets[0].c, sets[0].a, bytes, cudaMemcpyDeviceToDevice, s));
    }, nullptr, options.reps);
    nlohmann::json sample = to_json(stats);
    sample["bytes"] = bytes;
    sample["gbps_read_plus_write"] = 2.0 * static_cast<double>(bytes) / (stats.median_us * 1e3);
    copies.push_back(sample);
  }
  for (auto& set : sets) {
    CUDA_CHECK(cudaFree(set.a));
    CUDA_CHECK(cudaFree(set.b));
    CUDA_CHECK(cudaFree(set.c));
  }
  nlohmann::json scalar_json = to_json(scalar);
  scalar_json["n"] = max_n;
  scalar_json["bytes"] = max_n * 12;
  return {{"kernel", "vadd_f32x4"}, {"bytes_per_elem", 12}, {"buffer_sets", sets.size()},
          {"samples", samples},     {"scalar_largest", scalar_json}, {"copy_d2d", copies}};
}

nlohmann::json measure_launch(const DeviceContext&, const SweepOptions& options) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  const int launches = options.quick ? 1000 : 10000;
  for (int i = 0; i < 100; ++i) launch_empty(nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> async_us;
  for (int r = 0; r < 5; ++r) {
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < launches; ++i) launch_empty(nullptr);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    async_us.push_back(static_cast<double>(ms) * 1000.0 / launches);
  }
  std::vector<double> sync_us;
  for (int i = 0; i < (options.quick ? 100 : 1000); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    launch_empty(nullptr);
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
    sync_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return {{"async", to_json(summarize(async_us, launches))},
          {"sync_roundtrip", to_json(summarize(sync_us, 1))}};
}

}  // namespace gpusim::calib
