set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'gpu_allocation_pct-balanced-weight.svg'
set xlabel "balanced-weight" noenhanced
set ylabel "gpu_allocation_pct" noenhanced
set key outside right top noenhanced
set grid
plot 'gpu_allocation_pct-balanced-weight.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#4477aa' dt 1 pt 6 title "runs"
