set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'jct-cdf.svg'
set title 'Job completion time CDF (completed jobs, all seeds)'
set xlabel 'completion - arrival (days)'
set ylabel 'fraction of jobs'
set key right bottom
set grid
set yrange [0:1]
set logscale x
plot "jct-cdf-fifo.dat" using 1:2 with steps lw 2 lc 1 title "fifo" noenhanced, "jct-cdf-backfill.dat" using 1:2 with steps lw 2 lc 2 title "backfill" noenhanced, "jct-cdf-fifo-skip.dat" using 1:2 with steps lw 2 lc 3 title "fifo-skip" noenhanced, "jct-cdf-drf.dat" using 1:2 with steps lw 2 lc 4 title "drf" noenhanced, "jct-cdf-sjf.dat" using 1:2 with steps lw 2 lc 5 title "sjf" noenhanced, "jct-cdf-tiresias.dat" using 1:2 with steps lw 2 lc 6 title "tiresias" noenhanced, "jct-cdf-srtf.dat" using 1:2 with steps lw 2 lc 7 title "srtf" noenhanced
