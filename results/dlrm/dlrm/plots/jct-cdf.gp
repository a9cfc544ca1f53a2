set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set rmargin 5
set output 'jct-cdf.svg'
set title 'Job completion time CDF (completed pods, all seeds)'
set xlabel 'completion - arrival (log scale)'
set ylabel 'fraction of pods'
set key right bottom
set grid
set yrange [0:1]
set offsets 0, graph 0.03, 0, 0
set logscale x
set xtics ("1 ms" 0.001, "10 ms" 0.01, "0.1 s" 0.1, "1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, "1 d" 86400, "10 d" 864000, "100 d" 8.64e+06, "1000 d" 8.64e+07)
plot "jct-cdf-kube-default.dat" index 0 using 1:2 with steps lc rgb '#4477aa' lw 2 dt 1 notitle, "jct-cdf-kube-default.dat" every 50::0 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, keyentry with linespoints lc rgb '#4477aa' lw 2 dt 1 pt 6 ps 0.9 title "kube-default" noenhanced, "jct-cdf-binpack.dat" index 0 using 1:2 with steps lc rgb '#ee6677' lw 2 dt 2 notitle, "jct-cdf-binpack.dat" every 50::12 using 1:2 with points lc rgb '#ee6677' pt 4 ps 0.9 notitle, keyentry with linespoints lc rgb '#ee6677' lw 2 dt 2 pt 4 ps 0.9 title "binpack" noenhanced, "jct-cdf-bestfit.dat" index 0 using 1:2 with steps lc rgb '#228833' lw 2 dt 4 notitle, "jct-cdf-bestfit.dat" every 50::25 using 1:2 with points lc rgb '#228833' pt 8 ps 0.9 notitle, keyentry with linespoints lc rgb '#228833' lw 2 dt 4 pt 8 ps 0.9 title "bestfit" noenhanced, "jct-cdf-fgd.dat" index 0 using 1:2 with steps lc rgb '#ccbb44' lw 2 dt 5 notitle, "jct-cdf-fgd.dat" every 50::37 using 1:2 with points lc rgb '#ccbb44' pt 12 ps 0.9 notitle, keyentry with linespoints lc rgb '#ccbb44' lw 2 dt 5 pt 12 ps 0.9 title "fgd" noenhanced
