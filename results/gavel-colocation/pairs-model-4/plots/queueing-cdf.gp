set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'queueing-cdf.svg'
set title 'Queueing delay CDF (completed jobs, all seeds)'
set xlabel 'start - arrival (minutes)'
set ylabel 'fraction of jobs'
set key right bottom
set grid
set yrange [0:1]
plot "queueing-cdf-fifo.dat" using 1:2 with steps lw 2 lc 1 title "fifo" noenhanced, "queueing-cdf-sjf.dat" using 1:2 with steps lw 2 lc 2 title "sjf" noenhanced
