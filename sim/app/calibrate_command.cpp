#include "sim/app/calibrate_command.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>
#include <nlohmann/json.hpp>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/perf/calibration.hpp"
#include "traces/bundled.hpp"

namespace gpusim::app {
namespace {

namespace fs = std::filesystem;

// Exit status of gpusim-calib when no usable GPU is present.
constexpr int kNoGpu = 3;

nlohmann::json read_json(const fs::path& path) {
  const std::string text = io::read_file(path, "JSON");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
  }
}

// calibrate and validate write single files into a shared directory; an existing file is
// replaced only when gpusim wrote it (a calibration JSON with gpusim's schema, or a validation
// table with gpusim's heading), never a file of the user's that happens to have the same name.
void check_replaceable(const fs::path& path) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(path, error))) return;
  std::string text;
  try {
    text = io::read_file(path, "earlier output");
  } catch (const core::InputError&) {
    throw core::InputError(fmt::format("{}: exists and is not a file gpusim wrote; refusing to replace it", path.string()));
  }
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const bool ours = path.extension() == ".json"
                        ? doc.is_object() && doc.contains("schema") && doc["schema"] == "gpusim-calibration/1"
                        : text.starts_with("# Validation: ");
  if (!ours) {
    throw core::InputError(fmt::format("{}: exists and was not written by gpusim; refusing to replace it", path.string()));
  }
}

// Removes the directories this command is about to create (`dir` and its missing parents), if
// the command ends without writing into them.
class CreatedDirectory {
 public:
  explicit CreatedDirectory(const fs::path& dir) {
    std::error_code error;
    for (fs::path p = fs::absolute(dir, error).lexically_normal(); !p.empty() && !fs::exists(p, error) && p != p.root_path();
         p = p.parent_path()) {
      created_.push_back(p);  // deepest first
    }
  }
  ~CreatedDirectory() {
    std::error_code ignored;
    if (kept_) return;
    for (const auto& dir : created_) {
      if (!fs::is_empty(dir, ignored)) break;
      fs::remove(dir, ignored);
    }
  }
  CreatedDirectory(const CreatedDirectory&) = delete;
  CreatedDirectory& operator=(const CreatedDirectory&) = delete;
  void keep() { kept_ = true; }

 private:
  std::vector<fs::path> created_;
  bool kept_ = false;
};

// Calibration files are named by catalog id: the device name must map to one, or --gpu-model
// must give one; anything else would be a file no replay can use.
std::string catalog_model(const std::string& asked, const std::string& device_name) {
  const gpusim::cluster::GpuCatalog catalog = gpusim::cluster::GpuCatalog::load(traces::default_catalog(traces::data_root()));
  const std::string candidate = asked.empty() ? perf::catalog_id_for_device(device_name) : asked;
  if (const auto id = catalog.find(candidate)) return catalog.at(*id).id;
  if (asked.empty()) {
    throw core::InputError(fmt::format("device '{}' is not in the GPU catalog; name its model with --gpu-model "
                                       "(catalog ids: {}), or add it to the catalog first", device_name, catalog.ids()));
  }
  throw core::InputError(fmt::format("--gpu-model: unknown GPU model '{}' (catalog ids: {})", asked, catalog.ids()));
}

// A fit from samples gpusim cannot use is bad input, not an internal error.
perf::Calibration fit(const nlohmann::json& samples, const std::string& model, const std::string& provenance,
                      const fs::path& source) {
  try {
    return perf::fit_calibration(samples, model, provenance);
  } catch (const core::InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw core::InputError(fmt::format("{}: unusable samples: {}", source.string(), e.what()));
  }
}

// Before measuring: the directory exists (or is made) and takes a new file.
void check_writable(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw core::InputError(fmt::format("--out-dir {}: cannot create: {}", dir.string(), error.message()));
  const fs::path probe = dir / fmt::format(".gpusim-write-test-{}", ::getpid());
  if (!std::ofstream(probe)) throw core::InputError(fmt::format("--out-dir {}: cannot write there", dir.string()));
  fs::remove(probe, error);
}

