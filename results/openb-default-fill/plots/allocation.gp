set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'allocation.svg'
set title 'GPU allocation against arrived GPU requests (band: min-max over seeds)'
set xlabel 'arrived GPU requests (% of cluster GPU capacity)'
set ylabel 'GPUs allocated (%)'
set key left top
set grid
set xrange [0:130]
set yrange [0:100]
set arrow from 130,0 to 130,100 nohead dt 2
plot "allocation-random.dat" using 1:3:4 with filledcurves lc 1 fs transparent solid 0.18 notitle, "allocation-random.dat" using 1:2 with lines lw 2 lc 1 title "random" noenhanced, "allocation-dotprod.dat" using 1:3:4 with filledcurves lc 2 fs transparent solid 0.18 notitle, "allocation-dotprod.dat" using 1:2 with lines lw 2 lc 2 title "dotprod" noenhanced, "allocation-gpu-clustering.dat" using 1:3:4 with filledcurves lc 3 fs transparent solid 0.18 notitle, "allocation-gpu-clustering.dat" using 1:2 with lines lw 2 lc 3 title "gpu-clustering" noenhanced, "allocation-gpu-packing.dat" using 1:3:4 with filledcurves lc 4 fs transparent solid 0.18 notitle, "allocation-gpu-packing.dat" using 1:2 with lines lw 2 lc 4 title "gpu-packing" noenhanced, "allocation-bestfit.dat" using 1:3:4 with filledcurves lc 5 fs transparent solid 0.18 notitle, "allocation-bestfit.dat" using 1:2 with lines lw 2 lc 5 title "bestfit" noenhanced, "allocation-fgd.dat" using 1:3:4 with filledcurves lc 6 fs transparent solid 0.18 notitle, "allocation-fgd.dat" using 1:2 with lines lw 2 lc 6 title "fgd" noenhanced
