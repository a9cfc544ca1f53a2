#!/usr/bin/env bash
# Time and peak memory against jobs and against nodes (issue 33's scale report, results/perf/scale/).
# Every point is one whole `gpusim run` under /usr/bin/time (outputs and plots included, --quiet):
#   jobs   Philly-fitted logs (`gpusim trace synth --load 1`) of 10^3 to 10^7 jobs on the bundled
#          Philly cluster (552 nodes, 2,490 GPUs): fifo, srtf (preemptive) and fifo under the
#          Kubernetes layer (60 s node status, GPUs failing at a 20 h MTBF with 2 h repairs, as the
#          stale-status experiment's settings);
#   nodes  200,000 jobs on 100 to 12,500 nodes of 8 P40 (up to 100,000 GPUs), the log's rate raised
#          with the cluster (--load 8N/2490) so every GPU is as loaded as Philly's: the same three;
#   fill   FGD fill to 130 % of the GPUs with openb:default's pods on the openb GPU cluster cut to
#          121 nodes, whole (1,213) and repeated 4 and 8 times (9,704 nodes, 49,696 GPUs);
#   goals  issue 33's goals as whole commands: 10^7 jobs under FIFO on 12,500 nodes (100,000 GPUs);
#          the Kubernetes layer on 10,000 nodes with 200,000 jobs, at a 50,000 h and a 20 h MTBF.
# Writes scale.csv, a least-squares slope of log time and log memory on log size per series
# (slopes.csv, over the points of at least 10^4 jobs or all node counts) and four log-log plots.
# About 15 minutes on 2 cores; the synthetic logs go to a scratch directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/perf/scale
mkdir -p "$dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
gpusim=./build/gpusim

cat > "$scratch/kube-failures.yaml" << 'EOF'
kubelet: {nodeStatusUpdateFrequency: 60s}
devicePlugin: {model: device-plugin, deviceChoice: preferred}
randomFailures: {mtbfHours: 20, xid: 48, repairTime: 2h}
EOF
cat > "$scratch/kube-fleet.yaml" << 'EOF'
kubelet: {nodeStatusUpdateFrequency: 60s}
devicePlugin: {model: device-plugin, deviceChoice: preferred}
randomFailures: {mtbfHours: 50000, xid: 79, repairTime: 2h}
EOF

# A cluster of N nodes of 8 P40 (Philly's 8-GPU nodes), as an openb node CSV.
make_nodes() {
  awk -v n="$1" 'BEGIN { print "sn,cpu_milli,memory_mib,gpu,model"; for (i = 0; i < n; i++) printf "node-%05d,0,0,8,p40\n", i }' > "$2"
}
# The openb GPU cluster cut to its first N nodes or repeated K times (node names made unique).
make_openb() {
  local src=traces/data/openb/openb_node_list_gpu_node.csv
  awk -F, -v first="$1" -v times="$2" 'NR == 1 { print; next } { row[++n] = $0 }
    END { for (k = 0; k < times; k++) for (i = 1; i <= n && (first == 0 || i <= first); i++) {
            split(row[i], f, ","); f[1] = f[1] "-r" k; line = f[1]; for (j = 2; j <= 5; j++) line = line "," f[j]; print line } }' \
    "$src" > "$3"
}

