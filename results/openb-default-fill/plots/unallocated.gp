set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set rmargin 5
set output 'unallocated.svg'
set title 'Unallocated GPUs at the fill target (error bars: std over seeds)'
set ylabel 'unallocated GPUs'
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xrange [-0.6:5.6]
unset key
set xtics noenhanced
plot 'unallocated.dat' using 1:3:4:xtic(2) with boxerrorbars lc rgb '#000000' fillcolor rgb '#4477aa' title 'unallocated GPUs'
