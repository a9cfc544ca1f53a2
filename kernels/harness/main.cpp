// gpusim-calib: runs the calibration microbenchmarks on one GPU and writes their raw samples
// as JSON. `gpusim calibrate` runs it, fits the model and writes the calibration file.
// Exit codes: 0 done; 3 no usable GPU (any CUDA error at start); 1 any other failure.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>
#include <unistd.h>

#include "kernels/harness/cuda_check.hpp"
#include "kernels/harness/families.hpp"
#include "sim/io/progress_reporter.hpp"

namespace {

using namespace gpusim::calib;

// Clocks, power and modes as nvidia-smi reads them (never changed), or null without it.
nlohmann::json smi_snapshot(int device) {
  const std::string command = "nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,power.limit,"
                              "ecc.mode.current,mig.mode.current,driver_version --format=csv,noheader,nounits -i " +
                              std::to_string(device) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return nullptr;
  char line[512] = {};
  const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  if (!got) return nullptr;
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return {{"query", "clocks.sm,clocks.mem,power.draw,temperature.gpu,power.limit,ecc.mode.current,mig.mode.current,driver_version"},
          {"values", text}};
}

int usage() {
  std::fprintf(stderr,
               "usage: gpusim-calib --out FILE [--device N] [--sweeps N] [--reps N] [--window S] [--quick]\n"
               "                    [--families memory,launch,gemm,colocation] [--quiet] [--progress-every S]\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, families = "memory,launch,gemm,colocation", worker;
  int device = 0;
  SweepOptions options;
  // Progress on stderr as gpusim's (sim/io/progress_reporter.hpp): a live line on a terminal, else a
  // line every progress_every_s seconds; none with --quiet.
  bool quiet = false;
  int progress_every_s = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--out") out = next();
    else if (arg == "--device") device = std::stoi(next());
    else if (arg == "--sweeps") options.sweeps = std::stoi(next());
    else if (arg == "--reps") options.reps = std::stoi(next());
    else if (arg == "--window") options.window_s = std::stod(next());
    else if (arg == "--quick") options.quick = true;
    else if (arg == "--families") families = next();
    else if (arg == "--quiet") quiet = true;
    else if (arg == "--progress-every") progress_every_s = std::stoi(next());
    else if (arg == "--worker") worker = next();
    else if (arg == "--help" || arg == "-h") return usage(), 0;
    else return usage();
  }
  DeviceContext context;
  try {
    context = open_device(device);
  } catch (const CudaError& e) {
    std::fprintf(stderr, "gpusim-calib: %s\n", e.what());
    return 3;
  }
  try {
    if (!worker.empty()) return colocation_worker(context, worker, options.window_s);
    if (out.empty()) return usage();
    nlohmann::json doc;
    doc["schema"] = "gpusim-calib-samples/1";
    doc["device"] = describe_device(context);
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    doc["run"] = {{"timestamp", stamp}, {"tool", "gpusim-calib"}, {"timer", "cudaEvent"},
                  {"statistic", "median"}, {"reps", options.reps}, {"sweeps", options.sweeps},
                  {"quick", options.quick}, {"window_s", options.window_s}};
    const auto has = [&](const char* family) { return families.find(family) != std::string::npos; };
    std::vector<const char*> chosen;
    for (const char* family : {"launch", "memory", "gemm", "colocation"}) {
      if (has(family)) chosen.push_back(family);
    }
    // One slot per family. No time-left estimate: the families differ in length by far more than
    // their count could tell.
    std::vector<gpusim::core::RunProgress> slots(chosen.size());
    std::optional<gpusim::io::ProgressReporter> reporter;
    if (!quiet) {
      gpusim::io::ProgressStyle style;
      style.program = "gpusim-calib";
      style.noun = "benchmark families";
      style.live = gpusim::io::stderr_is_live_terminal();
      style.columns = style.live ? gpusim::io::terminal_columns(STDERR_FILENO) : 0;
      style.plain_every = std::chrono::seconds(progress_every_s);
      style.simulated_time = false;
      style.time_left = false;
      reporter.emplace(slots, style);
    }
    std::size_t index = 0;
    const auto run_family = [&](const char* name, auto&& measure) {
      gpusim::core::RunProgress& slot = slots[index++];
      slot.state = gpusim::core::RunProgress::kRunning;
      if (reporter) reporter->say("gpusim-calib: " + std::string(name) + " (" + std::to_string(index) + " of " +
                                  std::to_string(slots.size()) + ") ...");
      const auto t0 = std::chrono::steady_clock::now();
      nlohmann::json before = smi_snapshot(device);
      doc[name] = measure();
      doc[name]["smi_before"] = before;
      doc[name]["smi_after"] = smi_snapshot(device);
      doc[name]["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      slot.state = gpusim::core::RunProgress::kDone;
    };
    if (has("launch")) run_family("launch", [&] { return measure_launch(context, options); });
    if (has("memory")) run_family("memory", [&] { return measure_memory(context, options); });
    if (has("gemm")) run_family("gemm", [&] { return measure_gemm(context, options); });
    if (has("colocation")) run_family("colocation", [&] { return measure_colocation(context, options, argv[0]); });
    const std::string staging = out + ".partial";
    std::ofstream(staging) << doc.dump(1) << '\n';
    std::filesystem::rename(staging, out);
    if (reporter) {
      reporter->finish();
      std::fprintf(stderr, "gpusim-calib: wrote %s\n", out.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusim-calib: error: %s\n", e.what());
    return 1;
  }
}
