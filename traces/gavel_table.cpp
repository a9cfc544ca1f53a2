#include "traces/gavel_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::traces {
namespace {

struct JobKey {
  std::string name;
  std::size_t scale = 0;  // index into kGavelScales
};

// Gavel writes a job key as a Python tuple: "('<job type>', <scale factor>)".
std::optional<JobKey> parse_job_key(const std::string& key) {
  if (!key.starts_with("('") || !key.ends_with(")")) return std::nullopt;
  const std::size_t comma = key.rfind("', ");
  if (comma == std::string::npos || comma < 2) return std::nullopt;
  JobKey parsed;
  parsed.name = key.substr(2, comma - 2);
  const char* first = key.data() + comma + 3;
  const char* last = key.data() + key.size() - 1;
  int scale = 0;
  const auto [end, error] = std::from_chars(first, last, scale);
  if (error != std::errc() || end != last || parsed.name.empty()) return std::nullopt;
  const auto it = std::find(kGavelScales.begin(), kGavelScales.end(), scale);
  if (it == kGavelScales.end()) return std::nullopt;
  parsed.scale = static_cast<std::size_t>(it - kGavelScales.begin());
  return parsed;
}

// A co-location figure read before every job type is known.
struct PendingPair {
  std::string where;  // file / worker / job / partner key, for messages
  std::string name;
  std::size_t scale = 0;
  std::size_t worker = 0;
  bool spread = false;
  std::string partner;
  double steps_per_s = 0;
};

}  // namespace

std::size_t gavel_scale_index(int gpus) {
  std::size_t index = 0;
  for (std::size_t i = 0; i < kGavelScales.size(); ++i) {
    if (kGavelScales[i] <= gpus) index = i;
  }
  return index;
}

GavelThroughputs load_gavel_throughputs(const std::filesystem::path& path) {
  return parse_gavel_throughputs(io::read_file(path, "Gavel throughput table"), path.string());
}

GavelThroughputs parse_gavel_throughputs(const std::string& text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse errors name the line and column
    throw core::InputError(fmt::format("{}: invalid JSON: {}", source, e.what()));
  }
  if (!doc.is_object()) throw core::InputError(fmt::format("{}: expected an object of worker types (k80, p100, v100)", source));
  // Job types by name; the map only collects them and is walked once, in name order.
  std::map<std::string, GavelJobType> types;
  // Co-location figures, set once every job type is known.
  std::vector<PendingPair> pending;
  bool any_consolidated = false;
  for (const auto& [worker_key, jobs] : doc.items()) {
    const bool spread = worker_key.ends_with("_unconsolidated");
    const std::string base = spread ? worker_key.substr(0, worker_key.size() - std::string_view("_unconsolidated").size()) : worker_key;
    const auto worker_it = std::find_if(kGavelWorkerTypes.begin(), kGavelWorkerTypes.end(), [&](const char* w) { return base == w; });
    if (worker_it == kGavelWorkerTypes.end()) {
      throw core::InputError(fmt::format("{}: {}: unknown worker type (k80, p100, v100, each also as <type>_unconsolidated)",
                                         source, worker_key));
    }
    const auto worker = static_cast<std::size_t>(worker_it - kGavelWorkerTypes.begin());
    if (!jobs.is_object()) throw core::InputError(fmt::format("{}: {}: expected an object of job keys", source, worker_key));
    any_consolidated = any_consolidated || !spread;
    for (const auto& [job_key, entry] : jobs.items()) {
      const auto key = parse_job_key(job_key);
      if (!key) {
        throw core::InputError(fmt::format("{}: {} / {}: job key must be \"('<job type>', <scale factor>)\" with a scale "
                                           "factor of 1, 2, 4 or 8", source, worker_key, job_key));
      }
      const auto alone = entry.is_object() ? entry.find("null") : entry.end();
      if (!entry.is_object() || alone == entry.end()) {
        throw core::InputError(fmt::format("{}: {} / {}: expected an object with the throughput alone under \"null\"", source,
                                           worker_key, job_key));
      }
      if (!alone->is_number() || !std::isfinite(alone->get<double>()) || alone->get<double>() < 0 || alone->get<double>() > 1e9) {
        throw core::InputError(fmt::format("{}: {} / {} / null: throughput must be a number of steps per second in [0, 1e9] "
                                           "(got {})", source, worker_key, job_key, alone->dump()));
      }
      GavelJobType& type = types[key->name];
      type.name = key->name;
      type.steps_per_s[key->scale][worker][spread ? 1 : 0] = alone->get<double>();
      for (const auto& [partner_key, pair] : entry.items()) {
        if (partner_key == "null") continue;
        const std::string where = fmt::format("{}: {} / {} / {}", source, worker_key, job_key, partner_key);
        const auto partner = parse_job_key(partner_key);
        if (!partner || partner->scale != key->scale) {
          throw core::InputError(fmt::format("{}: a co-location key must be \"('<job type>', {})\": the other job, at the "
                                             "same scale factor", where, kGavelScales[key->scale]));
        }
        const auto valid = [](const nlohmann::json& v) {
          return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0 && v.get<double>() <= 1e9;
        };
        if (!pair.is_array() || pair.size() != 2 || !valid(pair[0]) || !valid(pair[1])) {
          std::string got = pair.dump();
          if (got.size() > 60) got = got.substr(0, 57) + "...";
          throw core::InputError(fmt::format("{}: expected [steps/s of this job, steps/s of the other], numbers in [0, 1e9] "
                                             "(got {})", where, got));
        }
        pending.push_back({where, key->name, key->scale, worker, spread, partner->name, pair[0].get<double>()});
      }
    }
  }
  if (!any_consolidated || types.empty()) {
    throw core::InputError(fmt::format("{}: no job types: the table needs at least one of k80, p100, v100 with entries", source));
  }
  // A job type's index is its rank by name (the map's order).
  std::map<std::string, std::size_t> index;  // looked up only
  for (const auto& [name, type] : types) index.emplace(name, index.size());
  const std::size_t figures = kGavelScales.size() * kGavelWorkerTypes.size() * 2 * types.size();
  for (auto& [name, type] : types) type.colocated.assign(figures, 0.0);
  for (const PendingPair& pair : pending) {
    const auto partner = index.find(pair.partner);
    if (partner == index.end()) {
      throw core::InputError(fmt::format("{}: the other job's type is not in the table (no \"('{}', <scale>)\" entry)",
                                         pair.where, pair.partner));
    }
    GavelJobType& type = types.at(pair.name);
    type.colocated[GavelJobType::colocated_index(pair.scale, pair.worker, pair.spread, partner->second, types.size())] =
        pair.steps_per_s;
  }
  GavelThroughputs table;
  table.source = source;
  for (auto& [name, type] : types) {
    // One GPU is one server: where the table gives only one of the two figures, it stands for both.
    for (std::size_t w = 0; w < kGavelWorkerTypes.size(); ++w) {
      auto& one = type.steps_per_s[0][w];
      if (one[1] == 0) one[1] = one[0];
      if (one[0] == 0) one[0] = one[1];
      for (std::size_t partner = 0; partner < types.size(); ++partner) {
        double& spread = type.colocated[GavelJobType::colocated_index(0, w, true, partner, types.size())];
        double& together = type.colocated[GavelJobType::colocated_index(0, w, false, partner, types.size())];
        if (spread == 0) spread = together;
        if (together == 0) together = spread;
      }
    }
    table.job_types.push_back(std::move(type));
  }
  return table;
}

}  // namespace gpusim::traces
