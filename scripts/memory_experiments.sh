#!/usr/bin/env bash
# Peak memory of a replay against the size of its trace and against the jobs in flight
# (results/perf/memory/README.md). Two series, each run by `gpusim run ... --policy fifo` under
# /usr/bin/time, outputs included:
#   scaling.csv   synthetic logs fitted to Philly (`gpusim trace synth`) of 50,000 to 800,000 jobs at
#                 the log's own arrival rate: the trace grows, the jobs in flight do not;
#   in-flight.csv the Philly log itself at arrivals / 1 to / 16: the trace is the same, the jobs
#                 in flight grow 56-fold.
# Writes both CSVs, a least-squares line of peak memory on jobs, and memory.svg (gnuplot).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh > /dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --parallel "$(nproc)" --target gpusim > /dev/null

dir=results/perf/memory
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$dir"

# Prints "wall_s peak_kib max_in_flight max_pending pod_rows" for one run (arguments: gpusim run's).
measure() {
  /usr/bin/time -f "%e %M" -o "$scratch/time" ./build/gpusim run "$@" --mode replay --policy fifo --out "$scratch/run" > /dev/null 2>&1
  read -r wall peak < "$scratch/time"
  # timeseries.csv: time_s,arrived_gpu_milli,allocated_gpu_milli,gpus_in_use,running_pods,pending_pods
  awk -F, -v wall="$wall" -v peak="$peak" -v rows="$(($(wc -l < "$scratch/run/pods.csv") - 1))" '
    BEGIN { mf = 0; mp = 0 }
    NR > 1 { f = $5 + $6; if (f > mf) mf = f; if ($6 > mp) mp = $6 }
    END { print wall, peak, mf, mp, rows }' "$scratch/run/timeseries.csv"
  rm -rf "$scratch/run"
}

echo "jobs,wall_s,peak_kib,max_pods_in_flight,max_pods_pending,pod_rows" > "$dir/scaling.csv"
for jobs in 50000 100000 200000 400000 800000; do
  ./build/gpusim trace synth --workload philly --jobs "$jobs" --load 1 --seed 1 --out "$scratch/synth" > /dev/null
  read -r wall peak inflight pending rows <<< "$(measure --workload "$scratch/synth/jobs.csv")"
  echo "$jobs,$wall,$peak,$inflight,$pending,$rows" | tee -a "$dir/scaling.csv"
  rm -rf "$scratch/synth"
done

echo "time_compression,wall_s,peak_kib,max_pods_in_flight,max_pods_pending,pod_rows" > "$dir/in-flight.csv"
for k in 1 2 4 8 16; do
  read -r wall peak inflight pending rows <<< "$(measure --workload philly --time-compression "$k")"
  echo "$k,$wall,$peak,$inflight,$pending,$rows" | tee -a "$dir/in-flight.csv"
done

# Least squares: peak KiB = a + b * jobs.
awk -F, 'NR > 1 { n++; sx += $1; sy += $3; sxx += $1 * $1; sxy += $1 * $3 }
  END { b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n;
        printf "fit: peak = %.1f MiB + %.0f bytes per job\n", a / 1024, b * 1024 }' "$dir/scaling.csv" | tee "$dir/fit.txt"

gnuplot <<EOF
set terminal svg size 900,420 font 'sans,11' background '#ffffff'
set output '$dir/memory.svg'
set datafile separator ','
set multiplot layout 1,2
set title 'Trace size (synthetic Philly, load 1)'
set yrange [0:*]
set xlabel 'jobs in the trace (thousands)'
set ylabel 'peak resident memory (MiB)'
set grid
set key left top
plot '$dir/scaling.csv' every ::1 using (\$1/1000):(\$3/1024) with linespoints lw 2 pt 7 title 'fifo, outputs included' noenhanced
set title 'Pods in flight (Philly log, 82,247 jobs)'
set xlabel 'most pods in flight at once (running + pending)'
set logscale x
# Its points lie near the top: the key goes below them.
set key right bottom
plot '$dir/in-flight.csv' every ::1 using 4:(\$3/1024) with linespoints lw 2 pt 7 title 'arrivals / 1, 2, 4, 8, 16' noenhanced
unset multiplot
EOF
echo "wrote $dir/scaling.csv, $dir/in-flight.csv, $dir/fit.txt, $dir/memory.svg"
