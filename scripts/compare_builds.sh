#!/usr/bin/env bash
# Whether two gpusim binaries give the same outputs: a refactor must change no behaviour.
#   bash scripts/compare_builds.sh OLD_GPUSIM NEW_GPUSIM
# Replays the bundled Philly log under every built-in replay policy family (strict and skip queues,
# backfill, the job rankings with preemption, DRF, Volcano's quotas and its configuration files,
# gangs through Permit, Gavel's and Themis' rounds), with each binary, and compares every output
# file but the lines that carry wall times. Exit 1 on any difference. About 10 minutes per binary
# on 2 cores (gavel-maxmin and gavel-ftf take most of it).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 ]] || { echo "usage: scripts/compare_builds.sh OLD_GPUSIM NEW_GPUSIM" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

scenarios=(
  "philly8|--workload philly --mode replay --time-compression 8 --policies fifo,policies/profiles/fifo-skip.yaml,sjf,backfill,srtf,tiresias,preemption,drf,gang,kube-default,bestfit"
  "quota8|--workload philly --mode replay --time-compression 8 --policies drf,proportion,capacity --config traces/queues/philly-capacity-queues.yaml"
  "gang4|--workload philly --mode replay --time-compression 4 --policies gang,policies/examples/gang-timeout-600.yaml,policies/examples/gang-backoff-1.yaml"
  "volcano8|--workload philly --mode replay --time-compression 8 --config traces/queues/philly-proportion-configmap.yaml --config traces/queues/philly-queues.yaml"
  "themis2|--workload philly --cluster philly-gavel --throughputs gavel --mode replay --time-compression 2 --policies themis"
  "gavel8|--workload philly --mode replay --time-compression 8 --policies gavel-maxmin,gavel-ftf"
)
# Digests of every output file, timing lines left out.
digest() {
  (cd "$1" && find . -type f ! -name '*.png' ! -name '*.svg' | sort | while read -r f; do
    echo "$f $(grep -v -i 'wall\|seconds_\|elapsed\|_ms"' "$f" | md5sum | cut -c1-12)"
  done)
}
for side in old new; do
  binary=$1
  [[ $side == new ]] && binary=$2
  for scenario in "${scenarios[@]}"; do
    name=${scenario%%|*}
    read -r -a args <<< "${scenario#*|}"
    "$binary" compare "${args[@]}" --seeds 1 --out "$scratch/$side/$name" > /dev/null 2> "$scratch/$name.$side.err"
  done
  digest "$scratch/$side" > "$scratch/$side.txt"
done
if diff "$scratch/old.txt" "$scratch/new.txt"; then
  echo "compare_builds: $(wc -l < "$scratch/new.txt") output files, all identical"
else
  echo "compare_builds: outputs differ (above)" >&2
  exit 1
fi
