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
#include "engine/engine.h"
#include "implied.h"

#define SEEN_T 1u
#define SEEN_F 2u

/* Run the program on the 16 words W, marking in SEEN each outcome taken;
 * only what the compiler emits is needed, anything else ends the run. */
static void replay(const struct sock_filter *f, size_t len, const uint32_t *w, uint8_t *seen)
{
	uint32_t a = 0;
	for (size_t pc = 0; pc < len;) {
		const struct sock_filter *in = &f[pc];
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
			if (in->code != (BPF_LD | BPF_W | BPF_ABS) || in->k / 4 >= NWORDS)
				return;
			a = w[in->k / 4];
			pc++;
			break;
		case BPF_ALU:
			if (in->code != (BPF_ALU | BPF_AND | BPF_K))
				return;
			a &= in->k;
			pc++;
			break;
		case BPF_JMP: {
			if (BPF_OP(in->code) == BPF_JA) {
				pc += 1 + in->k;
				break;
			}
			if (BPF_SRC(in->code) != BPF_K)
				return;
			bool t;
			switch (BPF_OP(in->code)) {
			case BPF_JEQ: t = a == in->k; break;
			case BPF_JGT: t = a > in->k; break;
			case BPF_JGE: t = a >= in->k; break;
			case BPF_JSET: t = (a & in->k) != 0; break;
			default: return;
			}
			seen[pc] |= t ? SEEN_T : SEEN_F;
			pc += 1 + (t ? in->jt : in->jf);
			break;
		}
		default:
			return;
		}
	}
}

int implied_tests(const struct sock_filter *insns, size_t len, size_t max_paths,
		  struct implied *r)
{
	const struct sock_filter *progs[1] = { insns };
	struct walker W = { .progs = progs, .lens = &len, .n = 1, .mode = WALK_ONE,
			    .max_paths = max_paths };
	uint8_t *seen = calloc(len ? len : 1, 1);
	int err = seen ? walk_paths(&W) : -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->first = -1;
	for (size_t k = 0; k < W.npaths && err >= 0; k++) {
		uint32_t w[NWORDS];
		for (unsigned i = 0; i < NWORDS; i++)
			if (wcon_first(&W.paths[k].w[i], 0, &w[i]) != 1)
				err = -EINVAL;	/* a path without an input: not the engine's */
		if (err >= 0)
			replay(insns, len, w, seen);
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
	return err < 0 ? err : 0;
}
