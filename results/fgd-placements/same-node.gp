# bash scripts/fgd_placements.sh: share of the arrivals so far that gpusim puts on the Go simulator's node
set terminal svg size 900,520 dynamic font 'sans,12'
set output 'same-node.svg'
set title 'gpusim vs the FGD artifact, openb default, seed 42: arrivals so far on the same node'
set xlabel 'arrival'
set ylabel 'same node (%)'
set yrange [0:105]
set key bottom left
set grid
plot 'same-node.dat' using 1:2 with lines lw 2 title 'Random', \
     'same-node.dat' using 1:4 with lines lw 2 title 'DotProd', \
     'same-node.dat' using 1:6 with lines lw 2 title 'GpuClustering', \
     'same-node.dat' using 1:8 with lines lw 2 title 'GpuPacking', \
     'same-node.dat' using 1:10 with lines lw 2 title 'BestFit', \
     'same-node.dat' using 1:12 with lines lw 2 title 'FGD, typical pods from the list', \
     'same-node.dat' using 1:14 with lines lw 2 title 'FGD, typical pods from the trace'
