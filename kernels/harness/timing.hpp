#pragma once
// The timing protocol (calibration design §5.3): warm-up launches, then R repetitions, each
// timed by its own CUDA event pair around a batch of k back-to-back launches (k chosen so a batch
// lasts at least ~50 us); the first repetition is discarded; median, p10, p90 and min reported.
#include <cuda_runtime.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace gpusim::calib {

struct Stats {
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
  double min_us = 0;
  int reps = 0;
  int batch = 1;  // launches per event pair
};

Stats summarize(std::vector<double> per_launch_us, int batch);
nlohmann::json to_json(const Stats& stats);

// Times `launch` (which enqueues one unit of work on `stream`). `reps` timed repetitions.
Stats time_launches(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream, int reps,
                    double min_batch_us = 50.0);

}  // namespace gpusim::calib
