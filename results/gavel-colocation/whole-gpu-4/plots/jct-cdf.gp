set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'jct-cdf.svg'
set title 'Job completion time CDF (completed jobs, all seeds)'
set xlabel 'completion - arrival (days)'
set ylabel 'fraction of jobs'
set key right bottom
set grid
set yrange [0:1]
set logscale x
plot "jct-cdf-fifo.dat" using 1:2 with steps lw 2 lc 1 title "fifo" noenhanced, "jct-cdf-sjf.dat" using 1:2 with steps lw 2 lc 2 title "sjf" noenhanced
