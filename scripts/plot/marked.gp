# SPDX-License-Identifier: GPL-2.0
# ECN marked fraction (and drop fraction) per window over time.
# Variables: datafile (CSV t_s,marked_frac,wire_mbps,drop_frac), outfile,
#            term, plottitle
load dir . 'common.gp'
set xlabel 'time (s)'
set ylabel 'fraction of packets'
set yrange [0:1.05]
plot datafile using 1:2 skip 1 with linespoints pt 7 ps 0.5 title 'ECN marked / enqueued', \
     datafile using 1:4 skip 1 with lines dt 2 title 'dropped / arrived'
