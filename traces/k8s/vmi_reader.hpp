#pragma once
// The reader of KubeVirt's `kind: VirtualMachineInstance` (kubevirt.io/v1): a VM becomes the pod
// KubeVirt's virt-controller renders for it, its virt-launcher pod: one container asking
// spec.domain.resources.requests (memory falling back to spec.domain.memory.guest) and one unit of
// each spec.domain.devices.gpus[].deviceName in requests and limits (renderresources.go), with the
// VMI's nodeSelector, affinity, tolerations, priorityClassName and schedulerName, and gpusim's
// time annotations. Sources: sim/k8s/notes/vgpu-sources.md, §3.
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/priority_class_reader.hpp"
#include "traces/k8s/workload_builder.hpp"

namespace gpusim::traces::k8s {

// One VirtualMachineInstance object (its kind checked by the caller), added as an ownerless pod.
// GPUs through DRA claims and host devices (passthrough) are refused as not modelled, as are
// resources other than cpu and memory in spec.domain.resources; spec.domain.cpu (cores, sockets,
// threads) is not read, so a VM without a cpu request asks none.
void read_vmi(const Object& object, const PriorityClasses& classes, WorkloadBuilder& builder);

}  // namespace gpusim::traces::k8s
