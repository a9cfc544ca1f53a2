#include "kernels/harness/device_info.hpp"

#include <cublas_v2.h>

#include "kernels/harness/cuda_check.hpp"

namespace gpusim::calib {

DeviceContext open_device(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  // Without a driver this is cudaErrorInsufficientDriver (35), not cudaErrorNoDevice.
  if (status != cudaSuccess) {
    throw CudaError(std::string("no usable GPU: cudaGetDeviceCount failed with ") + cudaGetErrorName(status) +
                    " (" + cudaGetErrorString(status) + ")");
  }
  if (count == 0) throw CudaError("no usable GPU: cudaGetDeviceCount found 0 devices");
  if (device >= count) throw CudaError("device index " + std::to_string(device) + " out of range");
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaFree(nullptr));  // create the context now, so later timings exclude it
  DeviceContext context;
  context.device = device;
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
  context.sm_count = value;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrL2CacheSize, device));
  context.l2_bytes = static_cast<std::size_t>(value);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  context.memory_bytes = total_bytes;
  return context;
}

nlohmann::json describe_device(const DeviceContext& context) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, context.device));
  int driver = 0, runtime = 0, clock_khz = 0, memory_clock_khz = 0, ecc = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, context.device));
  CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, context.device));
  CUDA_CHECK(cudaDeviceGetAttribute(&ecc, cudaDevAttrEccEnabled, context.device));
  int cublas_version = 0;
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasGetVersion(handle, &cublas_version));
  CUBLAS_CHECK(cublasDestroy(handle));
  char pci[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof pci, context.device));
  return {{"name", prop.name},
          {"cc", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
          {"sm_count", context.sm_count},
          {"mem_bytes", context.memory_bytes},
          {"l2_bytes", context.l2_bytes},
          {"pci_bus_id", pci},
          {"cuda_driver_api", driver},
          {"cuda_runtime", runtime},
          {"cublas", cublas_version},
          {"ecc", ecc != 0},
          {"max_clocks_mhz", {{"sm", clock_khz / 1000}, {"mem", memory_clock_khz / 1000}}}};
}

}  // namespace gpusim::calib
