#!/usr/bin/env bash
# Measures gpusim's speed and records it in results/perf/: the Google Benchmark suite (JSON) and
# whole-run wall time and peak memory of one FGD fill run and of the default 6 x 10 comparison,
# written to results/perf/perf-run.md (results/perf/README.md holds hand-measured sections it must not overwrite).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel
out=results/perf
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

./build/gpusim_bench --benchmark_out="$out/bench.json" --benchmark_out_format=json | tee "$scratch/bench.txt"

measure() {  # label, command...: prints a table row "label | wall s | peak MiB"
  local label=$1; shift
  /usr/bin/time -v "$@" > "$scratch/stdout" 2> "$scratch/time"
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$scratch/time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$scratch/time")
  echo "| $label | $wall | $rss |"
}

{
  echo "# Performance"
  echo
  echo "Measured by \`bash scripts/perf.sh\` on $(date -u +%Y-%m-%d): $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "load average when it started: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows the whole runs)."
  echo
  echo 'The Kubernetes layer'"'"'s cost is read from `BM_ReplayRun` (CPU time of one replay of the synthetic topology workload,'
  echo "3,315 jobs on 256 GPUs): the default settings against NVIDIA's device plugin with first-fit or preferred device"
  echo "choice, scheduler-assigned topology-aware placement, and the stale-status experiment's settings (714 GPU failures with seed 42,"
  echo "128 plugin restarts and the admission failures and replacements they cause: more events, not a slower model)."
  echo "Variants 5-8 run the same workload through NVIDIA's plugin without topology (whole GPUs), time-slicing with 2"
  echo "replicas, 4 replicas packed, and MPS with 2 replicas (traces/sharing/): the bound is a sharing replay at most 2x"
  echo "the whole-GPU replay. Sharing slows these whole-GPU jobs (4 packed: slowdown ~4), so the queue and the scheduling"
  echo "attempts grow; MPS refuses the 70 % multi-GPU jobs, which the Job owners recreate 6 times each (about 5x the"
  echo "pod objects). \`BM_SharedRateChange\` is one arrival and one departure on a GPU with k pods in a cluster of n GPUs:"
  echo "its cost follows k, not n. The whole sharing runs below use the sharing comparison's workload (770 GPUs)."
  echo "Variants 9-11 run the workload on the same nodes relabelled A100 80GB: whole GPUs, MIG single (two 3g"
  echo "instances per GPU: each job asks instances) and dynamic MIG starting from seven 1g instances per GPU (the"
  echo "whole-GPU jobs make it re-partition). Variants 12-13 run it through HAMi's scheduler (an extender that picks"
  echo "the node and the GPUs), plainly and with memory doubled by deviceMemoryScaling."
  echo
  echo "## Whole runs (wall time and peak resident memory, /usr/bin/time)"
  echo
  echo "| run | wall s | peak MiB |"
  echo "|---|---:|---:|"
  measure "gpusim run --policy fgd (fill to 130%, openb default, 1 seed)" \
    ./build/gpusim run --cluster openb --workload openb:default --mode fill --policy fgd --seed 42 --out "$scratch/one"
  measure "gpusim compare, 6 policies x 10 seeds (fill, all cores)" \
    ./build/gpusim compare --cluster openb --workload openb:default --mode fill \
    --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 10 --out "$scratch/all"
  measure "gpusim compare, 6 policies x 3 seeds (replay, 100000x compression)" \
    ./build/gpusim compare --cluster openb --workload openb:default --mode replay --time-compression 100000 \
    --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 3 --out "$scratch/replay"
  k8s=(--mode replay --cluster traces/synthetic/topology-cluster.csv --workload traces/synthetic/topology-jobs.csv --seed 42)
  measure "gpusim run, Kubernetes layer defaults (synthetic topology cluster, 3,315 jobs, binpack)" \
    ./build/gpusim run "${k8s[@]}" --policy binpack --out "$scratch/k8s-default"
  measure "gpusim run, device-plugin preferred allocation (same workload)" \
    ./build/gpusim run "${k8s[@]}" --policy binpack --kube traces/synthetic/kube-dc-preferred.yaml --out "$scratch/k8s-dp"
  measure "gpusim run, stale status 60 s with GPU failures and plugin restarts (same workload)" \
    ./build/gpusim run "${k8s[@]}" --policy binpack --kube traces/synthetic/kube-stale-60s.yaml --out "$scratch/k8s-stale"
  python3 scripts/make_sharing_workload.py "$scratch/sharing-jobs.csv"
  sharing=(--mode replay --cluster traces/sharing/openb-eighth-cluster.csv --workload "$scratch/sharing-jobs.csv" --seed 42 --policy binpack)
  source scripts/sharing_settings.sh  # each variant's --kube and --config files
  for v in whole-gpu time-slicing-2 time-slicing-4-packed mps-2 gpushare hami-vgpu hami-vgpu-memory-2x; do
    sharing_settings "$v" settings
    measure "gpusim run, sharing comparison, $v (770 GPUs, 7,064 pods)" \
      ./build/gpusim run "${sharing[@]}" "${settings[@]}" --out "$scratch/sharing-$v"
  done
  sharing[3]=traces/sharing/openb-eighth-cluster-a100.csv
  for v in a100-whole-gpu mig-mixed mig-dynamic; do
    sharing_settings "$v" settings
    measure "gpusim run, sharing comparison, $v (770 A100s, 7,064 pods)" \
      ./build/gpusim run "${sharing[@]}" "${settings[@]}" --out "$scratch/sharing-$v"
  done
  for p in fifo backfill sjf; do
    measure "gpusim run --workload philly --policy $p (Philly log, 82,247 jobs, 2,490 GPUs, own times)" \
      ./build/gpusim run --workload philly --mode replay --policy "$p" --out "$scratch/philly-$p"
  done
  measure "gpusim compare --workload philly, fifo, backfill, sjf at 8x arrivals (all cores)" \
    ./build/gpusim compare --workload philly --mode replay --time-compression 8 --policies fifo,backfill,sjf --seeds 1 \
    --out "$scratch/philly-8x"
  echo
  echo "## Instructions of one replay (callgrind: the same count whatever else the machine runs)"
  echo
  echo "The synthetic topology workload (3,315 jobs, 256 GPUs, binpack, seed 42) under each sharing setting; only"
  echo 'run_replay is counted (not reading inputs or writing the report). Pod objects: rows plus the'
  echo 'replacements owners created (`pods_recreated` in summary.json).'
  echo
  echo "| setting | instructions (M) | x whole GPUs | pod objects | instructions per pod object (k) |"
  echo "|---|---:|---:|---:|---:|"
  base=""
  for v in whole-gpu time-slicing-2 time-slicing-4-packed mps-2 gpushare hami-vgpu hami-vgpu-memory-2x; do
    sharing_settings "$v" settings
    valgrind --tool=callgrind --callgrind-out-file="$scratch/cg-$v.out" --toggle-collect='gpusim::experiment::run_replay*' \
      ./build/gpusim run "${k8s[@]}" --policy binpack "${settings[@]}" --out "$scratch/cg-$v" \
      > /dev/null 2> "$scratch/cg-$v.err"
    ir=$(grep -oE 'Collected : [0-9]+' "$scratch/cg-$v.err" | grep -oE '[0-9]+$')
    base=${base:-$ir}
    objects=$(jq --argjson rows "$(( $(wc -l < traces/synthetic/topology-jobs.csv) - 1 ))" \
      '.policies[0].pods_recreated.mean + $rows' "$scratch/cg-$v/summary.json")
    echo "| $v | $(( ir / 1000000 )) | $(awk -v a="$ir" -v b="$base" 'BEGIN {printf "%.2f", a / b}') | $objects | $(awk -v a="$ir" -v o="$objects" 'BEGIN {printf "%.1f", a / o / 1000}') |"
  done
  echo
  echo "The sharing comparison's own workload (openb-based, 7,064 pods, 770 GPUs; MIG rows on the same nodes as A100"
  echo "80GB, against whole A100s), the same way:"
  echo
  echo "| setting | instructions (M) | x whole GPUs | pod objects |"
  echo "|---|---:|---:|---:|"
  rows=$(( $(wc -l < "$scratch/sharing-jobs.csv") - 1 ))
  for v in whole-gpu time-slicing-2 time-slicing-4-packed mps-2 mps-4 gpushare hami-vgpu hami-vgpu-memory-2x a100-whole-gpu mig-mixed mig-dynamic; do
    cluster=traces/sharing/openb-eighth-cluster.csv
    [[ $v == a100-* || $v == mig-* ]] && cluster=traces/sharing/openb-eighth-cluster-a100.csv
    [[ $v == whole-gpu || $v == a100-whole-gpu ]] && base=""
    sharing_settings "$v" settings
    valgrind --tool=callgrind --callgrind-out-file="$scratch/cgs-$v.out" --toggle-collect='gpusim::experiment::run_replay*' \
      ./build/gpusim run --mode replay --cluster "$cluster" --workload "$scratch/sharing-jobs.csv" --seed 42 --policy binpack \
      "${settings[@]}" --out "$scratch/cgs-$v" > /dev/null 2> "$scratch/cgs-$v.err"
    ir=$(grep -oE 'Collected : [0-9]+' "$scratch/cgs-$v.err" | grep -oE '[0-9]+$')
    base=${base:-$ir}
    objects=$(jq --argjson rows "$rows" '.policies[0].pods_recreated.mean + $rows' "$scratch/cgs-$v/summary.json")
    echo "| $v | $(( ir / 1000000 )) | $(awk -v a="$ir" -v b="$base" 'BEGIN {printf "%.2f", a / b}') | $objects |"
  done
  echo
  echo "## Google Benchmark (bench/, full JSON in bench.json)"
  echo
  echo '```'
  grep -E '^(BM_|Benchmark|-)' "$scratch/bench.txt"
  echo '```'
} > "$out/perf-run.md"
cat "$out/perf-run.md"