void write_text(const fs::path& path, const std::string& text) {
  check_replaceable(path);
  const fs::path staging = path.string() + fmt::format(".gpusim-partial-{}", ::getpid());
  std::ofstream out(staging, std::ios::binary);
  out << text;
  out.close();
  std::error_code error;
  if (!out || (fs::rename(staging, path, error), error)) {
    fs::remove(staging, error);
    throw core::InputError(fmt::format("{}: cannot write", path.string()));
  }
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
  if (!o.gpu_model.empty()) catalog_model(o.gpu_model, "");  // an unknown --gpu-model fails before measuring
  std::error_code error;
  std::optional<CreatedDirectory> created;
  if (!fs::exists(o.out_dir, error)) created.emplace(o.out_dir);
  check_writable(o.out_dir);
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
    const std::string command =
        fmt::format("'{}' --out '{}' --device {} --sweeps {}{}{}", harness.string(), samples_path.string(), o.device, o.sweeps,
                    o.quick ? " --quick" : "",
                    o.progress.quiet ? " --quiet" : fmt::format(" --progress-every {}", o.progress.every_s));
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
  const nlohmann::json device = samples.is_object() ? samples.value("device", nlohmann::json::object()) : nlohmann::json::object();
  const std::string model = catalog_model(o.gpu_model, device.is_object() && device.contains("name") && device["name"].is_string()
                                                           ? device["name"].get<std::string>() : "unknown");
  const perf::Calibration c = fit(samples, model, o.from_samples.empty() ? "measured" : "refit from samples", samples_path);
  if (o.from_samples.empty()) fs::remove(samples_path, error);
  if (created) created->keep();
  const fs::path out = fs::path(o.out_dir) / (model + ".json");
  check_replaceable(out);
  check_replaceable(fs::path(o.out_dir) / (model + "-validation.md"));
  write_text(out, perf::to_json(c).dump(1) + "\n");
  write_text(fs::path(o.out_dir) / (model + "-validation.md"), validation_report(c));
  fmt::print("wrote {} and {}-validation.md\n\n{}", out.string(), model, perf::validation_table(c));
  return 0;
}

int validate(const CalibrateOptions& o) {
  std::error_code error;
  std::optional<CreatedDirectory> created;
  if (!fs::exists(o.out_dir, error)) created.emplace(o.out_dir);
  check_writable(o.out_dir);
  const perf::Calibration stored = perf::calibration_from_json(read_json(o.calibration), o.calibration);
  // Refit from the stored samples, so the table reflects this version's fitting code.
  const perf::Calibration c = fit(stored.samples, stored.gpu_model, stored.provenance, o.calibration);
  const std::string report = validation_report(c);
  if (created) created->keep();
  write_text(fs::path(o.out_dir) / (c.gpu_model + "-validation.md"), report);
  fmt::print("{}", report);
  return 0;
}

}  // namespace

void add_calibrate_commands(CLI::App& app, CalibrateOptions& o) {
  // Where replays read calibrations by default: results/calibration of the checkout (or of
  // GPUSIM_DATA_DIR), whatever the working directory.
  o.out_dir = (traces::data_root() / "results" / "calibration").string();
  auto* cal = app.add_subcommand("calibrate", "Run the CUDA microbenchmarks on a GPU, fit the performance model, write results/calibration/<gpu>.json");
  cal->add_option("--out-dir", o.out_dir, "Where the calibration and validation files go")->capture_default_str();
  cal->add_option("--device", o.device, "CUDA device index")->check(CLI::Range(0, 63))->capture_default_str();
  cal->add_option("--sweeps", o.sweeps, "Whole sweeps, for the run-to-run spread")->check(CLI::Range(1, 10))->capture_default_str();
  cal->add_flag("--quick", o.quick, "Fewer sizes and shorter windows (a smoke test, not a calibration)");
  cal->add_option("--from-samples", o.from_samples, "Refit from a gpusim-calib samples file instead of measuring (no GPU needed)");
  cal->add_option("--gpu-model", o.gpu_model, "Catalog id to file the result under (default: from the device name)");
  add_progress_options(*cal, o.progress);
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
