#include "sim/cluster/gpu_catalog.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "sim/core/status.hpp"
#include "sim/io/json_number.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::cluster {
namespace {

// A spec figure: absent or null means unknown (0); otherwise a finite number >= 0.
double optional_number(const nlohmann::json& model, const char* field) {
  const auto it = model.find(field);
  if (it == model.end() || it->is_null()) return 0.0;
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0) throw std::domain_error(fmt::format("{}: must be a number >= 0", field));
  return value;
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
  return parse(io::read_file(path, "GPU catalog"), path.string());
}

GpuCatalog GpuCatalog::parse(const std::string& text, const std::string& source) {
  const std::filesystem::path path = source;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
  }
  std::vector<GpuModel> models;
  try {
    for (const auto& entry : doc.at("models")) {
      GpuModel model;
      model.id = entry.at("id").get<std::string>();
      model.name = entry.value("name", model.id);
      model.aliases = entry.value("aliases", std::vector<std::string>{});
      model.memory_mib = entry.contains("memory_mib") ? io::checked_integer<std::int64_t>(entry["memory_mib"], "memory_mib") : 0;
      if (model.memory_mib < 0) throw std::domain_error("memory_mib: must be >= 0");
      if (model.id.empty()) throw std::domain_error("id: empty");
      model.memory_bandwidth_gbs = optional_number(entry, "memory_bandwidth_gbs");
      model.fp32_tflops = optional_number(entry, "fp32_tflops");
      model.tf32_tflops = optional_number(entry, "tf32_tflops");
      model.bf16_tflops = optional_number(entry, "bf16_tflops");
      model.source = entry.value("source", std::string{});
      models.push_back(std::move(model));
    }
  } catch (const std::exception& e) {  // nlohmann's type and key errors, and the range checks above
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

std::string GpuCatalog::ids() const {
  std::string out;
  for (const GpuModel& model : models_) out += (out.empty() ? "" : ", ") + model.id;
  return out;
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
