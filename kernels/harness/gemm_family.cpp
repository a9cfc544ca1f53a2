// GEMM: cuBLAS fp32 (pedantic, no tensor cores), tf32 and bf16 (fp32 accumulate), and gpusim's
// tiled fp32 kernel, over square shapes, skinny shapes and sizes just off multiples of 128.
// Inputs are random (never zeros: zeros make tensor cores look faster); every precision's
// results are checked against a double-precision CPU reference on sampled entries.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/device/kernels.hpp"
#include "kernels/harness/cuda_check.hpp"
#include "kernels/harness/families.hpp"
#include "kernels/harness/timing.hpp"

namespace gpusim::calib {
namespace {

enum class Precision { kFp32, kTf32, kBf16, kTiledFp32 };

const char* name_of(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32_cublas";
    case Precision::kTf32: return "tf32_cublas";
    case Precision::kBf16: return "bf16_cublas";
    case Precision::kTiledFp32: return "fp32_tiled";
  }
  return "";
}

struct Shape {
  int m, n, k;
};

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}

class Gemm {
 public:
  Gemm(Precision precision, Shape shape) : precision_(precision), shape_(shape) {
    const std::size_t elt = precision == Precision::kBf16 ? 2 : 4;
    CUDA_CHECK(cudaMalloc(&a_, elt * static_cast<std::size_t>(shape.m) * shape.k));
    CUDA_CHECK(cudaMalloc(&b_, elt * static_cast<std::size_t>(shape.k) * shape.n));
    CUDA_CHECK(cudaMalloc(&c_, 4 * static_cast<std::size_t>(shape.m) * shape.n));
    if (precision == Precision::kBf16) {
      launch_fill_random_bf16(a_, static_cast<std::size_t>(shape.m) * shape.k, 11, nullptr);
      launch_fill_random_bf16(b_, static_cast<std::size_t>(shape.k) * shape.n, 12, nullptr);
    } else {
      launch_fill_random(static_cast<float*>(a_), static_cast<std::size_t>(shape.m) * shape.k, 11, nullptr);
      launch_fill_random(static_cast<float*>(b_), static_cast<std::size_t>(shape.k) * shape.n, 12, nullptr);
    }
    CUDA_CHECK_LAUNCH();
    CUBLAS_CHECK(cublasCreate(&handle_));
  }
  ~Gemm() {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(c_);
    cublasDestroy(handle_);
  }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  // Row-major C = A B, computed by cuBLAS as column-major C^T = B^T A^T.
  void launch(cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    const auto [m, n, k] = shape_;
    if (precision_ == Precision::kTiledFp32) {
      launch_tiled_sgemm(static_cast<float*>(a_), static_cast<float*>(b_), static_cast<float*>(c_), m, n, k, stream);
      return;
    }
    CUBLAS_CHECK(cublasSetStream(handle_, stream));
    const cudaDataType_t in = precision_ == Precision::kBf16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute = precision_ == Precision::kFp32   ? CUBLAS_COMPUTE_32F_PEDANTIC
                                        : precision_ == Precision::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                         : CUBLAS_COMPUTE_32F;
    CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b_, in, n, a_, in, k, &beta,
                              c_, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
  }

  // Poisons C, runs once, and compares 64 sampled entries with a double-precision reference,
  // relative to sum |a||b| (tolerance by precision).
  void verify() {
    const auto [m, n, k] = shape_;
    CUDA_CHECK(cudaMemset(c_, 0xFF, 4 * static_cast<std::size_t>(m) * n));
    launch(nullptr);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    const double tolerance = precision_ == Precision::kTf32 ? 5e-3 : 1e-4;
    std::mt19937 pick(7);
    std::vector<float> a_row(k), b_col(k);
    for (int s = 0; s < 64; ++s) {
      const int i = static_cast<int>(pick() % static_cast<unsigned>(m));
      const int j = static_cast<int>(pick() % static_cast<unsigned>(n));
      fetch_row(i, a_row);
      fetch_column(j, b_col);
      double exact = 0, scale = 0;
      for (int t = 0; t < k; ++t) {
        exact += static_cast<double>(a_row[t]) * b_col[t];
        scale += std::fabs(static_cast<double>(a_row[t]) * b_col[t]);
      }
      float got = 0;
      CUDA_CHECK(cudaMemcpy(&got, static_cast<float*>(c_) + static_cast<std::size_t>(i) * n + j, 4, cudaMemcpyDeviceToHost));
      if (scale == 0 || !(std::fabs(got - exact) <= tolerance * scale)) {
        throw std::runtime_error(std::string(name_of(precision_)) + " wrong at (" + std::to_string(i) + "," +
                                 std::to_string(j) + ") of " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                 std::to_string(k) + ": got " + std::to_string(got) + ", expected " + std::to_string(exact));
      }
    }
  }

