#!/usr/bin/env bash
# The NVIDIA vGPU comparison (results/vgpu/): the GPU-sharing cluster with every GPU an A100 80GB
# (traces/sharing/openb-eighth-cluster-a100.csv: 152 nodes, 770 GPUs), the utilisation workload
# (the openb sharing workload with each GPU pod busy round(gpu_milli x u) of its GPU, u uniform in
# [0.2, 1): scripts/make_utilisation_workload.py), binpack, 3 seeds, under:
#   vgpu-best-effort, vgpu-equal-share, vgpu-fixed-share   time-sliced vGPU, four A100DX-20C per GPU
#       (the vGPU Device Manager's config, traces/vgpu/), each vGPU scheduler, VMs booting 60 s
#   vgpu-mig-backed  MIG-backed vGPU, seven A100DX-1-10C per GPU (1g.10gb instances), VMs booting 60 s
#   time-slicing-4   NVIDIA's device plugin time-slicing each GPU into 4 replicas
#   hami-vgpu        HAMi (its chart's defaults)
#   mig-mixed        MIG strategy mixed (4g-2g-1g on 99 GPUs, 7g.80gb on the others)
# A pod's fraction is asked as one device (a vGPU, a replica); the memory model is off.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

mkdir -p build/utilisation build/vgpu
python3 scripts/make_sharing_workload.py build/utilisation/openb-sharing-jobs.csv
(cd build/utilisation && grep openb-sharing-jobs ../../traces/sharing/SHA256SUMS | sha256sum -c --quiet)
workload=build/utilisation/openb-utilisation-jobs.jsonl
python3 scripts/make_utilisation_workload.py build/utilisation/openb-sharing-jobs.csv "$workload"
(cd build/utilisation && grep openb-utilisation-jobs ../../traces/utilisation/SHA256SUMS | sha256sum -c --quiet)

dir=results/vgpu
mkdir -p "$dir"
cluster=traces/sharing/openb-eighth-cluster-a100.csv
s=traces/sharing
variants=(vgpu-best-effort vgpu-equal-share vgpu-fixed-share vgpu-mig-backed time-slicing-4 hami-vgpu mig-mixed)
for v in "${variants[@]}"; do
  case $v in
    vgpu-*) opts=(--kube "traces/vgpu/${v#vgpu-}.yaml" --config traces/vgpu/vgpu-configs.yaml) ;;  # vgpu-mig-backed too
    time-slicing-4) opts=(--kube $s/whole-gpu.yaml --config traces/utilisation/time-slicing-4.device-plugin.yaml) ;;
    hami-vgpu) opts=(--kube $s/hami-vgpu.yaml --config $s/hami-vgpu.hami-values.yaml) ;;
    mig-mixed) opts=(--kube $s/mig-mixed-labels.yaml --config $s/mig-mixed.device-plugin.yaml --config $s/mig.mig-parted.yaml) ;;
  esac
  rm -rf "${dir:?}/$v"
  ./build/gpusim compare --mode replay --cluster "$cluster" --workload "$workload" "${opts[@]}" \
    --policies binpack --seeds 3 --out "$dir/$v" > /dev/null 2>&1
  # Seed 1 again as one run, for its pods.csv (compare writes none).
  rm -rf "build/vgpu/$v"
  ./build/gpusim run --mode replay --cluster "$cluster" --workload "$workload" "${opts[@]}" \
    --policy binpack --seed 1 --out "build/vgpu/$v" > /dev/null 2>&1
  echo "vgpu: $v done"
done

