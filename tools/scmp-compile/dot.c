/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile inspect --dot, dump --dot: a program as a Graphviz graph.
 *
 * A listing makes the reader rebuild the dispatch in their head; the graph
 * shows it: the ABI test at the top, the search (or libseccomp's chain)
 * over syscall numbers, the argument tests below it, and the actions as
 * leaves.  A node is a basic block, labelled by what its jump decides in
 * terms of seccomp_data ("nr >= 224 gettid", "arch == x86_64, x32",
 * "arg0.lo == 8"), not by the instruction, which `-f text` already shows.
 * What the accumulator holds is followed through the program (jumps only
 * go forward, so one pass in program order sees every predecessor first);
 * where the paths into a block disagree, its test says "A".
 *
 * A return is drawn once per edge into it, as a leaf: scmpc's programs
 * share one `return ALLOW` among a hundred branches of the search, and one
 * node would pull all of them into a knot, where leaves keep the tree a
 * tree.  Each leaf says the range of numbers that reaches it along its
 * edge, from the tests on the way: that is where the ranges of the
 * dispatch can be read.
 *
 * With --hot FILE (the workload `compile --hot` reads), each call of the
 * workload is run through the program by the library's emulator with its
 * arguments 0, and the edges it takes are drawn red, thicker with their
 * share of the calls and labelled with their count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* What the accumulator holds. */
enum a_kind { A_UNKNOWN, A_NR, A_ARCH, A_ARG, A_IP };

struct state {
	bool reached;
	enum a_kind a;
	unsigned arg;			/* A_ARG: the argument */
	unsigned word;			/* A_ARG: the byte offset in it, 0 or 4 */
	uint32_t mask;			/* A &= mask since the load; all ones: none */
	bool audit_known;		/* the ABI test on the way was taken */
	uint32_t audit;
	uint32_t lo, hi;		/* the syscall numbers that reach here */
};

struct block {
	size_t start, end;		/* instructions start..end */
	struct state in;
	struct state out[2];		/* 0: the jump taken (or the only way on),
					   1: not taken */
	size_t to[2];			/* SIZE_MAX: none */
	uint64_t hot, hot_to[2];	/* workload calls through it, and its edges */
};

struct graph {
	const struct sock_filter *insns;
	size_t len;
	struct block *b;
	size_t nb;
	size_t *block_of;		/* instruction -> the block that holds it */
	bool big_endian_default;	/* when the ABI is not known on the way */
	bool endian_known;
	uint64_t hot_max, hot_calls;
};

static bool is_ret(const struct sock_filter *f)
{
	return BPF_CLASS(f->code) == BPF_RET;
}

static bool is_jmp(const struct sock_filter *f)
{
	return BPF_CLASS(f->code) == BPF_JMP;
}

static bool is_cond(const struct sock_filter *f)
{
	return is_jmp(f) && BPF_OP(f->code) != BPF_JA;
}

static void state_full(struct state *s)
{
	memset(s, 0, sizeof(*s));
	s->reached = true;
	s->a = A_UNKNOWN;
	s->mask = UINT32_MAX;
	s->lo = 0;
	s->hi = UINT32_MAX;
}

/* IN joined with S: what is true on every path. */
static void state_meet(struct state *in, const struct state *s)
{
	if (!s->reached)
		return;
	if (!in->reached) {
		*in = *s;
		return;
	}
	if (in->a != s->a || in->arg != s->arg || in->word != s->word || in->mask != s->mask)
		in->a = A_UNKNOWN;
	if (!s->audit_known || !in->audit_known || s->audit != in->audit)
		in->audit_known = false;
	if (s->lo < in->lo)
		in->lo = s->lo;
	if (s->hi > in->hi)
		in->hi = s->hi;
}

/* An instruction that is not a jump or a return, applied to S. */
static void step(struct state *s, const struct sock_filter *f)
{
	if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
		s->mask = UINT32_MAX;
		s->a = A_UNKNOWN;
		if (f->k == 0) {
			s->a = A_NR;
		} else if (f->k == 4) {
			s->a = A_ARCH;
		} else if (f->k == 8 || f->k == 12) {
			s->a = A_IP;
		} else if (f->k >= 16 && f->k < 64 && f->k % 4 == 0) {
			s->a = A_ARG;
			s->arg = (f->k - 16) / 8;
			s->word = (f->k - 16) % 8;
		}
	} else if (f->code == (BPF_ALU | BPF_AND | BPF_K) && s->a != A_UNKNOWN) {
		s->mask &= f->k;
	} else if (BPF_CLASS(f->code) == BPF_LD || BPF_CLASS(f->code) == BPF_ALU ||
		   f->code == (BPF_MISC | BPF_TXA)) {
		s->a = A_UNKNOWN;
	}
}

