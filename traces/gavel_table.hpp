#pragma once
// Reader for Gavel's measured throughput table (Narayanan et al., OSDI'20;
// traces/data/gavel/README.md): training steps per second of deep-learning job types on K80, P100
// and V100 GPUs, at 1, 2, 4 or 8 GPUs, with the job's GPUs on one server or spread over several.
// It is a runtime model, not a trace: a job of a known type runs its steps at the table's speed
// on whatever GPU type it gets, and beside another job of a known type on the same GPUs (the
// table's co-location figures, measured for pairs of jobs of one scale factor) at the pair's speed.
#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace gpusim::traces {

// Gavel's worker types, in the table's own order of speed (slowest first).
inline constexpr std::array<const char*, 3> kGavelWorkerTypes{"k80", "p100", "v100"};
// The scale factors (GPUs per job) the table has.
inline constexpr std::array<int, 4> kGavelScales{1, 2, 4, 8};
inline constexpr int kGavelReferenceWorker = 2;  // v100: a trace duration is the job's time on a V100 (as Gavel's traces)

struct GavelJobType {
  std::string name;  // e.g. "ResNet-50 (batch size 64)"
  // Steps per second of the whole job, [scale][worker type][0: on one server, 1: spread]; 0 where
  // the table has no figure or says the job cannot run (e.g. out of memory).
  std::array<std::array<std::array<double, 2>, kGavelWorkerTypes.size()>, kGavelScales.size()> steps_per_s{};
  double rate(std::size_t scale, std::size_t worker, bool spread) const { return steps_per_s[scale][worker][spread ? 1 : 0]; }
  // This job's steps per second while one job of type `partner` (an index into the table's job
  // types) runs on the same GPUs, both at scale factor `scale`; 0 where the table has no figure or
  // says the pair cannot run (out of memory).
  double colocated_rate(std::size_t scale, std::size_t worker, bool spread, std::size_t partner) const {
    const std::size_t types = colocated.size() / (kGavelScales.size() * kGavelWorkerTypes.size() * 2);
    if (partner >= types) return 0;
    return colocated[colocated_index(scale, worker, spread, partner, types)];
  }
  // Where a figure lies in `colocated`, for a table of `types` job types.
  static std::size_t colocated_index(std::size_t scale, std::size_t worker, bool spread, std::size_t partner, std::size_t types) {
    return ((scale * kGavelWorkerTypes.size() + worker) * 2 + (spread ? 1 : 0)) * types + partner;
  }
  // [scale][worker type][spread][partner], flattened; sized for every job type of the table.
  std::vector<double> colocated;
};

struct GavelThroughputs {
  std::vector<GavelJobType> job_types;  // sorted by name
  std::string source;                   // the file it was read from
};

// The index into kGavelScales of the table's scale factor for a job of `gpus` GPUs: the largest
// one not above it (a 3-GPU job runs as a 2-GPU one; above 8 GPUs, as an 8-GPU one).
std::size_t gavel_scale_index(int gpus);

// Throws core::InputError naming the file and the entry ("k80 / ('ResNet-50 (batch size 64)', 1)")
// on malformed input.
GavelThroughputs load_gavel_throughputs(const std::filesystem::path& path);
// The same from the file's text; `source` names it in messages.
GavelThroughputs parse_gavel_throughputs(const std::string& text, const std::string& source);

}  // namespace gpusim::traces
