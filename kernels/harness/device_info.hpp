#pragma once
// What the harness records about the device: read, never changed (clocks, power, MIG).
#include <nlohmann/json.hpp>

namespace gpusim::calib {

struct DeviceContext {
  int device = 0;
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  std::size_t l2_bytes = 0;
};

// Throws CudaError when no usable GPU is present (any CUDA error at start counts).
DeviceContext open_device(int device);
nlohmann::json describe_device(const DeviceContext& context);

}  // namespace gpusim::calib