/* What a conditional jump on K tells about the numbers on each way. */
static void narrow(const struct state *s, const struct sock_filter *f, struct state out[2])
{
	out[0] = out[1] = *s;
	if (s->a == A_ARCH && s->mask == UINT32_MAX && BPF_OP(f->code) == BPF_JEQ &&
	    BPF_SRC(f->code) == BPF_K) {
		out[0].audit_known = true;
		out[0].audit = f->k;
	}
	if (s->a != A_NR || s->mask != UINT32_MAX || BPF_SRC(f->code) != BPF_K)
		return;
	uint32_t k = f->k;
	switch (BPF_OP(f->code)) {
	case BPF_JEQ:
		if (k < s->lo || k > s->hi) {
			out[0].reached = false;
		} else {
			out[0].lo = out[0].hi = k;
			if (k == s->lo && k < s->hi)
				out[1].lo = k + 1;
			else if (k == s->hi && k > s->lo)
				out[1].hi = k - 1;
		}
		break;
	case BPF_JGT:
		if (k >= s->hi)
			out[0].reached = false;
		else if (k + 1 > out[0].lo)
			out[0].lo = k + 1;
		if (k < out[1].hi)
			out[1].hi = k;
		break;
	case BPF_JGE:
		if (k > s->hi)
			out[0].reached = false;
		else if (k > out[0].lo)
			out[0].lo = k;
		if (k == 0)
			out[1].reached = false;
		else if (k - 1 < out[1].hi)
			out[1].hi = k - 1;
		break;
	default:
		break;
	}
}

static void graph_free(struct graph *g)
{
	free(g->b);
	free(g->block_of);
}

static int graph_build(struct graph *g, const struct sock_filter *insns, size_t len)
{
	memset(g, 0, sizeof(*g));
	if (!len)
		return -EINVAL;	/* no program the kernel takes is empty */
	g->insns = insns;
	g->len = len;
	bool *leader = calloc(len + 1, sizeof(*leader));
	g->b = calloc(len ? len : 1, sizeof(*g->b));
	g->block_of = calloc(len ? len : 1, sizeof(*g->block_of));
	if (!leader || !g->b || !g->block_of) {
		free(leader);
		graph_free(g);
		return -ENOMEM;
	}
	/* The programs come verified: every jump lands inside. */
	leader[0] = true;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		if (is_jmp(f) && BPF_OP(f->code) == BPF_JA) {
			leader[pc + 1 + f->k] = true;
		} else if (is_jmp(f)) {
			leader[pc + 1 + f->jt] = true;
			leader[pc + 1 + f->jf] = true;
		}
		if (is_jmp(f) || is_ret(f))
			leader[pc + 1] = true;
	}
	for (size_t pc = 0; pc < len; pc++) {
		if (leader[pc]) {
			g->b[g->nb].start = pc;
			g->nb++;
		}
		g->b[g->nb - 1].end = pc;
		g->block_of[pc] = g->nb - 1;
	}
	free(leader);

	/* Forward, in program order: each block's predecessors come first. */
	state_full(&g->b[0].in);
	for (size_t i = 0; i < g->nb; i++) {
		struct block *b = &g->b[i];
		struct state s = b->in;
		b->to[0] = b->to[1] = SIZE_MAX;
		for (size_t pc = b->start; pc < b->end; pc++)
			step(&s, &insns[pc]);
		const struct sock_filter *f = &insns[b->end];
		b->out[0] = b->out[1] = s;
		b->out[1].reached = false;
		if (is_ret(f))
			continue;
		if (is_cond(f)) {
			narrow(&s, f, b->out);
			b->to[0] = g->block_of[b->end + 1 + f->jt];
			b->to[1] = g->block_of[b->end + 1 + f->jf];
		} else if (is_jmp(f)) {
			b->to[0] = g->block_of[b->end + 1 + f->k];
		} else {
			step(&b->out[0], f);
			if (b->end + 1 < len)
				b->to[0] = g->block_of[b->end + 1];
		}
		for (int w = 0; w < 2; w++)
			if (b->to[w] != SIZE_MAX && b->out[w].reached)
				state_meet(&g->b[b->to[w]].in, &b->out[w]);
	}
	/* Argument words: the ABI's byte order, from the ABI test on the way,
	 * or else from the ABIs the program serves when they agree. */
	enum scmpc_arch found[SCMPC_ARCH_COUNT];
	int n = scmpc_prog_abis(insns, len, found, SCMPC_ARCH_COUNT);
	g->endian_known = n > 0;
	for (int i = 0; i < n && i < SCMPC_ARCH_COUNT; i++) {
		bool be = scmpc_arch_big_endian(found[i]);
		if (i == 0)
			g->big_endian_default = be;
		else if (be != g->big_endian_default)
			g->endian_known = false;
	}
	return 0;
}

