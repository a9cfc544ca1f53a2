# Sourced by the scripts that run the sharing variants (sharing_experiments.sh, perf.sh,
# colocation_experiments.sh): the gpusim options each variant of traces/sharing/ runs with. The
# sharing, MIG and HAMi parameters come from the real projects' files (--config: NVIDIA's
# device-plugin config, HAMi's Helm values, NVIDIA's mig-parted config); --kube keeps what has no
# real counterpart (which plugin serves the nodes, how a trace fraction is asked, memory what-ifs).
# Usage: sharing_settings VARIANT ARRAY_NAME   (fills the array; gpu-milli gives none)
sharing_settings() {
  local -n out=$2
  local d=traces/sharing
  case $1 in
    gpu-milli) out=() ;;
    time-slicing-2) out=(--kube $d/whole-gpu.yaml --config $d/time-slicing-2.device-plugin.yaml) ;;
    time-slicing-2-packed) out=(--kube $d/device-plugin.yaml --config $d/time-slicing-2-packed.device-plugin.yaml) ;;
    time-slicing-4-packed) out=(--kube $d/whole-gpu.yaml --config $d/time-slicing-4-packed.device-plugin.yaml) ;;
    mps-2) out=(--kube $d/whole-gpu.yaml --config $d/mps-2.device-plugin.yaml) ;;
    mps-4) out=(--kube $d/whole-gpu.yaml --config $d/mps-4.device-plugin.yaml) ;;
    time-slicing-2-overrun) out=(--kube $d/whole-gpu-overrun.yaml --config $d/time-slicing-2.device-plugin.yaml) ;;
    mps-2-overrun) out=(--kube $d/whole-gpu-overrun.yaml --config $d/mps-2.device-plugin.yaml) ;;
    hami-vgpu) out=(--kube $d/hami-vgpu.yaml --config $d/hami-vgpu.hami-values.yaml) ;;
    hami-vgpu-binpack) out=(--kube $d/hami-vgpu.yaml --config $d/hami-vgpu-binpack.hami-values.yaml) ;;
    hami-vgpu-memory-2x) out=(--kube $d/hami-vgpu-gpumem.yaml --config $d/hami-vgpu-memory-2x.hami-values.yaml) ;;
    hami-vgpu-overrun) out=(--kube $d/hami-vgpu-overrun.yaml --config $d/hami-vgpu.hami-values.yaml) ;;
    mig-single-3g) out=(--kube $d/mig-single-3g-labels.yaml --config $d/mig-single.device-plugin.yaml --config $d/mig.mig-parted.yaml) ;;
    mig-mixed) out=(--kube $d/mig-mixed-labels.yaml --config $d/mig-mixed.device-plugin.yaml --config $d/mig.mig-parted.yaml) ;;
    *) out=(--kube "$d/$1.yaml") ;;
  esac
}
