#pragma once
// MIG geometries: the GPU-instance profiles of each MIG-capable GPU model, with the memory-slice
// positions where each may start (`nvidia-smi mig -lgipp`), so that a layout can be checked the
// way the driver checks it. Sources: ../shared/docs/calibration.md §1.2 and gpu-catalog.json
// ("mig"): NVIDIA's MIG user guide (profiles), NJIT ARCS and CERN (A100 SM counts), `-lgip`
// outputs in NVIDIA/mig-parted#120, #139 and gpu-operator#900 (Hopper SM counts); placements from
// `-lgipp` outputs on A100 and H100 published in NVIDIA's MIG documentation and blog.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim::cluster {

// Every MIG-capable model has at most six instance shapes, in one order of slots (1g with one
// memory slice, 1g with two, 2g, 3g, 4g, the whole GPU); the shape index is what a MIG device of
// a mixed-strategy node is advertised as (its nvidia.com/mig-<name> resource), model-independent.
// A model with fewer profiles leaves slots empty (no name, no compute).
inline constexpr int kMigShapes = 6;

struct MigProfile {
  std::string_view name;    // the model's profile name, e.g. "3g.40gb"; empty: no profile in this slot
  int compute_slices = 0;   // of the geometry's compute_slices
  int memory_slices = 0;    // eighths of the GPU's memory
  int sms = 0;              // streaming multiprocessors of the instance
  std::uint8_t starts = 0;  // bit s: the instance may start at memory eighth s
};

struct MigGeometry {
  std::string_view gpu;  // catalog id
  int full_sms = 0;      // the whole GPU's SMs with MIG disabled
  std::array<MigProfile, kMigShapes> profiles;  // by shape index, smallest first
  // The HAMi templates of the model in HAMi's order (dynamic MIG), as shape indices with counts.
  std::vector<std::vector<int>> templates;
  // Compute slices of the whole GPU: 7 on A100 and Hopper, 4 on GB202 (RTX PRO 6000 Blackwell).
  int compute_slices = 7;

  std::optional<int> shape(std::string_view profile_name) const;
  std::string profile_names() const;  // comma-separated, for messages
  // The share of the whole GPU's SMs (compute) and of its memory an instance of `shape` has.
  double compute_share(int shape) const { return profiles[static_cast<std::size_t>(shape)].sms / double(full_sms); }
  double memory_share(int shape) const { return profiles[static_cast<std::size_t>(shape)].memory_slices / 8.0; }
};

// The geometry of a catalog id, or null for a model without MIG.
const MigGeometry* mig_geometry(std::string_view gpu_id);

// Whether some MIG-capable model has a profile of this name; every name, for messages.
bool is_mig_profile_name(std::string_view name);
std::string all_mig_profile_names();

// Whether instances of these shapes can all be created on one GPU: each at one of its profile's
// start positions, no two sharing a memory slice, at most the GPU's compute slices in all.
// Returns each instance's start (in the order given), or none.
std::optional<std::vector<int>> mig_placement(const MigGeometry& geometry, std::span<const int> shapes);

// The smallest shape (fewest compute, then memory slices) whose compute (g / the GPU's slices) and
// memory (eighths / 8) both cover `demand`, a share of the whole GPU in (0, 1]; a whole GPU asks
// the largest.
int mig_shape_for(const MigGeometry& geometry, double demand);

}  // namespace gpusim::cluster