/* The ABIs whose AUDIT_ARCH is AUDIT ("x86_64, x32"), and the first. */
static enum scmpc_arch audit_names(uint32_t audit, char *buf, size_t len)
{
	enum scmpc_arch first = SCMPC_ARCH_NONE;
	size_t k = 0;
	buf[0] = '\0';
	for (int a = 1; a <= SCMPC_ARCH_COUNT && k < len; a++) {
		if (scmpc_arch_audit((enum scmpc_arch)a) != audit)
			continue;
		if (first == SCMPC_ARCH_NONE)
			first = (enum scmpc_arch)a;
		k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
				      scmpc_arch_name((enum scmpc_arch)a));
	}
	return first;
}

/* What A holds, as the label says it: "nr", "arch", "arg2.hi", "A". */
static void a_name(const struct graph *g, const struct state *s, char *buf, size_t len)
{
	switch (s->a) {
	case A_NR:
		snprintf(buf, len, "nr");
		break;
	case A_ARCH:
		snprintf(buf, len, "arch");
		break;
	case A_IP:
		snprintf(buf, len, "ip");
		break;
	case A_ARG: {
		bool be = g->big_endian_default;
		bool known = g->endian_known;
		if (s->audit_known) {
			char names[128];
			enum scmpc_arch a = audit_names(s->audit, names, sizeof(names));
			if (a != SCMPC_ARCH_NONE) {
				be = scmpc_arch_big_endian(a);
				known = true;
			}
		}
		if (known)
			snprintf(buf, len, "arg%u.%s", s->arg, (s->word == 0) != be ? "lo" : "hi");
		else
			snprintf(buf, len, "arg%u+%u", s->arg, s->word);
		break;
	}
	default:
		snprintf(buf, len, "A");
		break;
	}
	if (s->a != A_UNKNOWN && s->mask != UINT32_MAX) {
		size_t k = strlen(buf);
		snprintf(buf + k, len - k, " & 0x%x", s->mask);
	}
}

/* "59 (execve)" for the ABI of AUDIT, or the number alone. */
static void nr_label(uint32_t audit, uint32_t nr, char *buf, size_t len)
{
	char names[128], name[64], num[24];
	enum scmpc_arch a = audit_names(audit, names, sizeof(names));
	fmt_u64(nr, num, sizeof(num));
	if (a != SCMPC_ARCH_NONE && scmpc_syscall_name(a, nr, name, sizeof(name)))
		snprintf(buf, len, "%s (%s)", num, name);
	else
		snprintf(buf, len, "%s", num);
}

/* A constant as the label says it: a call's name for nr, the ABIs for
 * arch. */
static void k_name(const struct state *s, uint32_t k, char *buf, size_t len)
{
	char num[24];
	fmt_u64(k, num, sizeof(num));
	if (s->a == A_ARCH && s->mask == UINT32_MAX) {
		char names[128];
		if (audit_names(k, names, sizeof(names)) != SCMPC_ARCH_NONE) {
			snprintf(buf, len, "%s", names);
			return;
		}
	}
	if (s->a == A_NR && s->mask == UINT32_MAX && s->audit_known) {
		nr_label(s->audit, k, buf, len);
		return;
	}
	snprintf(buf, len, "%s", num);
}

