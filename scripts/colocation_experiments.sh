#!/usr/bin/env bash
# Gavel's measured co-location speeds against the shared-GPU speed model (results/gavel-colocation/).
# Microsoft's Philly log on the Philly-like cluster with Gavel's GPU types (--cluster philly-gavel)
# and Gavel's throughput table (--throughputs gavel: every job a job type and its measured speed), at
# the log's own arrival times and 4x and 8x denser, under fifo and sjf, in three settings:
#   whole-gpu       NVIDIA's device plugin: one pod per GPU
#   pairs-table     time-slicing with 2 replicas per GPU, packed replica choice (a second pod joins a
#                   GPU that has one), two typed jobs on a GPU at the table's pair speeds (the default)
#   pairs-model     the same placements' rules with --colocation model: every pair at the shared-GPU
#                   speed model (half speed each for whole-GPU jobs, no context-switch cost)
# Each is a gpusim output directory <variant>-<K>/; this script then writes table.md and jct.svg.
# results/gavel-colocation/README.md explains them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/gavel-colocation
mkdir -p "$dir"
compressions=(1 4 8)
variants=(whole-gpu pairs-table pairs-model)
source scripts/sharing_settings.sh
for k in "${compressions[@]}"; do
  for v in "${variants[@]}"; do
    extra=()
    case $v in
      # NVIDIA's device plugin with its time-slicing config (scripts/sharing_settings.sh).
      pairs-table) sharing_settings time-slicing-2-packed extra; extra+=(--colocation table) ;;
      pairs-model) sharing_settings time-slicing-2-packed extra; extra+=(--colocation model) ;;
    esac
    /usr/bin/time -f "$v ÷$k: %e s wall, %M KB max RSS" \
      ./build/gpusim compare --workload philly --cluster philly-gavel --throughputs gavel --mode replay \
      --time-compression "$k" --policies fifo,sjf --seeds 1 "${extra[@]}" --out "$dir/$v-$k" > /dev/null
  done
done

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
r2() { jq -r 'if . == null then "–" else (. * 100 | round) / 100 end'; }
{
  echo "| arrivals ÷ | setting | policy | mean JCT (h) | median JCT (h) | p95 JCT (h) | mean queueing (h) | makespan (h) | mean slowdown on shared GPUs | pods at pair speeds | GPU-hours at pair speeds |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in "${compressions[@]}"; do
    for v in "${variants[@]}"; do
      s=$dir/$v-$k/summary.json
      for p in $(jq -r '.policies[].name' "$s"); do
        m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | (.[$m].mean // null)' "$s"; }
        echo "| $k | $v | $p | $(m job_mean_jct_s | h) | $(m job_p50_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_mean_queueing_s | h) | $(m makespan_s | h) | $(m mean_slowdown | r2) | $(m shared_pods_with_measured_pair | jq -r 'if . == null then "–" else round end') | $(m shared_measured_pair_gpu_hours | jq -r 'if . == null then "–" else round end') |"
      done
    done
  done
} > "$dir/table.md"

# Mean JCT per setting, FIFO and SJF side by side, one group per arrival density.
{
  for k in "${compressions[@]}"; do
    for v in "${variants[@]}"; do
      s=$dir/$v-$k/summary.json
      echo "÷$k-$v $(jq -r '[.policies[] | .job_mean_jct_s.mean / 3600] | map(tostring) | join(" ")' "$s")"
    done
  done
} > "$dir/jct.dat"
gnuplot <<GP
set terminal svg size 860,420 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set xrange [-0.6:$(wc -l < "$dir/jct.dat") - 0.4]
set output "$dir/jct.svg"
set title "Mean JCT on philly-gavel: whole GPUs, and pairs at Gavel's measured speeds or the speed model"
set ylabel "hours"
set key top left
plot "$dir/jct.dat" using 2:xtic(1) title "fifo" lc rgb "#4477aa", "" using 3 title "sjf" lc rgb "#ee6677"
GP
cat "$dir/table.md"
