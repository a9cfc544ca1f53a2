#!/usr/bin/env bash
# The FGD artifact's grid as one sweep (sweeps/fgd-grid.yaml: 17 openb variants x 6 policies x 10
# seeds = 1,020 cells), checked against `gpusim compare` run on each variant with the same policies
# and seeds, into results/sweeps/fgd-grid/: the merged table and report, and the check.
#   bash scripts/sweep_fgd_grid.sh [WORK_DIR]   (default /tmp/gpusim-fgd-grid; reruns resume)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/gpusim-fgd-grid}
results=results/sweeps/fgd-grid
mkdir -p "$work" "$results"

/usr/bin/time -f "%e s wall, %U s user, %S s system, %M KiB max RSS" -o "$work/sweep-time.txt" \
  build/gpusim sweep sweeps/fgd-grid.yaml --out "$work/sweep" --threads "$(nproc)" | tee "$work/sweep-stdout.txt"

for variant in default cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 gpushare100 \
               gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50; do
  if [[ ! -f "$work/compare-$variant/gpusim-manifest.json" ]]; then
    build/gpusim compare --mode fill --fill-target 1.3 --workload "openb:$variant" --first-seed 42 --seeds 10 \
      --out "$work/compare-$variant" --quiet > /dev/null
  fi
done

cp "$work/sweep/merged/"{summary.json,cells.csv,groups.csv,report.md} "$results/"
python3 scripts/sweep_compare_check.py "$work" > "$results/compare-check.md"
cat "$results/compare-check.md"

# The grid's one axis beside policy is the pod list, not a number, so the merged report has no
# curve: a clustered bar chart of allocation per variant and policy (mean ± std over the seeds).
python3 - "$results" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/groups.csv")))
policies = list(dict.fromkeys(r["policy"] for r in rows))
variants = list(dict.fromkeys(r["workload"] for r in rows))
with open(f"{d}/allocation.dat", "w") as f:
    f.write("# workload, then per policy: gpu_allocation_pct mean and std over 10 seeds (" + ", ".join(policies) + ")\n")
    for v in variants:
        vals = []
        for p in policies:
            r = next(r for r in rows if r["workload"] == v and r["policy"] == p)
            vals += [r["gpu_allocation_pct_mean"], r["gpu_allocation_pct_std"]]
        f.write(v.split(":")[1] + " " + " ".join(vals) + "\n")
PY
(cd "$results" && gnuplot allocation.gp)
