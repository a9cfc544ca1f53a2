#!/usr/bin/env bash
# Gang scheduling through Permit (policy gang: placed workers wait at Permit, holding their GPUs,
# for the rest of their gang; 60 s timeout, 20 s backoff after a rejection) against gangs placed
# whole within one cycle (policies/profiles/fifo-skip.yaml: the same queue and placement), on
# Microsoft's Philly job log replayed on the Philly-like cluster with arrivals 4x and 8x denser.
# Each compression also runs gang with a 600 s Permit timeout (policies/examples/gang-timeout-600.yaml:
# the Coscheduling plugin's args; results made before issue 30 name that run `gang`, from --gang-timeout 600). results/gang-philly/<name>/ are gpusim
# output directories; results/gang-philly/table.md collects their metrics, with the mean JCT of the
# jobs that run as gangs (more than 8 GPUs) and of the rest, from each run's jobs.csv. Per-run
# files (runs/) are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/gang-philly
mkdir -p "$dir"
for k in 4 8; do
  /usr/bin/time -f "compression $k, fifo-skip and gang (60 s): %e s wall, %M KB max RSS" \
    ./build/gpusim compare --workload philly --mode replay --time-compression "$k" \
    --policies policies/profiles/fifo-skip.yaml,gang --seeds 1 --out "$dir/compression-$k" > /dev/null
  /usr/bin/time -f "compression $k, gang (600 s): %e s wall, %M KB max RSS" \
    ./build/gpusim compare --workload philly --mode replay --time-compression "$k" \
    --policies policies/examples/gang-timeout-600.yaml --seeds 1 --out "$dir/compression-$k-timeout-600" > /dev/null
done
# The same with a 1 s backoff after a rejection instead of 20 s: what the backoff does.
/usr/bin/time -f "compression 8, gang (60 s, backoff 1 s): %e s wall, %M KB max RSS" \
  ./build/gpusim compare --workload philly --mode replay --time-compression 8 \
  --policies policies/examples/gang-backoff-1.yaml --seeds 1 --out "$dir/compression-8-backoff-1" > /dev/null

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
r2() { jq -r '(. * 100 | round) / 100'; }
# Mean JCT (h) of the jobs with more than 8 GPUs (gangs) or at most 8, from a run's jobs.csv.
jct_of() { awk -F, -v big="$2" 'NR > 1 && ((big && $4 > 8) || (!big && $4 <= 8)) { s += $9; n++ } END { printf "%.2f", s / n / 3600 }' "$1"; }
{
  echo "| arrivals ÷ | policy | Permit timeout (s) | backoff (s) | mean JCT (h) | p95 JCT (h) | mean queueing (h) | gang jobs' mean JCT (h) | other jobs' mean JCT (h) | Permit timeouts | PostFilter rejections | GPU-hours held at Permit | GPUs allocated (%) |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in 4 8; do
    outs=("$dir/compression-$k" "$dir/compression-$k-timeout-600")
    [[ $k == 8 ]] && outs+=("$dir/compression-8-backoff-1")
    for out in "${outs[@]}"; do
      s=$out/summary.json
      for p in $(jq -r '.policies[].name' "$s"); do
        m() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | .[$m].mean' "$s"; }
        pm() { jq -r --arg p "$p" --arg m "$1" '.policies[] | select(.name == $p) | (.[$m].mean // null) | if . == null then "–" else (. * 100 | round) / 100 end' "$s"; }
        timeout=$(jq -r --arg p "$p" 'if ($p | startswith("gang")) then .inputs.gang.permit_timeout_s else "–" end' "$s")
        backoff=$(jq -r --arg p "$p" 'if ($p | startswith("gang")) then .inputs.gang.denied_backoff_s else "–" end' "$s")
        jobs=$out/runs/$p/seed-42/jobs.csv
        echo "| $k | $p | $timeout | $backoff | $(m job_mean_jct_s | h) | $(m job_p95_jct_s | h) | $(m job_mean_queueing_s | h) | $(jct_of "$jobs" 1) | $(jct_of "$jobs" 0) | $(pm gang_permit_timeouts) | $(pm gang_permit_rejections) | $(pm gpu_hours_held_at_permit) | $(m mean_gpu_allocation_pct | r2) |"
      done
    done
  done
} > "$dir/table.md"
cat "$dir/table.md"
