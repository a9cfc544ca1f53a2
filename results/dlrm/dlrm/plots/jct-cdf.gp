set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'jct-cdf.svg'
set title 'Job completion time CDF (completed pods, all seeds)'
set xlabel 'completion - arrival (days)'
set ylabel 'fraction of pods'
set key right bottom
set grid
set yrange [0:1]
set logscale x
plot "jct-cdf-kube-default.dat" using 1:2 with steps lw 2 lc 1 title "kube-default" noenhanced, "jct-cdf-binpack.dat" using 1:2 with steps lw 2 lc 2 title "binpack" noenhanced, "jct-cdf-bestfit.dat" using 1:2 with steps lw 2 lc 3 title "bestfit" noenhanced, "jct-cdf-fgd.dat" using 1:2 with steps lw 2 lc 4 title "fgd" noenhanced
