#!/usr/bin/env bash
# results/fgd-placements/: gpusim against the FGD artifact's Go simulator, pod by pod, for the six policies of the
# FGD paper on the openb default trace (seed 42, 130%), from the Go runs' logs and snapshots:
#
#   bash scripts/fgd_placements.sh GO_DIR [OUT_DIR]
#   bash scripts/fgd_placements.sh plots [OUT_DIR]     (redraws same-node.svg from its same-node.dat alone)
#
# GO_DIR holds, for each policy P in random dotprod gpuclustering gpupacking bestfit fgd, the Go run's log
# run-P.log and its snapshot folder snap-P/ (pod-snapshot.csv, node-snapshot.csv: <EXPDIR>/snapshot/ds01/InitSchedule
# of the run); and, if present, run-random2.log, a second Go run of Random with the same seed, compared with the
# first (go-vs-go.txt: whether the Go simulator itself repeats its Random placements).
# results/fgd-placements/README.md says how the Go runs were made. OUT_DIR (default
# results/fgd-placements) gets table.csv, same-node.dat and same-node.svg (+ .gp); the per-run files stay in a
# scratch folder. FGD is compared twice: with its typical pods from the trace (--typical-pods openb:default, as the
# artifact) and from the replayed list, copies included (gpusim's default for a workload given as-listed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# same-node.gp and .svg in $1 from its same-node.dat, one line per label (the arguments after $1).
draw_same_node() {
  local out=$1
  shift
  local labels=("$@")
  local columns=$(( ${#labels[@]} ))
  # Several policies place alike and their lines coincide (at 100 %): each has its own colour (Paul Tol's
  # "bright", its light grey replaced by black), dash type and point marks, the marks of one a little after
  # those of the one before.
  colours=("#4477aa" "#ee6677" "#228833" "#ccbb44" "#66ccee" "#aa3377" "#000000" "#777777")
  dashes=(1 2 4 5 3)
  points=(6 4 8 12 10 2 3 14)
  rows=$(grep -vc '^#' "$out/same-node.dat")
  every=$(( rows / 8 > 0 ? rows / 8 : 1 ))
  {
    echo "# bash scripts/fgd_placements.sh: share of the arrivals so far that gpusim puts on the Go simulator's node"
    echo "set terminal svg size 900,520 dynamic font 'sans,12'"
    echo "set output 'same-node.svg'"
    echo "set title 'gpusim vs the FGD artifact, openb default, seed 42: arrivals so far on the same node'"
    echo "set xlabel 'arrival'"
    echo "set ylabel 'same node (%)'"
    echo "set yrange [0:105]"
    echo "set key bottom left"
    echo "set grid"
    printf "plot "
    for ((k = 0; k < columns; k++)); do
      [ "$k" -gt 0 ] && printf ", \\\\\n     "
      colour=${colours[k % 8]} dash=${dashes[k % 5]} point=${points[k % 8]}
      printf "'same-node.dat' using 1:%d with lines lw 2 lc rgb '%s' dt %d notitle, \\\\\n     " $((2 + 2 * k)) "$colour" "$dash"
      printf "'same-node.dat' using 1:%d every %d::%d with points lc rgb '%s' pt %d notitle, \\\\\n     " \
        $((2 + 2 * k)) "$every" $((k * every / columns)) "$colour" "$point"
      printf "keyentry with linespoints lw 2 lc rgb '%s' dt %d pt %d title '%s'" "$colour" "$dash" "$point" "${labels[$k]}"
    done
    echo
  } > "$out/same-node.gp"
  (cd "$out" && gnuplot same-node.gp)
}

# `fgd_placements.sh plots [OUT_DIR]`: redraw the plot from OUT_DIR's same-node.dat alone (its header names the lines).
if [ "${1:-}" = plots ]; then
  out="${2:-$root/results/fgd-placements}"
  mapfile -t labels < <(python3 -c 'import shlex, sys
header = open(sys.argv[1]).readline().lstrip("#")
print("\n".join(name[:-len(" node")] for name in shlex.split(header)[1:] if name.endswith(" node")))' "$out/same-node.dat")
  draw_same_node "$out" "${labels[@]}"
  echo "wrote $out/same-node.svg"
  exit 0
fi
go_dir="${1:?usage: fgd_placements.sh GO_DIR [OUT_DIR]}"
out="${2:-$root/results/fgd-placements}"
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

table="$out/table.csv"
rm -f "$table"
matches=() labels=()
# go name | gpusim policy | label
for spec in "random|random|Random" "dotprod|dotprod|DotProd" "gpuclustering|gpu-clustering|GpuClustering" \
            "gpupacking|gpu-packing|GpuPacking" "bestfit|bestfit|BestFit" "fgd|fgd|FGD"; do
  IFS='|' read -r go policy label <<< "$spec"
  log="$go_dir/run-$go.log" snap="$go_dir/snap-$go"
  if [ ! -f "$log" ] || [ ! -f "$snap/pod-snapshot.csv" ]; then
    echo "fgd_placements.sh: $log or $snap/pod-snapshot.csv missing: $label skipped" >&2
    continue
  fi
  args=(--log "$log" --node-names "$snap/node-snapshot.csv" --snapshot "$snap/pod-snapshot.csv" --policy "$policy"
        --table "$table")
  if [ "$policy" = fgd ]; then
    bash "$root/scripts/fgd_compare.sh" "${args[@]}" --out "$scratch/$go-list" --no-typical-pods \
      --label "FGD, typical pods from the replayed list"
    matches+=("$scratch/$go-list/matches.csv") labels+=("FGD, typical pods from the list")
    label="FGD, typical pods from the trace"
  fi
  bash "$root/scripts/fgd_compare.sh" "${args[@]}" --out "$scratch/$go" --label "$label"
  matches+=("$scratch/$go/matches.csv") labels+=("$label")
done

if [ -f "$go_dir/run-random2.log" ]; then
  python3 "$root/scripts/fgd_compare.py" go-vs-go --log "$go_dir/run-random.log" --log "$go_dir/run-random2.log" \
    > "$out/go-vs-go.txt"
  cat "$out/go-vs-go.txt"
fi

python3 "$root/scripts/fgd_compare.py" curves --matches "${matches[@]}" --labels "${labels[@]}" --every 10 \
  --out "$out/same-node.dat"
draw_same_node "$out" "${labels[@]}"
echo "wrote $table, $out/same-node.dat, $out/same-node.svg"
