# Plots of scripts/queueing_systems_experiments.sh (gnuplot -e "dir='...'" this file): per virtual
# cluster, the mean queueing time under each system and the hours starved under Kueue and KAI; over
# time, the queues starved and the GPUs the queues hold under each.
set terminal svg size 1100,520 dynamic font "sans,11"
set datafile separator " "
set key top left

set output dir."/queueing-by-queue.svg"
set title "Philly 8x: mean queueing time per virtual cluster"
set ylabel "mean queueing (h)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -45
plot for [i=2:7] dir."/queues.dat" using i:xtic(1) title columnheader(i)

set output dir."/starved-by-queue.svg"
set title "Philly 8x: hours each virtual cluster was starved (waiting while under what it deserves; KAI: its fair share)"
set ylabel "hours starved"
plot for [i=2:5] dir."/starved.dat" using i:xtic(1) title columnheader(i)

set output dir."/starved-over-time.svg"
set title "Philly 8x: queues starved, every 6 simulated hours"
set style data lines
set xtics norotate
set xlabel "simulated hour"
set ylabel "queues starved"
plot dir."/over-time.dat" using 1:2 title "kueue", "" using 1:4 title "kueue-fair-sharing", \
     "" using 1:6 title "kueue-borrowing-limits", "" using 1:8 title "kai"

set output dir."/held-over-time.svg"
set title "Philly 8x: GPUs the queues hold (Kueue: quota reserved by admitted workloads; KAI: allocated), every 6 simulated hours"
set ylabel "GPUs held"
plot dir."/over-time.dat" using 1:3 title "kueue", "" using 1:5 title "kueue-fair-sharing", \
     "" using 1:7 title "kueue-borrowing-limits", "" using 1:9 title "kai"
