set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'unallocated_gpus-balanced-weight.svg'
set xlabel "balanced-weight" noenhanced
set ylabel "unallocated_gpus" noenhanced
set key outside right top noenhanced
set grid
plot 'unallocated_gpus-balanced-weight.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#4477aa' dt 1 pt 6 title "runs"
