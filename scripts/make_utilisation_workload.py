#!/usr/bin/env python3
"""Makes the utilisation-aware comparison's workload: the GPU-sharing workload with requests that overstate use.

Usage: python3 scripts/make_utilisation_workload.py SHARING_CSV OUT_JSONL

SHARING_CSV is the sharing experiment's workload (scripts/make_sharing_workload.py makes it from the
bundled openb pod list). Every pod is kept with its CPU, memory, GPUs, GPU share (gpu_milli), GPU model
constraint, QoS and times; each GPU pod gets a gpu_demand_milli, the share of the GPU's time it keeps busy,
of round(gpu_milli x u), at least 1, with u drawn uniformly from [0.2, 1.0) by random.Random(SEED): the pod
asked for more compute than it uses (an assumption: openb records requests, not use). Its memory use stays
the share it asked. Written in gpusim's native trace format (traces/FORMAT.md), byte for byte the same on
every run; traces/utilisation/SHA256SUMS holds its checksum.
"""
import csv
import json
import random
import sys

SEED = 2026
LOW, HIGH = 0.2, 1.0


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rng = random.Random(SEED)
    with open(sys.argv[1], newline="") as f, open(sys.argv[2], "w") as out:
        out.write(json.dumps({"format": "gpusim-trace", "version": 1, "timed": True,
                              "source": "openb sharing workload, demands below requests"}) + "\n")
        for r in csv.DictReader(f):
            gpus = int(r["num_gpu"] or 0)
            milli = int(r["gpu_milli"] or 0) if gpus > 0 else 0
            pod = {"name": r["name"], "cpu_milli": int(r["cpu_milli"]), "memory_mib": int(r["memory_mib"]), "gpus": gpus}
            if gpus > 0:
                share = milli if 0 < milli < 1000 else 1000
                pod["gpu_milli"] = share
                pod["gpu_demand_milli"] = max(1, round(share * rng.uniform(LOW, HIGH)))
                if r["gpu_spec"]:
                    pod["gpu_models"] = r["gpu_spec"].split("|")
            if r["qos"]:
                pod["qos"] = r["qos"]
            created = int(r["creation_time"]) * 1_000_000
            pod.update({"phase": "Succeeded", "created_us": created, "deleted_us": int(r["deletion_time"]) * 1_000_000,
                        "duration_us": (int(r["deletion_time"]) - int(r["scheduled_time"])) * 1_000_000})
            out.write(json.dumps(pod, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
