# The look of the experiment scripts' bar charts (scripts/sharing_experiments.sh, k8s_experiments.sh;
# `load` it after `set terminal`): labels slanted to end under their bars, so that the last one
# stays inside the picture, and room above the tallest bar, so that none reads as cut off. The
# scripts set the x range to the bars they draw (a cluster per row at x = 0, 1, ...), as gnuplot's
# own leaves an empty slot.
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set xtics rotate by 30 right nomirror
set grid ytics
