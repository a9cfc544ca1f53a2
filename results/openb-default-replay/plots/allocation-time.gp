set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'allocation-time.svg'
set title 'GPUs allocated over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'GPUs allocated'
set key right top
set grid
set yrange [0:*]
plot "allocation-time-random.dat" using 1:2 with steps lw 1.5 lc 1 title "random" noenhanced, "allocation-time-dotprod.dat" using 1:2 with steps lw 1.5 lc 2 title "dotprod" noenhanced, "allocation-time-gpu-clustering.dat" using 1:2 with steps lw 1.5 lc 3 title "gpu-clustering" noenhanced, "allocation-time-gpu-packing.dat" using 1:2 with steps lw 1.5 lc 4 title "gpu-packing" noenhanced, "allocation-time-bestfit.dat" using 1:2 with steps lw 1.5 lc 5 title "bestfit" noenhanced, "allocation-time-fgd.dat" using 1:2 with steps lw 1.5 lc 6 title "fgd" noenhanced
