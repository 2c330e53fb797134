/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Every path of a program or a stack of them (engine.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "bpf/insn.h"
#include "engine/sym.h"

/* ---------------------------------------------------------------- walk */

struct state {
	uint32_t pc;
	uint16_t prog;		/* the filter running */
	uint16_t acc_prog;	/* stack: the filter whose return holds */
	uint32_t acc;		/* stack: the result so far */
	int32_t acc_insn;
	struct sym a, x, mem[BPF_MEMWORDS];
	struct wcon w[NWORDS];
	uint32_t len;			/* instructions executed so far */
	bool cut;			/* the words were cut since stack_kill_find() last looked */
	uint32_t each[WALK_MAX_EACH];	/* each mode: the programs' returns so far */
	int32_t each_insn[WALK_MAX_EACH];
};

int walk_err(const struct walker *L, int err, unsigned prog, long insn, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (L->n > 1)
		return diag_err_insn(L->d, err, insn, "filter %u (of %zu, oldest 0), insn %ld: %s",
				     prog, L->n, insn, msg);
	return diag_err_insn(L->d, err, insn, "insn %ld: %s", insn, msg);
}

static const char *word_name(unsigned w, char *buf, size_t len)
{
	if (w == W_NR)
		return "nr";
	if (w == W_ARCH)
		return "arch";
	if (w < W_ARGS)
		return "instruction_pointer";
	snprintf(buf, len, "a word of args[%u]", (w - W_ARGS) / 2);
	return buf;
}

static int push(struct walker *L, const struct state *s)
{
	if (!array_reserve(&L->stk, &L->capstk, L->nstk, sizeof(*L->stk), 64))
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	L->stk[L->nstk++] = *s;
	return 0;
}

/* Follow the values of word W one by one: a copy of S per value, at the
 * same instruction, where everything read from W is then a constant.
 * Returns 1 when done, 0 when W has more than PIN_MAX values. */
static int pin_word(struct walker *L, const struct state *s, unsigned w)
{
	uint32_t vals[PIN_MAX], x = 0;
	size_t n = 0;
	for (;;) {
		uint32_t f;
		int r = wcon_first(&s->w[w], x, &f);
		if (r < 0 || (r > 0 && n == PIN_MAX))
			return 0;
		if (r == 0)
			break;
		vals[n++] = f;
		if (f == 0xffffffffU)
			break;
		x = f + 1;
	}
	for (size_t i = n; i-- > 0;) {
		struct state c = *s;
		c.len--;	/* the instruction runs again in the copy */
		c.w[w].lo = c.w[w].hi = vals[i];
		c.cut = true;
		if (c.w[w].insn < 0) {
			c.w[w].insn = (int32_t)s->pc;
			c.w[w].prog = s->prog;
		}
		int err = push(L, &c);
		if (err < 0)
			return err;
	}
	return 1;
}

static bool sym_symbolic(const struct sym *s)
{
	return s->kind == S_BITS || s->kind == S_OFFSET;
}

/* The next (older) filter starts on S, with the words' sets it has. */
static void next_prog(struct state *s)
{
	s->prog--;
	s->pc = 0;
	s->a = s->x = sym_const(0);
	for (size_t i = 0; i < BPF_MEMWORDS; i++)
		s->mem[i] = sym_const(0);
}

/* A path found: stored with its returns. */
static int store(struct walker *L, const struct state *s, uint32_t r)
{
	/* A stack's path ends past the filters it left early (at insn 0
	 * of the oldest): it is named by the return that decided it, where
	 * one did (not ALLOW everywhere). */
	bool stack = (L->mode == WALK_STACK || L->mode == WALK_STACK_THEN) && s->acc_insn >= 0;
	if (L->npaths >= L->max_paths)
		return walk_err(L, -E2BIG, stack ? s->acc_prog : s->prog,
				stack ? (long)s->acc_insn : (long)s->pc,
			    "the program%s more than %zu paths (the bound, max_paths); stopped here",
			    L->n > 1 ? "s have" : " has", L->max_paths);
	if (L->visit && (L->mode == WALK_ONE || L->mode == WALK_STACK)) {
		/* handed over, not kept: the caller judges it now */
		struct path p = { .ret = r, .insn = s->acc_insn, .prog = s->acc_prog, .len = s->len };
		memcpy(p.w, s->w, sizeof(p.w));
		L->npaths++;
		return L->visit(L, &p, L->visit_arg);
	}
	if (!array_reserve(&L->paths, &L->cappaths, L->npaths, sizeof(*L->paths), 256))
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	bool each = L->mode == WALK_EACH || L->mode == WALK_STACK_THEN;
	size_t ne = L->n;
	if (each &&
	    (!array_reserve(&L->each, &L->capeach, (L->npaths + 1) * ne, sizeof(*L->each), 256) ||
	     !array_reserve(&L->each_insn, &L->capeach_insn, (L->npaths + 1) * ne,
			    sizeof(*L->each_insn), 256)))
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	struct path *p = &L->paths[L->npaths];
	p->ret = r;
	p->insn = s->acc_insn;
	p->prog = s->acc_prog;
	p->len = s->len;
	memcpy(p->w, s->w, sizeof(p->w));
	if (each) {
		memcpy(&L->each[L->npaths * ne], s->each, ne * sizeof(*L->each));
		memcpy(&L->each_insn[L->npaths * ne], s->each_insn, ne * sizeof(*L->each_insn));
	}
	L->npaths++;
	return 0;
}

/* The path ends with R: stored, if R is an action a policy can hold. */
static int end(struct walker *L, struct state *s, uint32_t r)
{
	if (!scmpc_action_valid(r)) {
		char act[32];
		scmpc_action_str(r, act, sizeof(act));
		return walk_err(L, -ENOTSUP, s->acc_prog, s->acc_insn,
			    "returns 0x%08x (%s), which is no action a policy can hold (the kernel "
			    "reads it as another action)", r, act);
	}
	return store(L, s, r);
}

/* Whether the rest of S's filter cannot change the stack's result: every
 * RET it can reach ranks at or above the result so far (ties keep the
 * newer filter's), so the filter is left before it forks.  Without this a
 * stack's paths are the products of every filter's, each number's paths
 * multiplied across filters that only ever say the same thing again: 32
 * filters on the same ABIs went past 65,536 paths. */
static bool cannot_lower(const struct walker *L, const struct state *s)
{
	if (!L->floor || (L->mode == WALK_STACK_THEN && s->prog == L->n - 1))
		return false;
	return L->floor[L->floor_at[s->prog] + s->pc] >= act_rank(s->acc);
}

/* Filter G kills every call of S: the stack's return is decided, as the
 * kernel's would be there (G's return taken, the filters between it and
 * S's not run). */
static void killed(const struct walker *L, struct state *s, uint32_t v, uint16_t g, int32_t insn)
{
	s->acc = v;
	s->acc_prog = g;
	s->acc_insn = insn;
	if (L->mode == WALK_STACK_THEN) {
		s->each[g] = v;
		s->each_insn[g] = insn;
	}
}

/* The stack's return is decided on S: STACK_THEN's last program runs on
 * the same call, or the path ends with it; *MORE when S goes on. */
static int stack_done(struct walker *L, struct state *s, bool *more)
{
	*more = false;
	if (L->mode == WALK_STACK_THEN) {
		next_prog(s);
		s->prog = (uint16_t)(L->n - 1);
		*more = true;
		return 0;
	}
	return end(L, s, s->acc);
}

/* STACK, STACK_THEN: the running filter of the stack is done with S (its
 * return, if it has one, already taken into s->acc).  The next (older)
 * filter runs, or STACK_THEN's last program, or the path ends with the
 * stack's result; *MORE when S goes on. */
static int stack_next(struct walker *L, struct state *s, bool *more)
{
	*more = false;
	/* Nothing ranks below KILL_PROCESS: older filters cannot change the
	 * result. */
	while (s->prog > 0 && act_rank(s->acc) != act_rank(SCMPC_ACT_KILL_PROCESS)) {
		next_prog(s);
		uint32_t v;
		uint16_t g;
		int32_t insn;
		/* words not cut since the last look: the older filters it
		 * asked about still do not kill them all */
		int r = s->cut ? stack_kill_find(L, s->prog, 0, s->w, &v, &g, &insn) : 0;
		s->cut = false;
		if (r < 0)
			return r;
		if (r > 0) {
			killed(L, s, v, g, insn);
			break;
		}
		/* A filter none of whose paths that rank below the result
		 * meets the call's words cannot change it: as if it had run
		 * (the static floor asks first, free). */
		if (cannot_lower(L, s) ||
		    !(r = stack_kill_lowers(L, s->prog, s->w, act_rank(s->acc))))
			continue;
		if (r < 0)
			return r;
		*more = true;
		return 0;
	}
	return stack_done(L, s, more);
}

/* The path ends with return value R of the running filter. */
static int finish(struct walker *L, struct state *s, uint32_t r, bool *more)
{
	*more = false;
	if (L->mode == WALK_EACH) {
		/* Every program runs on the same call: the answers side by
		 * side, whatever they are. */
		s->each[s->prog] = r;
		s->each_insn[s->prog] = (int32_t)s->pc;
		if (s->prog > 0) {
			next_prog(s);
			*more = true;
			return 0;
		}
		s->acc_prog = 0;
		s->acc_insn = s->each_insn[0];
		if (L->combine)
			r = L->combine(s->each, L->n, L->combine_ctx);
		return store(L, s, r);
	}
	if (L->mode == WALK_STACK_THEN) {
		s->each[s->prog] = r;
		s->each_insn[s->prog] = (int32_t)s->pc;
		if (s->prog == L->n - 1)
			return store(L, s, r);	/* the last program, after the stack */
	}
	if (L->mode == WALK_STACK || L->mode == WALK_STACK_THEN) {
		/* seccomp_run_filters(): newest first, a strictly lower
		 * action replaces the result, so ties keep the newer one. */
		if (act_rank(r) < act_rank(s->acc)) {
			s->acc = r;
			s->acc_prog = s->prog;
			s->acc_insn = (int32_t)s->pc;
		}
		return stack_next(L, s, more);
	}
	s->acc_prog = s->prog;
	s->acc_insn = (int32_t)s->pc;
	return end(L, s, r);
}

/* Fork S at a jump: each piece of each side restricts word W. */
static int fork_split(struct walker *L, const struct state *s, unsigned w, const struct split *sp,
		      uint32_t tgt_t, uint32_t tgt_f)
{
	for (int side = 1; side >= 0; side--) {
		const struct piece *pc = side ? sp->t : sp->f;
		size_t n = side ? sp->nt : sp->nf;
		for (size_t i = 0; i < n; i++) {
			struct state c = *s;
			int r = wcon_apply(&L->ar, &c.w[w], &pc[i]);
			if (r < 0)
				return diag_err(L->d, r, NULL, "out of memory");
			if (!r)
				continue;
			c.cut |= pc[i].kind != P_ALL;
			if (pc[i].kind != P_ALL && c.w[w].insn < 0) {
				c.w[w].insn = (int32_t)s->pc;
				c.w[w].prog = s->prog;
			}
			c.pc = side ? tgt_t : tgt_f;
			int err = push(L, &c);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static int refuse_opaque(struct walker *L, const struct state *s, const struct sym *v,
			 const char *use)
{
	return walk_err(L, -ENOTSUP, s->prog, s->pc,
		    "%s a value computed at insn %d that is no function of one word of "
		    "seccomp_data scmpc can follow (two words combined, or arithmetic on a "
		    "word with more than %d possible values)", use, v->insn, PIN_MAX);
}

/* Follow conditional jump F from S: both ways when the test is symbolic, one when it is constant;
 * *CONT when S goes on. */
static int jump(struct walker *L, struct state *s, const struct sock_filter *f, bool *cont)
{
	uint16_t op = BPF_OP(f->code);
	uint32_t tgt_t = s->pc + 1 + f->jt, tgt_f = s->pc + 1 + f->jf;
	struct sym lhs = s->a, rhs = BPF_SRC(f->code) == BPF_X ? s->x : sym_const(f->k);
	char wb[32];

	*cont = false;
	sym_resolve(&lhs, s->w);
	sym_resolve(&rhs, s->w);
	if (tgt_t == tgt_f) {
		s->pc = tgt_t;
		*cont = true;
		return 0;
	}
	if (lhs.kind == S_OPAQUE)
		return refuse_opaque(L, s, &lhs, "compares");
	if (rhs.kind == S_OPAQUE)
		return refuse_opaque(L, s, &rhs, "compares");
	if (lhs.kind == S_CONST && rhs.kind == S_CONST) {
		s->pc = insn_jump_taken(op, lhs.c, rhs.c) ? tgt_t : tgt_f;
		*cont = true;
		return 0;
	}
	if (sym_symbolic(&lhs) && sym_symbolic(&rhs)) {
		/* Two values of the call compared: only as constants, one
		 * by one, when one of them has few values. */
		int r = pin_word(L, s, rhs.word);
		if (r == 0)
			r = pin_word(L, s, lhs.word);
		if (r == 0)
			return walk_err(L, -ENOTSUP, s->prog, s->pc,
				    "compares two values read from the call (%s and %s), each "
				    "with more than %d possible values",
				    word_name(lhs.word, wb, sizeof(wb)),
				    rhs.word == lhs.word ? "itself" : "another word", PIN_MAX);
		return r < 0 ? r : 0;
	}
	const struct sym *v = &lhs;
	uint32_t k = rhs.c;
	bool swap = false;
	if (lhs.kind == S_CONST) {
		/* c OP x: equality and jset are symmetric; c > x is !(x >= c)
		 * and c >= x is !(x > c). */
		v = &rhs;
		k = lhs.c;
		if (op == BPF_JGT) {
			op = BPF_JGE;
			swap = true;
		} else if (op == BPF_JGE) {
			op = BPF_JGT;
			swap = true;
		}
	}
	struct split sp;
	if (!sym_split(v, op, k, &sp)) {
		int r = pin_word(L, s, v->word);
		if (r == 0)
			return walk_err(L, -ENOTSUP, s->prog, s->pc,
				    "tests bits of an arithmetic result on %s, which has more than "
				    "%d possible values", word_name(v->word, wb, sizeof(wb)), PIN_MAX);
		return r < 0 ? r : 0;
	}
	return fork_split(L, s, v->word, &sp, swap ? tgt_f : tgt_t, swap ? tgt_t : tgt_f);
}

/* Run S until its path ends or forks; forks go on the stack. */
static int walk(struct walker *L, struct state *s)
{
	for (;;) {
		const struct sock_filter *prog = L->progs[s->prog];
		size_t len = L->lens[s->prog];
		if (s->pc >= len)
			return walk_err(L, -EINVAL, s->prog, s->pc, "runs past the end of the program");
		if (cannot_lower(L, s)) {
			/* the filter's return is not lower: as if it had run */
			bool more;
			int err = stack_next(L, s, &more);
			if (err < 0 || !more)
				return err;
			continue;
		}
		if (++L->steps > MAX_STEPS)
			return walk_err(L, -E2BIG, s->prog, s->pc,
				    "more than %llu instructions walked over all paths (the "
				    "engine's bound); stopped here", (unsigned long long)MAX_STEPS);
		s->len++;
		const struct sock_filter *f = &prog[s->pc];
		uint32_t k = f->k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS: {
			int word = insn_load_word(k);
			if (word < 0)
				return walk_err(L, -EINVAL, s->prog, s->pc,
					    "ld [%u] names no word of seccomp_data", k);
			s->a = sym_word((uint8_t)word);
			break;
		}
		case BPF_LD | BPF_W | BPF_LEN:
			s->a = sym_const(INSN_DATA_LEN);
			break;
		case BPF_LDX | BPF_W | BPF_LEN:
			s->x = sym_const(INSN_DATA_LEN);
			break;
		case BPF_LD | BPF_IMM:
			s->a = sym_const(k);
			break;
		case BPF_LDX | BPF_IMM:
			s->x = sym_const(k);
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (insn_k_fault(f->code, k) != INSN_K_OK)
				return walk_err(L, -EINVAL, s->prog, s->pc,
					    "names M[%u]; scratch memory has %d slots", k, BPF_MEMWORDS);
			if (f->code == (BPF_LD | BPF_MEM))
				s->a = s->mem[k];
			else if (f->code == (BPF_LDX | BPF_MEM))
				s->x = s->mem[k];
			else
				s->mem[k] = f->code == BPF_ST ? s->a : s->x;
			break;
		case BPF_MISC | BPF_TAX:
			s->x = s->a;
			break;
		case BPF_MISC | BPF_TXA:
			s->a = s->x;
			break;
		case BPF_JMP | BPF_JA:
			s->pc += 1 + k;
			continue;
		case BPF_RET | BPF_K:
		case BPF_RET | BPF_A: {
			uint32_t r = k;
			if (f->code == (BPF_RET | BPF_A)) {
				struct sym v = s->a;
				sym_resolve(&v, s->w);
				if (v.kind == S_OPAQUE)
					return refuse_opaque(L, s, &v, "returns");
				if (v.kind != S_CONST) {
					int rc = pin_word(L, s, v.word);
					char wb[32];
					if (rc == 0)
						return walk_err(L, -ENOTSUP, s->prog, s->pc,
							    "returns a value read from %s, which "
							    "has more than %d possible values here",
							    word_name(v.word, wb, sizeof(wb)), PIN_MAX);
					return rc < 0 ? rc : 0;
				}
				r = v.c;
			}
			bool more;
			int err = finish(L, s, r, &more);
			if (err < 0 || !more)
				return err;
			continue;
		}
		default:
			if (BPF_CLASS(f->code) == BPF_JMP) {
				bool cont;
				int err = jump(L, s, f, &cont);
				if (err < 0 || !cont)
					return err;
				continue;
			}
			if (BPF_CLASS(f->code) == BPF_ALU) {
				uint16_t op = BPF_OP(f->code);
				struct sym operand = sym_const(k);
				if (op != BPF_NEG && BPF_SRC(f->code) == BPF_X) {
					operand = s->x;
					sym_resolve(&operand, s->w);
				}
				sym_resolve(&s->a, s->w);
				if (operand.kind != S_CONST) {
					/* A value of the call as operand.  Division
					 * must be followed at once (x == 0 ends the
					 * program); a commutative op on a constant A
					 * applies A to it; anything else is followed
					 * value by value when few, else opaque. */
					bool comm = op == BPF_ADD || op == BPF_MUL || op == BPF_AND ||
						    op == BPF_OR || op == BPF_XOR;
					if (comm && s->a.kind == S_CONST && operand.kind != S_OPAQUE) {
						uint32_t c = s->a.c;
						s->a = operand;
						if (sym_alu(&s->a, op, c) == ALU_OK)
							break;
						s->a = sym_const(c);	/* undo: pin below */
					}
					if (operand.kind != S_OPAQUE) {
						int r = pin_word(L, s, operand.word);
						if (r != 0)
							return r < 0 ? r : 0;
					}
					if (op == BPF_DIV)
						return walk_err(L, -ENOTSUP, s->prog, s->pc,
							    "divides by a value of the call that "
							    "may be 0 (which ends the program) and "
							    "has more than %d possible values",
							    PIN_MAX);
					s->a = (struct sym){ .kind = S_OPAQUE,
							     .insn = (int32_t)s->pc,
							     .prog = s->prog };
					break;
				}
				enum insn_alu_run run = insn_alu_check(f->code, operand.c);
				if (run == INSN_ALU_KILL) {
					/* `div x` by 0 returns 0 from the filter, as the
					 * kernel's converted program does. */
					bool more;
					int err = finish(L, s, 0, &more);
					if (err < 0 || !more)
						return err;
					continue;
				}
				if (run == INSN_ALU_BAD)
					return walk_err(L, -EINVAL, s->prog, s->pc,
						    "opcode 0x%02x with k = %u is not one seccomp "
						    "accepts", f->code, k);
				struct sym before = s->a;
				if (sym_alu(&s->a, op, operand.c) == ALU_PIN) {
					s->a = before;
					int r = pin_word(L, s, before.word);
					if (r != 0)
						return r < 0 ? r : 0;
					s->a = (struct sym){ .kind = S_OPAQUE, .insn = (int32_t)s->pc,
							     .prog = s->prog };
				}
				break;
			}
			return walk_err(L, -EINVAL, s->prog, s->pc,
				    "opcode 0x%02x is not one seccomp accepts", f->code);
		}
		s->pc++;
	}
}

/* L->floor (engine.h): from the last instruction back, since classic BPF
 * jumps only forward.  What ends a filter other than RET k (RET A, a
 * division that may be by 0, a jump past the end) may return anything and
 * counts as the lowest rank. */
static int floors_build(struct walker *L)
{
	size_t total = 0;
	for (size_t i = 0; i < L->n; i++)
		total += L->lens[i];
	L->floor = malloc(total * sizeof(*L->floor));
	L->floor_at = malloc(L->n * sizeof(*L->floor_at));
	if (!L->floor || !L->floor_at)
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	size_t at = 0;
	for (size_t i = 0; i < L->n; i++) {
		const struct sock_filter *prog = L->progs[i];
		size_t len = L->lens[i];
		int32_t *fl = &L->floor[at];
		L->floor_at[i] = at;
		at += len;
		for (size_t pc = len; pc-- > 0;) {
			const struct sock_filter *f = &prog[pc];
			uint64_t next = pc + 1, t = next + f->jt, e = next + f->jf;
			int32_t v;
#define FLOOR_AT(x) ((x) < len ? fl[x] : INT32_MIN)
			switch (BPF_CLASS(f->code)) {
			case BPF_RET:
				v = f->code == (BPF_RET | BPF_K) ? act_rank(f->k) : INT32_MIN;
				break;
			case BPF_JMP:
				if (BPF_OP(f->code) == BPF_JA) {
					v = FLOOR_AT(next + f->k);
					break;
				}
				v = FLOOR_AT(t) < FLOOR_AT(e) ? FLOOR_AT(t) : FLOOR_AT(e);
				break;
			case BPF_ALU:
				v = BPF_OP(f->code) == BPF_DIV || BPF_OP(f->code) == BPF_MOD
					    ? INT32_MIN : FLOOR_AT(next);
				break;
			default:
				v = FLOOR_AT(next);
				break;
			}
#undef FLOOR_AT
			fl[pc] = v;
		}
	}
	return 0;
}

int walk_paths(struct walker *L)
{
	struct state s0;
	if ((L->mode == WALK_STACK || L->mode == WALK_STACK_THEN) && !L->floor) {
		int err = floors_build(L);
		if (err < 0 ||
		    (err = stack_kill_new(L, L->n - (L->mode == WALK_STACK_THEN ? 1 : 0))) < 0)
			return err;
	}
	memset(&s0, 0, sizeof(s0));
	/* the newest filter runs first (of the stack, STACK_THEN's last
	 * program after it) */
	s0.prog = (uint16_t)(L->n - (L->mode == WALK_STACK_THEN ? 2 : 1));
	s0.acc = SCMPC_ACT_ALLOW;
	s0.acc_insn = -1;
	s0.cut = true;
	s0.acc_prog = s0.prog;
	s0.a = s0.x = sym_const(0);
	for (size_t i = 0; i < BPF_MEMWORDS; i++)
		s0.mem[i] = sym_const(0);
	for (size_t i = 0; i < NWORDS; i++)
		s0.w[i] = L->start ? L->start[i] : wcon_all;
	for (size_t i = 0; i < WALK_MAX_EACH; i++) {
		s0.each[i] = SCMPC_ACT_ALLOW;	/* STACK_THEN: a filter not run */
		s0.each_insn[i] = -1;
	}
	int err = push(L, &s0);
	while (!err && L->nstk) {
		struct state s = L->stk[--L->nstk];
		err = walk(L, &s);
	}
	return err;
}

void walker_fini(struct walker *L)
{
	free(L->paths);
	free(L->stk);
	free(L->each);
	free(L->each_insn);
	free(L->floor);
	free(L->floor_at);
	stack_kill_free(L->kill);
	wcon_arena_free(&L->ar);
	L->paths = NULL;
	L->stk = NULL;
	L->each = NULL;
	L->each_insn = NULL;
	L->floor = NULL;
	L->floor_at = NULL;
	L->kill = NULL;
	L->npaths = L->nstk = 0;
}

void words_to_data(const uint32_t w[NWORDS], struct seccomp_data *sd)
{
	/* As the kernel of the call's ABI lays seccomp_data out (and
	 * scmpc_emulate() reads it). */
	insn_words_data(w, audit_big_endian(w[W_ARCH]), sd);
}
