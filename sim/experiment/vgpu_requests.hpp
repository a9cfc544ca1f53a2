#pragma once
// Which vGPU type each GPU pod asks where nodes run NVIDIA vGPU (kubevirt-vgpu): a pod or VM that
// names nvidia.com/NVIDIA_<type> asks that type; a trace pod, which names none, asks the type a
// user who knows the cluster would pick: the smallest framebuffer that holds the share of GPU
// memory it asked and, MIG-backed, whose instance's compute covers its demand (ties by name),
// else the largest.
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::experiment {

// Every GPU node must then run vGPU (a trace pod asks a vGPU type, which only those advertise).
// Throws core::InputError naming the first other GPU node.
void check_vgpu_cluster(std::span<const k8s::NodeSetup> setup, std::span<const cluster::NodeSpec> nodes);

// The device class of the type `pod` asks (`types`: k8s::vgpu_types_by_class). Throws
// core::InputError, naming `source`, for a pod asking a type no node creates.
std::uint8_t vgpu_class(const cluster::PodSpec& pod, std::span<const k8s::NodeSetup> setup, const std::vector<std::string>& types,
                        const std::string& source);

// The framebuffer share of the vGPU type of device class `device_class` (0 if no node has it).
double vgpu_framebuffer(std::span<const k8s::NodeSetup> setup, std::uint8_t device_class);

}  // namespace gpusim::experiment
