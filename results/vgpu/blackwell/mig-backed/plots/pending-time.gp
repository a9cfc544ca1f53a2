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
plot "pending-time-binpack.dat" index 0 using 1:2 with steps lc rgb '#4477aa' lw 1.5 dt 1 notitle, "pending-time-binpack.dat" index 1 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, keyentry with linespoints lc rgb '#4477aa' lw 1.5 dt 1 pt 6 ps 0.9 title "binpack" noenhanced
