#include "sim/perf/job_type_speeds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/core/check.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"

namespace gpusim::perf {

JobTypeSpeeds::JobTypeSpeeds(traces::GavelThroughputs table, const cluster::GpuCatalog& catalog) : table_(std::move(table)) {
  worker_of_model_.assign(catalog.size(), -1);
  for (cluster::GpuModelId id = 0; id < catalog.size(); ++id) {
    if (const auto worker = worker_type_of(catalog.at(id))) worker_of_model_[id] = static_cast<std::int8_t>(*worker);
  }
}

std::optional<std::size_t> JobTypeSpeeds::worker_type_of(const cluster::GpuModel& model) {
  for (std::size_t w = 0; w < traces::kGavelWorkerTypes.size(); ++w) {
    const std::string_view type = traces::kGavelWorkerTypes[w];
    if (model.id == type || model.id.starts_with(std::string(type) + "-")) return w;
  }
  return std::nullopt;
}

std::optional<std::size_t> JobTypeSpeeds::worker_type_of(cluster::GpuModelId model) const {
  const std::int8_t worker = worker_of_model_.at(model);
  if (worker < 0) return std::nullopt;
  return static_cast<std::size_t>(worker);
}

void JobTypeSpeeds::check_cluster(const std::vector<cluster::NodeSpec>& nodes) const {
  for (const cluster::NodeSpec& node : nodes) {
    if (node.gpu_count > 0 && worker_of_model_.at(node.gpu_model) < 0) {
      throw core::InputError(fmt::format("node {}: its GPU model has no column in the Gavel throughput table {} (k80, "
                                         "p100-*, v100-* catalog models only); run it without --throughputs",
                                         node.name, table_.source));
    }
  }
}

void JobTypeSpeeds::assign(std::vector<cluster::PodSpec>& pods, const std::vector<cluster::NodeSpec>& nodes,
                           std::uint64_t seed) const {
  constexpr std::size_t kWorkers = traces::kGavelWorkerTypes.size();
  // Per worker type: its largest node, which decides the pods it can hold.
  std::array<std::int32_t, kWorkers> largest{};
  for (const cluster::NodeSpec& node : nodes) {
    if (node.gpu_count == 0) continue;
    const auto w = static_cast<std::size_t>(worker_of_model_.at(node.gpu_model));
    largest[w] = std::max(largest[w], node.gpu_count);
  }
  // A gang's GPUs (its scale factor) and its largest worker.
  std::map<std::uint32_t, std::pair<std::int32_t, std::int32_t>> gangs;  // looked up only, never walked
  for (const cluster::PodSpec& pod : pods) {
    if (pod.gang == 0) continue;
    auto& [total, worker] = gangs[pod.gang];
    total += pod.gpu_count;
    worker = std::max(worker, pod.gpu_count);
  }
  // Per scale factor, placement and set of worker types that can hold the job: the job types with
  // a V100 figure (the reference) that run on each of those types. Filled as first needed.
  std::map<std::tuple<std::size_t, int, unsigned>, std::vector<std::int16_t>> runnable;  // looked up only
  const auto choices_for = [&](std::size_t scale, int spread, unsigned usable) -> const std::vector<std::int16_t>& {
    const auto key = std::make_tuple(scale, spread, usable);
    if (const auto it = runnable.find(key); it != runnable.end()) return it->second;
    std::vector<std::int16_t>& list = runnable[key];
    for (std::size_t t = 0; t < table_.job_types.size(); ++t) {
      bool runs = table_.job_types[t].rate(scale, traces::kGavelReferenceWorker, spread) > 0;
      for (std::size_t w = 0; w < kWorkers; ++w) runs = runs && (!((usable >> w) & 1U) || table_.job_types[t].rate(scale, w, spread) > 0);
      if (runs) list.push_back(static_cast<std::int16_t>(t));
    }
    return list;
  };
  core::Rng rng = core::Rng::stream(seed, "gavel-job-types");
  std::map<std::uint32_t, std::pair<std::int16_t, std::uint8_t>> gang_type;
  for (cluster::PodSpec& pod : pods) {
    if (!pod.wants_gpu()) continue;
    if (pod.gang != 0) {
      if (const auto it = gang_type.find(pod.gang); it != gang_type.end()) {
        std::tie(pod.job_type, pod.job_scale) = it->second;
        continue;
      }
    }
    const std::int32_t job_gpus = pod.gang != 0 ? gangs[pod.gang].first : pod.gpu_count;
    const std::int32_t worker_gpus = pod.gang != 0 ? gangs[pod.gang].second : pod.gpu_count;
    unsigned usable = 0;
    for (std::size_t w = 0; w < kWorkers; ++w) {
      // A type with a node as large as the job's largest pod may get (some of) its pods.
      if (largest[w] >= worker_gpus) usable |= 1U << w;
    }
    const std::size_t scale = traces::gavel_scale_index(job_gpus);
    const int spread = pod.gang != 0 ? 1 : 0;
    const auto& choices = choices_for(scale, spread, usable);
    if (choices.empty()) {
      throw core::InputError(fmt::format("{}: no job type of {} has a V100 figure (the reference) and runs at {} GPUs{} on "
                                         "every GPU type of the cluster that can hold the job",
                                         pod.name, table_.source, traces::kGavelScales[scale],
                                         spread ? " spread over servers" : ""));
    }
    pod.job_type = choices[static_cast<std::size_t>(rng.uniform_below(choices.size()))];
    pod.job_scale = static_cast<std::uint8_t>(scale);
    if (pod.gang != 0) gang_type[pod.gang] = {pod.job_type, pod.job_scale};
  }
}

std::vector<double> JobTypeSpeeds::equal_share_speeds(const std::vector<cluster::PodSpec>& pods,
                                                      const std::vector<cluster::NodeSpec>& nodes) const {
  constexpr std::size_t kWorkers = traces::kGavelWorkerTypes.size();
  std::array<double, kWorkers> gpus{};
  std::array<std::int32_t, kWorkers> largest{};
  for (const cluster::NodeSpec& node : nodes) {
    if (node.gpu_count == 0 || worker_of_model_.at(node.gpu_model) < 0) continue;
    const auto w = static_cast<std::size_t>(worker_of_model_.at(node.gpu_model));
    gpus[w] += node.gpu_count;
    largest[w] = std::max(largest[w], node.gpu_count);
  }
  std::vector<double> speeds(pods.size(), 1.0);
  for (std::size_t row = 0; row < pods.size(); ++row) {
    const cluster::PodSpec& pod = pods[row];
    if (pod.job_type < 0) continue;
    double weighted = 0, total = 0;
    for (std::size_t w = 0; w < kWorkers; ++w) {
      // Skipped: types too small for it, and (a scattered job's workers) types its job type has no
      // figure for, where restrict_to_runnable keeps it off.
      if (gpus[w] == 0 || largest[w] < pod.gpu_count) continue;
      if (table_.job_types.at(static_cast<std::size_t>(pod.job_type)).rate(pod.job_scale, w, false) <= 0) continue;
      weighted += gpus[w] * speed(pod, w);
      total += gpus[w];
    }
    if (total > 0) speeds[row] = weighted / total;
  }
  return speeds;
}

void JobTypeSpeeds::restrict_to_runnable(std::vector<cluster::PodSpec>& pods) const {
  for (cluster::PodSpec& pod : pods) {
    if (pod.job_type < 0) continue;
    const traces::GavelJobType& type = table_.job_types.at(static_cast<std::size_t>(pod.job_type));
    cluster::GpuModelSet runnable;
    for (std::size_t id = 0; id < worker_of_model_.size(); ++id) {
      const std::int8_t w = worker_of_model_[id];
      if (w >= 0 && type.rate(pod.job_scale, static_cast<std::size_t>(w), false) > 0 &&
          pod.allowed_models.allows(static_cast<cluster::GpuModelId>(id))) {
        runnable.add(static_cast<cluster::GpuModelId>(id));
      }
    }
    // Empty when the pod's own GPU models exclude every type its job type has figures for at its scale.
    if (runnable.bits == 0) {
      throw core::InputError(fmt::format("pod {}: its GPU models allow no GPU type where its job type ({}) runs at {} GPUs",
                                         pod.name, type.name, traces::kGavelScales[pod.job_scale]));
    }
    pod.allowed_models = runnable;
  }
}

double JobTypeSpeeds::speed(const cluster::PodSpec& pod, std::size_t worker, std::optional<bool> spread) const {
  GPUSIM_CHECK(pod.job_type >= 0, "speed of a pod without a job type");
  const traces::GavelJobType& type = table_.job_types.at(static_cast<std::size_t>(pod.job_type));
  const bool unconsolidated = spread.value_or(pod.gang != 0);
  // The trace's duration is its time on V100s placed as the trace ran it: spread for a gang the
  // trace made (a job larger than a server), consolidated otherwise.
  const double reference = type.rate(pod.job_scale, traces::kGavelReferenceWorker, pod.gang != 0 && !pod.scattered);
  // Gavel's table lacks a few `_unconsolidated` figures (ResNet-50, batch size 64, on K80s): such a
  // job spread over servers runs at its consolidated figure (traces/data/gavel/README.md).
  double rate = type.rate(pod.job_scale, worker, unconsolidated);
  if (rate <= 0 && unconsolidated) rate = type.rate(pod.job_scale, worker, false);
  GPUSIM_CHECK(reference > 0 && rate > 0, "a job type that cannot run on its GPU type");
  return rate / reference;
}

double JobTypeSpeeds::time_factor(const cluster::PodSpec& pod, cluster::GpuModelId model, std::optional<bool> spread) const {
  const auto worker = worker_type_of(model);
  GPUSIM_CHECK(worker.has_value(), "a GPU model without a Gavel worker type");
  return 1.0 / speed(pod, *worker, spread);
}

namespace {

constexpr std::size_t kScales = traces::kGavelScales.size();
constexpr std::size_t kWorkers = traces::kGavelWorkerTypes.size();

struct PairClass {
  std::size_t type, scale, worker;
  bool spread;
};

PairClass decode(std::int32_t value) {
  auto v = static_cast<std::size_t>(value);
  PairClass c{};
  c.spread = (v % 2) != 0;
  v /= 2;
  c.worker = v % kWorkers;
  v /= kWorkers;
  c.scale = v % kScales;
  c.type = v / kScales;
  return c;
}

}  // namespace

std::int32_t JobTypeSpeeds::pair_class(const cluster::PodSpec& pod, std::size_t worker, bool spread) const {
  if (pod.job_type < 0) return -1;
  const std::size_t value = ((static_cast<std::size_t>(pod.job_type) * kScales + pod.job_scale) * kWorkers + worker) * 2 + (spread ? 1 : 0);
  return static_cast<std::int32_t>(value);
}

double JobTypeSpeeds::colocated_speed(std::int32_t self, std::int32_t other) const {
  if (self < 0 || other < 0) return 0;
  const PairClass a = decode(self);
  const PairClass b = decode(other);
  if (a.scale != b.scale || a.worker != b.worker) return 0;
  const traces::GavelJobType& type = table_.job_types.at(a.type);
  const auto figures = [&](bool spread) {
    return std::make_pair(type.colocated_rate(a.scale, a.worker, spread, b.type), type.rate(a.scale, a.worker, spread));
  };
  auto [beside, alone] = figures(a.spread);
  if (a.spread && (beside <= 0 || alone <= 0)) std::tie(beside, alone) = figures(false);
  if (beside <= 0 || alone <= 0) return 0;
  return std::min(1.0, beside / alone);
}

}  // namespace gpusim::perf
