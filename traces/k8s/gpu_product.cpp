// resolve_gpu_product (declared in traces/k8s_manifests.hpp): the catalog model a GPU product
// name stands for, matched by words as sim/perf/calibration.cpp matches device names. Rules and
// examples: traces/README.md, "GPU model names".
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "traces/k8s/resource_names.hpp"
#include "traces/k8s_manifests.hpp"

namespace gpusim::traces {

namespace {

using cluster::GpuCatalog;
using cluster::GpuModelId;

std::vector<std::string> words(std::string_view name) {
  std::vector<std::string> out;
  std::string word;
  const auto flush = [&] {
    if (!word.empty() && word != "NVIDIA" && word != "TESLA") out.push_back(word);
    word.clear();
  };
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

struct ModelWords {
  std::vector<std::vector<std::string>> names;  // the id's, the name's and each alias's words
  std::vector<std::string> all;                 // all of them, sorted
};

ModelWords model_words(const cluster::GpuModel& model) {
  ModelWords mw;
  mw.names.push_back(words(model.id));
  mw.names.push_back(words(model.name));
  for (const auto& alias : model.aliases) mw.names.push_back(words(alias));
  for (const auto& n : mw.names) mw.all.insert(mw.all.end(), n.begin(), n.end());
  std::sort(mw.all.begin(), mw.all.end());
  return mw;
}

// GFD reports the memory the driver sees, a little below the nominal size (15360 MiB for a 16 GB
// T4, 32510 for a 32 GB V100): within 10% below tells 16 GB from 32 GB parts.
bool memory_fits(std::int64_t catalog_mib, std::int64_t reported_mib) {
  return catalog_mib > 0 && reported_mib <= catalog_mib && reported_mib * 10 >= catalog_mib * 9;
}

std::string id_list(const GpuCatalog& catalog, const std::vector<GpuModelId>& ids) {
  std::vector<std::string> names;
  for (const GpuModelId id : ids) names.push_back(catalog.at(id).id);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::optional<GpuModelId> resolve_gpu_product(std::string_view name, std::optional<std::int64_t> memory_mib,
                                              const GpuCatalog& catalog, std::string* why) {
  if (const auto id = catalog.find(name)) return id;
  const std::vector<std::string> asked = words(name);
  std::vector<GpuModelId> same;
  std::vector<GpuModelId> containing;
  if (!asked.empty()) {
    std::vector<std::string> sorted = asked;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < catalog.size(); ++i) {
      const auto id = static_cast<GpuModelId>(i);
      const ModelWords mw = model_words(catalog.at(id));
      if (std::find(mw.names.begin(), mw.names.end(), asked) != mw.names.end()) same.push_back(id);
      if (std::includes(mw.all.begin(), mw.all.end(), sorted.begin(), sorted.end())) containing.push_back(id);
    }
  }
  std::vector<GpuModelId> candidates = same.empty() ? containing : same;
  if (candidates.size() > 1 && memory_mib) {
    std::vector<GpuModelId> sized;
    for (const GpuModelId id : candidates) {
      if (memory_fits(catalog.at(id).memory_mib, *memory_mib)) sized.push_back(id);
    }
    if (!sized.empty()) candidates = sized;
  }
  if (candidates.size() == 1) return candidates.front();
  if (why != nullptr) {
    *why = candidates.empty()
               ? fmt::format("'{}' matches no GPU model of the catalog (catalog ids: {})", name, catalog.ids())
               : fmt::format(
                     "'{}' matches several catalog models: {} (label {} or annotation gpusim.io/gpu-model "
                     "tells them apart)",
                     name, id_list(catalog, candidates), k8s::kGfdMemory);
  }
  return std::nullopt;
}

}  // namespace gpusim::traces
