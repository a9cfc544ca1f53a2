#pragma once
// A GPU's calibration: fitted model terms with their training and hold-out errors, the sharing
// measurements, provenance, and the raw samples (so a refit needs no GPU). Built from the raw
// samples gpusim-calib writes; stored as results/calibration/<catalog-id>.json.
//
// Terms (t in microseconds):
//   memory.dram, memory.l2      t = t0 + bytes / bandwidth        (vector add, 12 bytes/element)
//   gemm.<precision>            t = t0 + flops / rate             (square shapes >= 2048)
//   time_slice.<class>          per-process throughput of N processes = 1 / (N (1 + d(N))),
//                               d(N) = d_inf (N - 1) / N
//   streams.<class>             per-stream throughput of N streams = min(1, capacity / N)
// Every third size (and N = 4 for sharing) is held out of the fit and predicted.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/perf/fit.hpp"

namespace gpusim::perf {

struct FittedTerm {
  std::string name;
  double t0_us = 0;
  double rate_per_s = 0;  // bytes/s or FLOP/s
  ErrorStats train;
  ErrorStats holdout;
  // Run-to-run spread: the largest coefficient of variation, across sweeps, of the median time
  // of one size (0 with a single sweep).
  double sweep_cv = 0;
};

struct SharingTerm {
  std::string name;            // "time_slice.vadd", "streams.gemm_bf16", ...
  std::vector<int> n;          // process or stream counts measured
  std::vector<double> norm;    // mean per-process throughput relative to solo, per n
  double parameter = 0;        // d_inf (time slice) or capacity (streams)
  std::vector<double> predicted;
  ErrorStats holdout;          // on N = 4
};

struct MixTerm {
  std::string name;            // "mix.vadd+gemm_bf16"
  std::vector<double> norm;    // measured, per member
  std::vector<double> predicted;
  ErrorStats error;
};

struct Calibration {
  std::string gpu_model;       // catalog id
  std::string provenance;      // "measured" (gpusim-calib) or "synthetic" (tests)
  nlohmann::json device;
  nlohmann::json run;
  double launch_async_us = 0;
  double launch_sync_us = 0;
  double copy_d2d_gbps = 0;    // read + write bytes
  std::vector<FittedTerm> terms;
  std::vector<SharingTerm> sharing;
  std::vector<MixTerm> mixes;
  nlohmann::json samples;

  const FittedTerm* term(std::string_view name) const;
  const SharingTerm* sharing_term(std::string_view name) const;
};

// Fits every term present in `samples` (gpusim-calib's JSON). Throws std::runtime_error naming
// the part of the samples that is unusable.
Calibration fit_calibration(const nlohmann::json& samples, const std::string& gpu_model, const std::string& provenance);

nlohmann::json to_json(const Calibration& calibration);
// Throws core::InputError naming `source` and the field. Every figure is checked
// (check_calibration).
Calibration calibration_from_json(const nlohmann::json& doc, const std::string& source);
// The same from a file's text (what PerformanceModel::load reads, and the fuzz target).
Calibration calibration_from_text(const std::string& text, const std::string& source);
// Rejects impossible figures: rates <= 0, negative time-slicing overheads, stream capacities
// <= 0, negative or non-finite times. Throws core::InputError "source: field: reason (got x)".
void check_calibration(const Calibration& calibration, const std::string& source);

// The hold-out prediction error of every term, as a Markdown table.
std::string validation_table(const Calibration& calibration);

// The catalog id a CUDA device name corresponds to ("NVIDIA H100 80GB HBM3" -> h100-sxm5-80gb),
// matched on whole words against an explicit table, or a lower-case, dash-separated form of the
// name when none matches (such a calibration is then refused as not in the catalog).
std::string catalog_id_for_device(std::string_view device_name);
// The device name a catalog model reports (nvidia-smi, dcgm-exporter's modelName), or "" when
// none is known (openb's undisclosed G2/G3).
std::string device_name_for(std::string_view catalog_id);

}  // namespace gpusim::perf
