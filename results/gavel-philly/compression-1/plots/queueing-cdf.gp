set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'queueing-cdf.svg'
set title 'Queueing delay CDF (completed jobs, all seeds)'
set xlabel 'start - arrival (hours)'
set ylabel 'fraction of jobs'
set key right bottom
set grid
set yrange [0:1]
plot "queueing-cdf-fifo.dat" using 1:2 with steps lw 2 lc 1 title "fifo" noenhanced, "queueing-cdf-maxmin.dat" using 1:2 with steps lw 2 lc 2 title "maxmin" noenhanced, "queueing-cdf-gavel-maxmin.dat" using 1:2 with steps lw 2 lc 3 title "gavel-maxmin" noenhanced, "queueing-cdf-ftf.dat" using 1:2 with steps lw 2 lc 4 title "ftf" noenhanced, "queueing-cdf-gavel-ftf.dat" using 1:2 with steps lw 2 lc 5 title "gavel-ftf" noenhanced, "queueing-cdf-themis.dat" using 1:2 with steps lw 2 lc 6 title "themis" noenhanced