# Density: GPU pods running at once per GPU, averaged over the trace's arrival window (first to
# last arrival; the tail after it, where few pods are left, would dilute it), from seed 1's pods.csv.
density() {
  awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
           {a = $col["arrival_s"]; if (first == "" || a < first) first = a; if (a > last) last = a
            if ($col["num_gpu"] > 0 && $col["start_s"] != "" && $col["end_s"] != "") {n++; s[n] = $col["start_s"]; e[n] = $col["end_s"]}}
           END {for (i = 1; i <= n; i++) {lo = s[i] > first ? s[i] : first; hi = e[i] < last ? e[i] : last; if (hi > lo) run += hi - lo}
                printf "%.2f", run / (770 * (last - first))}' "$1"
}
value() { jq -r --arg m "$2" ".policies[0][\$m].mean // \"n/a\" | if type == \"number\" then (. * 100 | round / 100) else . end" "$1/summary.json"; }
hours() { jq -r --arg m "$2" ".policies[0][\$m].mean / 3600 * 100 | round / 100" "$1/summary.json"; }
{
  echo "variant density busy_pct mean_slowdown p95_slowdown mean_jct_h p95_jct_h mean_queue_h completed never_ran"
  for v in "${variants[@]}"; do
    d=$dir/$v
    echo "$v $(density "build/vgpu/$v/pods.csv") $(value "$d" shared_busy_pct) $(value "$d" mean_slowdown) $(value "$d" p95_slowdown) $(hours "$d" mean_jct_s) $(hours "$d" p95_jct_s) $(hours "$d" mean_queueing_delay_s) $(value "$d" completed_pods) $(value "$d" unscheduled_pods)"
  done
} > "$dir/table.txt"
gnuplot <<GP
set terminal svg size 820,440 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set key top left
set xrange [-0.6:6.6]
set output "$dir/slowdown.svg"
set title "Slowdown against running alone (binpack, mean of 3 seeds)"
set ylabel "run time / solo run time"
plot "< tail -n +2 $dir/table.txt" using 4:xtic(1) title "mean" lc rgb "#228833", "" using 5 title "p95" lc rgb "#ccbb44"
set output "$dir/jct.svg"
set title "Job completion time (binpack, mean of 3 seeds)"
set ylabel "hours"
plot "< tail -n +2 $dir/table.txt" using 6:xtic(1) title "mean JCT" lc rgb "#4477aa", "" using 7 title "p95 JCT" lc rgb "#66ccee", "" using 8 title "mean queueing" lc rgb "#ee6677"
set output "$dir/density.svg"
set title "GPU pods running at once per GPU (seed 1)"
set ylabel "pods per GPU"
plot "< tail -n +2 $dir/table.txt" using 2:xtic(1) title "density" lc rgb "#4477aa"
GP
echo "vgpu: results in $dir (table.txt, slowdown.svg, jct.svg, density.svg)"

# The same workload on the same 152 nodes with RTX PRO 6000 Blackwell Server Edition GPUs
# (traces/vgpu/blackwell/), four 24 GB vGPUs per GPU three ways: time-sliced (DC-24C, the whole GPU),
# time-sliced MIG-backed (DC-2-24C, two per 2g.48gb instance, MIG time-slicing on) under each vGPU
# scheduler, and MIG-backed (DC-1-24C, one per 1g.24gb instance).
bdir=$dir/blackwell
mkdir -p "$bdir"
b=traces/vgpu/blackwell
bvariants=(time-sliced-best-effort time-sliced-equal-share time-sliced-fixed-share
           mig-time-sliced-best-effort mig-time-sliced-equal-share mig-time-sliced-fixed-share mig-backed)
for v in "${bvariants[@]}"; do
  opts=(--kube "$b/$v.yaml" --config "$b/vgpu-configs.yaml")
  rm -rf "${bdir:?}/$v"
  ./build/gpusim compare --mode replay --cluster "$b/openb-eighth-cluster-rtx-pro-6000.csv" --workload "$workload" "${opts[@]}" \
    --policies binpack --seeds 3 --out "$bdir/$v" > /dev/null 2>&1
  rm -rf "build/vgpu/blackwell-$v"
  ./build/gpusim run --mode replay --cluster "$b/openb-eighth-cluster-rtx-pro-6000.csv" --workload "$workload" "${opts[@]}" \
    --policy binpack --seed 1 --out "build/vgpu/blackwell-$v" > /dev/null 2>&1
  echo "vgpu: blackwell $v done"
done
{
  echo "variant density busy_pct mean_slowdown p95_slowdown mean_jct_h p95_jct_h mean_queue_h completed never_ran"
  for v in "${bvariants[@]}"; do
    d=$bdir/$v
    echo "$v $(density "build/vgpu/blackwell-$v/pods.csv") $(value "$d" shared_busy_pct) $(value "$d" mean_slowdown) $(value "$d" p95_slowdown) $(hours "$d" mean_jct_s) $(hours "$d" p95_jct_s) $(hours "$d" mean_queueing_delay_s) $(value "$d" completed_pods) $(value "$d" unscheduled_pods)"
  done
} > "$bdir/table.txt"
gnuplot <<GP
set terminal svg size 900,440 font "sans,11" background "#ffffff"
load "scripts/bar_chart.gp"
set key top left
set xrange [-0.6:6.6]
set xtics rotate by -20
set output "$bdir/slowdown.svg"
set title "RTX PRO 6000 Blackwell, four 24 GB vGPUs per GPU: slowdown (binpack, mean of 3 seeds)"
set ylabel "run time / solo run time"
plot "< tail -n +2 $bdir/table.txt" using 4:xtic(1) title "mean" lc rgb "#228833", "" using 5 title "p95" lc rgb "#ccbb44"
set output "$bdir/jct.svg"
set title "RTX PRO 6000 Blackwell, four 24 GB vGPUs per GPU: job completion time (binpack, mean of 3 seeds)"
set ylabel "hours"
plot "< tail -n +2 $bdir/table.txt" using 6:xtic(1) title "mean JCT" lc rgb "#4477aa", "" using 7 title "p95 JCT" lc rgb "#66ccee", "" using 8 title "mean queueing" lc rgb "#ee6677"
GP
echo "vgpu: results in $bdir (table.txt, slowdown.svg, jct.svg)"
