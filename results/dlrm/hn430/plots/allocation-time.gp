set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'allocation-time.svg'
set title 'GPUs allocated over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'GPUs allocated'
set key right top
set grid
set yrange [0:*]
plot "allocation-time-kube-default.dat" using 1:2 with steps lw 1.5 lc 1 title "kube-default" noenhanced, "allocation-time-binpack.dat" using 1:2 with steps lw 1.5 lc 2 title "binpack" noenhanced, "allocation-time-bestfit.dat" using 1:2 with steps lw 1.5 lc 3 title "bestfit" noenhanced, "allocation-time-fgd.dat" using 1:2 with steps lw 1.5 lc 4 title "fgd" noenhanced
