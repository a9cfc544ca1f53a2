#pragma once
// `gpusim calibrate` and `gpusim validate`: run the CUDA harness (gpusim-calib, built beside
// gpusim when nvcc was found), fit the performance model, and report hold-out errors.
#include <CLI/CLI.hpp>
#include <string>

#include "sim/app/progress_options.hpp"

namespace gpusim::app {

struct CalibrateOptions {
  std::string out_dir;         // default: results/calibration of the checkout
  std::string from_samples;   // refit from a samples file instead of measuring
  std::string gpu_model;      // catalog id override
  int device = 0;
  int sweeps = 2;
  bool quick = false;
  ProgressOptions progress;   // calibrate: passed to gpusim-calib, which reports the benchmark families
  std::string calibration;    // validate: the calibration file
};

void add_calibrate_commands(CLI::App& app, CalibrateOptions& options);
// Runs whichever of the two subcommands was given; returns the exit code (0 when neither).
int run_calibrate_commands(const CLI::App& app, const CalibrateOptions& options, const std::string& self_path);

}  // namespace gpusim::app
