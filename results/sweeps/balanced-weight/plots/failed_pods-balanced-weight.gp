set terminal svg size 820,500 dynamic font 'sans,12' background '#ffffff'
set output 'failed_pods-balanced-weight.svg'
set xlabel "balanced-weight" noenhanced
set ylabel "failed_pods" noenhanced
set key outside right top noenhanced
set grid
plot 'failed_pods-balanced-weight.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#4477aa' dt 1 pt 6 title "runs"
