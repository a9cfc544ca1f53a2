set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'job_mean_jct_s-time-compression.svg'
set xlabel "time-compression" noenhanced
set ylabel "job_mean_jct_s" noenhanced
set key outside right top noenhanced
set grid
plot 'job_mean_jct_s-time-compression.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#4477aa' dt 1 pt 6 title "fifo", \
     'job_mean_jct_s-time-compression.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#ee6677' dt 2 pt 4 title "backfill", \
     'job_mean_jct_s-time-compression.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#228833' dt 4 pt 8 title "sjf", \
     'job_mean_jct_s-time-compression.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#ccbb44' dt 5 pt 12 title "drf", \
     'job_mean_jct_s-time-compression.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#66ccee' dt 3 pt 10 title "srtf", \
     'job_mean_jct_s-time-compression.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#aa3377' dt 1 pt 2 title "tiresias"
