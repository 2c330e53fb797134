/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The compiler's public entry points: the caller's options checked, then
 * one program (compile.c) or a stack of them (split.c).  The split is
 * consulted only from here, so a piece the splitter compiles never asks
 * for a split of itself.
 */
#include <string.h>
#include "compiler/compile.h"
#include "compiler/split.h"

SCMPC_API int scmpc_compile(const scmpc_policy *p, const struct scmpc_compile_opts *o,
			    scmpc_prog **out, scmpc_diag *d)
{
	struct scmpc_compile_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_compile_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if ((err = compile_flags_check(opts.flags, d)) < 0 ||
	    (err = progress_check(opts.progress, d)) < 0)
		return err;
	bool size_bound = false;
	err = compile_policy(p, &opts, out, &size_bound, NULL, d);
	/* Past 4096 instructions: say whether a stack of programs would do
	 * (not when the compiler's own bound stopped it: finding a split
	 * would compile the pieces of a policy already known to be slow). */
	if (err == -E2BIG && size_bound)
		split_hint(p, d);
	return err;
}

SCMPC_API int scmpc_compile_split(const scmpc_policy *p, const struct scmpc_split_opts *o,
				  scmpc_prog ***out, scmpc_diag *d)
{
	struct scmpc_split_opts opts;
	int rc;
	if ((rc = OPTS_VALID(o, scmpc_split_opts, sz, d)) < 0)
		return rc;
	OPTS_COPY(opts, o);
	if (!p || !out)
		return diag_err(d, -EINVAL, NULL, "no policy or no output");
	*out = NULL;
	if ((rc = compile_flags_check(opts.flags, d)) < 0 ||
	    (rc = progress_check(opts.progress, d)) < 0)
		return rc;
	if (opts.max_insns > SPLIT_MAX_INSNS)
		return diag_err(d, -EINVAL, NULL, "max_insns %u is above the kernel's %u",
				opts.max_insns, SPLIT_MAX_INSNS);
	return split_policy(p, &opts, out, d);
}
