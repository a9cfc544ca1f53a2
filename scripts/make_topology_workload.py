#!/usr/bin/env python3
"""Writes the synthetic cluster and job list of the Kubernetes-layer experiments (traces/synthetic/).

16 DGX-1 (V100, hybrid cube-mesh) and 16 two-socket PCIe servers, 8 V100-32GB each: 256 GPUs.
Jobs of 1, 2 and 4 whole GPUs (30/40/30 %) arrive as a Poisson process for 48 hours at a rate that
offers about 100 % of the GPUs; run times are log-normal (median 1 h, sigma 1, at most 24 h).
Deterministic: Python's random with a fixed seed; the files are committed, this script re-makes them
byte for byte. Usage: python3 scripts/make_topology_workload.py traces/synthetic
"""
import math
import random
import sys

SEED = 20261123
HOURS = 48
GPUS = 256
SHARES = [(1, 0.3), (2, 0.4), (4, 0.3)]
MEDIAN_S, SIGMA, CAP_S = 3600.0, 1.0, 24 * 3600
TARGET_LOAD = 1.0


def main(out):
    rng = random.Random(SEED)
    with open(f"{out}/topology-cluster.csv", "w", newline="\n") as f:
        f.write("sn,cpu_milli,memory_mib,gpu,model\n")
        for kind in ("dgx1", "pcie"):
            for i in range(16):
                f.write(f"{kind}-{i:02d},80000,524288,8,V100M32\n")
    mean_gpus = sum(g * p for g, p in SHARES)
    mean_s = MEDIAN_S * math.exp(SIGMA * SIGMA / 2)
    rate = TARGET_LOAD * GPUS / (mean_gpus * mean_s)  # jobs per second
    t = 0.0
    rows = []
    while True:
        t += rng.expovariate(rate)
        if t >= HOURS * 3600:
            break
        u = rng.random()
        gpus = SHARES[-1][0]
        acc = 0.0
        for g, p in SHARES:
            acc += p
            if u < acc:
                gpus = g
                break
        duration = min(CAP_S, max(60, round(rng.lognormvariate(math.log(MEDIAN_S), SIGMA))))
        start = int(t)
        rows.append((gpus, start, duration))
    with open(f"{out}/topology-jobs.csv", "w", newline="\n") as f:
        f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n")
        for i, (gpus, start, duration) in enumerate(rows):
            f.write(f"job-{i:05d},{4000 * gpus},{16384 * gpus},{gpus},1000,,,Succeeded,{start},{start + duration},{start}\n")
    print(f"{len(rows)} jobs over {HOURS} h, rate {rate * 3600:.1f}/h")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "traces/synthetic")
