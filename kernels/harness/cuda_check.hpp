#pragma once
// Every CUDA and cuBLAS call is checked; a failure throws with the call, file and line.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gpusim::calib {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": cuBLAS status " +
                    std::to_string(static_cast<int>(status)));
  }
}

}  // namespace gpusim::calib

#define CUDA_CHECK(call) ::gpusim::calib::check_cuda((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) ::gpusim::calib::check_cublas((call), #call, __FILE__, __LINE__)
// A kernel launch reports configuration errors through cudaGetLastError.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
