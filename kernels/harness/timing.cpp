#include "kernels/harness/timing.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/harness/cuda_check.hpp"

namespace gpusim::calib {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double time_batch(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream, int batch,
                  cudaEvent_t start, cudaEvent_t stop) {
  CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < batch; ++i) launch(stream);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace

Stats summarize(std::vector<double> us, int batch) {
  Stats stats;
  std::sort(us.begin(), us.end());
  stats.median_us = quantile(us, 0.5);
  stats.p10_us = quantile(us, 0.1);
  stats.p90_us = quantile(us, 0.9);
  stats.min_us = us.front();
  stats.reps = static_cast<int>(us.size());
  stats.batch = batch;
  return stats;
}

nlohmann::json to_json(const Stats& s) {
  return {{"median_us", s.median_us}, {"p10_us", s.p10_us}, {"p90_us", s.p90_us},
          {"min_us", s.min_us},       {"reps", s.reps},     {"batch", s.batch}};
}

Stats time_launches(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream, int reps,
                    double min_batch_us) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) launch(stream);  // warm-up
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const double single = time_batch(launch, stream, 1, start, stop);
  const int batch = std::clamp(static_cast<int>(std::ceil(min_batch_us / std::max(single, 1e-3))), 1, 1000);
  std::vector<double> samples;
  for (int r = 0; r <= reps; ++r) {
    const double us = time_batch(launch, stream, batch, start, stop) / batch;
    if (r > 0) samples.push_back(us);  // the first repetition is discarded
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(std::move(samples), batch);
}

}  // namespace gpusim::calib
