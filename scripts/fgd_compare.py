#!/usr/bin/env python3
"""Pod-by-pod comparison of gpusim with the FGD artifact's Go simulator (hkust-adsl/kubernetes-scheduler-simulator).

Standard library only. Two steps (scripts/fgd_compare.sh runs both):

  fgd_compare.py prepare --log LOG --trace POD_CSV --nodes NODE_CSV --node-names FILE [--snapshot POD_SNAPSHOT] --out DIR
      Reads the Go run's log (logrus, Info level) and writes into DIR:
        pods.csv   the Go run's arrival order as a gpusim pod-list CSV (the trace's rows; a `<pod>-tuned-<i>` copy
                   is an explicit row, a copy of <pod>'s with the copy's name)
        nodes.csv  the node list in the Go run's tie-break order: by the random `%04d-` name prefix the Go simulator
                   gives every node (its selectHost keeps the smallest name among the best scores)
        go.csv     one row per arrival: seq,pod,status,node,gpus (gpus from the pod snapshot CSV, if given)
      --node-names: the Go run's prefixed node names, all of them: its node-snapshot.csv (first column), or a text
      file with one `prefix-name` per line (an optional leading `N ` is skipped). The log alone names only the nodes
      that got a pod, not enough for the order of the others.

  fgd_compare.py compare --go DIR/go.csv --gpusim RUN/pods.csv [--label NAME] [--csv-row FILE] [--matches FILE]
      Joins the two on the pod name, in the Go arrival order, and prints: pods compared (those the Go log has
      settled), % on the same node (a pod that failed in both counts as the same), % on the same node with the same
      GPU ids (only with a pod snapshot; CPU-only and failed pods have none on either side), and the first
      difference of each. --csv-row appends these figures as one CSV row to FILE;
      --matches writes seq,same_node,same_node_and_gpus (0 or 1) per arrival.

  fgd_compare.py explain --input DIR --gpusim RUN/pods.csv --trace POD_CSV
      FGD only: at the first arrival where the nodes differ, rebuilds the cluster as the Go run left it (its nodes
      and, from the snapshot, its GPU ids) and prints both nodes' FGD scores (the artifact's formulas, in Python)
      with the typical pods of the trace and of the replayed list.

  fgd_compare.py go-vs-go --log LOG1 --log LOG2
      Two Go runs of one configuration, pod by pod, over the arrivals both have settled (a run still going may be
      given): the arrival orders must agree; prints the share on the same node and the first difference. Shows
      whether the Go simulator itself is reproducible (Random is not: its feasible list comes back from parallel
      filter workers in completion order).

  fgd_compare.py curves --matches M1 M2 ... --labels L1 L2 ... [--every 10] --out FILE.dat
      Cumulative % of the arrivals so far on the same node, and on the same node with the same GPUs, every
      `every` arrivals, for gnuplot.
"""
import argparse
import csv
import re
import sys

ATTEMPT = re.compile(r'msg="\[(\d+)\] attempt to create pod\(([^/]+)/([^)]+)\)')
SCHEDULED = re.compile(r'msg="pod\(([^/]+)/([^)]+)\) is scheduled to node\((\d{4})-([^)]+)\)')
FAILED = re.compile(r'msg="\[(\d+)\] failed to schedule pod\(([^/]+)/([^)]+)\)')
TUNED = re.compile(r'^(.*)-tuned-(\d+)$')


def read_log(path):
    """Arrivals in order: [seq, pod, status, node, prefix]. Stops at the first inflation/deschedule phase."""
    rows, by_pod = [], {}
    with open(path, errors='replace') as f:
        for line in f:
            m = ATTEMPT.search(line)
            if m:
                seq, pod = int(m.group(1)), m.group(3)
                if pod in by_pod:  # a second phase (rescheduling) would restart [i]: not used by the fill runs
                    break
                if seq != len(rows):
                    sys.exit(f'{path}: arrival [{seq}] out of order (expected {len(rows)})')
                row = [seq, pod, 'pending', '', '']
                rows.append(row)
                by_pod[pod] = row
                continue
            m = SCHEDULED.search(line)
            if m and m.group(2) in by_pod:
                row = by_pod[m.group(2)]
                row[2], row[3], row[4] = 'ok', m.group(4), m.group(3)
                continue
            m = FAILED.search(line)
            if m and m.group(3) in by_pod:
                by_pod[m.group(3)][2] = 'fail'
    return rows


