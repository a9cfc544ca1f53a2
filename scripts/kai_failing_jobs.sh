#!/usr/bin/env bash
# What KAI's reclaim costs when many pending jobs are tried and every search fails (policies/README.md,
# "Which jobs reclaim and preempt try"). 100 nodes of 8 GPUs and 8 cores; queue b holds each node
# with a non-preemptible pod of 7 cores and 1 GPU, and fills the other GPUs with preemptible pods of no
# CPU; queue a, as deserving as b, then asks N 1-GPU jobs of more than the 1 core a node could free:
# no reclaim can succeed. The CPU asks are alike, growing (KAI skips each after the first failure) or
# shrinking (each is easier than the last failure, so KAI tries each: the worst case).
# Usage: scripts/kai_failing_jobs.sh [N (default 2000)] [gpusim binary (default build/gpusim)]
# Prints per case: the replay's wall time and its reclaim evictions. Writes only in a directory of its
# own under $TMPDIR, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
gpusim=${2:-build/gpusim}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "kai_failing_jobs.sh: N must be a positive whole number of jobs, not '$n'" >&2; exit 2; }
[ -x "$gpusim" ] || { echo "kai_failing_jobs.sh: no gpusim binary at '$gpusim' (build it: cmake --build build --target gpusim)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  echo "sn,cpu_milli,memory_mib,gpu,model"
  for i in $(seq 0 99); do echo "n$i,8000,0,8,p100-pcie-12gb"; done
} > "$work/nodes.csv"
queue() {  # name, parent ("" for none), GPU quota
  printf -- '---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: %s}\nspec:\n' "$1"
  [ -z "$2" ] || printf '  parentQueue: %s\n' "$2"
  printf '  resources:\n    gpu: {quota: %s, overQuotaWeight: 1, limit: -1}\n' "$3"
  printf '    cpu: {quota: -1, overQuotaWeight: 1, limit: -1}\n    memory: {quota: -1, overQuotaWeight: 1, limit: -1}\n'
}
{ queue department "" -1; queue a department 400; queue b department 400; } > "$work/kai.yaml"

for asks in alike growing shrinking; do
  python3 - "$n" "$asks" > "$work/$asks.jsonl" <<'EOF'
import json, sys
n, asks = int(sys.argv[1]), sys.argv[2]
print(json.dumps({"format": "gpusim-trace", "version": 1, "source": "kai_failing_jobs.sh", "cluster": "philly", "timed": True,
                  "queues": ["a", "b"]}))
t = 0
def job(name, gpus, cpu, priority, created, duration, queue):
    print(json.dumps({"name": name, "gpus": gpus, "cpu_milli": cpu, "priority": priority, "phase": "Succeeded",
                      "created_us": created, "duration_us": duration, "queue": queue}))
for i in range(100):
    job(f"np{i}", 1, 7000, 100, t, 20000000000, "b"); t += 1000
for i in range(700):
    job(f"b{i}", 1, 0, 0, t, 3600000000 + i * 1000000, "b"); t += 1000
for i in range(n):
    cpu = {"alike": 1001, "growing": 1001 + i, "shrinking": 1001 + n - i}[asks]
    job(f"a{i}", 1, cpu, 0, 100000000 + i * 1000, 600000000, "a")
EOF
  /usr/bin/time -f "%e" -o "$work/time-$asks" "$gpusim" run --cluster "$work/nodes.csv" --workload "$work/$asks.jsonl" \
    --mode replay --quiet --policy kai --config "$work/kai.yaml" --out "$work/out-$asks" > /dev/null 2> "$work/err-$asks" ||
    { echo "kai_failing_jobs.sh: the $asks run failed:" >&2; cat "$work/err-$asks" >&2; exit 1; }
  evictions=$(grep -o '"kai_reclaim_evictions": [0-9.]*' "$work/out-$asks/summary.json" | tail -1 | cut -d' ' -f2)
  echo "$asks: $n jobs of a: $(cat "$work/time-$asks") s wall, reclaim evictions $evictions"
done
