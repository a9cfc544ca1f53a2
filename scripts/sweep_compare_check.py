#!/usr/bin/env python3
"""Checks a merged sweep of sweeps/fgd-grid.yaml against `gpusim compare` on each variant: every
(variant, policy) group's mean and standard deviation over its 10 seeds against compare's, for every
metric the sweep tabulates. Prints a Markdown report; exits 1 on a difference above the rounding of
summary.json (a cell's values are rounded to 6 decimals before they are averaged)."""
import json
import sys
from pathlib import Path

work = Path(sys.argv[1])
merged = json.loads((work / "sweep" / "merged" / "summary.json").read_text())
tolerance = 2e-6
rows, worst, checked = [], 0.0, 0
for group in merged["groups"]:
    variant = group["workload"].split(":", 1)[1]
    reference = json.loads((work / f"compare-{variant}" / "summary.json").read_text())
    policy = next(p for p in reference["policies"] if p["name"] == group["policy"])
    for metric in merged["metrics"]:
        for part in ("mean", "std"):
            a, b = group[metric][part], policy[metric][part]
            difference = abs(a - b) if a is not None and b is not None else (0.0 if a == b else float("inf"))
            worst = max(worst, difference)
            checked += 1
    rows.append((group["workload"], group["policy"], group["gpu_allocation_pct"]["mean"], policy["gpu_allocation_pct"]["mean"]))

print("# FGD grid: the sweep's merged groups against `gpusim compare` per variant\n")
print(f"`bash scripts/sweep_fgd_grid.sh`: {len(merged['cells'])} cells merged into {len(merged['groups'])} groups "
      f"(17 variants x 6 policies, 10 seeds each); {checked} figures checked (mean and std of "
      f"{len(merged['metrics'])} metrics per group) against the 17 `gpusim compare --workload openb:VARIANT "
      f"--first-seed 42 --seeds 10` summaries.\n")
print(f"Largest difference: {worst:.2g} (tolerance {tolerance:g}: the cells' values are summary.json's, rounded to 6 "
      f"decimals, while compare averages the unrounded ones).\n")
print("| workload | policy | gpu_allocation_pct mean, sweep | same, compare |\n|---|---|---|---|")
for workload, policy, a, b in rows:
    print(f"| {workload} | {policy} | {a:.2f} | {b:.2f} |")
sys.exit(0 if worst <= tolerance else 1)
