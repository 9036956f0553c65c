# SPDX-License-Identifier: GPL-2.0
# Shared settings of the DCB lab plots.  Callers set term ('pngcairo' or
# 'png') and outfile with gnuplot -e.
if (!exists("term")) term = 'pngcairo'
eval sprintf("set terminal %s size 900,500", term)
set output outfile
set datafile separator comma
set datafile missing 'NaN'
set grid
set key outside right top
if (!exists("plottitle")) plottitle = ''
set title plottitle noenhanced
