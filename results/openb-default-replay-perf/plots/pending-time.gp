set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set rmargin 5
set output 'pending-time.svg'
set title 'Pending pods over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'pending pods'
set key right top
set grid
set yrange [0:*]
set offsets 0, 0, graph 0.06, 0
plot "pending-time-random.dat" index 0 using 1:2 with steps lc rgb '#4477aa' lw 1.5 dt 1 notitle, "pending-time-random.dat" index 1 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, keyentry with linespoints lc rgb '#4477aa' lw 1.5 dt 1 pt 6 ps 0.9 title "random" noenhanced, "pending-time-dotprod.dat" index 0 using 1:2 with steps lc rgb '#ee6677' lw 1.5 dt 2 notitle, "pending-time-dotprod.dat" index 1 using 1:2 with points lc rgb '#ee6677' pt 4 ps 0.9 notitle, keyentry with linespoints lc rgb '#ee6677' lw 1.5 dt 2 pt 4 ps 0.9 title "dotprod" noenhanced, "pending-time-gpu-clustering.dat" index 0 using 1:2 with steps lc rgb '#228833' lw 1.5 dt 4 notitle, "pending-time-gpu-clustering.dat" index 1 using 1:2 with points lc rgb '#228833' pt 8 ps 0.9 notitle, keyentry with linespoints lc rgb '#228833' lw 1.5 dt 4 pt 8 ps 0.9 title "gpu-clustering" noenhanced, "pending-time-gpu-packing.dat" index 0 using 1:2 with steps lc rgb '#ccbb44' lw 1.5 dt 5 notitle, "pending-time-gpu-packing.dat" index 1 using 1:2 with points lc rgb '#ccbb44' pt 12 ps 0.9 notitle, keyentry with linespoints lc rgb '#ccbb44' lw 1.5 dt 5 pt 12 ps 0.9 title "gpu-packing" noenhanced, "pending-time-bestfit.dat" index 0 using 1:2 with steps lc rgb '#66ccee' lw 1.5 dt 3 notitle, "pending-time-bestfit.dat" index 1 using 1:2 with points lc rgb '#66ccee' pt 10 ps 0.9 notitle, keyentry with linespoints lc rgb '#66ccee' lw 1.5 dt 3 pt 10 ps 0.9 title "bestfit" noenhanced, "pending-time-fgd.dat" index 0 using 1:2 with steps lc rgb '#aa3377' lw 1.5 dt 1 notitle, "pending-time-fgd.dat" index 1 using 1:2 with points lc rgb '#aa3377' pt 2 ps 0.9 notitle, keyentry with linespoints lc rgb '#aa3377' lw 1.5 dt 1 pt 2 ps 0.9 title "fgd" noenhanced
