#pragma once
// Launch wrappers for gpusim's own calibration kernels (compiled by nvcc in device/*.cu). The
// harness is plain C++ and calls only these and the CUDA runtime / cuBLAS.
#include <cuda_runtime.h>

#include <cstddef>

namespace gpusim::calib {

// c[i] = a[i] + b[i] over n floats; grid-stride, 16-byte (float4) loads when `vectorized`.
// Precondition for vectorized: n % 4 == 0 and 16-byte aligned pointers (cudaMalloc gives 256).
void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, bool vectorized,
                       int sm_count, cudaStream_t stream);

// C (m x n) = A (m x k) * B (k x n), fp32, row-major; 32 x 32 shared-memory tiles.
void launch_tiled_sgemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

// An empty kernel, <<<1, 32>>>: the cost of a launch and nothing else.
void launch_empty(cudaStream_t stream);

// Fills n floats with a uniform value pattern derived from `seed` in [-1, 1) on the device.
void launch_fill_random(float* data, std::size_t n, unsigned seed, cudaStream_t stream);
// Same for bf16 storage (bits written as unsigned short).
void launch_fill_random_bf16(void* data, std::size_t n, unsigned seed, cudaStream_t stream);

}  // namespace gpusim::calib
