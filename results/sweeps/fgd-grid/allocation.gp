# GPU allocation at 130% arrived load, per openb variant and policy (groups.csv: mean over 10 seeds,
# bars ± std). Drawn by `gnuplot allocation.gp` in this folder (scripts/sweep_fgd_grid.sh).
set terminal svg size 1200,520 dynamic font 'sans,12' background '#ffffff'
set output 'allocation.svg'
load '../../../scripts/bar_chart.gp'
set style histogram errorbars gap 1 lw 1
set yrange [80:100]
set offsets 0, 0, 0, 0
set ylabel 'GPUs allocated at 130% arrived load (%)'
set key outside right top noenhanced
set xrange [-0.6:16.6]
plot for [i=0:5] 'allocation.dat' using (column(2+2*i)):(column(3+2*i)):xtic(1) \
  title word("random dotprod gpu-clustering gpu-packing bestfit fgd", i+1)
