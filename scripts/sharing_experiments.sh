#!/usr/bin/env bash
# The GPU-sharing comparison (results/sharing/): one openb-based cluster and workload, the same
# policy (binpack), under every sharing mode gpusim models, 3 seeds each:
#   gpu-milli        scheduler-assigned fractions, pure accounting (every pod at solo speed)
#   defrag-1, defrag-4   gpu-milli with the defragmenting descheduler, 1 or 4 evictions a cycle
#   whole-gpu        NVIDIA's device plugin, a fraction asked as one whole GPU
#   time-slicing-2   sharing.timeSlicing, 2 replicas per GPU, distributed replica choice
#   time-slicing-4-packed   4 replicas, packed
#   mps-2, mps-4     sharing.mps, 2 or 4 replicas (each client capped at 100/replicas % of the SMs)
#   gpushare         Alibaba's gpushare: memory shares of one GPU, the extender binpacks GPUs
#   hami-vgpu, hami-vgpu-binpack   HAMi vGPU with its spread (default) or binpack GPU policy (node
#                    policy binpack, HAMi's default, and 10 pods per GPU at most)
#   hami-vgpu-memory-2x   HAMi with deviceMemoryScaling 2, fractions asking gpumem alone
#   *-overrun        gpushare, hami-vgpu, time-slicing-2 and mps-2 with 5 % of pods using 1.5x the
#                    memory asked
#   a100-whole-gpu, mig-single-3g, mig-mixed, mig-dynamic   on the A100 what-if cluster (the same nodes
#                    relabelled A100 80GB, which has MIG): whole GPUs, MIG single (2 x 3g), MIG mixed
#                    (static layouts per pool) and dynamic MIG (HAMi's templates, 60 s reconfiguration)
# Every run samples the cluster's FGD fragmentation every 10 simulated minutes. Each variant's options
# (the --kube settings and the real files: NVIDIA's device-plugin config, HAMi's Helm values) are
# in scripts/sharing_settings.sh.
# Inputs: traces/sharing/openb-eighth-cluster.csv (every 8th openb GPU node: 152 nodes, 770 GPUs),
# traces/sharing/openb-eighth-cluster-a100.csv (the same, every GPU an A100 80GB)
# and the workload scripts/make_sharing_workload.py makes from the openb default trace (checked
# against traces/sharing/SHA256SUMS). Each variant is a gpusim output directory; this script then
# writes table.txt and the plots; results/sharing/README.md explains them.
set -euo pipefail
cd "$(dirname "$0")/.."

# The plots, from DIR/table.txt alone (`bash scripts/sharing_experiments.sh plots [DIR]` redraws them).
draw_plots() {
  local dir=$1
  # The rows of table.txt each plot shows (line 1 is its header), and how many they are: one cluster of
  # bars per row, at x = 0, 1, ...
  local jct_rows='NR > 1 && (NR <= 13 || NR >= 18)'  # not the *-overrun variants
  local slowdown_rows='NR >= 6 && NR <= 13'         # the shared-GPU variants
  local fragmentation_rows='NR > 1 && NR <= 13'     # the variants on the first cluster, overruns left out
  count() { awk "$1" "$dir/table.txt" | wc -l; }
  gnuplot <<GP
set terminal svg size 820,440 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set key top left
set output "$dir/jct.svg"
set title "Job completion time by sharing mode (binpack, mean of 3 seeds)"
set ylabel "hours"
set xrange [-0.6:$(count "$jct_rows") - 0.4]
plot "< awk '$jct_rows' $dir/table.txt" using 5:xtic(1) title "mean JCT" lc rgb "#4477aa", "" using 6 title "p95 JCT" lc rgb "#66ccee", "" using 7 title "mean queueing" lc rgb "#ee6677"
set output "$dir/slowdown.svg"
set title "Slowdown of pods on shared GPUs against running alone"
set ylabel "run time / solo run time"
set xrange [-0.6:$(count "$slowdown_rows") - 0.4]
plot "< awk '$slowdown_rows' $dir/table.txt" using 9:xtic(1) title "mean" lc rgb "#228833", "" using 10 title "p95" lc rgb "#ccbb44"
set output "$dir/fragmentation.svg"
set title "Mean FGD fragmentation rate of idle GPU capacity (sampled every 10 min)"
set ylabel "% of idle GPU milli"
set xrange [-0.6:$(count "$fragmentation_rows") - 0.4]
plot "< awk '$fragmentation_rows' $dir/table.txt" using 20:xtic(1) title "fragmentation" lc rgb "#aa3377"
GP
}
if [[ ${1:-} == plots ]]; then
  draw_plots "${2:-results/sharing}"
  exit 0