echo "series,variant,jobs,nodes,gpus,pods,wall_s,user_s,peak_kib" > "$dir/scale.csv"
# One point: series, variant, jobs, nodes, gpus, then gpusim run's arguments.
point() {
  local series=$1 variant=$2 jobs=$3 nodes=$4 gpus=$5
  shift 5
  rm -rf "$scratch/out"
  /usr/bin/time -f "%e %U %M" -o "$scratch/time" "$gpusim" run "$@" --seed 1 --quiet --out "$scratch/out" > /dev/null 2>&1
  read -r wall user peak < "$scratch/time"
  local pods
  # A fill run counts the pods it drew; a replay, the pods by how they ended.
  pods=$(jq -r '.policies[0] | if .arrived_pods then .arrived_pods.mean
    else .completed_pods.mean + .failed_pods.mean + .unscheduled_pods.mean + .held_at_end_pods.mean end' "$scratch/out/summary.json")
  echo "$series,$variant,$jobs,$nodes,$gpus,$pods,$wall,$user,$peak" | tee -a "$dir/scale.csv"
  rm -rf "$scratch/out"
}

for jobs in 1000 10000 100000 1000000 10000000; do
  "$gpusim" trace synth --workload philly --jobs "$jobs" --load 1 --seed 42 --out "$scratch/synth" > /dev/null
  log=$scratch/synth/jobs.csv
  point jobs fifo "$jobs" 552 2490 --mode replay --workload "$log" --policy fifo
  point jobs srtf "$jobs" 552 2490 --mode replay --workload "$log" --policy srtf
  point jobs kube-fifo "$jobs" 552 2490 --mode replay --workload "$log" --kube "$scratch/kube-failures.yaml" --policy fifo
  rm -rf "$scratch/synth"
done

for nodes in 100 1000 10000 12500; do
  make_nodes "$nodes" "$scratch/nodes.csv"
  load=$(awk -v n="$nodes" 'BEGIN { printf "%.6f", 8 * n / 2490 }')
  "$gpusim" trace synth --workload philly --cluster "$scratch/nodes.csv" --jobs 200000 --load "$load" --seed 42 --out "$scratch/synth" > /dev/null
  log=$scratch/synth/jobs.csv
  point nodes fifo 200000 "$nodes" $((8 * nodes)) --mode replay --cluster "$scratch/nodes.csv" --workload "$log" --policy fifo
  point nodes srtf 200000 "$nodes" $((8 * nodes)) --mode replay --cluster "$scratch/nodes.csv" --workload "$log" --policy srtf
  point nodes kube-fifo 200000 "$nodes" $((8 * nodes)) --mode replay --cluster "$scratch/nodes.csv" --workload "$log" --kube "$scratch/kube-failures.yaml" --policy fifo
  if [[ $nodes == 10000 ]]; then
    point goals kube-fifo-50000h 200000 "$nodes" $((8 * nodes)) --mode replay --cluster "$scratch/nodes.csv" --workload "$log" --kube "$scratch/kube-fleet.yaml" --policy fifo
  fi
  rm -rf "$scratch/synth"
done

for cut in "121 1" "0 1" "0 4" "0 8"; do
  read -r first times <<< "$cut"
  make_openb "$first" "$times" "$scratch/openb.csv"
  nodes=$(($(wc -l < "$scratch/openb.csv") - 1))
  gpus=$(awk -F, 'NR > 1 { g += $4 } END { print g }' "$scratch/openb.csv")
  point fill fgd 0 "$nodes" "$gpus" --mode fill --fill-target 1.3 --cluster "$scratch/openb.csv" --workload openb:default --policy fgd
done

make_nodes 12500 "$scratch/nodes.csv"
"$gpusim" trace synth --workload philly --cluster "$scratch/nodes.csv" --jobs 10000000 --load 40.160643 --seed 42 --out "$scratch/synth" > /dev/null
point goals fifo-100k-gpus 10000000 12500 100000 --mode replay --cluster "$scratch/nodes.csv" --workload "$scratch/synth/jobs.csv" --policy fifo
rm -rf "$scratch/synth"

# Least squares of log10(y) on log10(x) per series and variant: x is jobs (points of >= 10^4 jobs,
# below which start-up dominates) or nodes; y is wall time, then peak memory.
awk -F, 'NR > 1 && $1 != "goals" {
    x = ($1 == "jobs") ? $3 : $4
    if ($1 == "jobs" && x < 10000) next
    k = $1 SUBSEP $2; keys[k] = 1; n[k]++
    lx = log(x) / log(10); lt = log($7) / log(10); lm = log($9) / log(10)
    sx[k] += lx; sxx[k] += lx * lx; st[k] += lt; sxt[k] += lx * lt; sm[k] += lm; sxm[k] += lx * lm
  }
  END {
    print "series,variant,points,time_slope,memory_slope"
    for (k in keys) {
      split(k, p, SUBSEP); d = n[k] * sxx[k] - sx[k] * sx[k]
      printf "%s,%s,%d,%.2f,%.2f\n", p[1], p[2], n[k], (n[k] * sxt[k] - sx[k] * st[k]) / d, (n[k] * sxm[k] - sx[k] * sm[k]) / d
    }
  }' "$dir/scale.csv" | { read -r header; echo "$header"; sort; } > "$dir/slopes.csv"
cat "$dir/slopes.csv"

# Four log-log plots: time and memory against jobs, and against nodes (the fill series too).
for what in jobs nodes; do
  for metric in time memory; do
    col=$([[ $metric == time ]] && echo 7 || echo 9)
    xcol=$([[ $what == jobs ]] && echo 3 || echo 4)
    ylabel=$([[ $metric == time ]] && echo "wall time (s)" || echo "peak resident memory (MiB)")
    scale_y=$([[ $metric == time ]] && echo 1 || echo 1024)
    plots=()
    variants=(fifo srtf kube-fifo)
    [[ $what == nodes ]] && variants+=(fgd)
    for v in "${variants[@]}"; do
      series=$what
      [[ $v == fgd ]] && series=fill
      awk -F, -v s="$series" -v v="$v" -v x="$xcol" -v y="$col" -v d="$scale_y" \
        'NR > 1 && $1 == s && $2 == v { print $x, $y / d }' "$dir/scale.csv" > "$scratch/$what-$metric-$v.dat"
      slope=$(awk -F, -v s="$series" -v v="$v" -v m="$metric" '$1 == s && $2 == v { print (m == "time") ? $4 : $5 }' "$dir/slopes.csv")
      plots+=("'$scratch/$what-$metric-$v.dat' using 1:2 with linespoints title '$v (slope $slope)'")
    done
    xlabel=$([[ $what == jobs ]] && echo "jobs (Philly cluster, 2,490 GPUs)" || echo "nodes (8 GPUs each; fgd: openb nodes)")
    joined=$(IFS=,; echo "${plots[*]}")
    gnuplot -e "set terminal svg size 720,460 dynamic font 'sans,12'; set output '$dir/$metric-$what.svg';
      set logscale xy; set grid; set key top left; set xlabel '$xlabel'; set ylabel '$ylabel';
      set title '$metric against $what (2 cores, whole gpusim run commands)'; plot $joined"
  done
done
echo "wrote $dir/scale.csv, $dir/slopes.csv and four plots"