/* The numbers S lets through, "nr 17-18" ("" when not narrowed). */
static void range_text(const struct state *s, char *buf, size_t len)
{
	char a[24], b[24];
	buf[0] = '\0';
	if (s->lo == 0 && s->hi == UINT32_MAX)
		return;
	if (s->lo == s->hi && s->audit_known) {
		char label[96];
		nr_label(s->audit, s->lo, label, sizeof(label));
		snprintf(buf, len, "nr %s", label);
		return;
	}
	if (s->lo == s->hi)
		snprintf(buf, len, "nr %s", fmt_u64(s->lo, a, sizeof(a)));
	else if (s->hi == UINT32_MAX)
		snprintf(buf, len, "nr >= %s", fmt_u64(s->lo, a, sizeof(a)));
	else
		snprintf(buf, len, "nr %s-%s", fmt_u64(s->lo, a, sizeof(a)),
			 fmt_u64(s->hi, b, sizeof(b)));
}

/* TEXT as a DOT string's contents. */
static void put_escaped(FILE *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

/* A return's colour by its action: allowed green, logged blue, refused
 * with an error yellow, trapped or traced orange, killed red. */
static const char *action_colour(uint32_t act)
{
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_ALLOW: return "#b7e4b0";
	case SCMPC_ACT_LOG: return "#b9d7f0";
	case SCMPC_ACT_ERRNO(0): return "#fbe7a1";
	case SCMPC_ACT_TRAP: case SCMPC_ACT_TRACE(0): case SCMPC_ACT_USER_NOTIF: return "#f9c891";
	default: return "#f4a6a0";
	}
}

static bool pure_ret(const struct graph *g, size_t i)
{
	return g->b[i].start == g->b[i].end && is_ret(&g->insns[g->b[i].start]);
}

/* The label of block I's node: its instructions other than plain loads of
 * seccomp_data (the test names the field) and its test. */
static void block_label(const struct graph *g, size_t i, enum scmpc_arch text_arch, char *buf,
			size_t len)
{
	const struct block *b = &g->b[i];
	struct state s = b->in;
	size_t k = (size_t)snprintf(buf, len, "%zu", b->start);
	if (b->end != b->start)
		k += (size_t)snprintf(buf + k, len - k, "-%zu", b->end);
	k += (size_t)snprintf(buf + k, len - k, ":");
	for (size_t pc = b->start; pc <= b->end && k < len; pc++) {
		const struct sock_filter *f = &g->insns[pc];
		char line[160], an[48], kn[128];
		if (is_cond(f)) {
			static const char *const ops[] = { [BPF_JEQ >> 4] = "==",
							   [BPF_JGT >> 4] = ">",
							   [BPF_JGE >> 4] = ">=",
							   [BPF_JSET >> 4] = "&" };
			a_name(g, &s, an, sizeof(an));
			if (BPF_SRC(f->code) == BPF_X)
				snprintf(kn, sizeof(kn), "X");
			else
				k_name(&s, f->k, kn, sizeof(kn));
			unsigned op = BPF_OP(f->code) >> 4;
			snprintf(line, sizeof(line), "%s %s %s", an,
				 op < 5 && ops[op] ? ops[op] : "?", kn);
		} else if (f->code == (BPF_LD | BPF_W | BPF_ABS) && f->k < 64 && pc < b->end) {
			step(&s, f);
			continue;
		} else if (is_ret(f) && BPF_RVAL(f->code) == BPF_K) {
			action_name(f->k, line, sizeof(line));
		} else if (is_jmp(f)) {
			/* the edge shows where; the line keeps the block from
			 * looking empty */
			snprintf(line, sizeof(line), "goto %zu", pc + 1 + f->k);
		} else if (insn_text(g->insns, g->len, pc, text_arch, line, sizeof(line)) < 0) {
			snprintf(line, sizeof(line), "code 0x%02x k 0x%x", f->code, f->k);
		}
		if (!is_cond(f))
			step(&s, f);
		k += (size_t)snprintf(buf + k, len - k, "\n%s", line);
	}
}

