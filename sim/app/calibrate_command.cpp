#include "sim/app/calibrate_command.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/status.hpp"
#include "sim/perf/calibration.hpp"

namespace gpusim::app {
namespace {

namespace fs = std::filesystem;

// Exit status of gpusim-calib when no usable GPU is present.
constexpr int kNoGpu = 3;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(fmt::format("{}: cannot open", path.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw core::InputError(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
  }
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  const fs::path staging = path.string() + ".partial";
  std::ofstream(staging) << text;
  fs::rename(staging, path);
}

std::string validation_report(const perf::Calibration& c) {
  std::string md = fmt::format("# Validation: {} ({})\n\n", c.gpu_model, c.provenance);
  md += fmt::format("Device: {}; CUDA runtime {}; driver API {}.\n\n", c.device.value("name", "?"),
                    c.device.value("cuda_runtime", 0), c.device.value("cuda_driver_api", 0));
  md += "Every third size of each sweep (and N = 4 for sharing) was held out of the fit and predicted.\n\n";
  md += perf::validation_table(c);
  if (c.copy_d2d_gbps > 0) {
    if (const auto* dram = c.term("memory.dram")) {
      md += fmt::format("\nVector add reaches {:.1f} GB/s, {:.1f}% of the device-to-device copy bandwidth measured in the same run ({:.1f} GB/s, read + write).\n",
                        dram->rate_per_s / 1e9, 100 * dram->rate_per_s / 1e9 / c.copy_d2d_gbps, c.copy_d2d_gbps);
    }
  }
  return md;
}

int calibrate(const CalibrateOptions& o, const std::string& self_path) {
  nlohmann::json samples;
  fs::path samples_path;
  if (!o.from_samples.empty()) {
    samples_path = o.from_samples;
    samples = read_json(samples_path);
  } else {
    const fs::path harness = fs::path(self_path).parent_path() / "gpusim-calib";
    if (!fs::exists(harness)) {
      fmt::print(stderr, "gpusim calibrate: {} is missing: gpusim was built without CUDA (no nvcc at build time)\n",
                 harness.string());
      return kNoGpu;
    }
    samples_path = fs::temp_directory_path() / fmt::format("gpusim-calib-{}.json", ::getpid());
    const std::string command = fmt::format("'{}' --out '{}' --device {} --sweeps {}{}", harness.string(),
                                            samples_path.string(), o.device, o.sweeps, o.quick ? " --quick" : "");
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (code == kNoGpu) {
      fmt::print(stderr, "gpusim calibrate: no GPU present (gpusim-calib could not open a CUDA device); nothing written.\n"
                         "The simulator keeps using catalog figures times documented efficiencies.\n");
      return kNoGpu;
    }
    if (code != 0) {
      fmt::print(stderr, "gpusim calibrate: gpusim-calib failed (exit {}); nothing written\n", code);
      return 1;
    }
    samples = read_json(samples_path);
  }
  const std::string model = !o.gpu_model.empty() ? o.gpu_model
                                                 : perf::catalog_id_for_device(samples.value("device", nlohmann::json::object()).value("name", "unknown"));
  const perf::Calibration c = perf::fit_calibration(samples, model, o.from_samples.empty() ? "measured" : "refit from samples");
  const fs::path out = fs::path(o.out_dir) / (model + ".json");
  write_text(out, perf::to_json(c).dump(1) + "\n");
  write_text(fs::path(o.out_dir) / (model + "-validation.md"), validation_report(c));
  fmt::print("wrote {} and {}-validation.md\n\n{}", out.string(), model, perf::validation_table(c));
  return 0;
}

int validate(const CalibrateOptions& o) {
  const perf::Calibration stored = perf::calibration_from_json(read_json(o.calibration), o.calibration);
  // Refit from the stored samples, so the table reflects this version's fitting code.
  const perf::Calibration c = perf::fit_calibration(stored.samples, stored.gpu_model, stored.provenance);
  const std::string report = validation_report(c);
  write_text(fs::path(o.out_dir) / (c.gpu_model + "-validation.md"), report);
  fmt::print("{}", report);
  return 0;
}

}  // namespace

void add_calibrate_commands(CLI::App& app, CalibrateOptions& o) {
  auto* cal = app.add_subcommand("calibrate", "Run the CUDA microbenchmarks on a GPU, fit the performance model, write results/calibration/<gpu>.json");
  cal->add_option("--out-dir", o.out_dir, "Where the calibration and validation files go")->capture_default_str();
  cal->add_option("--device", o.device, "CUDA device index")->capture_default_str();
  cal->add_option("--sweeps", o.sweeps, "Whole sweeps, for the run-to-run spread")->check(CLI::Range(1, 10))->capture_default_str();
  cal->add_flag("--quick", o.quick, "Fewer sizes and shorter windows (a smoke test, not a calibration)");
  cal->add_option("--from-samples", o.from_samples, "Refit from a gpusim-calib samples file instead of measuring (no GPU needed)");
  cal->add_option("--gpu-model", o.gpu_model, "Catalog id to file the result under (default: from the device name)");
  auto* val = app.add_subcommand("validate", "Refit a calibration from its stored samples and report the hold-out prediction error per term");
  val->add_option("--calibration", o.calibration, "A calibration JSON (results/calibration/<gpu>.json)")->required()->check(CLI::ExistingFile);
  val->add_option("--out-dir", o.out_dir, "Where the validation table goes")->capture_default_str();
}

int run_calibrate_commands(const CLI::App& app, const CalibrateOptions& options, const std::string& self_path) {
  if (app.got_subcommand("calibrate")) return calibrate(options, self_path);
  if (app.got_subcommand("validate")) return validate(options);
  return 0;
}

}  // namespace gpusim::app
