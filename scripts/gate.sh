#!/usr/bin/env bash
# The regression benchmark gate (results/baselines/README.md). CI runs it after the tests.
#   bash scripts/gate.sh            compare with the committed baselines; exit 1 on any change
#   bash scripts/gate.sh --update   rewrite the baselines after a deliberate change (review the diff)
#   bash scripts/gate.sh --noise N  measure the speed ratio N times (to set the threshold)
# Metrics: gpusim is deterministic, so each scenario's summary.json must equal its baseline byte for
# byte. Speed: the minimum over repetitions of one FGD fill run, divided by the minimum of a fixed
# reference workload (BM_ReferenceSort) measured in the same process, must not exceed the baseline
# ratio times the threshold in results/baselines/speed.json.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
baselines=results/baselines

bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" > /dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# name | gpusim compare arguments
scenarios=(
  "fill-openb-default|--mode fill --workload openb:default --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 10"
  "fill-openb-gpushare40|--mode fill --workload openb:gpushare40 --policies bestfit,fgd --seeds 3"
  "fill-openb-multigpu50|--mode fill --workload openb:multigpu50 --policies gpu-packing,fgd --seeds 3"
  "replay-openb-default|--mode replay --time-compression 100000 --policies random,bestfit,fgd --seeds 2"
  "replay-k8s-stale-60s|--mode replay --cluster traces/synthetic/topology-cluster.csv --workload traces/synthetic/topology-jobs.csv --kube traces/synthetic/kube-stale-60s.yaml --policies binpack --seeds 2"
  "replay-k8s-topology-aware|--mode replay --cluster traces/synthetic/topology-cluster.csv --workload traces/synthetic/topology-jobs.csv --kube traces/synthetic/kube-dc-topology-aware-slowdown.yaml --policies topology-aware --seeds 1"
  "replay-philly-4x|--mode replay --workload philly --time-compression 4 --policies fifo,backfill,sjf,srtf,tiresias,drf --seeds 1"
)

# Prints "fill_ms reference_ms ratio": minima over 9 repetitions, randomly interleaved, one process.
measure_speed() {
  ./build/gpusim_bench --benchmark_filter='BM_FillRun/5/|BM_ReferenceSort' --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true \
    --benchmark_format=json 2> /dev/null > "$scratch/bench.json"
  jq -r '[.benchmarks[] | select(.run_type == "iteration")] as $runs
    | ([$runs[] | select(.name | startswith("BM_FillRun")) | .real_time] | min) as $fill
    | ([$runs[] | select(.name | startswith("BM_ReferenceSort")) | .real_time] | min) as $ref
    | "\($fill) \($ref) \($fill / $ref)"' "$scratch/bench.json"
}

if [[ $mode == --noise ]]; then
  for ((i = 1; i <= ${2:-10}; i++)); do measure_speed; done
  exit 0
fi

failed=0
for scenario in "${scenarios[@]}"; do
  name=${scenario%%|*}
  read -r -a args <<< "${scenario#*|}"
  ./build/gpusim compare "${args[@]}" --out "$scratch/$name" > /dev/null
  if [[ $mode == --update ]]; then
    cp "$scratch/$name/summary.json" "$baselines/$name.summary.json"
    echo "gate: $name: baseline updated"
  elif cmp -s "$scratch/$name/summary.json" "$baselines/$name.summary.json"; then
    echo "gate: $name: metrics match the baseline"
  else
    echo "gate: $name: METRICS CHANGED (baseline vs now):"
    diff <(jq -S . "$baselines/$name.summary.json") <(jq -S . "$scratch/$name/summary.json") | head -40 || true
    failed=1
  fi
done

read -r fill ref ratio <<< "$(measure_speed)"
if [[ $mode == --update ]]; then
  threshold=$(jq -r '.threshold' "$baselines/speed.json" 2> /dev/null || echo 1.5)
  jq -n --argjson fill "$fill" --argjson ref "$ref" --argjson ratio "$ratio" --argjson threshold "$threshold" \
    --arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
    '{benchmark: "BM_FillRun/5 (fgd fill, openb default) / BM_ReferenceSort, minima over 9 interleaved repetitions",
      fill_ms: $fill, reference_ms: $ref, ratio: $ratio, threshold: $threshold, measured_on: $cpu}' > "$baselines/speed.json"
  echo "gate: speed baseline updated: ratio $ratio (fill $fill ms / reference $ref ms)"
else
  base=$(jq -r '.ratio' "$baselines/speed.json")
  threshold=$(jq -r '.threshold' "$baselines/speed.json")
  verdict=$(jq -n --argjson now "$ratio" --argjson base "$base" --argjson t "$threshold" \
    'if $now > $base * $t then "SLOWER" else "ok" end')
  echo "gate: speed: ratio $ratio (fill $fill ms / reference $ref ms), baseline $base, limit x$threshold: $verdict"
  [[ $verdict == '"ok"' ]] || failed=1
fi
if ((failed)); then
  echo "gate: FAILED. A deliberate change updates the baselines with: bash scripts/gate.sh --update" >&2
  exit 1
fi
echo "gate: passed"
