set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set rmargin 5
set output 'queueing-cdf.svg'
set title 'Queueing delay CDF (completed pods, all seeds)'
set xlabel 'start - arrival (log scale)'
set ylabel 'fraction of pods'
set key right bottom
set grid
set yrange [0:1]
set offsets 0, graph 0.03, 0, 0
set logscale x
set xtics ("1 ms" 0.001, "10 ms" 0.01, "0.1 s" 0.1, "1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, "1 d" 86400, "10 d" 864000, "100 d" 8.64e+06, "1000 d" 8.64e+07)
plot "queueing-cdf-binpack.dat" index 0 using 1:2 with steps lc rgb '#4477aa' lw 2 dt 1 notitle, "queueing-cdf-binpack.dat" every 50::0 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, keyentry with linespoints lc rgb '#4477aa' lw 2 dt 1 pt 6 ps 0.9 title "binpack" noenhanced
