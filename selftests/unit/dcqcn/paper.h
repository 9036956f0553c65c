/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN paper's settings (SIGCOMM'15, Fig. 14), which the unit tests
 * and the model of rxe_cc/dcqcn_sm.c start from; see dcqcn.rst.
 */
#ifndef DCBLAB_UNIT_DCQCN_PAPER_H
#define DCBLAB_UNIT_DCQCN_PAPER_H

#include "dcqcn_sm.h"

/*
 * At line rate @line with rpg_min_rate @min, R_AI @ai and R_HAI @hai (all
 * kb/s) and T = K = @t_ns, the rest as in the paper at every scale: F = 5,
 * B = 10 MiB, g = 1/256 (alpha keeps 1020/1024 per update), alpha starting
 * at 1, a CNP cuts R_C by at most half and sets R_T to it, no rate set on
 * the first CNP.
 */
static inline struct dcqcn_params dcqcn_paper(u32 line, u32 min, u32 ai,
					      u32 hai, u32 t_ns)
{
	struct dcqcn_params p = {
		.line_rate = line,
		.min_rate = min,
		.ai_rate = ai,
		.hai_rate = hai,
		.first_cnp_rate = 0,
		.min_dec_fac = 50,
		.threshold = 5,
		.byte_reset = 10 * 1024 * 1024,
		.time_reset_ns = t_ns,
		.alpha_period_ns = t_ns,
		.g = 1020,
		.initial_alpha = 1024,
		.clamp_tgt_rate = 1,
	};

	return p;
}

#endif /* DCBLAB_UNIT_DCQCN_PAPER_H */
