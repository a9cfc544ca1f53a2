#include "sim/perf/performance_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::perf {
namespace {

// Documented efficiencies (calibration design §5.7, literature defaults).
constexpr double kBandwidthEfficiency = 0.90;
constexpr double kFp32Efficiency = 0.78;

double tensor_efficiency(const cluster::GpuModel& model, Precision precision) {
  const bool hopper = model.id.starts_with("h100") || model.id.starts_with("h200");
  if (precision == Precision::kTf32) return 0.81;  // Hopper figure; no separate Ampere default
  return hopper ? 0.80 : 0.85;
}

Figure from_catalog(double spec, double efficiency, const cluster::GpuModel& model, const char* what) {
  if (spec <= 0) return {0, fmt::format("unknown: the catalog has no {} for {}", what, model.id)};
  return {spec * efficiency, fmt::format("catalog {} {} x efficiency {:.2f} (literature default)", model.id, what, efficiency)};
}

GpuSpeed catalog_speed(const cluster::GpuModel& model) {
  GpuSpeed speed;
  speed.memory_bandwidth_gbs = from_catalog(model.memory_bandwidth_gbs, kBandwidthEfficiency, model, "memory bandwidth");
  speed.fp32_tflops = from_catalog(model.fp32_tflops, kFp32Efficiency, model, "fp32 peak");
  speed.tf32_tflops = from_catalog(model.tf32_tflops, tensor_efficiency(model, Precision::kTf32), model, "tf32 peak");
  speed.bf16_tflops = from_catalog(model.bf16_tflops, tensor_efficiency(model, Precision::kBf16), model, "bf16 peak");
  speed.time_slice_overhead = {0, "default: no time-slicing overhead (no calibration for this model)"};
  speed.stream_capacity = {1, "default: concurrent pods do not overlap (no calibration for this model)"};
  return speed;
}

void apply(GpuSpeed& speed, const Calibration& c) {
  const std::string from = fmt::format("calibration {} ({})", c.gpu_model, c.provenance);
  if (const auto* t = c.term("memory.dram")) speed.memory_bandwidth_gbs = {t->rate_per_s / 1e9, from + " memory.dram"};
  if (const auto* t = c.term("gemm.fp32_cublas")) speed.fp32_tflops = {t->rate_per_s / 1e12, from + " gemm.fp32_cublas"};
  if (const auto* t = c.term("gemm.tf32_cublas")) speed.tf32_tflops = {t->rate_per_s / 1e12, from + " gemm.tf32_cublas"};
  if (const auto* t = c.term("gemm.bf16_cublas")) speed.bf16_tflops = {t->rate_per_s / 1e12, from + " gemm.bf16_cublas"};
  // The DRAM-bound class is the conservative choice for pods whose kernels are unknown.
  if (const auto* s = c.sharing_term("time_slice.vadd")) speed.time_slice_overhead = {s->parameter, from + " time_slice.vadd"};
  if (const auto* s = c.sharing_term("streams.vadd")) speed.stream_capacity = {s->parameter, from + " streams.vadd"};
}

}  // namespace

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kBf16: return "bf16";
  }
  return "";
}

std::optional<Precision> precision_from_string(std::string_view text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "tf32") return Precision::kTf32;
  if (text == "bf16") return Precision::kBf16;
  return std::nullopt;
}

const Figure& GpuSpeed::rate(Precision precision) const {
  // A GPU without the requested tensor path runs the job at its fp32 rate.
  if (precision == Precision::kBf16 && bf16_tflops.value > 0) return bf16_tflops;
  if (precision == Precision::kTf32 && tf32_tflops.value > 0) return tf32_tflops;
  return fp32_tflops;
}

PerformanceModel PerformanceModel::from_calibrations(const cluster::GpuCatalog& catalog,
                                                     const std::vector<Calibration>& calibrations) {
  PerformanceModel model;
  for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) model.speeds_.push_back(catalog_speed(catalog.at(id)));
  for (const Calibration& c : calibrations) {
    const auto id = catalog.find(c.gpu_model);
    // A calibration the catalog cannot place would silently do nothing: say so instead.
    if (!id) {
      throw core::InputError(fmt::format("calibration for GPU model '{}' ({}): not in the GPU catalog (catalog ids: {})",
                                         c.gpu_model, c.provenance, catalog.ids()));
    }
    apply(model.speeds_[*id], c);
  }
  return model;
}

PerformanceModel PerformanceModel::load(const cluster::GpuCatalog& catalog, const std::filesystem::path& dir) {
  std::vector<Calibration> calibrations;
  if (std::filesystem::is_directory(dir)) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".json" && !entry.path().stem().string().ends_with("-samples")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // directory order is not defined
    for (const auto& file : files) {
      calibrations.push_back(calibration_from_text(io::read_file(file, "calibration JSON"), file.string()));
      if (!catalog.find(calibrations.back().gpu_model)) {
        throw core::InputError(fmt::format("{}: gpu_model: '{}' is not in the GPU catalog (catalog ids: {})", file.string(),
                                           calibrations.back().gpu_model, catalog.ids()));
      }
    }
  }
  return from_calibrations(catalog, calibrations);
}

double PerformanceModel::time_factor(const JobProfile& job, cluster::GpuModelId on) const {
  const GpuSpeed& ref = speeds_.at(job.reference_gpu);
  const GpuSpeed& gpu = speeds_.at(on);
  const double bw_ref = ref.memory_bandwidth_gbs.value, bw = gpu.memory_bandwidth_gbs.value;
  const double f_ref = ref.rate(job.precision).value, f = gpu.rate(job.precision).value;
  if (bw_ref <= 0 || bw <= 0 || f_ref <= 0 || f <= 0) return 1.0;
  // The memory-bound share of a step scales with bandwidth, the rest with arithmetic rate: the
  // new time is the sum of the two parts' times (not a weighted geometric mean, which always
  // predicted shorter times when the two ratios differ).
  return job.memory_fraction * (bw_ref / bw) + (1.0 - job.memory_fraction) * (f_ref / f);
}

double PerformanceModel::time_slice_factor(cluster::GpuModelId model, int pods_on_gpu) const {
  if (pods_on_gpu <= 1) return 1.0;
  const double n = pods_on_gpu;
  return 1.0 + speeds_.at(model).time_slice_overhead.value * (n - 1.0) / n;
}

double PerformanceModel::spatial_share_factor(cluster::GpuModelId model, int pods_on_gpu) const {
  const double capacity = std::max(1e-9, speeds_.at(model).stream_capacity.value);
  return std::max(1.0, static_cast<double>(pods_on_gpu) / capacity);
}

nlohmann::json PerformanceModel::describe(const cluster::GpuCatalog& catalog) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const auto figure = [](const Figure& f) { return nlohmann::ordered_json{{"value", f.value}, {"source", f.source}}; };
  for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) {
    const GpuSpeed& s = speeds_[id];
    out[catalog.at(id).id] = {{"memory_bandwidth_gbs", figure(s.memory_bandwidth_gbs)},
                              {"fp32_tflops", figure(s.fp32_tflops)},
                              {"tf32_tflops", figure(s.tf32_tflops)},
                              {"bf16_tflops", figure(s.bf16_tflops)},
                              {"time_slice_overhead", figure(s.time_slice_overhead)},
                              {"stream_capacity", figure(s.stream_capacity)}};
  }
  return nlohmann::json(out);
}

}  // namespace gpusim::perf
