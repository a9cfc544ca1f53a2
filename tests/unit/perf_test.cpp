// The calibration chain without a GPU: fits recover known parameters from synthetic samples,
// the calibration JSON round-trips, and the performance model's predictions on a hand-made
// calibration match hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"
#include "sim/perf/calibration.hpp"
#include "sim/perf/performance_model.hpp"
#include "tests/perf/synthetic_samples.hpp"

namespace gpusim::perf {
namespace {

TEST(Fit, AffineRecoversExactParameters) {
  std::vector<double> x, t;
  for (double b = 1e6; b < 1e10; b *= 2) {
    x.push_back(b);
    t.push_back(3.0 + b / 3e6);
  }
  const AffineFit fit = fit_affine(x, t);
  EXPECT_NEAR(fit.intercept, 3.0, 1e-6);
  EXPECT_NEAR(1.0 / fit.slope, 3e6, 3e6 * 1e-9);
}

TEST(Fit, AffineRecoversParametersUnderNoiseWithinOnePercent) {
  core::Rng rng(11);
  std::vector<double> x, t;
  for (double f = 1e10; f < 1e13; f *= 1.3) {
    x.push_back(f);
    const double noise = 1.0 + 0.01 * (2 * rng.uniform_unit() - 1);  // +-1% multiplicative
    t.push_back((9.0 + f / 7.9e8) * noise);
  }
  const AffineFit fit = fit_affine(x, t);
  EXPECT_NEAR(1.0 / fit.slope / 7.9e8, 1.0, 0.01);
}

TEST(Fit, NegativeInterceptIsDropped) {
  const std::vector<double> x{1, 2, 3}, t{0.5, 1.9, 3.1};  // a line through about -0.8
  const AffineFit fit = fit_affine(x, t);
  EXPECT_EQ(fit.intercept, 0.0);
  EXPECT_GT(fit.slope, 0.0);
}

TEST(Fit, SharingModels) {
  const std::vector<double> n{2, 4, 8};
  std::vector<double> y, delta;
  for (const double k : n) {
    y.push_back(std::min(1.0, 1.5 / k));
    delta.push_back(0.08 * (k - 1) / k);
  }
  EXPECT_NEAR(fit_capacity(n, y), 1.5, 1e-9);
  EXPECT_NEAR(fit_overhead(n, delta), 0.08, 1e-12);
}

TEST(Calibration, FitsSyntheticSamplesWithinOnePercent) {
  const auto samples = testing::synthetic_samples(testing::kTruth, 0.005, 3);
  const Calibration c = fit_calibration(samples, "h100-sxm5-80gb", "synthetic");
  ASSERT_NE(c.term("memory.dram"), nullptr);
  EXPECT_NEAR(c.term("memory.dram")->rate_per_s / testing::kTruth.dram_bytes_per_s, 1.0, 0.01);
  EXPECT_NEAR(c.term("memory.l2")->rate_per_s / testing::kTruth.l2_bytes_per_s, 1.0, 0.01);
  EXPECT_NEAR(c.term("gemm.bf16_cublas")->rate_per_s / testing::kTruth.bf16_flops_per_s, 1.0, 0.01);
  EXPECT_NEAR(c.term("gemm.fp32_cublas")->rate_per_s / testing::kTruth.fp32_flops_per_s, 1.0, 0.01);
  EXPECT_LT(c.term("memory.dram")->holdout.mape, 0.01);
  // Three sweeps with +-0.5% noise: the spread of one size across sweeps is below 1%.
  EXPECT_GT(c.term("memory.dram")->sweep_cv, 0.0);
  EXPECT_LT(c.term("memory.dram")->sweep_cv, 0.01);
  EXPECT_GT(c.term("memory.dram")->holdout.n, 0);
  ASSERT_NE(c.sharing_term("time_slice.vadd"), nullptr);
  EXPECT_NEAR(c.sharing_term("time_slice.vadd")->parameter, testing::kTruth.time_slice_delta, 0.01);
  EXPECT_NEAR(c.sharing_term("streams.vadd")->parameter, testing::kTruth.stream_capacity, 0.015);
  EXPECT_LT(c.sharing_term("time_slice.vadd")->holdout.mape, 0.02);
  ASSERT_EQ(c.mixes.size(), 1U);
  EXPECT_NEAR(c.copy_d2d_gbps, testing::kTruth.copy_gbps, 1e-9);
}

TEST(Calibration, JsonRoundTrips) {
  const Calibration c = fit_calibration(testing::synthetic_samples(testing::kTruth, 0.0, 1), "h100-sxm5-80gb", "synthetic");
  const nlohmann::json once = to_json(c);
  const Calibration back = calibration_from_json(once, "memory");
  EXPECT_EQ(to_json(back).dump(), once.dump());
  EXPECT_EQ(back.terms.size(), c.terms.size());
  EXPECT_THROW(calibration_from_json(nlohmann::json{{"schema", "other"}}, "x.json"), core::InputError);
}

TEST(Calibration, DeviceNamesMapToCatalogIds) {
  EXPECT_EQ(catalog_id_for_device("NVIDIA H100 80GB HBM3"), "h100-sxm5-80gb");
  EXPECT_EQ(catalog_id_for_device("NVIDIA H100 PCIe"), "h100-pcie-80gb");
  EXPECT_EQ(catalog_id_for_device("NVIDIA H200"), "h200-sxm-141gb");
  EXPECT_EQ(catalog_id_for_device("NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
  EXPECT_EQ(catalog_id_for_device("Some New GPU"), "some-new-gpu");
}

// What nvidia-smi reports for every catalog model with a device name, and near misses that used
// to match the wrong model by substring.
TEST(Calibration, NvidiaSmiNamesOfEveryCatalogModel) {
  const std::vector<std::pair<const char*, const char*>> names{
      {"Tesla K80", "k80"},
      {"Tesla P100-SXM2-16GB", "p100-sxm2-16gb"},
      {"Tesla P100-PCIE-16GB", "p100-pcie-16gb"},
      {"Tesla P100-PCIE-12GB", "p100-pcie-12gb"},
      {"Tesla P40", "p40"},
      {"Tesla V100-PCIE-16GB", "v100-pcie"},
      {"Tesla V100-PCIE-32GB", "v100-pcie"},
      {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
      {"Tesla T4", "t4"},
      {"NVIDIA A10", "a10"},
      {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
      {"NVIDIA L4", "l4"},
      {"NVIDIA L40S", "l40s"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"},
      {"NVIDIA H100 PCIe", "h100-pcie-80gb"},
      {"NVIDIA H200", "h200-sxm-141gb"},
      {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"},
      // Near misses: not in the catalog, so they must not borrow another model's figures.
      {"NVIDIA L40", "nvidia-l40"},
      {"NVIDIA GH200 480GB", "nvidia-gh200-480gb"},
      {"NVIDIA A100-PCIE-40GB", "nvidia-a100-pcie-40gb"},
      {"NVIDIA A10G", "nvidia-a10g"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "nvidia-rtx-pro-6000-blackwell-workstation-edition"},
  };
  for (const auto& [device, id] : names) EXPECT_EQ(catalog_id_for_device(device), id) << device;
  // Every catalog model but openb's undisclosed G2/G3 is reachable from a device name.
  const auto catalog = cluster::GpuCatalog::load(std::string(GPUSIM_SOURCE_DIR) + "/sim/cluster/gpu_catalog.json");
  for (cluster::GpuModelId m = 0; m < catalog.size(); ++m) {
    const std::string& model = catalog.at(m).id;
    if (model.starts_with("openb-")) continue;
    EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const auto& n) { return model == n.second; })) << model;
  }
}

// A: 1000 GB/s, 10 TFLOP/s fp32 in the catalog, no calibration -> 900 GB/s and 7.8 TFLOP/s
// (efficiencies 0.90 and 0.78). B: calibrated at 1500 GB/s, 30 TFLOP/s fp32, d_inf 0.06.
// A job measured on A, half memory-bound, fp32, on B: the two halves' times add up,
//   0.5 * 900/1500 + 0.5 * 7.8/30 = 0.3 + 0.13 = 0.43.
// Three pods time-slicing B: 1 + 0.06 * 2/3 = 1.04.
TEST(PerformanceModel, HandMadeCalibrationGivesHandComputedFactors) {
  const auto catalog = cluster::GpuCatalog::from_models(
      {{"gpu-a", "A", {}, 16384, 1000, 10, 0, 0, "test"}, {"gpu-b", "B", {}, 32768, 2000, 40, 80, 160, "test"}});
  Calibration b;
  b.gpu_model = "gpu-b";
  b.provenance = "hand-made";
  b.terms = {{"memory.dram", 2.0, 1500e9, {}, {}}, {"gemm.fp32_cublas", 5.0, 30e12, {}, {}}};
  b.sharing = {{"time_slice.vadd", {1, 2, 4, 8}, {}, 0.06, {}, {}}, {"streams.vadd", {1, 2, 4, 8}, {}, 1.6, {}, {}}};
  const PerformanceModel model = PerformanceModel::from_calibrations(catalog, {b});
  EXPECT_DOUBLE_EQ(model.speed(0).memory_bandwidth_gbs.value, 900.0);
  EXPECT_DOUBLE_EQ(model.speed(0).fp32_tflops.value, 7.8);
  EXPECT_NE(model.speed(0).fp32_tflops.source.find("literature default"), std::string::npos);
  EXPECT_NE(model.speed(1).fp32_tflops.source.find("calibration gpu-b"), std::string::npos);
  const JobProfile job{0, 0.5, Precision::kFp32};
  EXPECT_NEAR(model.time_factor(job, 1), 0.43, 1e-12);
  // All memory-bound: the bandwidth ratio alone; all compute-bound: the rate ratio alone.
  EXPECT_NEAR(model.time_factor({0, 1.0, Precision::kFp32}, 1), 0.6, 1e-12);
  EXPECT_NEAR(model.time_factor({0, 0.0, Precision::kFp32}, 1), 0.26, 1e-12);
  EXPECT_DOUBLE_EQ(model.time_factor(job, 0), 1.0);
  EXPECT_NEAR(model.time_slice_factor(1, 3), 1.04, 1e-12);
  EXPECT_DOUBLE_EQ(model.time_slice_factor(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(model.time_slice_factor(0, 4), 1.0) << "no calibration: no overhead";
  // Spatial sharing: four pods on B with capacity 1.6 run 4 / 1.6 = 2.5x longer; one pod 1x.
  EXPECT_DOUBLE_EQ(model.spatial_share_factor(1, 4), 2.5);
  EXPECT_DOUBLE_EQ(model.spatial_share_factor(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(model.spatial_share_factor(0, 3), 3.0) << "no calibration: no overlap";
  // bf16 on B uses the catalog's bf16 x 0.85 (not Hopper): 136 TFLOP/s; A has no bf16 -> fp32.
  EXPECT_DOUBLE_EQ(model.speed(1).rate(Precision::kBf16).value, 136.0);
  EXPECT_DOUBLE_EQ(model.speed(0).rate(Precision::kBf16).value, 7.8);
}

// The review's case, with the bundled catalog: reference V100M32 (no bf16 path, so its fp32 rate
// 15.7 x 0.78 = 12.246 TFLOP/s; 900 x 0.9 = 810 GB/s), half memory-bound, bf16.
//   A10: 540 GB/s, 125 x 0.85 = 106.25 TFLOP/s -> 0.5 * 810/540 + 0.5 * 12.246/106.25 = 0.807628...
//   A100-40GB: 1399.5 GB/s, 312 x 0.85 = 265.2 -> 0.5 * 810/1399.5 + 0.5 * 12.246/265.2 = 0.312477...
// The old geometric mean gave 0.4158 and 0.1635: about 1.9x too fast.
TEST(PerformanceModel, CatalogFactorsAreTheSumOfTheTwoPartsTimes) {
  const auto catalog = cluster::GpuCatalog::load(std::string(GPUSIM_SOURCE_DIR) + "/sim/cluster/gpu_catalog.json");
  const PerformanceModel model = PerformanceModel::from_calibrations(catalog, {});
  const JobProfile job{*catalog.find("V100M32"), 0.5, Precision::kBf16};
  EXPECT_NEAR(model.time_factor(job, *catalog.find("a10")), 0.5 * 810.0 / 540.0 + 0.5 * 12.246 / 106.25, 1e-9);
  EXPECT_NEAR(model.time_factor(job, *catalog.find("a100-sxm4-40gb")), 0.5 * 810.0 / 1399.5 + 0.5 * 12.246 / 265.2, 1e-9);
  EXPECT_NEAR(model.time_factor(job, *catalog.find("a10")), 0.807628, 1e-6);
  EXPECT_DOUBLE_EQ(model.time_factor(job, *catalog.find("V100M32")), 1.0);
}

TEST(PerformanceModel, UnknownFiguresLeaveRunTimesUnchanged) {
  const auto catalog = cluster::GpuCatalog::from_models({{"known", "K", {}, 1, 1000, 10, 0, 0, ""}, {"secret", "S", {}, 0, 0, 0, 0, 0, ""}});
  const PerformanceModel model = PerformanceModel::from_calibrations(catalog, {});
  EXPECT_DOUBLE_EQ(model.time_factor({0, 0.5, Precision::kFp32}, 1), 1.0);
  EXPECT_NE(model.speed(1).memory_bandwidth_gbs.source.find("unknown"), std::string::npos);
}

TEST(PerformanceModel, LoadsCalibrationFilesFromADirectory) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrations";
  std::filesystem::remove_all(dir);  // TempDir outlives a test run
  std::filesystem::create_directories(dir);
  const Calibration c = fit_calibration(testing::synthetic_samples(testing::kTruth, 0.0, 1), "gpu-b", "synthetic");
  std::ofstream(dir / "gpu-b.json") << to_json(c).dump();
  const auto catalog = cluster::GpuCatalog::from_models({{"gpu-a", "A", {}, 1, 1000, 10, 0, 0, ""}, {"gpu-b", "B", {}, 1, 4000, 60, 0, 0, ""}});
  const PerformanceModel model = PerformanceModel::load(catalog, dir);
  EXPECT_NEAR(model.speed(1).memory_bandwidth_gbs.value, testing::kTruth.dram_bytes_per_s / 1e9, 1e-6 * testing::kTruth.dram_bytes_per_s / 1e9);
  std::ofstream(dir / "broken.json") << "{not json";
  EXPECT_THROW(PerformanceModel::load(catalog, dir), core::InputError);
}

// Impossible figures are refused on load, naming the file and the field.
TEST(Calibration, ImpossibleFiguresAreRefusedOnLoad) {
  const Calibration good = fit_calibration(testing::synthetic_samples(testing::kTruth, 0.0, 1), "gpu-b", "synthetic");
  const auto message = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = to_json(good);
    edit(doc);
    try {
      calibration_from_json(doc, "cal.json");
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message([](nlohmann::json&) {}), "accepted");
  EXPECT_NE(message([](nlohmann::json& d) { d["terms"][0]["rate_per_s"] = -1.0; }).find("cal.json: terms[0] (memory.dram).rate_per_s: must be a finite number > 0"),
            std::string::npos);
  EXPECT_NE(message([](nlohmann::json& d) { d["terms"][0]["rate_per_s"] = 0.0; }).find("rate_per_s"), std::string::npos);
  const nlohmann::json good_doc = to_json(good);  // iterated below: must outlive the loop
  for (const auto& s : good_doc["sharing"]) {
    if (!s["name"].get<std::string>().starts_with("time_slice.")) continue;
    EXPECT_NE(message([&](nlohmann::json& d) {
                for (auto& t : d["sharing"]) {
                  if (t["name"] == s["name"]) t["parameter"] = -3.0;
                }
              }).find(".parameter: must be a finite number >= 0 (got -3)"),
              std::string::npos);
    break;
  }
  // A calibration for a model the catalog lacks is reported, not ignored.
  const auto catalog = cluster::GpuCatalog::from_models({{"gpu-a", "A", {}, 1, 1000, 10, 0, 0, ""}});
  try {
    PerformanceModel::from_calibrations(catalog, {good});
    ADD_FAILURE() << "accepted a calibration for an unknown model";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu-b'"), std::string::npos) << e.what();
  }
}

// Noise that makes times shrink with size cannot be fitted into a rate <= 0; a negative
// time-slicing overhead is clamped to 0.
TEST(Calibration, FitsAreConstrained) {
  const std::vector<double> x{1e6, 2e6, 4e6, 8e6};
  const std::vector<double> shrinking{40, 30, 20, 10};
  EXPECT_THROW(fit_affine(x, shrinking), std::domain_error);
  const std::vector<double> n{2, 4, 8};
  const std::vector<double> faster{-0.1, -0.2, -0.1};
  EXPECT_EQ(fit_overhead(n, faster), 0.0);
}

}  // namespace
}  // namespace gpusim::perf
