# SPDX-License-Identifier: GPL-2.0
# Received throughput of named flows over time (pfc_* scenarios).
# Variables: prefix (files prefix.'1.csv' .. prefix.n.'.csv', CSV t_s,rx_mbps),
#            n, names (space-separated labels), outfile, term, plottitle,
#            tstart (a dashed vertical line, e.g. when the incast starts; optional),
#            ylab (y axis label, default 'received (Mb/s)')
load dir . 'common.gp'
if (!exists("ylab")) ylab = 'received (Mb/s)'
set xlabel 'time (s)'
set ylabel ylab
set yrange [0:*]
if (!exists("tstart")) tstart = -1
if (tstart >= 0) set arrow from tstart, graph 0 to tstart, graph 1 nohead dt 2 lc rgb 'black'
plot for [i=1:n] sprintf("%s%d.csv", prefix, i) using 1:2 skip 1 with linespoints pt 7 ps 0.5 title word(names, i)
