// A plain shared-memory tiled SGEMM (32 x 32 tiles, one output per thread): the reference point
// for an "unoptimised" job, reported as a fraction of cuBLAS fp32.
#include "kernels/device/kernels.hpp"

namespace gpusim::calib {
namespace {

constexpr int kTile = 32;

__global__ void tiled_sgemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                            int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile + 1];  // +1: no bank conflicts on the transposed read
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    a_tile[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? a[static_cast<long>(row) * k + t + threadIdx.x] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? b[static_cast<long>(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i) sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<long>(row) * n + col] = sum;
}

}  // namespace

void launch_tiled_sgemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  tiled_sgemm<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}

}  // namespace gpusim::calib
