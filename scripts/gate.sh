#!/usr/bin/env bash
# The regression benchmark gate (results/baselines/README.md). CI runs it after the tests.
#   bash scripts/gate.sh            compare with the committed baselines; exit 1 on any change
#   bash scripts/gate.sh --update   rewrite the baselines after a deliberate change (review the diff)
#   bash scripts/gate.sh --noise N  count each hot path's instructions N times, and the wall-clock ratio N times
# Metrics: gpusim is deterministic, so each scenario's summary.json must equal its baseline byte for byte.
# Speed: each hot-path command's instructions, counted by callgrind (which reads the same whatever else the
# machine runs), must not exceed its count in results/baselines/instructions.json times that file's threshold.
# The wall-clock ratio (one FGD fill run over a fixed reference workload, BM_ReferenceSort) is printed as a
# report only: it moves with the machine and its load, so it cannot fail a submission.
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

# The hot paths whose instructions are gated: name | gpusim arguments (each a whole command, as a user runs it).
hot_paths=(
  "fill-fgd|run --mode fill --fill-target 1.3 --workload openb:default --policy fgd --seed 42"
  "replay-openb-fgd|run --mode replay --time-compression 100000 --policy fgd --seed 1"
  "replay-philly-fifo|run --mode replay --workload philly --policy fifo --seed 1"
  "replay-k8s-stale-60s|run --mode replay --cluster traces/synthetic/topology-cluster.csv --workload traces/synthetic/topology-jobs.csv --kube traces/synthetic/kube-stale-60s.yaml --policy binpack --seed 1"
)

# Counts every hot path's instructions under callgrind, all at once (a count does not depend on what runs beside
# it), and writes "name count" lines, in the order of hot_paths, to the file $1. --quiet: a progress line would
# print on a timer, and so cost a different number of instructions from run to run.
count_instructions() {
  local out=$1 entry name pids=() names=()
  for entry in "${hot_paths[@]}"; do
    name=${entry%%|*}
    read -r -a args <<< "${entry#*|}"
    valgrind --tool=callgrind --callgrind-out-file="$scratch/$name.callgrind" \
      ./build/gpusim "${args[@]}" --quiet --out "$scratch/$name.run" > /dev/null 2> "$scratch/$name.valgrind" &
    pids+=($!)
    names+=("$name")
  done
  local i status=0
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      echo "gate: ${names[$i]}: the command failed under callgrind:" >&2
      tail -20 "$scratch/${names[$i]}.valgrind" >&2
      status=1
    fi
  done
  ((status == 0)) || return 1
  : > "$out"
  for name in "${names[@]}"; do
    echo "$name $(awk '$1 == "summary:" { print $2 }' "$scratch/$name.callgrind")" >> "$out"
    rm -rf "$scratch/$name.run" "$scratch/$name.callgrind"
  done
}

if [[ $mode == --noise ]]; then
  for ((i = 1; i <= ${2:-10}; i++)); do
    count_instructions "$scratch/counts"
    echo "instructions: $(tr '\n' ' ' < "$scratch/counts")"
    echo "wall-clock fill_ms reference_ms ratio: $(measure_speed)"
  done
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

if ! count_instructions "$scratch/counts"; then
  echo "gate: FAILED: a hot path could not be counted (is valgrind installed? scripts/setup.sh installs it)" >&2
  exit 1
fi
read -r fill ref ratio <<< "$(measure_speed)"
if [[ $mode == --update ]]; then
  threshold=$(jq -r '.threshold' "$baselines/instructions.json" 2> /dev/null || echo 1.05)
  jq -n --rawfile counts "$scratch/counts" --argjson threshold "$threshold" --arg valgrind "$(valgrind --version)" \
    '{counter: "\($valgrind) --tool=callgrind, the whole gpusim command (scripts/gate.sh lists the commands)",
      threshold: $threshold,
      instructions: ($counts | split("\n") | map(select(length > 0) | split(" ") | {(.[0]): (.[1] | tonumber)}) | add)}' \
    > "$baselines/instructions.json"
  echo "gate: instruction baselines updated: $(tr '\n' ' ' < "$scratch/counts")"
  jq -n --argjson fill "$fill" --argjson ref "$ref" --argjson ratio "$ratio" \
    --arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
    '{benchmark: "BM_FillRun/5 (fgd fill, openb default) / BM_ReferenceSort, minima over 9 interleaved repetitions; a report, not gated",
      fill_ms: $fill, reference_ms: $ref, ratio: $ratio, measured_on: $cpu}' > "$baselines/speed.json"
  echo "gate: wall-clock report updated: ratio $ratio (fill $fill ms / reference $ref ms)"
else
  threshold=$(jq -r '.threshold' "$baselines/instructions.json")
  while read -r name now; do
    base=$(jq -r --arg n "$name" '.instructions[$n] // empty' "$baselines/instructions.json")
    if [[ -z $base ]]; then
      echo "gate: $name: NO INSTRUCTION BASELINE in $baselines/instructions.json (add one with --update)"
      failed=1
      continue
    fi
    verdict=$(jq -n --argjson now "$now" --argjson base "$base" --argjson t "$threshold" \
      'if $now > $base * $t then "SLOWER" elif $now * $t < $base then "faster (update the baseline to keep the gain)" else "ok" end')
    change=$(jq -n --argjson now "$now" --argjson base "$base" '($now / $base - 1) * 100 | . * 100 | round / 100')
    echo "gate: $name: $now instructions, baseline $base ($change %), limit x$threshold: ${verdict//\"/}"
    [[ $verdict != '"SLOWER"' ]] || failed=1
  done < "$scratch/counts"
  echo "gate: wall-clock report (not gated): ratio $ratio (fill $fill ms / reference $ref ms); at the last update $(jq -r '.ratio' "$baselines/speed.json") on $(jq -r '.measured_on' "$baselines/speed.json")"
fi
if ((failed)); then
  echo "gate: FAILED. A deliberate change updates the baselines with: bash scripts/gate.sh --update" >&2
  exit 1
fi
echo "gate: passed"