def read_node_names(path):
    names = []
    with open(path) as f:
        first = f.readline()
        f.seek(0)
        if ',' in first:  # node-snapshot.csv: the first column
            for r in csv.reader(f):
                if r and re.match(r'^\d{4}-', r[0]):
                    names.append(r[0])
        else:
            for line in f:
                line = line.strip()
                if line.startswith('N '):
                    line = line[2:]
                if re.match(r'^\d{4}-', line):
                    names.append(line)
    return names


def prepare(a):
    import os
    os.makedirs(a.out, exist_ok=True)
    arrivals = read_log(a.log)
    with open(a.trace, newline='') as f:
        reader = csv.reader(f)
        header = next(reader)
        trace = {r[0]: r for r in reader}
    with open(os.path.join(a.out, 'pods.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(header)
        for _, pod, *_ in arrivals:
            m = TUNED.match(pod)
            source = m.group(1) if m and pod not in trace else pod
            if source not in trace:
                sys.exit(f'{a.log}: pod {pod} is not in {a.trace}')
            w.writerow([pod] + trace[source][1:])

    with open(a.nodes, newline='') as f:
        reader = csv.reader(f)
        node_header = next(reader)
        nodes = {r[0]: r for r in reader}
    prefixed = read_node_names(a.node_names)
    prefix_of = {}
    for name in prefixed:
        prefix, node = name[:4], name[5:]
        if node not in nodes:
            sys.exit(f'{a.node_names}: node {node} is not in {a.nodes}')
        prefix_of[node] = prefix
    missing = [n for n in nodes if n not in prefix_of]
    if missing:
        sys.exit(f'{a.node_names}: no prefix for {len(missing)} node(s) of {a.nodes}, e.g. {missing[0]}')
    for _, _, status, node, prefix in arrivals:  # the log must agree with the node names given
        if status == 'ok' and prefix_of.get(node) != prefix:
            sys.exit(f'{a.log}: node {prefix}-{node} disagrees with {a.node_names} ({prefix_of.get(node)})')
    with open(os.path.join(a.out, 'nodes.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(node_header)
        for node in sorted(nodes, key=lambda n: (prefix_of[n], n)):
            w.writerow(nodes[node])

    gpus = {}
    if a.snapshot:
        with open(a.snapshot, newline='') as f:
            for r in csv.DictReader(f):
                gpus[r['pod']] = r['gpu_index']
    with open(os.path.join(a.out, 'go.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['seq', 'pod', 'status', 'node', 'gpus'])
        for seq, pod, status, node, _ in arrivals:
            w.writerow([seq, pod, status, node, gpus.get(pod, '') if status == 'ok' else ''])
    settled = sum(1 for r in arrivals if r[2] != 'pending')
    print(f'{a.out}: {len(arrivals)} arrivals ({settled} settled), {len(nodes)} nodes, '
          f'{len(gpus)} GPU ids from the snapshot')


def compare(a):
    with open(a.go, newline='') as f:
        go = [r for r in csv.DictReader(f)]
    with open(a.gpusim, newline='') as f:
        sim = {r['name']: r for r in csv.DictReader(f)}
    has_gpus = any(r['gpus'] != '' for r in go)
    compared = same_node = same_gpus = 0
    go_milli = sim_milli = 0  # GPU milli allocated at the end, by each side's placements
    first = first_gpu = None
    matches = []  # per arrival: seq, same node, same node and GPUs
    for r in go:
        if r['status'] == 'pending':
            break  # the log ends here (a run still going)
        s = sim.get(r['pod'])
        if s is None:
            sys.exit(f'{a.gpusim}: no row for {r["pod"]}')
        compared += 1
        milli = int(s['num_gpu']) * int(s['gpu_milli'])
        go_milli += milli if r['status'] == 'ok' else 0
        sim_milli += milli if s['outcome'] == 'scheduled' else 0
        go_node = r['node'] if r['status'] == 'ok' else '(failed)'
        sim_node = s['node'] if s['outcome'] == 'scheduled' else '(failed)'
        if go_node != sim_node:
            matches.append((r['seq'], 0, 0))
            if first is None:
                first = (r, s, go_node, sim_node)
            continue
        same_node += 1
        go_gpus = r['gpus'] if r['status'] == 'ok' else ''
        sim_gpus = s['gpus'] if s['outcome'] == 'scheduled' else ''
        matches.append((r['seq'], 1, int(go_gpus == sim_gpus)))
        if go_gpus == sim_gpus:
            same_gpus += 1
        elif first_gpu is None:
            first_gpu = (r, s)
    label = a.label or a.gpusim
    pct = lambda x: f'{100.0 * x / compared:.2f}' if compared else 'nan'
    gpu_pct = pct(same_gpus) if has_gpus else 'n/a'
    print(f'{label}: {compared} pods compared; same node {same_node} ({pct(same_node)}%); same node and GPUs '
          + (f'{same_gpus} ({gpu_pct}%)' if has_gpus else 'n/a (no GPU ids: no pod snapshot)')
          + f'; GPU milli allocated: Go {go_milli}, gpusim {sim_milli}')
    first_txt = ''
    if first:
        r, s, gn, sn = first
        first_txt = (f'arrival {r["seq"]} {r["pod"]} (cpu {s["cpu_milli"]}, {s["num_gpu"]} x {s["gpu_milli"]} '
                     f'milli-GPU): Go {gn}, gpusim {sn}')
        print(f'  first node difference: {first_txt}')
    if first_gpu and has_gpus:
        r, s = first_gpu
        print(f'  first GPU difference on the same node: arrival {r["seq"]} {r["pod"]} on {r["node"]}: '
              f'Go GPUs {r["gpus"]}, gpusim {s["gpus"]}')
    if a.matches:
        with open(a.matches, 'w', newline='') as f:
            w = csv.writer(f, lineterminator='\n')
            w.writerow(['seq', 'same_node', 'same_node_and_gpus'])
            w.writerows(matches)
    if a.csv_row:
        with open(a.csv_row, 'a', newline='') as f:
            csv.writer(f, lineterminator='\n').writerow(
                [label, compared, same_node, pct(same_node), same_gpus if has_gpus else '', gpu_pct, go_milli, sim_milli,
                 first_txt])


def typical_pods(rows):
    """The artifact's typical pods (pkg/utils/frag.go GetTypicalPods, as configured by the experiments: CPU pods
    included, 95%, step 1): [((cpu, milli, gpus), frequency)] in its order."""
    counts = {}
    for r in rows:
        gpus = int(r['num_gpu'])
        key = (int(r['cpu_milli']), int(r['gpu_milli']) if gpus > 0 else 0, gpus)
        counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    total = float(len(rows))
    kept, cum = [], 0.0
    while cum < 95 * total / 100.0 and len(kept) < len(ranked):
        key, count = ranked[len(kept)]
        cum += count
        kept.append((key, count / total))
    return [(key, share / (cum / total)) for key, share in kept]


def fgd_frag(cpu_left, gpu_left, typical):
    """NodeGpuShareFragAmountScore (pkg/utils/frag.go): the 7 buckets in typical-pod order, summed except Q3."""
    buckets = [0.0] * 7  # Q1, Q2, Q3, Q4, XL, XR, NoAccess
    idle = sum(gpu_left)
    for (cpu, milli, gpus), freq in typical:
        if milli == 0:
            buckets[4 if cpu_left >= cpu else 5] += freq * float(idle)
        elif sum(1 for g in gpu_left if g >= milli) >= gpus:
            if cpu_left >= cpu:
                frag = sum(g for g in gpu_left if g < milli)
                buckets[1] += freq * float(frag)
                buckets[2] += freq * float(idle - frag)
            else:
                buckets[3] += freq * float(idle)
        else:
            buckets[1 if cpu_left >= cpu else 0] += freq * float(idle)
    out = 0.0
    for i, b in enumerate(buckets):
        if i != 2:
            out += b
    return out


def fgd_score(cpu_left, gpu_left, pod, typical):
    """FGD's node score (plugin/fgd_score.go): int(100 * sigmoid((F(before) - F(after)) / 1000)); a sharing pod
    tries every GPU with room (largest score, lowest index)."""
    import math
    cpu, milli, gpus = pod
    before = fgd_frag(cpu_left, gpu_left, typical)
    score = lambda after: int(1.0 / (1.0 + math.exp(-((before - after) / 1000))) * 100.0)
    if gpus == 1 and milli < 1000:
        best = None
        for i, g in enumerate(gpu_left):
            if g >= milli:
                left = list(gpu_left)
                left[i] -= milli
                sc = score(fgd_frag(cpu_left - cpu, left, typical))
                if best is None or sc > best[0]:
                    best = (sc, i)
        return best
    left, need = list(gpu_left), gpus
    for i in sorted(range(len(left)), key=lambda i: left[i]):
        if need > 0 and left[i] >= milli:
            left[i] -= milli
            need -= 1
    return (score(fgd_frag(cpu_left - cpu, left, typical)), None)


def explain(a):
    """FGD only: at the first arrival where gpusim's node differs, both nodes' FGD scores, with the typical pods of
    the trace and of the replayed list, on the cluster as the Go run left it before that arrival."""
    import os
    with open(os.path.join(a.input, 'go.csv'), newline='') as f:
        go = list(csv.DictReader(f))
    with open(os.path.join(a.input, 'pods.csv'), newline='') as f:
        listed = list(csv.DictReader(f))
    with open(os.path.join(a.input, 'nodes.csv'), newline='') as f:
        nodes = {r['sn']: r for r in csv.DictReader(f)}
    with open(a.gpusim, newline='') as f:
        sim = {r['name']: r for r in csv.DictReader(f)}
    with open(a.trace, newline='') as f:
        trace = list(csv.DictReader(f))
    first = None
    for k, r in enumerate(go):
        if r['status'] == 'pending':
            break
        s = sim[r['pod']]
        if (r['node'] if r['status'] == 'ok' else '') != (s['node'] if s['outcome'] == 'scheduled' else ''):
            first = k
            break
    if first is None:
        print('  no node difference')
        return
    state = {n: [int(r['cpu_milli']), [1000] * int(r['gpu'])] for n, r in nodes.items()}
    for k in range(first):  # the Go run's placements, GPU ids from its snapshot
        r, p = go[k], listed[k]
        if r['status'] != 'ok':
            continue
        if r['gpus'] == '' and int(p['num_gpu']) > 0:
            sys.exit(f'{a.input}/go.csv: no GPU ids for {r["pod"]}: give the pod snapshot')
        state[r['node']][0] -= int(p['cpu_milli'])
        for g in (r['gpus'].split('-') if r['gpus'] else []):
            state[r['node']][1][int(g)] -= int(p['gpu_milli'])
    p = listed[first]
    pod = (int(p['cpu_milli']), int(p['gpu_milli']) if int(p['num_gpu']) > 0 else 0, int(p['num_gpu']))
    go_node, sim_node = go[first]['node'], sim[go[first]['pod']]['node']
    for label, typical in (('the trace', typical_pods(trace)), ('the replayed list', typical_pods(listed))):
        shown = []
        for n in (go_node, sim_node):
            if not n:
                continue
            cpu_left, gpu_left = state[n]
            sc = fgd_score(cpu_left, gpu_left, pod, typical)
            shown.append(f'{n} (cpu left {cpu_left}, GPUs left {gpu_left}) {sc[0]}'
                         + (f' on GPU {sc[1]}' if sc[1] is not None else ''))
        print(f'  arrival {first} {p["name"]}: FGD scores with typical pods from {label} ({len(typical)} shapes): '
              + '; '.join(shown))


def go_vs_go(a):
    first, second = (read_log(path) for path in a.log)
    settled = [(x, y) for x, y in zip(first, second) if x[2] != 'pending' and y[2] != 'pending']
    for x, y in settled:
        if x[1] != y[1]:
            sys.exit(f'arrival {x[0]}: the runs replay different pods ({x[1]}, {y[1]}): not the same configuration')
    same = sum(1 for x, y in settled if (x[2], x[3]) == (y[2], y[3]))
    pct = 100.0 * same / len(settled) if settled else 0.0
    print(f'{len(settled)} arrivals settled in both runs; same node (or failed in both): {same} ({pct:.2f}%)')
    for x, y in settled:
        if (x[2], x[3]) != (y[2], y[3]):
            print(f'  first difference: arrival {x[0]} {x[1]}: {x[3] or x[2]} in the first run, {y[3] or y[2]} in the second')
            break


def curves(a):
    """Cumulative % on the same node (and with the same GPUs) after each `every` arrivals, one column pair per file."""
    series = []
    for path in a.matches:
        with open(path, newline='') as f:
            series.append([(int(r['same_node']), int(r['same_node_and_gpus'])) for r in csv.DictReader(f)])
    n = max(len(s) for s in series)
    with open(a.out, 'w') as f:
        f.write('# arrivals ' + ' '.join(f'"{label} node" "{label} gpus"' for label in a.labels) + '\n')
        sums = [[0, 0] for _ in series]
        for i in range(n):
            for k, s in enumerate(series):
                if i < len(s):
                    sums[k][0] += s[i][0]
                    sums[k][1] += s[i][1]
            if (i + 1) % a.every == 0 or i + 1 == n:
                cols = []
                for k, s in enumerate(series):
                    m = min(i + 1, len(s))
                    cols += [f'{100.0 * sums[k][0] / m:.3f}', f'{100.0 * sums[k][1] / m:.3f}']
                f.write(f'{i + 1} ' + ' '.join(cols) + '\n')


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    pp = sub.add_parser('prepare')
    pp.add_argument('--log', required=True)
    pp.add_argument('--trace', required=True)
    pp.add_argument('--nodes', required=True)
    pp.add_argument('--node-names', required=True)
    pp.add_argument('--snapshot')
    pp.add_argument('--out', required=True)
    pc = sub.add_parser('compare')
    pc.add_argument('--go', required=True)
    pc.add_argument('--gpusim', required=True)
    pc.add_argument('--label')
    pc.add_argument('--csv-row')
    pc.add_argument('--matches')
    pe = sub.add_parser('explain')
    pe.add_argument('--input', required=True)
    pe.add_argument('--gpusim', required=True)
    pe.add_argument('--trace', required=True)
    pg = sub.add_parser('go-vs-go')
    pg.add_argument('--log', action='append', required=True)
    pv = sub.add_parser('curves')
    pv.add_argument('--matches', nargs='+', required=True)
    pv.add_argument('--labels', nargs='+', required=True)
    pv.add_argument('--every', type=int, default=10)
    pv.add_argument('--out', required=True)
    a = p.parse_args()
    if a.cmd == 'go-vs-go' and len(a.log) != 2:
        p.error('go-vs-go takes --log twice')
    {'prepare': prepare, 'compare': compare, 'explain': explain, 'go-vs-go': go_vs_go, 'curves': curves}[a.cmd](a)


if __name__ == '__main__':
    main()
