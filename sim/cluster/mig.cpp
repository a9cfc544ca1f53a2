#include "sim/cluster/mig.hpp"

#include <algorithm>
#include <numeric>

namespace gpusim::cluster {
namespace {

// Start positions (bit s: memory slice s) from `nvidia-smi mig -lgipp`, the same on A100 and
// Hopper: 1g with one memory slice {0..6}, 1g with two {0,2,4,6}, 2g {0,2,4}, 3g {0,4}, 4g {0},
// 7g {0}.
constexpr std::uint8_t k1g1m = 0x7F, k1g2m = 0x55, k2g = 0x15, k3g = 0x11, k4g = 0x01, k7g = 0x01;

// HAMi's knownMigGeometries order (charts/hami device-configmap): all 1g; 2g x 3 + 1g; 3g x 2;
// 7g. Shapes: 0 = 1g (one memory slice), 2 = 2g, 3 = 3g, 5 = 7g.
std::vector<std::vector<int>> hami_templates() { return {{0, 0, 0, 0, 0, 0, 0}, {2, 2, 2, 0}, {3, 3}, {5}}; }

// A100: 14 SMs per compute slice; 98 of 108 SMs usable with MIG enabled (calibration.md §1.2).
MigGeometry a100(std::string_view id, bool big) {
  return {id,
          108,
          {{{big ? "1g.10gb" : "1g.5gb", 1, 1, 14, k1g1m},
            {big ? "1g.20gb" : "1g.10gb", 1, 2, 14, k1g2m},
            {big ? "2g.20gb" : "2g.10gb", 2, 2, 28, k2g},
            {big ? "3g.40gb" : "3g.20gb", 3, 4, 42, k3g},
            {big ? "4g.40gb" : "4g.20gb", 4, 4, 56, k4g},
            {big ? "7g.80gb" : "7g.40gb", 7, 8, 98, k7g}}},
          hami_templates(),
          7};
}

// Hopper (GH100): SM counts from `-lgip` outputs on H200, GH200 and H100 NVL (calibration.md §1.2).
MigGeometry hopper(std::string_view id, bool h200) {
  return {id,
          132,
          {{{h200 ? "1g.18gb" : "1g.10gb", 1, 1, 16, k1g1m},
            {h200 ? "1g.35gb" : "1g.20gb", 1, 2, 26, k1g2m},
            {h200 ? "2g.35gb" : "2g.20gb", 2, 2, 32, k2g},
            {h200 ? "3g.71gb" : "3g.40gb", 3, 4, 60, k3g},
            {h200 ? "4g.71gb" : "4g.40gb", 4, 4, 64, k4g},
            {h200 ? "7g.141gb" : "7g.80gb", 7, 8, 132, k7g}}},
          hami_templates(),
          7};
}

// GB202 (RTX PRO 6000 Blackwell Server Edition, sim/k8s/notes/vgpu-sources.md §8): 4 compute and 4
// memory slices, a quarter instance with quarter memory and so on (the driver's kmigmgr_gb202.c);
// profiles 1g.24gb (4 per GPU), 2g.48gb (2), 4g.96gb (1) (the GPU Operator's mig-parted config).
// 1g.24gb has 46 of the 188 SMs (`-lgip` outputs); 2g and 4g are taken as 2 and 4 times that,
// and the starts as every position of the instance's size, since no `-lgipp` output was found.
// Memory quarters are two eighths each; HAMi has no templates for it.
MigGeometry gb202(std::string_view id) {
  MigGeometry g{id, 188, {}, {}, 4};
  g.profiles[0] = {"1g.24gb", 1, 2, 46, 0x55};
  g.profiles[2] = {"2g.48gb", 2, 4, 92, 0x11};
  g.profiles[5] = {"4g.96gb", 4, 8, 184, 0x01};
  return g;
}

const std::array<MigGeometry, 5>& geometries() {
  // H100 PCIe (114 SMs) is left out: its instances' SM counts are not among the sources.
  static const std::array<MigGeometry, 5> all = {a100("a100-sxm4-40gb", false), a100("a100-sxm4-80gb", true),
                                                 hopper("h100-sxm5-80gb", false), hopper("h200-sxm-141gb", true),
                                                 gb202("rtx-pro-6000-blackwell-server")};
  return all;
}

bool place(const MigGeometry& geometry, std::span<const int> order, std::span<const int> shapes, std::size_t next,
           std::uint8_t used, std::vector<int>& starts) {
  if (next == order.size()) return true;
  const auto i = static_cast<std::size_t>(order[next]);
  const MigProfile& profile = geometry.profiles[static_cast<std::size_t>(shapes[i])];
  const auto span = static_cast<std::uint8_t>((1U << profile.memory_slices) - 1U);
  for (int s = 0; s < 8; ++s) {
    if (((profile.starts >> s) & 1U) == 0) continue;
    const auto mask = static_cast<std::uint8_t>(span << s);
    if ((used & mask) != 0) continue;
    starts[i] = s;
    if (place(geometry, order, shapes, next + 1, used | mask, starts)) return true;
  }
  return false;
}

}  // namespace

std::optional<int> MigGeometry::shape(std::string_view profile_name) const {
  for (int s = 0; s < kMigShapes; ++s) {
    if (!profile_name.empty() && profiles[static_cast<std::size_t>(s)].name == profile_name) return s;
  }
  return std::nullopt;
}

std::string MigGeometry::profile_names() const {
  std::string names;
  for (const MigProfile& p : profiles) {
    if (!p.name.empty()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return names;
}

const MigGeometry* mig_geometry(std::string_view gpu_id) {
  for (const MigGeometry& g : geometries()) {
    if (g.gpu == gpu_id) return &g;
  }
  return nullptr;
}

bool is_mig_profile_name(std::string_view name) {
  return std::any_of(geometries().begin(), geometries().end(), [&](const MigGeometry& g) { return g.shape(name).has_value(); });
}

std::string all_mig_profile_names() {
  std::vector<std::string_view> names;
  for (const MigGeometry& g : geometries()) {
    for (const MigProfile& p : g.profiles) {
      if (!p.name.empty() && std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
    }
  }
  std::string joined;
  for (const std::string_view n : names) joined += (joined.empty() ? "" : ", ") + std::string(n);
  return joined;
}

std::optional<std::vector<int>> mig_placement(const MigGeometry& geometry, std::span<const int> shapes) {
  int compute = 0;
  for (const int s : shapes) compute += geometry.profiles[static_cast<std::size_t>(s)].compute_slices;
  if (compute > geometry.compute_slices || shapes.size() > static_cast<std::size_t>(geometry.compute_slices)) return std::nullopt;
  // Largest instances first: they have the fewest positions.
  std::vector<int> order(shapes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return geometry.profiles[static_cast<std::size_t>(shapes[static_cast<std::size_t>(a)])].memory_slices >
           geometry.profiles[static_cast<std::size_t>(shapes[static_cast<std::size_t>(b)])].memory_slices;
  });
  std::vector<int> starts(shapes.size(), -1);
  if (!place(geometry, order, shapes, 0, 0, starts)) return std::nullopt;
  return starts;
}

int mig_shape_for(const MigGeometry& geometry, double demand) {
  // A pod's share of a GPU is both its compute and its memory (as gpu-milli and gpushare take it):
  // the instance must have enough of each.
  const double slices = geometry.compute_slices;
  for (int s = 0; s < kMigShapes; ++s) {
    const MigProfile& p = geometry.profiles[static_cast<std::size_t>(s)];
    if (p.compute_slices > 0 && p.compute_slices / slices >= demand - 1e-9 && p.memory_slices / 8.0 >= demand - 1e-9) return s;
  }
  return kMigShapes - 1;
}

}  // namespace gpusim::cluster
