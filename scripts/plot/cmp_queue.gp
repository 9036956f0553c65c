# SPDX-License-Identifier: GPL-2.0
# Bottleneck queue of several runs over time (cmp_incast).
# Variables: files (space-separated CSVs t_s,backlog_bytes), labels
#            (space-separated), outfile, term, plottitle
load dir . 'common.gp'
set xlabel 'time since the first packet (s)'
set ylabel 'backlog (KB)'
set yrange [0:*]
set xrange [0:*]
plot for [i = 1:words(files)] word(files, i) using 1:($2 / 1024) skip 1 \
     with lines lw 1.5 title word(labels, i)