static void edge_attrs(FILE *out, const struct graph *g, const struct block *b, int w)
{
	const struct sock_filter *f = &g->insns[b->end];
	bool cond = is_cond(f);
	bool both = cond && b->to[0] == b->to[1];
	fprintf(out, " [");
	if (cond && !both)
		fprintf(out, "label=\"%s\"%s", w == 0 ? "yes" : "no", w ? ", style=dashed" : "");
	uint64_t n = b->hot_to[w] + (both ? b->hot_to[1 - w] : 0);
	if (n) {
		/* thicker with the share of the calls, on a log scale: a path
		 * of 10 calls beside one of 100,000 still shows */
		unsigned bits = 0, max_bits = 0;
		for (uint64_t v = n; v; v >>= 1)
			bits++;
		for (uint64_t v = g->hot_max; v; v >>= 1)
			max_bits++;
		fprintf(out, "%scolor=\"#d62728\", fontcolor=\"#d62728\", penwidth=%.1f, "
			     "xlabel=\"%" PRIu64 "\"",
			cond && !both ? ", " : "", 1.5 + 3.5 * bits / (max_bits ? max_bits : 1), n);
	}
	fprintf(out, "]");
}

static void emit(FILE *out, const struct graph *g, const char *prefix, enum scmpc_arch text_arch)
{
	char label[1024];
	for (size_t i = 0; i < g->nb; i++) {
		const struct block *b = &g->b[i];
		if (!b->in.reached || (pure_ret(g, i) && i != 0))
			continue;
		block_label(g, i, text_arch, label, sizeof(label));
		fprintf(out, "  %sb%zu [label=\"", prefix, i);
		put_escaped(out, label);
		fprintf(out, "\"");
		if (pure_ret(g, i))
			fprintf(out, ", style=\"rounded,filled\", fillcolor=\"%s\"",
				action_colour(g->insns[b->start].k));
		if (b->hot)
			fprintf(out, ", color=\"#d62728\", penwidth=2");
		fprintf(out, "];\n");
		for (int w = 0; w < 2; w++) {
			size_t t = b->to[w];
			if (t == SIZE_MAX || !b->out[w].reached || (w == 1 && t == b->to[0]))
				continue;
			if (!pure_ret(g, t)) {
				fprintf(out, "  %sb%zu -> %sb%zu", prefix, i, prefix, t);
				edge_attrs(out, g, b, w);
				fprintf(out, ";\n");
				continue;
			}
			/* A return, drawn as a leaf of this edge with the numbers
			 * that reach it along it. */
			const struct sock_filter *r = &g->insns[g->b[t].start];
			char act[64], range[160];
			if (BPF_RVAL(r->code) == BPF_K)
				action_name(r->k, act, sizeof(act));
			else
				snprintf(act, sizeof(act), "return A");
			struct state s = b->out[w];
			if (w == 0 && is_cond(&g->insns[b->end]) && b->to[1] == t)
				state_meet(&s, &b->out[1]);
			range_text(&s, range, sizeof(range));
			fprintf(out, "  %sr%zu_%d [label=\"", prefix, i, w);
			put_escaped(out, act);
			if (*range) {
				fputs("\\n", out);
				put_escaped(out, range);
			}
			fprintf(out, "\", style=\"rounded,filled\", fillcolor=\"%s\"%s];\n",
				BPF_RVAL(r->code) == BPF_K ? action_colour(r->k) : "#dddddd",
				b->hot_to[w] || (w == 0 && b->to[1] == t && b->hot_to[1])
					? ", color=\"#d62728\", penwidth=2"
					: "");
			fprintf(out, "  %sb%zu -> %sr%zu_%d", prefix, i, prefix, i, w);
			edge_attrs(out, g, b, w);
			fprintf(out, ";\n");
		}
	}
}

/* Each call of HOT run through G (arguments 0): the blocks and edges it
 * takes.  Calls of no ABI in the workload are HOT_ARCH's. */
