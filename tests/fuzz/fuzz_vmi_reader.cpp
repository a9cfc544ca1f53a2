// Fuzz target: KubeVirt's VirtualMachineInstance reader (traces/k8s/vmi_reader.hpp), reached
// through the workload manifest reader with each input prefixed by a VMI's kind and apiVersion, so
// that most mutations exercise the VMI's fields. Bad input may only throw core::InputError; a VM it
// accepts asks at most one vGPU resource, whole devices, and gets gpusim's default times.
#include <cstdlib>

#include "sim/core/status.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "traces/k8s_manifests.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpusim;
  const std::string text = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\n" + fuzz::as_text(data, size);
  try {
    const traces::Workload w = traces::parse_k8s_workload(text, "fuzz-vmis.yaml", fuzz::bundled_catalog());
    for (const cluster::PodSpec& pod : w.pods) {
      if (pod.constraints == nullptr || pod.name.empty() || pod.cpu_milli < 0 || pod.memory_mib < 0) std::abort();
      if (pod.gpu_count < 0 || pod.gpu_count > cluster::kMaxGpusPerNode) std::abort();
      const bool vgpu = pod.constraints->gpu_resource == cluster::GpuResource::kVgpuType;
      if (vgpu != !pod.constraints->vgpu_resource.empty()) std::abort();
      if (pod.gpu_count > 0 && pod.gpu_milli != cluster::kMilliPerGpu) std::abort();
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
