set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'allocation-time.svg'
set title 'GPUs allocated over time (first seed)'
set xlabel 'simulated time (hours)'
set ylabel 'GPUs allocated'
set key right top
set grid
set yrange [0:*]
plot "allocation-time-binpack.dat" using 1:2 with steps lw 1.5 lc 1 title "binpack" noenhanced
