set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set rmargin 5
set output 'allocation.svg'
set multiplot
set title 'GPU allocation against arrived GPU requests (band: min-max over seeds)'
set xlabel 'arrived GPU requests (% of cluster GPU capacity)'
set ylabel 'GPUs allocated (%)'
set key left top
set grid
set xrange [0:130]
set yrange [0:100]
set arrow 1 from 130,graph 0 to 130,graph 1 nohead dt 2
plot "allocation-random.dat" using 1:3:4 with filledcurves lc rgb '#4477aa' fs transparent solid 0.18 notitle, "allocation-random.dat" index 0 using 1:2 with lines lc rgb '#4477aa' lw 2 dt 1 notitle, "allocation-random.dat" every 16::0 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, keyentry with linespoints lc rgb '#4477aa' lw 2 dt 1 pt 6 ps 0.9 title "random" noenhanced, "allocation-dotprod.dat" using 1:3:4 with filledcurves lc rgb '#ee6677' fs transparent solid 0.18 notitle, "allocation-dotprod.dat" index 0 using 1:2 with lines lc rgb '#ee6677' lw 2 dt 2 notitle, "allocation-dotprod.dat" every 16::2 using 1:2 with points lc rgb '#ee6677' pt 4 ps 0.9 notitle, keyentry with linespoints lc rgb '#ee6677' lw 2 dt 2 pt 4 ps 0.9 title "dotprod" noenhanced, "allocation-gpu-clustering.dat" using 1:3:4 with filledcurves lc rgb '#228833' fs transparent solid 0.18 notitle, "allocation-gpu-clustering.dat" index 0 using 1:2 with lines lc rgb '#228833' lw 2 dt 4 notitle, "allocation-gpu-clustering.dat" every 16::5 using 1:2 with points lc rgb '#228833' pt 8 ps 0.9 notitle, keyentry with linespoints lc rgb '#228833' lw 2 dt 4 pt 8 ps 0.9 title "gpu-clustering" noenhanced, "allocation-gpu-packing.dat" using 1:3:4 with filledcurves lc rgb '#ccbb44' fs transparent solid 0.18 notitle, "allocation-gpu-packing.dat" index 0 using 1:2 with lines lc rgb '#ccbb44' lw 2 dt 5 notitle, "allocation-gpu-packing.dat" every 16::8 using 1:2 with points lc rgb '#ccbb44' pt 12 ps 0.9 notitle, keyentry with linespoints lc rgb '#ccbb44' lw 2 dt 5 pt 12 ps 0.9 title "gpu-packing" noenhanced, "allocation-bestfit.dat" using 1:3:4 with filledcurves lc rgb '#66ccee' fs transparent solid 0.18 notitle, "allocation-bestfit.dat" index 0 using 1:2 with lines lc rgb '#66ccee' lw 2 dt 3 notitle, "allocation-bestfit.dat" every 16::10 using 1:2 with points lc rgb '#66ccee' pt 10 ps 0.9 notitle, keyentry with linespoints lc rgb '#66ccee' lw 2 dt 3 pt 10 ps 0.9 title "bestfit" noenhanced, "allocation-fgd.dat" using 1:3:4 with filledcurves lc rgb '#aa3377' fs transparent solid 0.18 notitle, "allocation-fgd.dat" index 0 using 1:2 with lines lc rgb '#aa3377' lw 2 dt 1 notitle, "allocation-fgd.dat" every 16::13 using 1:2 with points lc rgb '#aa3377' pt 2 ps 0.9 notitle, keyentry with linespoints lc rgb '#aa3377' lw 2 dt 1 pt 2 ps 0.9 title "fgd" noenhanced
# The inset: the last 50 points of load, enlarged, on white over the lower right.
set origin 0.55,0.13
set size 0.42,0.45
unset title
unset xlabel
unset ylabel
unset key
set xrange [80:130]
set yrange [*:*]
set xtics 10
set object 1 rectangle from graph -0.12,-0.14 to graph 1,1 behind fillcolor rgb '#ffffff' fillstyle solid noborder
plot "allocation-random.dat" using 1:3:4 with filledcurves lc rgb '#4477aa' fs transparent solid 0.18 notitle, "allocation-random.dat" index 0 using 1:2 with lines lc rgb '#4477aa' lw 2 dt 1 notitle, "allocation-random.dat" every 16::0 using 1:2 with points lc rgb '#4477aa' pt 6 ps 0.9 notitle, "allocation-dotprod.dat" using 1:3:4 with filledcurves lc rgb '#ee6677' fs transparent solid 0.18 notitle, "allocation-dotprod.dat" index 0 using 1:2 with lines lc rgb '#ee6677' lw 2 dt 2 notitle, "allocation-dotprod.dat" every 16::2 using 1:2 with points lc rgb '#ee6677' pt 4 ps 0.9 notitle, "allocation-gpu-clustering.dat" using 1:3:4 with filledcurves lc rgb '#228833' fs transparent solid 0.18 notitle, "allocation-gpu-clustering.dat" index 0 using 1:2 with lines lc rgb '#228833' lw 2 dt 4 notitle, "allocation-gpu-clustering.dat" every 16::5 using 1:2 with points lc rgb '#228833' pt 8 ps 0.9 notitle, "allocation-gpu-packing.dat" using 1:3:4 with filledcurves lc rgb '#ccbb44' fs transparent solid 0.18 notitle, "allocation-gpu-packing.dat" index 0 using 1:2 with lines lc rgb '#ccbb44' lw 2 dt 5 notitle, "allocation-gpu-packing.dat" every 16::8 using 1:2 with points lc rgb '#ccbb44' pt 12 ps 0.9 notitle, "allocation-bestfit.dat" using 1:3:4 with filledcurves lc rgb '#66ccee' fs transparent solid 0.18 notitle, "allocation-bestfit.dat" index 0 using 1:2 with lines lc rgb '#66ccee' lw 2 dt 3 notitle, "allocation-bestfit.dat" every 16::10 using 1:2 with points lc rgb '#66ccee' pt 10 ps 0.9 notitle, "allocation-fgd.dat" using 1:3:4 with filledcurves lc rgb '#aa3377' fs transparent solid 0.18 notitle, "allocation-fgd.dat" index 0 using 1:2 with lines lc rgb '#aa3377' lw 2 dt 1 notitle, "allocation-fgd.dat" every 16::13 using 1:2 with points lc rgb '#aa3377' pt 2 ps 0.9 notitle
unset multiplot
