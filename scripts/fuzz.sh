#!/usr/bin/env bash
# libFuzzer runs of every reader's fuzz target (tests/fuzz/), built with clang-14, ASan + UBSan.
#   bash scripts/fuzz.sh smoke [SECONDS]   each target for SECONDS (default 20): what CI runs
#   bash scripts/fuzz.sh campaign [RUNS]   each target for RUNS executions (default 10^7), one after
#                                          another; figures go to results/fuzz/campaign.md
# FUZZ_TARGETS="a b" limits either to some targets (e.g. to run two campaigns side by side; the
# table is assembled from every target's last campaign row in build-fuzz/).
# FUZZ_BUILD=DIR fuzzes in a build already configured with -DGPUSIM_FUZZ=ON (scripts/test.sh's
# sanitizer build, which also runs the suite) instead of configuring build-fuzz/.
# A crash makes the script exit 1 once the targets running beside it finish, and leaves the input in
# build-fuzz/crashes/<target>/ (or FUZZ_BUILD's): add it
# to tests/fuzz/regressions/<target>/ with the fix, where every build replays it as a test.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-smoke}
all_targets=(openb_nodes openb_pods profile_yaml gpu_catalog calibration_json k8s_manifests kube_settings philly_jobs gavel_table
  native_trace dlrm_instances kube_scheduler_config device_plugin_config hami_values mig_parted_config vgpu_dm_config vmi_reader volcano_conf
  volcano_queues kueue_objects kai_queues sweep_file)
read -r -a targets <<< "${FUZZ_TARGETS:-${all_targets[*]}}"

bash scripts/setup.sh
build=${FUZZ_BUILD:-build-fuzz}
if [[ -z ${FUZZ_BUILD:-} ]]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIM_FUZZ=ON \
    -DGPUSIM_BUILD_TESTS=OFF -DGPUSIM_BUILD_BENCH=OFF -DGPUSIM_WITH_CUDA=OFF > /dev/null
elif ! grep -qiE '^GPUSIM_FUZZ:BOOL=(ON|1|TRUE|YES|Y)$' "$build/CMakeCache.txt" 2> /dev/null; then
  echo "fuzz: FUZZ_BUILD=$build is not a build configured with -DGPUSIM_FUZZ=ON" >&2
  exit 2
fi
# Only the targets this run fuzzes (a campaign on another target may be running its binary).
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"

case $mode in
  smoke) limit=(-max_total_time="${2:-20}" -timeout=10) ;;
  # libFuzzer's per-input alarm measures wall time: a campaign sharing its core with builds (or
  # niced) must not read a starved input as a hang, so it allows 120 s.
  campaign) limit=(-runs="${2:-10000000}" -timeout=120) ;;
  *) echo "usage: scripts/fuzz.sh smoke [SECONDS] | campaign [RUNS]" >&2; exit 2 ;;
esac

fuzz_one() {
  local target=$1
  work=$build/corpus/$target
  crashes=$build/crashes/$target
  mkdir -p "$work" "$crashes"
  log=$build/$target.log
  # Profiles are small files; the profile target also builds a framework per input, so longer
  # inputs (yaml-cpp under ASan) cut its speed from ~8,000 to ~1,000 runs a second.
  # The two YAML readers' seeds are at most 1.3 KB; 2 KB inputs keep them at about twice the
  # speed of 8 KB ones.
  max_len=8192
  [[ $target == profile_yaml || $target == kube_scheduler_config ]] && max_len=1024
  [[ $target == k8s_manifests || $target == kube_settings || $target == device_plugin_config || $target == hami_values ||
        $target == mig_parted_config || $target == vgpu_dm_config || $target == vmi_reader || $target == volcano_* || $target == kueue_objects || $target == kai_queues || $target == sweep_file ]] && max_len=2048
  start=$(date +%s)
  # Seeds and kept crash inputs; git keeps no empty folder, so only those that exist.
  seeds=()
  for d in "tests/fuzz/corpus/$target" "tests/fuzz/regressions/$target"; do [[ -d $d ]] && seeds+=("$d"); done
  # The working corpus grows in $build/; the committed seeds and kept crash inputs seed it.
  if ! $build/tests/fuzz/fuzz_"$target" "${limit[@]}" -max_len="$max_len" -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "${seeds[@]}" > "$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $target crashed; input kept in $crashes/" >&2
    return 1
  fi
  seconds=$(( $(date +%s) - start ))
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(grep -aoE 'corp: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)  # libFuzzer's reduced corpus
  echo "fuzz: $target: $runs runs in $seconds s, coverage $cov edges, corpus $corpus, no crash"
  if [[ $mode == campaign ]]; then
    echo "| \`$target\` | $runs | $seconds | $(( runs / (seconds > 0 ? seconds : 1) )) | $cov | $corpus | 0 |" > "$build/$target.campaign-row"
  fi
}

# Smoke runs are time-bound: as many targets at once as there are cores (CI's 2 cores halve the
# wall time). Campaigns run one after another, each alone on its core.
parallel=1
[[ $mode == smoke ]] && parallel=$(nproc)
running=0
failed=0
for target in "${targets[@]}"; do
  if (( running >= parallel )); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while (( running > 0 )); do
  wait -n || failed=1
  running=$((running - 1))
done
(( failed == 0 )) || exit 1

if [[ $mode == campaign ]]; then
  mkdir -p results/fuzz
  {
    echo "# Fuzzing campaign"
    echo
    echo "\`bash scripts/fuzz.sh campaign ${2:-10000000}\` on $(date -u +%Y-%m-%d): libFuzzer (clang $(clang++-14 -dumpversion)),"
    echo "ASan + UBSan, each target on one core of $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
    echo "Seeds: \`tests/fuzz/corpus/\`; crash inputs kept as tests: \`tests/fuzz/regressions/\`."
    echo
    echo "| target | executions | seconds | exec/s | coverage (edges) | corpus (inputs) | open crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for target in "${all_targets[@]}"; do
      cat "$build/$target.campaign-row" 2>/dev/null || echo "| \`$target\` | not run | | | | | |"
    done
  } > results/fuzz/campaign.md
  echo "fuzz: campaign figures in results/fuzz/campaign.md"
fi
