#pragma once
// The GPU resource names, labels and annotations that both Node and Pod objects use: what device
// plugins advertise and pods ask (NVIDIA's k8s-device-plugin, Kubernetes 1.6's alpha resource,
// Alibaba's gpushare), GPU feature discovery's labels and HAMi's registration. Which rules apply
// to each: traces/README.md, "Kubernetes manifests".
namespace gpusim::traces::k8s {

inline constexpr const char* kNvidiaGpu = "nvidia.com/gpu";
inline constexpr const char* kAlphaGpu = "alpha.kubernetes.io/nvidia-gpu";
// What NVIDIA's plugin advertises for shared GPUs with renameByDefault (a pod may ask it).
inline constexpr const char* kNvidiaGpuShared = "nvidia.com/gpu.shared";
// gpushare's device plugin: GPUs, and GiB over all of them (a pod asks GiB of one GPU).
inline constexpr const char* kAliyunGpuCount = "aliyun.com/gpu-count";
inline constexpr const char* kAliyunGpuMem = "aliyun.com/gpu-mem";
// GPU feature discovery's labels, and Kubernetes 1.6's GPU-name label.
inline constexpr const char* kGfdCount = "nvidia.com/gpu.count";
inline constexpr const char* kGfdProduct = "nvidia.com/gpu.product";
inline constexpr const char* kGfdMemory = "nvidia.com/gpu.memory";
inline constexpr const char* kAlphaGpuName = "alpha.kubernetes.io/nvidia-gpu-name";
// HAMi's device plugin registers each node's GPUs in this annotation.
inline constexpr const char* kHamiRegister = "hami.io/node-nvidia-register";

}  // namespace gpusim::traces::k8s
