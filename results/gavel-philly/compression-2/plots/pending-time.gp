set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'pending-time.svg'
set title 'Pending pods over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'pending pods'
set key right top
set grid
set yrange [0:*]
plot "pending-time-fifo.dat" using 1:2 with steps lw 1.5 lc 1 title "fifo" noenhanced, "pending-time-maxmin.dat" using 1:2 with steps lw 1.5 lc 2 title "maxmin" noenhanced, "pending-time-gavel-maxmin.dat" using 1:2 with steps lw 1.5 lc 3 title "gavel-maxmin" noenhanced, "pending-time-ftf.dat" using 1:2 with steps lw 1.5 lc 4 title "ftf" noenhanced, "pending-time-gavel-ftf.dat" using 1:2 with steps lw 1.5 lc 5 title "gavel-ftf" noenhanced, "pending-time-themis.dat" using 1:2 with steps lw 1.5 lc 6 title "themis" noenhanced
