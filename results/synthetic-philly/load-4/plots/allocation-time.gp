set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'allocation-time.svg'
set title 'GPUs allocated over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'GPUs allocated'
set key right top
set grid
set yrange [0:*]
plot "allocation-time-fifo.dat" using 1:2 with steps lw 1.5 lc 1 title "fifo" noenhanced, "allocation-time-backfill.dat" using 1:2 with steps lw 1.5 lc 2 title "backfill" noenhanced, "allocation-time-fifo-skip.dat" using 1:2 with steps lw 1.5 lc 3 title "fifo-skip" noenhanced, "allocation-time-drf.dat" using 1:2 with steps lw 1.5 lc 4 title "drf" noenhanced, "allocation-time-sjf.dat" using 1:2 with steps lw 1.5 lc 5 title "sjf" noenhanced, "allocation-time-tiresias.dat" using 1:2 with steps lw 1.5 lc 6 title "tiresias" noenhanced, "allocation-time-srtf.dat" using 1:2 with steps lw 1.5 lc 7 title "srtf" noenhanced
