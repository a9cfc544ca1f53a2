#!/usr/bin/env python3
"""Tables and plot data of scripts/queueing_systems_experiments.sh, from its runs' own files only:
summary.json and queues.csv of every run, and queue-series.csv (the queue metrics gpusim records for
Kueue and KAI, sim/k8s/queue_metrics.hpp) of the runs that have one.
usage: queueing_systems_report.py DIR SYSTEM..."""
import collections
import csv
import json
import sys

out, systems = sys.argv[1], sys.argv[2:]
runs = f"{out}/runs"
HOUR = 3600.0


def metric(system, name):
    with open(f"{runs}/{system}/summary.json") as f:
        policy = json.load(f)["policies"][0]
    value = policy.get(name)
    return None if value is None or value.get("mean") is None else value["mean"]


def queues(system):
    with open(f"{runs}/{system}/queues.csv") as f:
        return {row["queue"]: row for row in csv.DictReader(f)}


def series(system):
    """Per (metric, labels): the points (time, value); and the run's last time."""
    points = collections.defaultdict(list)
    end = 0.0
    try:
        with open(f"{runs}/{system}/queue-series.csv") as f:
            for row in csv.DictReader(f):
                t = float(row["time_s"])
                points[(row["metric"], row["labels"])].append((t, float(row["value"])))
                end = max(end, t)
    except FileNotFoundError:
        return None, 0.0
    return points, end


def label(labels, key):
    return labels.split(f'{key}="')[1].split('"')[0]


def time_average(pts, end):
    total = 0.0
    for (t, v), (t2, _) in zip(pts, pts[1:] + [(end, 0)]):
        total += v * (t2 - t)
    return total / end if end > 0 else 0.0


def value_at(pts, t):
    v = 0.0
    for at, value in pts:
        if at > t:
            break
        v = value
    return v


timings = {}
with open(f"{out}/timings.txt") as f:
    for line in f:
        s, wall, rss = line.split()
        timings[s] = (float(wall), int(rss))

