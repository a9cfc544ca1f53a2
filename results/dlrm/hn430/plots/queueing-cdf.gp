set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'queueing-cdf.svg'
set title 'Queueing delay CDF (completed pods, all seeds)'
set xlabel 'start - arrival (days)'
set ylabel 'fraction of pods'
set key right bottom
set grid
set yrange [0:1]
plot "queueing-cdf-kube-default.dat" using 1:2 with steps lw 2 lc 1 title "kube-default" noenhanced, "queueing-cdf-binpack.dat" using 1:2 with steps lw 2 lc 2 title "binpack" noenhanced, "queueing-cdf-bestfit.dat" using 1:2 with steps lw 2 lc 3 title "bestfit" noenhanced, "queueing-cdf-fgd.dat" using 1:2 with steps lw 2 lc 4 title "fgd" noenhanced
