#include "sim/cluster/gpu_catalog.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/status.hpp"

namespace gpusim::cluster {
namespace {

double optional_number(const nlohmann::json& model, const char* field) {
  const auto it = model.find(field);
  if (it == model.end() || it->is_null()) return 0.0;
  return it->get<double>();
}

}  // namespace

GpuCatalog GpuCatalog::from_models(std::vector<GpuModel> models) {
  if (models.size() > kMaxGpuModels) {
    throw core::InputError(fmt::format("GPU catalog: {} models, at most {} supported",
                                       models.size(), kMaxGpuModels));
  }
  GpuCatalog catalog;
  catalog.models_ = std::move(models);
  return catalog;
}

GpuCatalog GpuCatalog::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(fmt::format("{}: cannot open GPU catalog", path.string()));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw core::InputError(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
  }
  std::vector<GpuModel> models;
  try {
    for (const auto& entry : doc.at("models")) {
      GpuModel model;
      model.id = entry.at("id").get<std::string>();
      model.name = entry.value("name", model.id);
      model.aliases = entry.value("aliases", std::vector<std::string>{});
      model.memory_mib = entry.value("memory_mib", std::int64_t{0});
      model.memory_bandwidth_gbs = optional_number(entry, "memory_bandwidth_gbs");
      model.fp32_tflops = optional_number(entry, "fp32_tflops");
      model.tf32_tflops = optional_number(entry, "tf32_tflops");
      model.bf16_tflops = optional_number(entry, "bf16_tflops");
      model.source = entry.value("source", std::string{});
      models.push_back(std::move(model));
    }
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: models[{}]: {}", path.string(), models.size(), e.what()));
  }
  GpuCatalog catalog = from_models(std::move(models));
  // Every name must resolve to exactly one model.
  for (std::size_t i = 0; i < catalog.models_.size(); ++i) {
    const GpuModel& model = catalog.models_[i];
    std::vector<std::string_view> names{model.id};
    names.insert(names.end(), model.aliases.begin(), model.aliases.end());
    for (const auto name : names) {
      if (catalog.find(name) != static_cast<GpuModelId>(i)) {
        throw core::InputError(
            fmt::format("{}: models[{}]: name '{}' is used twice", path.string(), i, name));
      }
    }
  }
  return catalog;
}

std::optional<GpuModelId> GpuCatalog::find(std::string_view id_or_alias) const {
  for (std::size_t i = 0; i < models_.size(); ++i) {
    const GpuModel& model = models_[i];
    if (model.id == id_or_alias) return static_cast<GpuModelId>(i);
    for (const auto& alias : model.aliases) {
      if (alias == id_or_alias) return static_cast<GpuModelId>(i);
    }
  }
  return std::nullopt;
}

}  // namespace gpusim::cluster
