# SPDX-License-Identifier: GPL-2.0
# Port queue (backlog) over time.
# Variables: datafile (CSV t_s,backlog_bytes), outfile, term, plottitle,
#            kmin, kmax (bytes; optional reference lines)
load dir . 'common.gp'
set xlabel 'time (s)'
set ylabel 'backlog (KB)'
set yrange [0:*]
if (!exists("kmin")) kmin = 0
if (!exists("kmax")) kmax = 0
plot datafile using 1:($2 / 1024) skip 1 with lines lw 1.5 title 'backlog', \
     (kmin > 0 ? kmin / 1024.0 : NaN) with lines dt 2 lc rgb 'dark-green' title 'Kmin', \
     (kmax > 0 ? kmax / 1024.0 : NaN) with lines dt 2 lc rgb 'red' title 'Kmax'
