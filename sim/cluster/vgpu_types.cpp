#include "sim/cluster/vgpu_types.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <vector>

namespace gpusim::cluster {
namespace {

// NVIDIA AI Enterprise 5.0 user guide, appendix A (C-series: framebuffer, equal / mixed maxima):
// A.5 A100 HGX 40GB; A.7 A100 HGX 80GB; A.14 H100 PCIe; A.15 H100 SXM5; A.11 A10; A.23 L4;
// A.21 L40S (C-series capped at 12 per GPU); A.31 T4 (no mixed-size mode). Q-series and H200:
// counts of the vGPU Device Manager v0.5.0's examples/config-example.yaml (one config per type,
// its count the maximum), no mixed-size figures.
constexpr std::array kA100_40{
    VgpuType{"40C", 40, 1, 1, ""},    VgpuType{"20C", 20, 2, 2, ""},      VgpuType{"10C", 10, 4, 4, ""},
    VgpuType{"8C", 8, 5, 4, ""},      VgpuType{"5C", 5, 8, 8, ""},        VgpuType{"4C", 4, 10, 8, ""},
    VgpuType{"7-40C", 40, 1, 0, "7g.40gb"}, VgpuType{"4-20C", 20, 1, 0, "4g.20gb"}, VgpuType{"3-20C", 20, 2, 0, "3g.20gb"},
    VgpuType{"2-10C", 10, 3, 0, "2g.10gb"}, VgpuType{"1-10C", 10, 4, 0, "1g.10gb"}, VgpuType{"1-5C", 5, 7, 0, "1g.5gb"},
    VgpuType{"1-5CME", 5, 1, 0, "1g.5gb+me"},
};
constexpr std::array kA100_80{
    VgpuType{"80C", 80, 1, 1, ""},   VgpuType{"40C", 40, 2, 2, ""},   VgpuType{"20C", 20, 4, 4, ""},
    VgpuType{"16C", 16, 5, 4, ""},   VgpuType{"10C", 10, 8, 8, ""},   VgpuType{"8C", 8, 10, 8, ""},
    VgpuType{"4C", 4, 20, 16, ""},
    VgpuType{"7-80C", 80, 1, 0, "7g.80gb"}, VgpuType{"4-40C", 40, 1, 0, "4g.40gb"}, VgpuType{"3-40C", 40, 2, 0, "3g.40gb"},
    VgpuType{"2-20C", 20, 3, 0, "2g.20gb"}, VgpuType{"1-20C", 20, 4, 0, "1g.20gb"}, VgpuType{"1-10C", 10, 7, 0, "1g.10gb"},
    VgpuType{"1-10CME", 10, 1, 0, "1g.10gb+me"},
};
constexpr std::array kH100_80{
    VgpuType{"80C", 80, 1, 1, ""},   VgpuType{"40C", 40, 2, 2, ""},   VgpuType{"20C", 20, 4, 4, ""},
    VgpuType{"16C", 16, 5, 4, ""},   VgpuType{"10C", 10, 8, 8, ""},   VgpuType{"8C", 8, 10, 8, ""},
    VgpuType{"5C", 5, 16, 16, ""},   VgpuType{"4C", 4, 20, 16, ""},
    VgpuType{"7-80C", 80, 1, 0, "7g.80gb"}, VgpuType{"4-40C", 40, 1, 0, "4g.40gb"}, VgpuType{"3-40C", 40, 2, 0, "3g.40gb"},
    VgpuType{"2-20C", 20, 3, 0, "2g.20gb"}, VgpuType{"1-20C", 20, 4, 0, "1g.20gb"}, VgpuType{"1-10C", 10, 7, 0, "1g.10gb"},
    VgpuType{"1-10CME", 10, 1, 0, "1g.10gb+me"},
};
constexpr std::array kH200{
    VgpuType{"141C", 141, 1, 0, ""}, VgpuType{"70C", 70, 2, 0, ""},  VgpuType{"35C", 35, 4, 0, ""},
    VgpuType{"28C", 28, 5, 0, ""},   VgpuType{"17C", 17, 8, 0, ""},  VgpuType{"14C", 14, 10, 0, ""},
    VgpuType{"8C", 8, 16, 0, ""},    VgpuType{"7C", 7, 20, 0, ""},   VgpuType{"4C", 4, 32, 0, ""},
    VgpuType{"7-141C", 141, 1, 0, "7g.141gb"}, VgpuType{"4-71C", 71, 1, 0, "4g.71gb"}, VgpuType{"3-71C", 71, 2, 0, "3g.71gb"},
    VgpuType{"2-35C", 35, 3, 0, "2g.35gb"},    VgpuType{"1-35C", 35, 4, 0, "1g.35gb"}, VgpuType{"1-18C", 18, 7, 0, "1g.18gb"},
    VgpuType{"1-18CME", 18, 1, 0, "1g.18gb+me"},
};
// A10 and L4 share one table (A.11, A.23); their Q-series from the VDM's counts.
constexpr std::array k24GiB{
    VgpuType{"24C", 24, 1, 1, ""}, VgpuType{"12C", 12, 2, 2, ""}, VgpuType{"8C", 8, 3, 2, ""},
    VgpuType{"6C", 6, 4, 4, ""},   VgpuType{"4C", 4, 6, 4, ""},
    VgpuType{"1Q", 1, 24, 0, ""},  VgpuType{"2Q", 2, 12, 0, ""},  VgpuType{"3Q", 3, 8, 0, ""},
    VgpuType{"4Q", 4, 6, 0, ""},   VgpuType{"6Q", 6, 4, 0, ""},   VgpuType{"8Q", 8, 3, 0, ""},
    VgpuType{"12Q", 12, 2, 0, ""}, VgpuType{"24Q", 24, 1, 0, ""},
};
constexpr std::array kL40S{
    VgpuType{"48C", 48, 1, 1, ""},  VgpuType{"24C", 24, 2, 2, ""},  VgpuType{"16C", 16, 3, 2, ""},
    VgpuType{"12C", 12, 4, 4, ""},  VgpuType{"8C", 8, 6, 4, ""},    VgpuType{"6C", 6, 8, 8, ""},
    VgpuType{"4C", 4, 12, 8, ""},
    VgpuType{"1Q", 1, 32, 0, ""},   VgpuType{"2Q", 2, 24, 0, ""},   VgpuType{"3Q", 3, 16, 0, ""},
    VgpuType{"4Q", 4, 12, 0, ""},   VgpuType{"6Q", 6, 8, 0, ""},    VgpuType{"8Q", 8, 6, 0, ""},
    VgpuType{"12Q", 12, 4, 0, ""},  VgpuType{"16Q", 16, 3, 0, ""},  VgpuType{"24Q", 24, 2, 0, ""},
    VgpuType{"48Q", 48, 1, 0, ""},
};
constexpr std::array kT4{
    VgpuType{"16C", 16, 1, 0, ""}, VgpuType{"8C", 8, 2, 0, ""},  VgpuType{"4C", 4, 4, 0, ""},
    VgpuType{"1Q", 1, 16, 0, ""},  VgpuType{"2Q", 2, 8, 0, ""},  VgpuType{"4Q", 4, 4, 0, ""},
    VgpuType{"8Q", 8, 2, 0, ""},   VgpuType{"16Q", 16, 1, 0, ""},
};

// RTX PRO 6000 Blackwell Server Edition (prefix DC): the VDM v0.5.0's config counts (vGPU 19.0's
// types), whole-GPU totals; a MIG-backed type's per-instance most is its total over the instances
// of its profile (4 x 1g.24gb, 2 x 2g.48gb, 1 x 4g.96gb), so DC-1-8C is 3 on each 1g.24gb. The
// GFX types' profiles (+gfx) are not modelled: they are listed so that a config naming one is
// refused as that, not as an unknown type. No mixed-size figures.
constexpr std::array kRtxPro6000{
    VgpuType{"96C", 96, 1, 0, ""}, VgpuType{"48C", 48, 2, 0, ""}, VgpuType{"32C", 32, 3, 0, ""},
    VgpuType{"24C", 24, 4, 0, ""}, VgpuType{"16C", 16, 6, 0, ""}, VgpuType{"12C", 12, 8, 0, ""},
    VgpuType{"8C", 8, 12, 0, ""},
    VgpuType{"96Q", 96, 1, 0, ""}, VgpuType{"48Q", 48, 2, 0, ""}, VgpuType{"32Q", 32, 3, 0, ""},
    VgpuType{"24Q", 24, 4, 0, ""}, VgpuType{"16Q", 16, 6, 0, ""}, VgpuType{"12Q", 12, 8, 0, ""},
    VgpuType{"8Q", 8, 12, 0, ""},  VgpuType{"6Q", 6, 16, 0, ""},  VgpuType{"4Q", 4, 24, 0, ""},
    VgpuType{"3Q", 3, 32, 0, ""},
    VgpuType{"1-24C", 24, 4, 0, "1g.24gb", 1},   VgpuType{"1-12C", 12, 8, 0, "1g.24gb", 2},
    VgpuType{"1-8C", 8, 12, 0, "1g.24gb", 3},
    VgpuType{"1-24Q", 24, 4, 0, "1g.24gb", 1},   VgpuType{"1-12Q", 12, 8, 0, "1g.24gb", 2},
    VgpuType{"1-8Q", 8, 12, 0, "1g.24gb", 3},    VgpuType{"1-6Q", 6, 16, 0, "1g.24gb", 4},
    VgpuType{"1-4Q", 4, 24, 0, "1g.24gb", 6},    VgpuType{"1-3Q", 3, 32, 0, "1g.24gb", 8},
    VgpuType{"1-2Q", 2, 48, 0, "1g.24gb", 12},
    VgpuType{"2-48C", 48, 2, 0, "2g.48gb", 1},   VgpuType{"2-24C", 24, 4, 0, "2g.48gb", 2},
    VgpuType{"2-16C", 16, 6, 0, "2g.48gb", 3},   VgpuType{"2-12C", 12, 8, 0, "2g.48gb", 4},
    VgpuType{"2-48Q", 48, 2, 0, "2g.48gb", 1},   VgpuType{"2-24Q", 24, 4, 0, "2g.48gb", 2},
    VgpuType{"2-16Q", 16, 6, 0, "2g.48gb", 3},   VgpuType{"2-12Q", 12, 8, 0, "2g.48gb", 4},
    VgpuType{"4-96C", 96, 1, 0, "4g.96gb", 1},   VgpuType{"4-48C", 48, 2, 0, "4g.96gb", 2},
    VgpuType{"4-32C", 32, 3, 0, "4g.96gb", 3},   VgpuType{"4-24C", 24, 4, 0, "4g.96gb", 4},
    VgpuType{"4-96Q", 96, 1, 0, "4g.96gb", 1},   VgpuType{"4-48Q", 48, 2, 0, "4g.96gb", 2},
    VgpuType{"4-32Q", 32, 3, 0, "4g.96gb", 3},   VgpuType{"4-24Q", 24, 4, 0, "4g.96gb", 4},
    VgpuType{"1-24CGFX", 24, 4, 0, "1g.24gb+gfx", 1},  VgpuType{"1-12CGFX", 12, 8, 0, "1g.24gb+gfx", 2},
    VgpuType{"1-8CGFX", 8, 12, 0, "1g.24gb+gfx", 3},  VgpuType{"1-24QGFX", 24, 4, 0, "1g.24gb+gfx", 1},
    VgpuType{"1-12QGFX", 12, 8, 0, "1g.24gb+gfx", 2},  VgpuType{"1-8QGFX", 8, 12, 0, "1g.24gb+gfx", 3},
    VgpuType{"1-6QGFX", 6, 16, 0, "1g.24gb+gfx", 4},  VgpuType{"1-4QGFX", 4, 24, 0, "1g.24gb+gfx", 6},
    VgpuType{"1-3QGFX", 3, 32, 0, "1g.24gb+gfx", 8},  VgpuType{"1-2QGFX", 2, 48, 0, "1g.24gb+gfx", 12},
    VgpuType{"2-48CGFX", 48, 2, 0, "2g.48gb+gfx", 1},  VgpuType{"2-24CGFX", 24, 4, 0, "2g.48gb+gfx", 2},
    VgpuType{"2-16CGFX", 16, 6, 0, "2g.48gb+gfx", 3},  VgpuType{"2-12CGFX", 12, 8, 0, "2g.48gb+gfx", 4},
    VgpuType{"2-48QGFX", 48, 2, 0, "2g.48gb+gfx", 1},  VgpuType{"2-24QGFX", 24, 4, 0, "2g.48gb+gfx", 2},
    VgpuType{"2-16QGFX", 16, 6, 0, "2g.48gb+gfx", 3},  VgpuType{"2-12QGFX", 12, 8, 0, "2g.48gb+gfx", 4},
    VgpuType{"4-96CGFX", 96, 1, 0, "4g.96gb+gfx", 1},  VgpuType{"4-48CGFX", 48, 2, 0, "4g.96gb+gfx", 2},
    VgpuType{"4-32CGFX", 32, 3, 0, "4g.96gb+gfx", 3},  VgpuType{"4-24CGFX", 24, 4, 0, "4g.96gb+gfx", 4},
    VgpuType{"4-96QGFX", 96, 1, 0, "4g.96gb+gfx", 1},  VgpuType{"4-48QGFX", 48, 2, 0, "4g.96gb+gfx", 2},
    VgpuType{"4-32QGFX", 32, 3, 0, "4g.96gb+gfx", 3},  VgpuType{"4-24QGFX", 24, 4, 0, "4g.96gb+gfx", 4},
};

// Device ids: the VDM's `default` config's device-filters (0xDDDD10DE).
constexpr std::array kBoards{
    VgpuGpu{"a100-sxm4-40gb", "A100X", 0x20B010DE, true, kA100_40},
    VgpuGpu{"a100-sxm4-80gb", "A100DX", 0x20B210DE, true, kA100_80, 80},
    VgpuGpu{"h100-sxm5-80gb", "H100XM", 0x233010DE, true, kH100_80, 80},
    VgpuGpu{"h100-pcie-80gb", "H100", 0x233110DE, true, kH100_80, 80},
    VgpuGpu{"h200-sxm-141gb", "H200X", 0x233510DE, false, kH200},
    VgpuGpu{"a10", "A10", 0x223610DE, true, k24GiB, 24},
    VgpuGpu{"l4", "L4", 0x27B810DE, true, k24GiB, 24},
    VgpuGpu{"l40s", "L40S", 0x26B910DE, true, kL40S},
    VgpuGpu{"t4", "T4", 0x1EB810DE, false, kT4},
    VgpuGpu{"rtx-pro-6000-blackwell-server", "DC", 0x2BB510DE, false, kRtxPro6000},
};

// Mixed-size placement IDs (NVIDIA AI Enterprise 5.0 §2.10; sim/k8s/notes/vgpu-sources.md §6), by
// framebuffer size; a whole-GPU vGPU starts at 0.
struct Placements {
  int framebuffer_gib;
  std::span<const int> ids;
};
constexpr std::array k80_80{0};
constexpr std::array k80_40{0, 40};
constexpr std::array k80_20{0, 20, 40, 60};
constexpr std::array k80_16{0, 24, 40, 64};
constexpr std::array k80_10{0, 10, 20, 30, 40, 50, 60, 70};
constexpr std::array k80_8{0, 12, 20, 32, 40, 52, 60, 72};
constexpr std::array k80_5{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75};
constexpr std::array k80_4{0, 6, 10, 16, 20, 26, 30, 36, 40, 46, 50, 56, 60, 66, 70, 76};
constexpr std::array kRegion80{Placements{80, k80_80}, Placements{40, k80_40}, Placements{20, k80_20}, Placements{16, k80_16},
                               Placements{10, k80_10}, Placements{8, k80_8},   Placements{5, k80_5},   Placements{4, k80_4}};
constexpr std::array k24_24{0};
constexpr std::array k24_12{0, 12};
constexpr std::array k24_8{0, 16};
constexpr std::array k24_6{0, 6, 12, 18};
constexpr std::array k24_4{0, 8, 12, 20};
constexpr std::array kRegion24{Placements{24, k24_24}, Placements{12, k24_12}, Placements{8, k24_8}, Placements{6, k24_6},
                               Placements{4, k24_4}};

// Places sizes[i..] (largest first) into `taken` units, backtracking. vGPUs of one size are
// interchangeable, so each takes an ID above the one before it of its size (`above`): the search
// visits each set of IDs once, not each of its orders.
bool place(const VgpuGpu& gpu, std::span<const int> sizes, std::size_t i, std::vector<bool>& taken, int above) {
  if (i == sizes.size()) return true;
  for (const int id : mixed_placement_ids(gpu, sizes[i])) {
    if (id <= above) continue;
    const auto first = static_cast<std::size_t>(id);
    const auto last = first + static_cast<std::size_t>(sizes[i]);
    if (last > taken.size() || std::any_of(taken.begin() + static_cast<std::ptrdiff_t>(first),
                                           taken.begin() + static_cast<std::ptrdiff_t>(last), [](bool t) { return t; })) {
      continue;
    }
    std::fill(taken.begin() + static_cast<std::ptrdiff_t>(first), taken.begin() + static_cast<std::ptrdiff_t>(last), true);
    const bool same_next = i + 1 < sizes.size() && sizes[i + 1] == sizes[i];
    if (place(gpu, sizes, i + 1, taken, same_next ? id : -1)) return true;
    std::fill(taken.begin() + static_cast<std::ptrdiff_t>(first), taken.begin() + static_cast<std::ptrdiff_t>(last), false);
  }
  return false;
}

}  // namespace

std::span<const int> mixed_placement_ids(const VgpuGpu& gpu, int framebuffer_gib) {
  const std::span<const Placements> region = gpu.placement_region_gib == 80   ? std::span<const Placements>(kRegion80)
                                             : gpu.placement_region_gib == 24 ? std::span<const Placements>(kRegion24)
                                                                              : std::span<const Placements>();
  for (const Placements& p : region) {
    if (p.framebuffer_gib == framebuffer_gib) return p.ids;
  }
  return {};
}

bool mixed_placement_fits(const VgpuGpu& gpu, std::span<const int> framebuffers_gib) {
  std::vector<int> sizes(framebuffers_gib.begin(), framebuffers_gib.end());
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  std::vector<bool> taken(static_cast<std::size_t>(gpu.placement_region_gib), false);
  return place(gpu, sizes, 0, taken, -1);
}

const VgpuGpu* vgpu_gpu(std::string_view gpu_id) {
  for (const VgpuGpu& board : kBoards) {
    if (board.gpu == gpu_id) return &board;
  }
  return nullptr;
}

const VgpuType* vgpu_type(const VgpuGpu& gpu, std::string_view name) {
  if (!name.starts_with(gpu.prefix) || name.size() <= gpu.prefix.size() + 1 || name[gpu.prefix.size()] != '-') return nullptr;
  const std::string_view suffix = name.substr(gpu.prefix.size() + 1);
  for (const VgpuType& type : gpu.types) {
    if (type.suffix == suffix) return &type;
  }
  return nullptr;
}

std::string vgpu_gpu_names() {
  std::string out;
  for (const VgpuGpu& board : kBoards) {
    if (!out.empty()) out += ", ";
    out += std::string(board.gpu) + " (" + std::string(board.prefix) + "-)";
  }
  return out;
}

std::string vgpu_type_names(const VgpuGpu& gpu) {
  std::string out;
  for (const VgpuType& type : gpu.types) {
    if (!out.empty()) out += ", ";
    out += std::string(gpu.prefix) + "-" + std::string(type.suffix);
  }
  return out;
}

}  // namespace gpusim::cluster