 private:
  std::size_t element_size() const { return precision_ == Precision::kBf16 ? 2 : 4; }

  // Row i of A (k contiguous elements) and column j of B (k elements, pitch n), as floats.
  void fetch_row(int i, std::vector<float>& out) const {
    const auto [m, n, k] = shape_;
    std::vector<unsigned char> raw(element_size() * k);
    CUDA_CHECK(cudaMemcpy(raw.data(), static_cast<unsigned char*>(a_) + element_size() * i * static_cast<std::size_t>(k),
                          raw.size(), cudaMemcpyDeviceToHost));
    decode(raw, out);
  }
  void fetch_column(int j, std::vector<float>& out) const {
    const auto [m, n, k] = shape_;
    std::vector<unsigned char> raw(element_size() * k);
    CUDA_CHECK(cudaMemcpy2D(raw.data(), element_size(), static_cast<unsigned char*>(b_) + element_size() * j,
                            element_size() * n, element_size(), k, cudaMemcpyDeviceToHost));
    decode(raw, out);
  }
  void decode(const std::vector<unsigned char>& raw, std::vector<float>& out) const {
    for (std::size_t t = 0; t < out.size(); ++t) {
      if (precision_ == Precision::kBf16) {
        std::uint16_t bits;
        std::memcpy(&bits, raw.data() + 2 * t, 2);
        out[t] = bf16_to_float(bits);
      } else {
        std::memcpy(&out[t], raw.data() + 4 * t, 4);
      }
    }
  }

  Precision precision_;
  Shape shape_;
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* c_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

std::vector<Shape> shapes_for(Precision precision, bool quick) {
  std::vector<int> squares = {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
  if (precision == Precision::kFp32 || precision == Precision::kTiledFp32) squares = {256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
  if (quick) squares = {256, 1024, 2048};
  std::vector<Shape> shapes;
  for (const int s : squares) shapes.push_back({s, s, s});
  if (!quick) {
    for (const int s : {4095, 4097}) shapes.push_back({s, s, s});  // just off multiples of 128
    for (const int m : {16, 64, 256}) shapes.push_back({m, 8192, 8192});  // skinny: memory-bound
  }
  return shapes;
}

}  // namespace

nlohmann::json measure_gemm(const DeviceContext&, const SweepOptions& options) {
  nlohmann::json out;
  for (const Precision precision : {Precision::kFp32, Precision::kTf32, Precision::kBf16, Precision::kTiledFp32}) {
    nlohmann::json samples = nlohmann::json::array();
    for (int sweep = 0; sweep < options.sweeps; ++sweep) {
      for (const Shape shape : shapes_for(precision, options.quick)) {
        Gemm gemm(precision, shape);
        if (sweep == 0 && (shape.m == 1024 || shape.m == shape.n)) gemm.verify();
        const Stats stats = time_launches([&](cudaStream_t s) { gemm.launch(s); }, nullptr,
                                          shape.m >= 8192 ? std::max(5, options.reps / 3) : options.reps);
        nlohmann::json sample = to_json(stats);
        sample["m"] = shape.m;
        sample["n"] = shape.n;
        sample["k"] = shape.k;
        sample["flops"] = 2.0 * shape.m * shape.n * static_cast<double>(shape.k);
        sample["sweep"] = sweep;
        samples.push_back(sample);
      }
    }
    out[name_of(precision)] = {{"samples", samples}};
  }
  return out;
}

}  // namespace gpusim::calib
