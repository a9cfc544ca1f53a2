#pragma once
// NVIDIA vGPU types: the virtual GPUs a physical GPU of the catalog can be divided into, each
// with a fixed framebuffer and a maximum number per GPU (sim/k8s/notes/vgpu-sources.md, §4).
// Time-sliced C-series figures are NVIDIA AI Enterprise 5.0's (vGPU 17.x) type tables, Q-series
// and H200 figures the vGPU Device Manager v0.5.0's bundled config counts (equal-size maxima
// only), as are the RTX PRO 6000 Blackwell's (vGPU 19's types). MIG-backed types carry the MIG
// profile of the GPU instance each runs on.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpusim::cluster {

struct VgpuType {
  std::string_view suffix;  // after "<prefix>-": "4C", "12Q", "1-5C"
  int framebuffer_gib = 0;  // NVIDIA's figure in MB / 1024 for these GPUs
  int max_equal = 0;        // most per GPU in equal-size mode (every vGPU of one size)
  int max_mixed = 0;        // most per GPU in mixed-size mode; 0: not known or not supported
  std::string_view mig_profile;  // MIG-backed: its GPU instance ("1g.5gb"); "" for time-sliced
  // MIG-backed: the most on one GPU instance (the driver's maxInstancePerGI). Above 1 it is a
  // time-sliced MIG-backed type (GB20x GPUs only), which the driver offers with the GPU's MIG
  // time-slicing mode on; its vGPUs time-slice their instance under the vGPU scheduler.
  int per_instance = 1;
};

struct VgpuGpu {
  std::string_view gpu;     // catalog id
  std::string_view prefix;  // NVIDIA's type prefix for this board: "A100X", "H100XM", "L4"
  std::uint32_t pci_device_id = 0;  // device-filter form 0xDDDD10DE (NVIDIA's vendor id 10DE)
  bool mixed_size = false;  // the GPU supports mixed-size (heterogeneous) time-sliced vGPU
  std::span<const VgpuType> types;
  // Mixed-size mode places each vGPU at one of its size's placement IDs in a region of 1 unit per
  // GB (NVIDIA AI Enterprise 5.0 §2.10): the region's size, 0 where gpusim has no table for it.
  int placement_region_gib = 0;
};

// The vGPU table of a catalog id, or null where gpusim has none.
const VgpuGpu* vgpu_gpu(std::string_view gpu_id);
// The type of that board with this full name ("A100X-4C"), or null.
const VgpuType* vgpu_type(const VgpuGpu& gpu, std::string_view name);
// Every board gpusim knows, for messages: "t4 (T4-), a10 (A10-), ...".
std::string vgpu_gpu_names();
// The placement IDs a vGPU of `framebuffer_gib` may start at in mixed-size mode; empty where the
// board's region has no table or the size has no entry. A vGPU at ID p takes units [p, p + size)
// (gpusim's reading: the IDs NVIDIA lists leave exactly that room between neighbours).
std::span<const int> mixed_placement_ids(const VgpuGpu& gpu, int framebuffer_gib);
// Whether vGPUs of these framebuffer sizes can all be placed at once, none overlapping.
bool mixed_placement_fits(const VgpuGpu& gpu, std::span<const int> framebuffers_gib);

// The board's type names, comma-separated, for messages.
std::string vgpu_type_names(const VgpuGpu& gpu);

}  // namespace gpusim::cluster
