#pragma once
// How fast a job runs on each GPU model, and how much sharing a GPU slows it down.
//
// Per GPU model the model holds effective ceilings: memory bandwidth and GEMM rates per
// precision. They come from the model's calibration file (results/calibration/<id>.json) when
// one exists, else from the catalog's spec peaks times documented efficiencies (calibration
// design §5.7: 0.90 of bandwidth, 0.80 of bf16 and 0.81 of tf32 tensor peaks on Hopper, 0.85 of
// bf16 on Ampere, 0.78 of fp32). Every figure carries its source.
//
// A job profile gives the GPU its step was measured on and the fraction of that step that is
// memory-bound (gamma). Its time on GPU g (Habitat-style transfer with effective ceilings): the
// memory-bound part scales with bandwidth, the rest with the arithmetic rate, and they add up:
//   t(g) = t(ref) * (gamma * BW(ref) / BW(g) + (1 - gamma) * F(ref) / F(g))
// Time-slicing N pods on one GPU adds the calibrated overhead d(N) = d_inf (N - 1) / N to each;
// N pods sharing it spatially (streams, MPS) each run max(1, N / capacity) times longer.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/perf/calibration.hpp"

namespace gpusim::perf {

enum class Precision : std::uint8_t { kFp32, kTf32, kBf16 };
const char* to_string(Precision precision);
std::optional<Precision> precision_from_string(std::string_view text);

struct Figure {
  double value = 0;  // 0: unknown
  std::string source;
};

struct GpuSpeed {
  Figure memory_bandwidth_gbs;
  Figure fp32_tflops;
  Figure tf32_tflops;
  Figure bf16_tflops;
  Figure time_slice_overhead;  // d_inf
  Figure stream_capacity;      // aggregate throughput of concurrent streams, in solo units
  const Figure& rate(Precision precision) const;
};

struct JobProfile {
  cluster::GpuModelId reference_gpu = 0;
  double memory_fraction = 0.5;  // gamma in [0, 1]
  Precision precision = Precision::kBf16;
};

class PerformanceModel {
 public:
  // Reads every *.json calibration in `calibration_dir` whose gpu_model names a catalog model
  // (a missing directory means no calibrations). Throws core::InputError on a malformed file.
  static PerformanceModel load(const cluster::GpuCatalog& catalog, const std::filesystem::path& calibration_dir);
  static PerformanceModel from_calibrations(const cluster::GpuCatalog& catalog, const std::vector<Calibration>& calibrations);

  const GpuSpeed& speed(cluster::GpuModelId model) const { return speeds_.at(model); }
  // t(on) / t(reference); 1 when either GPU lacks the figures needed (reported by `source`).
  double time_factor(const JobProfile& job, cluster::GpuModelId on) const;
  // Multiplier on a pod's run time when `pods_on_gpu` pods time-slice one GPU (1 when alone).
  double time_slice_factor(cluster::GpuModelId model, int pods_on_gpu) const;
  // Multiplier on a pod's run time when `pods_on_gpu` pods share one GPU spatially (streams or
  // MPS): max(1, N / capacity). Used by the MPS sharing model; replay uses time slicing.
  double spatial_share_factor(cluster::GpuModelId model, int pods_on_gpu) const;

  // What every figure is and where it came from, for reports.
  nlohmann::json describe(const cluster::GpuCatalog& catalog) const;

 private:
  std::vector<GpuSpeed> speeds_;
};

}  // namespace gpusim::perf
