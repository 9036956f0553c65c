# SPDX-License-Identifier: GPL-2.0
"""The lab's experiments, one module each (see dcbnet.experiment)."""
