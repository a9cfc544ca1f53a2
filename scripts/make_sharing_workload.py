#!/usr/bin/env python3
"""Makes the GPU-sharing experiment's workload from the bundled Alibaba openb default pod list.

Usage: python3 scripts/make_sharing_workload.py OUT_CSV

Every GPU pod of traces/data/openb/openb_pod_list_default.csv is kept, in the trace's order, with its
CPU, memory, GPU count, GPU fraction (gpu_milli), GPU model constraint and QoS. What changes is time:
openb spreads its pods over 145 days with run times up to the whole span, which leaves any cluster
nearly idle. Here each pod runs for its trace run time (deletion minus scheduled time, or minus
creation time when it was never scheduled) clipped to 60 s .. 24 h, and pods arrive as a Poisson
process whose rate offers the sharing cluster (traces/sharing/openb-eighth-cluster.csv, 770 GPUs)
OFFERED_LOAD (4) times its GPUs when every pod takes whole GPUs (a fraction counting as one GPU). All
pods are phase Succeeded and start on creation. Python's random.Random(SEED) makes the file the same
byte for byte on every run; traces/sharing/SHA256SUMS holds its checksum.
"""
import csv
import random
import sys
from pathlib import Path

SEED = 2026
CLUSTER_GPUS = 770
OFFERED_LOAD = 4.0
MIN_RUN_S, MAX_RUN_S = 60, 24 * 3600

def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = Path(__file__).resolve().parent.parent / "traces/data/openb/openb_pod_list_default.csv"
    with source.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["num_gpu"] or 0) > 0]
    runs = []
    for r in rows:
        start = int(r["scheduled_time"] or r["creation_time"])
        runs.append(max(MIN_RUN_S, min(MAX_RUN_S, int(r["deletion_time"]) - start)))
    whole_gpu_seconds = sum(int(r["num_gpu"]) * run for r, run in zip(rows, runs))
    window = whole_gpu_seconds / (CLUSTER_GPUS * OFFERED_LOAD)
    rng = random.Random(SEED)
    mean_gap = window / len(rows)
    t = 0.0
    with open(sys.argv[1], "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
                    "creation_time", "deletion_time", "scheduled_time"])
        for i, (r, run) in enumerate(zip(rows, runs)):
            t += rng.expovariate(1.0 / mean_gap)
            arrival = int(t)
            w.writerow([f"share-{i:05d}", r["cpu_milli"], r["memory_mib"], r["num_gpu"], r["gpu_milli"], r["gpu_spec"],
                        r["qos"], "Succeeded", arrival, arrival + run, arrival])

if __name__ == "__main__":
    main()
