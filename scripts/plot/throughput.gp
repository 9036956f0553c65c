# SPDX-License-Identifier: GPL-2.0
# Received throughput of each sender over time (iperf3 interval data).
# Variables: prefix (files prefix.'1.csv' .. prefix.n.'.csv', CSV t_s,rx_mbps),
#            n, outfile, term, plottitle, share (fair share in Mb/s, optional)
load dir . 'common.gp'
set xlabel 'time (s)'
set ylabel 'received (Mb/s)'
set yrange [0:*]
if (!exists("share")) share = 0
plot for [i=1:n] sprintf("%s%d.csv", prefix, i) using 1:2 skip 1 with linespoints pt 7 ps 0.5 title sprintf("h%d", i), \
     (share > 0 ? share : NaN) with lines dt 2 lc rgb 'black' title 'fair share'
