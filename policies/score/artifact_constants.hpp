#pragma once
// Normalisation constants of the FGD artifact's scores (open-gpu-share utils/const.go): the
// largest node it assumes, 128 cores and 8 GPUs.
namespace gpusim::policy {

inline constexpr double kMaxSpecCpuMilli = 128000.0;
inline constexpr double kMaxSpecGpuMilli = 8000.0;

}  // namespace gpusim::policy
