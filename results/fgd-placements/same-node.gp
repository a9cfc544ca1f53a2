# bash scripts/fgd_placements.sh: share of the arrivals so far that gpusim puts on the Go simulator's node
set terminal svg size 900,520 dynamic font 'sans,12'
set output 'same-node.svg'
set title 'gpusim vs the FGD artifact, openb default, seed 42: arrivals so far on the same node'
set xlabel 'arrival'
set ylabel 'same node (%)'
set yrange [0:105]
set key bottom left
set grid
plot 'same-node.dat' using 1:2 with lines lw 2 lc rgb '#4477aa' dt 1 notitle, \
     'same-node.dat' using 1:2 every 135::0 with points lc rgb '#4477aa' pt 6 notitle, \
     keyentry with linespoints lw 2 lc rgb '#4477aa' dt 1 pt 6 title 'Random', \
     'same-node.dat' using 1:4 with lines lw 2 lc rgb '#ee6677' dt 2 notitle, \
     'same-node.dat' using 1:4 every 135::19 with points lc rgb '#ee6677' pt 4 notitle, \
     keyentry with linespoints lw 2 lc rgb '#ee6677' dt 2 pt 4 title 'DotProd', \
     'same-node.dat' using 1:6 with lines lw 2 lc rgb '#228833' dt 4 notitle, \
     'same-node.dat' using 1:6 every 135::38 with points lc rgb '#228833' pt 8 notitle, \
     keyentry with linespoints lw 2 lc rgb '#228833' dt 4 pt 8 title 'GpuClustering', \
     'same-node.dat' using 1:8 with lines lw 2 lc rgb '#ccbb44' dt 5 notitle, \
     'same-node.dat' using 1:8 every 135::57 with points lc rgb '#ccbb44' pt 12 notitle, \
     keyentry with linespoints lw 2 lc rgb '#ccbb44' dt 5 pt 12 title 'GpuPacking', \
     'same-node.dat' using 1:10 with lines lw 2 lc rgb '#66ccee' dt 3 notitle, \
     'same-node.dat' using 1:10 every 135::77 with points lc rgb '#66ccee' pt 10 notitle, \
     keyentry with linespoints lw 2 lc rgb '#66ccee' dt 3 pt 10 title 'BestFit', \
     'same-node.dat' using 1:12 with lines lw 2 lc rgb '#aa3377' dt 1 notitle, \
     'same-node.dat' using 1:12 every 135::96 with points lc rgb '#aa3377' pt 2 notitle, \
     keyentry with linespoints lw 2 lc rgb '#aa3377' dt 1 pt 2 title 'FGD, typical pods from the list', \
     'same-node.dat' using 1:14 with lines lw 2 lc rgb '#000000' dt 2 notitle, \
     'same-node.dat' using 1:14 every 135::115 with points lc rgb '#000000' pt 3 notitle, \
     keyentry with linespoints lw 2 lc rgb '#000000' dt 2 pt 3 title 'FGD, typical pods from the trace'