# Per system.
with open(f"{out}/table.md", "w") as f:
    f.write("| system | mean JCT (h) | p50 JCT (h) | p95 JCT (h) | p99 JCT (h) | mean queueing (h) | Jain's index of queue slowdowns "
            "| pods recreated | preemptions by reason | starved queue-hours | wall time (s) | × capacity's time |\n")
    f.write("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
    for s in systems:
        reasons = []
        for name in ["kueue_preemptions_InClusterQueue", "kueue_preemptions_InCohortReclamation",
                     "kueue_preemptions_InCohortReclaimWhileBorrowing", "kueue_preemptions_InCohortFairSharing",
                     "kai_reclaim_evictions", "kai_preempt_evictions", "reclaim_evictions"]:
            v = metric(s, name)
            if v:
                reasons.append(f"{name.split('_', 2)[-1] if name.startswith('kueue') else name}: {v:.0f}")
        starved = metric(s, "queue_starved_seconds")
        h = lambda name: f"{metric(s, name) / HOUR:.2f}"
        f.write(f"| {s} | {h('job_mean_jct_s')} | {h('job_p50_jct_s')} | {h('job_p95_jct_s')} | {h('job_p99_jct_s')} "
                f"| {h('job_mean_queueing_s')} | {metric(s, 'queue_slowdown_jain'):.2f} | {metric(s, 'pods_recreated'):.0f} "
                f"| {', '.join(reasons) or '–'} | {'–' if starved is None else f'{starved / HOUR:.1f}'} "
                f"| {timings[s][0]:.1f} | {timings[s][0] / timings['capacity'][0]:.2f} |\n")

# Per virtual cluster: deserved GPUs, jobs, and each system's mean queueing time.
per_queue = {s: queues(s) for s in systems}
names = list(per_queue["capacity"].keys())
deserved = {}
with open("traces/queues/philly-capacity-queues.yaml") as f:
    current = None
    for line in f:
        if 'name: "' in line:
            current = line.split('"')[1]
        if "nvidia.com/gpu:" in line and current:
            deserved[current] = int(line.split(":")[1])
with open(f"{out}/queues.md", "w") as f, open(f"{out}/queues.dat", "w") as d:
    f.write("| virtual cluster | jobs | deserved GPUs | " + " | ".join(f"{s} mean queueing (h)" for s in systems) + " |\n")
    f.write("|---|---:|---:|" + "---:|" * len(systems) + "\n")
    d.write("queue " + " ".join(systems) + "\n")
    for qn in names:
        waits = [float(per_queue[s][qn]["mean_queueing_s"]) / HOUR for s in systems]
        f.write(f"| {qn} | {per_queue['capacity'][qn]['jobs']} | {deserved.get(qn, '')} | " + " | ".join(f"{w:.2f}" for w in waits) + " |\n")
        d.write(qn + " " + " ".join(f"{w:.3f}" for w in waits) + "\n")

# The queue series of the systems that record them: per queue, hours starved, and the mean number of
# workloads waiting by reason; over time, the queues starved and the workloads waiting.
recorded = {}
for s in systems:
    pts, end = series(s)
    if pts is not None:
        recorded[s] = (pts, end)
with open(f"{out}/starved.md", "w") as f, open(f"{out}/starved.dat", "w") as d:
    f.write("Hours each queue was starved (workloads waiting while it held less than it deserves; KAI: less than its fair share), "
            "and the mean number of its workloads waiting for quota / for a node (fit):\n\n")
    f.write("| queue | " + " | ".join(f"{s}: starved h, waiting quota / fit" for s in recorded) + " |\n")
    f.write("|---|" + "---|" * len(recorded) + "\n")
    d.write("queue " + " ".join(recorded) + "\n")
    rows = collections.defaultdict(dict)
    for s, (pts, end) in recorded.items():
        for (m, labels), p in pts.items():
            if not m.startswith("gpusim_queue_"):
                continue
            qn = label(labels, "queue")
            qn = qn[3:] if qn.startswith("vc-") else qn  # Kueue's ClusterQueues are vc-<virtual cluster>
            if m == "gpusim_queue_starved_seconds_total":
                rows[qn][(s, "starved")] = p[-1][1] / HOUR
            elif m == "gpusim_queue_pending_workloads":
                rows[qn][(s, label(labels, "reason"))] = time_average(p, end)
    for qn in names:
        cells = []
        for s in recorded:
            r = rows[qn]
            cells.append(f"{r.get((s, 'starved'), 0):.1f} h, {r.get((s, 'quota'), 0):.0f} / {r.get((s, 'fit'), 0):.0f}")
        f.write(f"| {qn} | " + " | ".join(cells) + " |\n")
        d.write(qn + " " + " ".join(f"{rows[qn].get((s, 'starved'), 0):.2f}" for s in recorded) + "\n")

# Over time (hourly): queues starved, and GPUs the queues hold (quota reserved for Kueue).
with open(f"{out}/over-time.dat", "w") as d:
    cols = []
    for s in recorded:
        cols += [f"{s}:starved_queues", f"{s}:held_gpus"]
    d.write("hour " + " ".join(cols) + "\n")
    end = max(e for _, e in recorded.values())
    starved_series = {s: [p for (m, _), p in pts.items() if m == "gpusim_queue_starved"] for s, (pts, _) in recorded.items()}
    held_series = {s: [p for (m, _), p in pts.items() if m == "gpusim_queue_allocated_gpus"] for s, (pts, _) in recorded.items()}
    rows_out = []
    for hour in range(0, int(end / HOUR) + 1, 6):
        t = hour * HOUR
        vals = []
        for s in recorded:
            vals.append(sum(value_at(p, t) for p in starved_series[s]))
            vals.append(sum(value_at(p, t) for p in held_series[s]))
        rows_out.append((hour, vals))
    # Up to a day past the last hour any queue was starved (the tail is long jobs finishing).
    last = max((i for i, (_, vals) in enumerate(rows_out) if any(vals[k] for k in range(0, len(vals), 2))), default=0)
    for hour, vals in rows_out[: last + 5]:
        d.write(f"{hour} " + " ".join(f"{v:g}" for v in vals) + "\n")
print("wrote", out)
