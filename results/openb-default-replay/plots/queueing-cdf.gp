set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'queueing-cdf.svg'
set title 'Queueing delay CDF (completed pods, all seeds)'
set xlabel 'start - arrival (minutes)'
set ylabel 'fraction of pods'
set key right bottom
set grid
set yrange [0:1]
plot "queueing-cdf-random.dat" using 1:2 with steps lw 2 lc 1 title "random" noenhanced, "queueing-cdf-dotprod.dat" using 1:2 with steps lw 2 lc 2 title "dotprod" noenhanced, "queueing-cdf-gpu-clustering.dat" using 1:2 with steps lw 2 lc 3 title "gpu-clustering" noenhanced, "queueing-cdf-gpu-packing.dat" using 1:2 with steps lw 2 lc 4 title "gpu-packing" noenhanced, "queueing-cdf-bestfit.dat" using 1:2 with steps lw 2 lc 5 title "bestfit" noenhanced, "queueing-cdf-fgd.dat" using 1:2 with steps lw 2 lc 6 title "fgd" noenhanced
