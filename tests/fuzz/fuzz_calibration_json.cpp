// Fuzz target: the calibration JSON reader. A calibration it accepts also feeds the
// performance model, whose factors must then be finite and positive.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/perf/calibration.hpp"
#include "sim/perf/performance_model.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const auto doc = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  try {
    const auto& catalog = fuzz::bundled_catalog();
    const perf::Calibration c = perf::calibration_from_json(doc, "fuzz-calibration.json");
    const auto model = perf::PerformanceModel::from_calibrations(catalog, {c});
    const perf::JobProfile job{*catalog.find("V100M32"), 0.5, perf::Precision::kBf16};
    for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) {
      for (const double factor : {model.time_factor(job, id), model.time_slice_factor(id, 3), model.spatial_share_factor(id, 3)}) {
        if (!std::isfinite(factor) || factor <= 0) std::abort();
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