static int trace_hot(struct graph *g, const scmpc_workload *hot, enum scmpc_arch hot_arch)
{
	size_t *path = malloc((g->len ? g->len : 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < scmpc_workload_size(hot); i++) {
		const char *name;
		enum scmpc_arch a;
		uint64_t count;
		if (scmpc_workload_get(hot, i, &name, &a, &count) < 0)
			continue;
		if (a == SCMPC_ARCH_NONE)
			a = hot_arch;
		int64_t nr = scmpc_syscall_resolve(a, name);
		if (nr < 0 || !count)
			continue;
		struct seccomp_data sd;
		uint32_t ret;
		size_t np = 0;
		make_data(&sd, a, (uint32_t)nr, NULL);
		if (scmpc_emulate_trace(g->insns, g->len, &sd, &ret, path, g->len, &np) < 0)
			continue;
		g->hot_calls += count;
		for (size_t k = 0; k < np; k++) {
			struct block *b = &g->b[g->block_of[path[k]]];
			if (path[k] != b->end)
				continue;
			b->hot += count;
			if (k + 1 == np)
				break;
			size_t next = g->block_of[path[k + 1]];
			int w = b->to[0] == next ? 0 : 1;
			const struct sock_filter *f = &g->insns[b->end];
			/* a jump whose two ways meet: the way the emulator took */
			if (is_cond(f) && b->to[0] == b->to[1])
				w = 0;
			b->hot_to[w] += count;
			if (b->hot_to[w] > g->hot_max)
				g->hot_max = b->hot_to[w];
		}
	}
	free(path);
	return 0;
}

int write_dot(FILE *out, const struct dot_prog *progs, size_t n, const scmpc_workload *hot,
	      enum scmpc_arch hot_arch, const char *hot_name)
{
	struct graph *gs = calloc(n ? n : 1, sizeof(*gs));
	int rc = 0;
	size_t built = 0;
	if (!gs)
		return -ENOMEM;
	for (; built < n && !rc; built++) {
		rc = graph_build(&gs[built], progs[built].insns, progs[built].len);
		if (!rc && hot)
			rc = trace_hot(&gs[built], hot, hot_arch);
	}
	if (rc)
		goto out;
	fprintf(out, "digraph scmpc {\n"
		     "  graph [fontname=\"Helvetica\", labelloc=t, nodesep=0.25, ranksep=0.3, "
		     "label=\"");
	if (n == 1) {
		char head[256];
		snprintf(head, sizeof(head), "%s: %zu instructions", progs[0].name, progs[0].len);
		put_escaped(out, head);
	} else {
		char head[256];
		snprintf(head, sizeof(head), "%zu filters; the kernel runs every one, newest first", n);
		put_escaped(out, head);
	}
	if (hot) {
		char note[512];
		snprintf(note, sizeof(note),
			 "\nred: the paths of %" PRIu64 " calls of %s (arguments 0), with their counts",
			 gs[0].hot_calls, hot_name);
		put_escaped(out, note);
	}
	fprintf(out, "\"];\n"
		     "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
		     "  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6];\n");
	for (size_t i = 0; i < n; i++) {
		char prefix[24] = "";
		enum scmpc_arch text_arch = native_arch();
		struct abi_list abis = { .n = 0 };
		abi_add_from_prog(&abis, progs[i].insns, progs[i].len);
		if (abis.n)
			text_arch = abis.a[0];
		if (n > 1) {
			snprintf(prefix, sizeof(prefix), "f%zu_", i);
			fprintf(out, "  subgraph cluster_%zu {\n  label=\"", i);
			char head[256];
			snprintf(head, sizeof(head), "%s: %zu instructions", progs[i].name,
				 progs[i].len);
			put_escaped(out, head);
			fprintf(out, "\";\n");
		}
		emit(out, &gs[i], prefix, text_arch);
		if (n > 1)
			fprintf(out, "  }\n");
	}
	fprintf(out, "}\n");
out:
	for (size_t i = 0; i < built; i++)
		graph_free(&gs[i]);
	free(gs);
	return rc;
}

int dot_text(const struct dot_prog *progs, size_t n, const scmpc_workload *hot,
	     enum scmpc_arch hot_arch, const char *hot_name, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	FILE *f = open_memstream(buf, len);
	if (!f)
		return -ENOMEM;
	int rc = write_dot(f, progs, n, hot, hot_arch, hot_name);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return rc;
}

scmpc_workload *read_workload_file(const char *path, enum scmpc_arch arch, bool quiet)
{
	const char *name = display_name(path);
	char *text = NULL;
	size_t len;
	scmpc_workload *w = NULL;
	scmpc_diag *d = NULL;

	if (read_input(path, &text, &len))
		return NULL;
	if (!(w = scmpc_workload_new()) || !(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		scmpc_workload_free(w);
		w = NULL;
		goto out;
	}
	SCMPC_OPTS(scmpc_workload_opts, wo, .arch = arch);
	int64_t rc = scmpc_workload_parse(w, text, len, &wo, d);
	report_warnings(name, d, quiet);
	if (rc < 0) {
		report_diag(name, d, (int)rc);
		scmpc_workload_free(w);
		w = NULL;
	}
out:
	free(text);
	scmpc_diag_free(d);
	return w;
}