fi
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

workload=build/sharing/openb-sharing-jobs.csv
mkdir -p build/sharing
python3 scripts/make_sharing_workload.py "$workload"
(cd build/sharing && grep openb-sharing-jobs ../../traces/sharing/SHA256SUMS | sha256sum -c --quiet)
(cd traces/sharing && grep openb-eighth-cluster SHA256SUMS | sha256sum -c --quiet)

dir=results/sharing
mkdir -p "$dir"
variants=(gpu-milli defrag-1 defrag-4 whole-gpu gpushare hami-vgpu hami-vgpu-binpack hami-vgpu-memory-2x time-slicing-2 time-slicing-4-packed mps-2 mps-4
          gpushare-overrun hami-vgpu-overrun time-slicing-2-overrun mps-2-overrun
          a100-whole-gpu mig-single-3g mig-mixed mig-dynamic)
source scripts/sharing_settings.sh
for v in "${variants[@]}"; do
  sharing_settings "$v" settings  # --kube and the real files (--config) of the variant
  cluster=traces/sharing/openb-eighth-cluster.csv
  [[ $v == a100-* || $v == mig-* ]] && cluster=traces/sharing/openb-eighth-cluster-a100.csv
  ./build/gpusim compare --mode replay --cluster "$cluster" --workload "$workload" \
    "${settings[@]}" --policies binpack --seeds 3 --fragmentation-every 600 --out "$dir/$v" > /dev/null
  echo "sharing: $v done"
done

# metric value (mean over seeds) of a variant's only policy, rounded to 2 decimals; n/a if undefined
value() { jq -r --arg m "$2" ".policies[0][\$m].mean // \"n/a\" | if type == \"number\" then (. * 100 | round / 100) else . end" "$1/summary.json"; }
{
  echo "variant alloc_pct gpus_in_use_pct busy_pct mean_jct_h p95_jct_h mean_queue_h completed mean_slowdown p95_slowdown refused_multi split_multi unscheduled oom_kills oom_neighbours oom_hours_lost given_up evictions eviction_hours_lost frag_pct mig_compute_pct mig_mean_slowdown mig_p95_slowdown mig_reconfigs mig_reconfig_hours"
  for v in "${variants[@]}"; do
    d=$dir/$v
    hours() { jq -r --arg m "$1" ".policies[0][\$m].mean / 3600 * 100 | round / 100" "$d/summary.json"; }
    in_use=$(value "$d" shared_gpus_in_use_pct)
    # whole GPUs and gpu-milli: a GPU in use is an allocated one (gpus_in_use over time is not a metric there)
    echo "$v $(value "$d" mean_gpu_allocation_pct) $in_use $(value "$d" shared_busy_pct) $(hours mean_jct_s) $(hours p95_jct_s) $(hours mean_queueing_delay_s) $(value "$d" completed_pods) $(value "$d" mean_slowdown) $(value "$d" p95_slowdown) $(value "$d" multi_replica_refused) $(value "$d" multi_replica_split_across_gpus) $(value "$d" unscheduled_pods) $(value "$d" oom_kills) $(value "$d" oom_neighbours_killed) $(value "$d" oom_run_hours_lost) $(value "$d" pods_given_up) $(value "$d" descheduler_evictions) $(value "$d" gpu_hours_lost_to_evictions) $(value "$d" mean_fragmentation_pct) $(value "$d" mig_compute_allocated_pct) $(value "$d" mig_mean_slowdown) $(value "$d" mig_p95_slowdown) $(value "$d" mig_reconfigurations) $(value "$d" mig_reconfiguration_gpu_hours)"
  done
} > "$dir/table.txt"

draw_plots "$dir"
echo "sharing: results in $dir (table.txt, jct.svg, slowdown.svg, fragmentation.svg)"
