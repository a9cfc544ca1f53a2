#!/usr/bin/env bash
# Synthetic job logs fitted to the Philly log (`gpusim trace synth`): does a log drawn from the fitted
# arrivals, GPU counts and run times rank the policies as the real log does? The logs have the real
# log's 82,247 jobs at 4x and 8x its arrival rate (the real log's --time-compression 4 and 8 give
# the same mean rates). results/synthetic-philly/load-<K>/ are gpusim output directories (summary.json,
# report.md with the JCT CDF) and results/synthetic-philly/table.md sets their mean JCT beside the real
# log's (results/philly-replay/). The logs themselves are regenerated here, not committed (out/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/synthetic-philly
mkdir -p "$dir" out
policies=fifo,backfill,policies/profiles/fifo-skip.yaml,drf,sjf,tiresias,srtf
for k in 4 8; do
  ./build/gpusim trace synth --workload philly --jobs 82247 --load "$k" --seed 42 --out "out/synth-philly-$k"
  /usr/bin/time -f "load $k: %e s wall, %M KB max RSS" \
    ./build/gpusim compare --workload "out/synth-philly-$k/jobs.csv" --mode replay --policies "$policies" --seeds 1 \
    --out "$dir/load-$k" > /dev/null
done

h() { jq -r "(. / 3600 * 100 | round) / 100"; }
{
  echo "| load | policy | real log: mean JCT (h) | synthetic: mean JCT (h) | real: p99 JCT (h) | synthetic: p99 JCT (h) | real: mean queueing (h) | synthetic: mean queueing (h) |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|"
  for k in 4 8; do
    real=results/philly-replay/compression-$k/summary.json
    synth=$dir/load-$k/summary.json
    for p in $(jq -r '.policies[].name' "$synth"); do
      m() { jq -r --arg p "$p" --arg m "$2" '.policies[] | select(.name == $p) | .[$m].mean' "$1"; }
      echo "| $k× | $p | $(m "$real" job_mean_jct_s | h) | $(m "$synth" job_mean_jct_s | h) | $(m "$real" job_p99_jct_s | h) | $(m "$synth" job_p99_jct_s | h) | $(m "$real" job_mean_queueing_s | h) | $(m "$synth" job_mean_queueing_s | h) |"
    done
  done
} > "$dir/table.md"
cat "$dir/table.md"
