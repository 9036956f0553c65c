# SPDX-License-Identifier: GPL-2.0
# Flow completion times per setting, one cluster per setting (cmp_incast).
# Variables: datafile (TSV: algo, then one FCT column per flow, header
#            line "algo f1 f2 ..."), nflows, outfile, term, plottitle
load dir . 'common.gp'
set datafile separator tab
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'completion time (s)'
set yrange [0:*]
plot for [i = 2:nflows + 1] datafile using i:xtic(1) title columnheader(i)
