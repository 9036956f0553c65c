# SPDX-License-Identifier: GPL-2.0
# DCQCN rate timeline from the rxe_cc_dcqcn tracepoint: per QP R_C and R_T
# (top) and alpha (bottom) over time.
# Variables: files (one CSV per QP, t_s,qpn,rc_mbps,rt_mbps,alpha,ev;
#            space separated), labels (one word per file), outfile, term,
#            plottitle, share (fair share in Mb/s, optional)
if (!exists("term")) term = 'pngcairo'
eval sprintf("set terminal %s size 1000,700", term)
set output outfile
set datafile separator comma
set grid
set key outside right top
if (!exists("plottitle")) plottitle = ''
if (!exists("share")) share = 0
set multiplot layout 2,1 title plottitle noenhanced
set lmargin 10
set ylabel 'rate (Mb/s)'
set yrange [0:*]
plot for [i=1:words(files)] word(files, i) using 1:3 with steps lw 1.5 lc i title sprintf("%s R_C", word(labels, i)), \
     for [i=1:words(files)] word(files, i) using 1:4 with steps dt 3 lc i title sprintf("%s R_T", word(labels, i)), \
     (share > 0 ? share : 1/0) with lines dt 2 lc rgb 'black' title 'fair share'
set xlabel 'time (s)'
set ylabel 'alpha'
set yrange [0:1.05]
plot for [i=1:words(files)] word(files, i) using 1:5 with steps lw 1.5 lc i title word(labels, i)
unset multiplot
