# SPDX-License-Identifier: GPL-2.0
# Several per-port time series of one counter (pfc_* scenarios).
# Variables: datafile (CSV t_s,LABEL1,...,LABELn with a header line), ncols
#            (n), outfile, term, plottitle, ylab, scale (divide values by
#            it, default 1), hline (a dashed reference level in raw units,
#            optional, e.g. XOFF)
load dir . 'common.gp'
if (!exists("scale")) scale = 1
if (!exists("hline")) hline = 0
if (!exists("ylab")) ylab = ''
set xlabel 'time (s)'
set ylabel ylab
set yrange [0:*]
set key autotitle columnheader
plot for [i=2:ncols+1] datafile using 1:(column(i) / scale) with lines lw 1.5, \
     (hline > 0 ? hline / scale : NaN) with lines dt 2 lc rgb 'black' notitle
