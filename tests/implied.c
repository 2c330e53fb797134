/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * implied_tests(): the engine's paths are disjoint, cover every input and
 * each follows one sequence of instructions, so one input of each path,
 * run concretely, shows every outcome that path takes.  The union over all
 * paths is every outcome any input takes at each jump: exact, not a sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/insn.h"
#include "engine/engine.h"
#include "implied.h"

#define SEEN_T 1u
#define SEEN_F 2u

/* Run the program on the 16 words W (the emulator: the one meaning of
 * each instruction, src/bpf/insn.h), marking in SEEN each outcome taken.
 * PATH has room for LEN entries: jumps go forward, so no run is longer. */
static void replay(const struct sock_filter *f, size_t len, const uint32_t *w, uint8_t *seen,
		   size_t *path)
{
	struct seccomp_data sd;
	uint32_t ret;
	size_t n = 0;

	words_to_data(w, &sd);
	if (scmpc_emulate_trace(f, len, &sd, &ret, path, len, &n) < 0)
		return;
	for (size_t i = 0; i + 1 < n && i + 1 < len; i++) {
		const struct sock_filter *in = &f[path[i]];
		if (insn_is_cond(in->code))
			seen[path[i]] |= path[i + 1] == insn_jump_target(in, path[i], true) ? SEEN_T
											     : SEEN_F;
	}
}

int implied_tests(const struct sock_filter *insns, size_t len, size_t max_paths,
		  struct implied *r)
{
	const struct sock_filter *progs[1] = { insns };
	struct walker W = { .progs = progs, .lens = &len, .n = 1, .mode = WALK_ONE,
			    .max_paths = max_paths };
	uint8_t *seen = calloc(len ? len : 1, 1);
	size_t *path = calloc(len ? len : 1, sizeof(*path));
	int err = seen && path ? walk_paths(&W) : -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->first = -1;
	for (size_t k = 0; k < W.npaths && err >= 0; k++) {
		uint32_t w[NWORDS];
		for (unsigned i = 0; i < NWORDS; i++)
			if (wcon_first(&W.paths[k].w[i], 0, &w[i]) != 1)
				err = -EINVAL;	/* a path without an input: not the engine's */
		if (err >= 0)
			replay(insns, len, w, seen, path);
	}
	r->paths = W.npaths;
	for (size_t pc = 0; pc < len && err >= 0; pc++) {
		const struct sock_filter *in = &insns[pc];
		if (BPF_CLASS(in->code) != BPF_JMP || BPF_OP(in->code) == BPF_JA ||
		    in->jt == in->jf || !seen[pc])
			continue;
		r->jumps++;
		if (seen[pc] == (SEEN_T | SEEN_F))
			continue;
		if (r->implied++ == 0) {
			r->first = (long)pc;
			r->first_taken = seen[pc] == SEEN_T;
		}
	}
	walker_fini(&W);
	free(seen);
	free(path);
	return err < 0 ? err : 0;
}
