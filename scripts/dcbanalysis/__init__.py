# SPDX-License-Identifier: GPL-2.0
"""dcbanalysis: metrics, tables and metadata of DCB lab results.

Run on the host after the guest exits (Debian's python3-pandas and
python3-matplotlib; scripts/deps.sh installs them):

    PYTHONPATH=scripts python3 -m dcbanalysis summary results/latest
    PYTHONPATH=scripts python3 -m dcbanalysis check results/latest

Modules: tidy (the results.csv schema), summary (median and range over
runs), metadata (metadata.json).  See Documentation/dcblab.rst.
"""
