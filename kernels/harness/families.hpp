#pragma once
// The measurement families. Each returns its raw samples as JSON (schema in kernels/README.md)
// and throws CudaError or std::runtime_error (a failed correctness check) on failure.
#include <nlohmann/json.hpp>

#include "kernels/harness/device_info.hpp"

namespace gpusim::calib {

struct SweepOptions {
  int sweeps = 2;          // whole sweeps repeated, for the run-to-run spread
  int reps = 15;           // timed repetitions per size
  bool quick = false;      // fewer sizes and shorter windows (smoke test)
  double window_s = 2.0;   // co-location measuring window
};

nlohmann::json measure_memory(const DeviceContext& device, const SweepOptions& options);
nlohmann::json measure_launch(const DeviceContext& device, const SweepOptions& options);
nlohmann::json measure_gemm(const DeviceContext& device, const SweepOptions& options);
// `self` is this program's path: co-location re-executes it as worker processes.
nlohmann::json measure_colocation(const DeviceContext& device, const SweepOptions& options, const char* self);

// Worker mode of the co-location family (runs in a fresh process).
int colocation_worker(const DeviceContext& device, const std::string& workload, double window_s);

}  // namespace gpusim::calib
