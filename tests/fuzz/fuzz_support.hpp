#pragma once
// Shared by the fuzz targets: the bundled GPU catalog, read once per process (a fuzz target is
// called millions of times), and the bytes as a string.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/cluster/gpu_catalog.hpp"

namespace gpusim::fuzz {

inline const cluster::GpuCatalog& bundled_catalog() {
  static const cluster::GpuCatalog catalog =
      cluster::GpuCatalog::load(std::string(GPUSIM_SOURCE_DIR) + "/sim/cluster/gpu_catalog.json");
  return catalog;
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace gpusim::fuzz
