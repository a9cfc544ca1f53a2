#!/usr/bin/env bash
# Pod-by-pod comparison of gpusim with a run of the FGD artifact's Go simulator (hkust-adsl/kubernetes-scheduler-
# simulator, `simon apply`) on the openb default trace: gpusim replays the Go run's own arrival order (its shuffle
# and its `-tuned-i` copies) on the node list in the Go run's tie-break order, and the placements are joined pod by pod.
#
#   bash scripts/fgd_compare.sh --log GO_LOG --node-names NODE_NAMES --policy POLICY --out DIR \
#        [--snapshot POD_SNAPSHOT_CSV] [--table TABLE_CSV] [--label LABEL] [--no-typical-pods]
#
#   GO_LOG        the Go run's log (stdout and stderr of `simon apply`, logrus Info level); a run still going is
#                 compared as far as it got
#   NODE_NAMES    the Go run's prefixed node names: its node-snapshot.csv, or one `NNNN-openb-node-XXXX` a line
#   POLICY        the gpusim policy the Go run used: random, dotprod, gpu-clustering, gpu-packing, bestfit, fgd
#   POD_SNAPSHOT  the Go run's pod-snapshot.csv (GPU ids; the log has none)
#   TABLE_CSV     a row per comparison is appended (header written if the file is new)
#   --no-typical-pods  FGD takes its typical pods from the replayed list (copies included) instead of the
#                 original trace, as the artifact does (the comparison's "before")
#
# The profile is the built-in POLICY's with `tieBreak: node-index` (the node list is in the Go run's order: ties go
# to the smallest prefixed name there). Writes DIR/input (pods.csv, nodes.csv, go.csv, profile.yaml), DIR/gpusim (the
# gpusim run), DIR/matches.csv (per arrival: same node, same node and GPUs) and prints the figures. Needs python3 (standard library only) and build/gpusim.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log= names= policy= out= snapshot= table= label= typical=1
while [ $# -gt 0 ]; do
  case "$1" in
    --log) log="$2"; shift 2 ;;
    --node-names) names="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --snapshot) snapshot="$2"; shift 2 ;;
    --table) table="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --no-typical-pods) typical=0; shift ;;
    *) echo "fgd_compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$log" ] || [ -z "$names" ] || [ -z "$policy" ] || [ -z "$out" ]; then
  sed -n '2,21p' "$0" >&2
  exit 2
fi
case "$policy" in
  random) score=random; gpus=random; reserve= ;;
  dotprod) score=dot-product; gpus=best; reserve= ;;
  gpu-clustering) score=gpu-clustering; gpus=best; reserve=gpu-clustering ;;
  gpu-packing) score=gpu-packing; gpus=best; reserve= ;;
  bestfit) score=best-fit; gpus=best; reserve= ;;
  fgd) score=fgd; gpus=fgd; reserve= ;;
  *) echo "fgd_compare.sh: --policy must be one of random, dotprod, gpu-clustering, gpu-packing, bestfit, fgd" >&2; exit 2 ;;
esac
gpusim="$root/build/gpusim"
[ -x "$gpusim" ] || { echo "fgd_compare.sh: build gpusim first ($gpusim)" >&2; exit 1; }

mkdir -p "$out/input"
python3 "$root/scripts/fgd_compare.py" prepare --log "$log" --node-names "$names" ${snapshot:+--snapshot "$snapshot"} \
  --trace "$root/traces/data/openb/openb_pod_list_default.csv" \
  --nodes "$root/traces/data/openb/openb_node_list_gpu_node.csv" --out "$out/input"
reserve_entry=${reserve:+"{name: $reserve}"}
cat > "$out/input/profile.yaml" <<EOF
# The built-in $policy profile, ties to the lowest node index (the node list is in the Go run's tie-break order).
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: $policy-as-go
  tieBreak: NodeIndex
  plugins:
    multiPoint: {disabled: [{name: '*'}]}
    queueSort: {enabled: [{name: PrioritySort}]}
    filter: {enabled: [{name: NodeResourcesFit}, {name: NodeAffinity}, {name: TaintToleration}]}
    score: {enabled: [{name: $score, weight: 1000}]}
    reserve: {enabled: [$reserve_entry]}
    bind: {enabled: [{name: DefaultBinder}]}
    gpuSelection: {enabled: [{name: $gpus}]}
EOF
extra=()
# The artifact computes FGD's typical pods once, from the 8152 pods of the trace (before shuffling and copies).
if [ "$policy" = fgd ] && [ "$typical" = 1 ]; then extra=(--typical-pods openb:default); fi
# The list stops where the Go run's tuning stopped, within 130% of the GPUs (the compare step refuses a list that
# gpusim cut short); the target also gives gpusim's headline gpu_allocation_pct, printed below.
"$gpusim" run --cluster "$out/input/nodes.csv" --workload "$out/input/pods.csv" --policy "$out/input/profile.yaml" \
  --mode fill --order as-listed --fill-target 1.3 --seed 42 "${extra[@]}" --out "$out/gpusim" > "$out/gpusim.txt"
grep gpu_allocation_pct "$out/gpusim.txt" || true
# The Go run's own figure (allocated milli-GPU at the end), when its log has it.
grep -o 'MilliGpu: [^\]*' "$log" | tail -1 || true
if [ -n "$table" ] && [ ! -s "$table" ]; then
  echo "comparison,pods,same_node,same_node_pct,same_node_and_gpus,same_node_and_gpus_pct,go_gpu_milli_allocated,gpusim_gpu_milli_allocated,first_node_difference" > "$table"
fi
python3 "$root/scripts/fgd_compare.py" compare --go "$out/input/go.csv" --gpusim "$out/gpusim/pods.csv" \
  --label "${label:-$policy}" ${table:+--csv-row "$table"} --matches "$out/matches.csv"
if [ "$policy" = fgd ] && [ -n "$snapshot" ]; then
  python3 "$root/scripts/fgd_compare.py" explain --input "$out/input" --gpusim "$out/gpusim/pods.csv" \
    --trace "$root/traces/data/openb/openb_pod_list_default.csv"
fi
