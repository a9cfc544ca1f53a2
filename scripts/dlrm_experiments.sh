#!/usr/bin/env bash
# Alibaba's DLRM serving trace (2025; traces/data/dlrm/) replayed on its bundled CN/HN fleet and on a
# fleet with 430 instead of 470 GPU nodes (3,440 GPUs for the trace's peak of 3,414), under four
# placement policies: kube-default (least allocated: spreads), binpack (most allocated), bestfit and
# fgd. Three seeds (kube-default breaks ties at random). results/dlrm/<fleet>/ are gpusim output
# directories; results/dlrm/table.md collects their metrics, with the mean and longest wait of the
# instances by role and vCPUs asked (from the first seed's pods.csv, joined to the trace).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/dlrm
mkdir -p "$dir/fleets"
# The bundled fleet with its last 40 GPU nodes removed.
head -n $((1 + 1700 + 430)) traces/data/dlrm/dlrm_cluster.csv > "$dir/fleets/hn430.csv"
for fleet in dlrm "$dir/fleets/hn430.csv"; do
  name=$(basename "$fleet" .csv)
  /usr/bin/time -f "$name: %e s wall, %M KB max RSS" ./build/gpusim compare --workload dlrm --cluster "$fleet" \
    --mode replay --policies kube-default,binpack,bestfit,fgd --seeds 3 --out "$dir/$name" > /dev/null
done

trace=traces/data/dlrm/disaggregated_DLRM_trace.csv
# Waits (s) of the instances of one role and vCPU request in a pods.csv: "count waiting, mean, max".
waits() {
  awk -F, -v role="$2" -v cpu="$3" 'FNR == NR { if (FNR > 1) key[$1] = $2 "," $4; next }
    FNR > 1 && key[$2] == role "," cpu && $8 != "" { w = $8 - $7; s += w; n++; if (w > m) m = w; if (w > 0) k++ }
    END { printf "%d of %d, %.0f, %.0f", k, n, s / n, m }' "$trace" "$1"
}
{
  echo "| fleet | policy | mean queueing (s) | max queueing (s) | GPUs allocated (%) | CN 192 vCPUs: waited, mean, max (s) | CN 96 vCPUs: waited, mean, max (s) | HN 8 vCPUs: waited, mean, max (s) |"
  echo "|---|---|---:|---:|---:|---|---|---|"
  for name in dlrm hn430; do
    s=$dir/$name/summary.json
    for p in $(jq -r '.policies[].name' "$s"); do
      m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | .[$m].mean | (. * 100 | round) / 100' "$s"; }
      pods=$dir/$name/runs/$p/seed-42/pods.csv
      echo "| $name | $p | $(m mean_queueing_delay_s) | $(m max_queueing_delay_s) | $(m mean_gpu_allocation_pct) | $(waits "$pods" CN 192) | $(waits "$pods" CN 96) | $(waits "$pods" HN 8) |"
    done
  done
} > "$dir/table.md"
cat "$dir/table.md"
