#!/usr/bin/env bash
# The utilisation-aware comparison (results/utilisation-aware/): the GPU-sharing cluster (every 8th
# openb GPU node: 152 nodes, 770 GPUs) time-sliced into 4 replicas per GPU, a fraction asked as one
# replica, GPU memory modelled; the sharing workload with requests that overstate use
# (scripts/make_utilisation_workload.py: each GPU pod busies round(gpu_milli x u) of its GPU's time,
# u uniform in [0.2, 1)). Six policies, 3 seeds each, in two halves (below: without and with the
# GPU memory model):
#   binpack-gpu  request-based binpack: NodeResourcesFit MostAllocated over nvidia.com/gpu (replicas)
#   spread-gpu   request-based spread: NodeResourcesFit LeastAllocated over nvidia.com/gpu
#   load-aware   Koordinator's LoadAwareScheduling on koordlet's GPU reports (60 s, 300 s averages)
#   load-aware-score   the same with every usage threshold 0 (its filter off: the score alone)
#   load-aware-core, load-aware-memory   the same with one threshold: gpu-core 65 % or memory 95 %
# Files: traces/utilisation/ (the policies, NVIDIA's device-plugin config, the --kube settings).
# `bash scripts/utilisation_experiments.sh plots [DIR]` redraws the plots from DIR/table.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

draw_plots() {
  local dir=$1
  # table.txt: line 1 its header, then the compute half's rows, then the memory half's.
  local compute='NR > 1 && \$2 ~ /compute/' memory='NR > 1 && \$2 ~ /memory/'
  gnuplot <<GP
set terminal svg size 820,440 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set key top left
set xrange [-0.6:5.6]
set output "$dir/utilisation.svg"
set title "GPU allocation and measured use (compute half, mean of 3 seeds)"
set ylabel "%"
plot "< awk '$compute' $dir/table.txt" using 3:xtic(1) title "replicas allocated" lc rgb "#4477aa", "" using 4 title "GPUs busy (speed model)" lc rgb "#66ccee"
set output "$dir/slowdown.svg"
set title "Slowdown against running alone (compute half)"
set ylabel "run time / solo run time"
plot "< awk '$compute' $dir/table.txt" using 8:xtic(1) title "mean" lc rgb "#228833", "" using 9 title "p95" lc rgb "#ccbb44"
set output "$dir/jct.svg"
set title "Job completion time (compute half)"
set ylabel "hours"
plot "< awk '$compute' $dir/table.txt" using 5:xtic(1) title "mean JCT" lc rgb "#4477aa", "" using 6 title "p95 JCT" lc rgb "#66ccee", "" using 7 title "mean queueing" lc rgb "#ee6677"
set output "$dir/oom.svg"
set title "GPU memory modelled: pods OOM-killed and pods that never finished"
set ylabel "pods"
plot "< awk '$memory' $dir/table.txt" using 10:xtic(1) title "OOM kills" lc rgb "#aa3377", "" using 14 title "given up (backoffLimit)" lc rgb "#ee6677", "" using 15 title "never ran" lc rgb "#bbbbbb"
GP
}
if [[ ${1:-} == plots ]]; then
  draw_plots "${2:-results/utilisation-aware}"
  exit 0
fi
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

mkdir -p build/utilisation
python3 scripts/make_sharing_workload.py build/utilisation/openb-sharing-jobs.csv
(cd build/utilisation && grep openb-sharing-jobs ../../traces/sharing/SHA256SUMS | sha256sum -c --quiet)
workload=build/utilisation/openb-utilisation-jobs.jsonl
python3 scripts/make_utilisation_workload.py build/utilisation/openb-sharing-jobs.csv "$workload"
(cd build/utilisation && grep openb-utilisation-jobs ../../traces/utilisation/SHA256SUMS | sha256sum -c --quiet)

dir=results/utilisation-aware
mkdir -p "$dir"
u=traces/utilisation
policies=(binpack-gpu spread-gpu load-aware load-aware-score load-aware-core load-aware-memory)
# Two halves: compute (no memory model: the policies differ in how they share the GPUs' time) and
# memory (GPU memory modelled: pods on one GPU whose asks pass its memory are OOM-killed).
for half in compute memory; do
  kube=$u/time-slicing.yaml
  [[ $half == memory ]] && kube=$u/time-slicing-memory.yaml
  for p in "${policies[@]}"; do
    /usr/bin/time -f "%e" -o "$dir/$half-$p.time" ./build/gpusim compare --mode replay --cluster traces/sharing/openb-eighth-cluster.csv \
      --workload "$workload" --kube "$kube" --config $u/time-slicing-4.device-plugin.yaml \
      --policies "$u/$p.yaml" --seeds 3 --out "$dir/$half-$p" > /dev/null 2>&1
    echo "utilisation: $half-$p done in $(cat "$dir/$half-$p.time") s (3 seeds)"
  done
done

value() { jq -r --arg m "$2" ".policies[0][\$m].mean // \"n/a\" | if type == \"number\" then (. * 100 | round / 100) else . end" "$1/summary.json"; }
{
  echo "policy half alloc_pct busy_pct mean_jct_h p95_jct_h mean_queue_h mean_slowdown p95_slowdown oom_kills oom_neighbours oom_hours_lost completed given_up never_ran wall_s"
  for half in compute memory; do
    for p in "${policies[@]}"; do
      d=$dir/$half-$p
      hours() { jq -r --arg m "$1" ".policies[0][\$m].mean / 3600 * 100 | round / 100" "$d/summary.json"; }
      echo "$p $half $(value "$d" mean_gpu_allocation_pct) $(value "$d" shared_busy_pct) $(hours mean_jct_s) $(hours p95_jct_s) $(hours mean_queueing_delay_s) $(value "$d" mean_slowdown) $(value "$d" p95_slowdown) $(value "$d" oom_kills) $(value "$d" oom_neighbours_killed) $(value "$d" oom_run_hours_lost) $(value "$d" completed_pods) $(value "$d" pods_given_up) $(value "$d" unscheduled_pods) $(cat "$dir/$half-$p.time")"
      rm "$dir/$half-$p.time"
    done
  done
} > "$dir/table.txt"
draw_plots "$dir"
echo "utilisation: results in $dir (table.txt, utilisation.svg, slowdown.svg, jct.svg, oom.svg)"
