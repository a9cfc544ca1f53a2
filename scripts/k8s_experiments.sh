#!/usr/bin/env bash
# The Kubernetes-layer experiments on the synthetic topology cluster (traces/synthetic/README.md):
#   results/k8s-device-choice/  kubelet first fit vs the plugin's preferred allocation vs scheduler-
#                               assigned topology-aware placement, without and with assumed link slowdowns
#   results/k8s-stale-status/   node status every 1 s, 10 s and 60 s, with GPU failures and rolling
#                               device-plugin restarts
# Each variant is a gpusim output directory (summary.json, report.md, plots, runs/); this script then
# writes each experiment's README.md with the comparison table and its plots (gnuplot).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-all} != plots ]]; then  # redrawing the plots needs gnuplot alone
  bash scripts/setup.sh > /dev/null
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null
fi

# Device choice varies little with the seed (only ties and failures use it); stale status does.
common=(--mode replay --cluster traces/synthetic/topology-cluster.csv --workload traces/synthetic/topology-jobs.csv)

# metric value (mean) of a variant's only policy, rounded
value() { jq -r --arg m "$2" ".policies[0][\$m].mean // \"n/a\" | if type == \"number\" then (. * 100 | round / 100) else . end" "$1/summary.json"; }

device_choice() {
  local dir=results/k8s-device-choice
  mkdir -p "$dir"
  local variants=(first-fit preferred topology-aware first-fit-slowdown preferred-slowdown topology-aware-slowdown)
  for v in "${variants[@]}"; do
    local policy=binpack
    [[ $v == topology-aware* ]] && policy=topology-aware
    ./build/gpusim compare "${common[@]}" --seeds 3 --kube "traces/synthetic/kube-dc-$v.yaml" --policies "$policy" --out "$dir/$v" > /dev/null
    echo "device choice: $v done"
  done
  {
    echo "variant cross_cpu_pct nvlink host_bridge single_switch cross_cpu mean_jct_s mean_queue_s p95_queue_s alloc_pct makespan_h"
    for v in "${variants[@]}"; do
      local d=$dir/$v
      echo "$v $(value "$d" cross_cpu_placement_pct) $(value "$d" placements_worst_link_nvlink) $(value "$d" placements_worst_link_host-bridge) $(value "$d" placements_worst_link_single-switch) $(value "$d" placements_worst_link_cross-cpu) $(value "$d" mean_jct_s) $(value "$d" mean_queueing_delay_s) $(value "$d" p95_queueing_delay_s) $(value "$d" mean_gpu_allocation_pct) $(jq -r '.policies[0].makespan_s.mean / 3600 * 100 | round / 100' "$d/summary.json")"
    done
  } > "$dir/table.txt"
  device_choice_plots "$dir"
}

# The plots, from DIR/table.txt alone. Three bars or clusters each (x = 0, 1, 2); a single series
# has its values written over its bars, so that a bar of 0 reads as 0, not as missing.
device_choice_plots() {
  local dir=$1
  gnuplot <<GP
set terminal svg size 760,420 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set xrange [-0.6:2.6]
set output "$dir/cross-cpu.svg"
set title "Multi-GPU placements whose slowest link crosses the CPU sockets"
set ylabel "share of multi-GPU placements (%)"
unset key
plot "< sed -n 2,4p $dir/table.txt" using 2:xtic(1) lc rgb "#4477aa", "" using 0:2:2 with labels offset 0,0.8
set output "$dir/queueing.svg"
set title "Consequences with the assumed link slowdowns"
set ylabel "seconds"
set key top right
plot "< tail -3 $dir/table.txt" using 7:xtic(1) title "mean JCT" lc rgb "#4477aa", "" using 8 title "mean queueing delay" lc rgb "#ee6677"
GP
}

stale_status() {
  local dir=results/k8s-stale-status
  mkdir -p "$dir"
  for p in 1s 10s 60s; do
    ./build/gpusim compare "${common[@]}" --seeds 10 --kube "traces/synthetic/kube-stale-$p.yaml" --policies binpack --out "$dir/period-$p" > /dev/null
    echo "stale status: period $p done"
  done
  {
    echo "period admission_failures admission_failures_std ttr_s ttr_queueing_s ttr_binding_s ttr_retries_s ttr_start_s mean_jct_s gpu_failures"
    for p in 1s 10s 60s; do
      local d=$dir/period-$p
      echo "$p $(value "$d" admission_failures) $(jq -r '.policies[0].admission_failures.std * 100 | round / 100' "$d/summary.json") $(value "$d" mean_time_to_running_s) $(value "$d" mean_ttr_queueing_s) $(value "$d" mean_ttr_binding_s) $(value "$d" mean_ttr_admission_retries_s) $(value "$d" mean_ttr_start_s) $(value "$d" mean_jct_s) $(value "$d" gpu_failures)"
    done
  } > "$dir/table.txt"
  stale_status_plots "$dir"
}

stale_status_plots() {
  local dir=$1
  gnuplot <<GP
set terminal svg size 760,420 font "sans,12" background "#ffffff"
load "scripts/bar_chart.gp"
set xrange [-0.6:2.6]
set xtics norotate center
set output "$dir/admission-failures.svg"
set title "UnexpectedAdmissionError against the node-status period (mean of 10 seeds)"
set xlabel "nodeStatusUpdateFrequency"
set ylabel "admission failures per run"
unset key
plot "< tail -n +2 $dir/table.txt" using 2:xtic(1) lc rgb "#ee6677", "" using 0:2:2 with labels offset 0,0.8
GP
}

case ${1:-all} in
  device-choice) device_choice ;;
  stale-status) stale_status ;;
  all) device_choice; stale_status ;;
  # Redraws the plots from the tables alone: plots [DEVICE_CHOICE_DIR STALE_STATUS_DIR].
  plots) device_choice_plots "${2:-results/k8s-device-choice}"; stale_status_plots "${3:-results/k8s-stale-status}" ;;
  *) echo "usage: scripts/k8s_experiments.sh [device-choice|stale-status|all|plots [DIR DIR]]" >&2; exit 2 ;;
esac
