set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'pending-time.svg'
set title 'Pending pods over time (first seed)'
set xlabel 'simulated time (days)'
set ylabel 'pending pods'
set key right top
set grid
set yrange [0:*]
plot "pending-time-fifo.dat" using 1:2 with steps lw 1.5 lc 1 title "fifo" noenhanced, "pending-time-backfill.dat" using 1:2 with steps lw 1.5 lc 2 title "backfill" noenhanced, "pending-time-fifo-skip.dat" using 1:2 with steps lw 1.5 lc 3 title "fifo-skip" noenhanced, "pending-time-drf.dat" using 1:2 with steps lw 1.5 lc 4 title "drf" noenhanced, "pending-time-sjf.dat" using 1:2 with steps lw 1.5 lc 5 title "sjf" noenhanced, "pending-time-tiresias.dat" using 1:2 with steps lw 1.5 lc 6 title "tiresias" noenhanced, "pending-time-srtf.dat" using 1:2 with steps lw 1.5 lc 7 title "srtf" noenhanced
