#pragma once
// GPU models known to the simulator: spec ceilings with their sources, and the aliases that
// traces use for them (openb's "T4", "V100M16", ...). Loaded from a JSON file; the bundled one
// is sim/cluster/gpu_catalog.json.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim::cluster {

// Index into the catalog. At most 64 models so that a set of models fits one 64-bit mask.
using GpuModelId = std::uint8_t;
inline constexpr std::size_t kMaxGpuModels = 64;

struct GpuModel {
  std::string id;                    // catalog id, e.g. "t4", "h100-sxm5-80gb"
  std::string name;                  // marketing name
  std::vector<std::string> aliases;  // names traces use
  std::int64_t memory_mib = 0;       // 0 when undisclosed
  // Spec ceilings; 0 when the model's figure is unknown or the model lacks the unit.
  double memory_bandwidth_gbs = 0;
  double fp32_tflops = 0;
  double tf32_tflops = 0;
  double bf16_tflops = 0;
  std::string source;                // where the figures come from
};

class GpuCatalog {
 public:
  // Throws core::InputError naming the file and field on malformed input.
  static GpuCatalog load(const std::filesystem::path& path);
  // The same from the file's text; `source` names it in messages.
  static GpuCatalog parse(const std::string& text, const std::string& source);
  static GpuCatalog from_models(std::vector<GpuModel> models);

  // Every catalog id, comma-separated (for "unknown GPU model" messages).
  std::string ids() const;
  // Looks up a catalog id or alias (exact, case-sensitive).
  std::optional<GpuModelId> find(std::string_view id_or_alias) const;
  const GpuModel& at(GpuModelId id) const { return models_.at(id); }
  std::size_t size() const { return models_.size(); }

 private:
  std::vector<GpuModel> models_;
};

// A set of GPU models as a bit mask; the empty set means "any model".
struct GpuModelSet {
  std::uint64_t bits = 0;
  bool any() const { return bits == 0; }
  bool allows(GpuModelId id) const { return bits == 0 || ((bits >> id) & 1U) != 0; }
  void add(GpuModelId id) { bits |= std::uint64_t{1} << id; }
  friend bool operator==(GpuModelSet, GpuModelSet) = default;
};

}  // namespace gpusim::cluster
