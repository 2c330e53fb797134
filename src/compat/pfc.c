/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * seccomp_export_pfc(): the context as libseccomp's "pseudo filter code".
 *
 * The text follows libseccomp 2.5.4's layout (arch blocks, syscall blocks
 * with their priority, comparisons of 32-bit words, the default and the
 * bad-arch actions), because people and test suites compare it with what
 * libseccomp writes.  It is written from the rules, not from the program:
 * scmpc lays its BPF out as range trees that libseccomp's layout has no
 * words for, and the rules are what a reader wants to check.  So where
 * libseccomp prints the tree it merged a syscall's rules into, this file
 * prints each rule as its own chain, in the order they were added.
 *
 * The text is built in memory and written at the end, so that a failed
 * allocation leaves nothing half-written on the caller's fd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "compat.h"

static void indent(struct textbuf *t, unsigned lvl)
{
	textbuf_put(t, "%*s", (int)(2 * lvl), "");
}

/* libseccomp's spellings: KILL is the thread kill, and an action it has no
 * name for (USER_NOTIF among them in 2.5.4) is printed as a number. */
static void put_action(struct textbuf *t, unsigned lvl, uint32_t act)
{
	indent(t, lvl);
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS: textbuf_put(t, "action KILL_PROCESS;\n"); break;
	case SCMPC_ACT_KILL_THREAD: textbuf_put(t, "action KILL;\n"); break;
	case SCMPC_ACT_TRAP:
		/* data only under a header with SCMP_ACT_TRAPX; libseccomp's
		 * spelling for it is not known here, scmpc's is used */
		if (act & 0xffffU)
			textbuf_put(t, "action TRAP(%u);\n", act & 0xffffU);
		else
			textbuf_put(t, "action TRAP;\n");
		break;
	case SCMPC_ACT_ERRNO(0): textbuf_put(t, "action ERRNO(%u);\n", act & 0xffffU); break;
	case SCMPC_ACT_TRACE(0): textbuf_put(t, "action TRACE(%u);\n", act & 0xffffU); break;
	case SCMPC_ACT_LOG: textbuf_put(t, "action LOG;\n"); break;
	case SCMPC_ACT_ALLOW: textbuf_put(t, "action ALLOW;\n"); break;
	default: textbuf_put(t, "action 0x%x;\n", act); break;
	}
}

/* ------------------------------------------------------ comparisons */

/* How one ABI compares arguments: whole 32-bit words, or a 64-bit value
 * as its high and low words. */
struct abi {
	enum scmpc_arch arch;
	bool args32;
};

/* A rule's conditions as the ABI compares them.  On a 32-bit ABI only the
 * low word of each constant is compared (scmpc's libseccomp merge does
 * the same), and a masked compare whose mask keeps no compared bit tests
 * nothing: libseccomp leaves it out, and with it a rule's last condition
 * can go, making the rule unconditional. */
static unsigned effective_conds(const struct abi *abi, const struct compat_rule *r,
				struct scmpc_cond out[6])
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->nconds && i < 6; i++) {
		struct scmpc_cond c = r->conds[i];
		if (abi->args32 || (c.flags & SCMPC_COND_32BIT)) {
			c.value &= UINT32_MAX;
			c.value2 &= UINT32_MAX;
		}
		if (c.op == SCMPC_OP_MASKED_EQ && !c.value)
			continue;
		out[n++] = c;
	}
	return n;
}

/* One compared word: "$a1 > 5", "$a3.lo32 & 0x0000000f == 3". */
static void put_test(struct textbuf *t, unsigned lvl, const struct abi *abi,
		     const struct scmpc_cond *c, bool high, const char *op, uint64_t v)
{
	uint32_t word = (uint32_t)(high ? v >> 32 : v);
	indent(t, lvl);
	textbuf_put(t, "if ($a%u", c->arg);
	if (!abi->args32)
		textbuf_put(t, high ? ".hi32" : ".lo32");
	if (c->op == SCMPC_OP_MASKED_EQ) {
		uint32_t mask = (uint32_t)(high ? c->value >> 32 : c->value);
		textbuf_put(t, " & 0x%.8x == %u)\n", mask, (uint32_t)(high ? c->value2 >> 32 : c->value2) & mask);
	} else {
		textbuf_put(t, " %s %u)\n", op, word);
	}
}

static void put_else(struct textbuf *t, unsigned lvl)
{
	indent(t, lvl);
	textbuf_put(t, "else\n");
}

/* Conditions K.. of a rule as nested tests at LVL, the action innermost.
 * "!=", "<" and "<=" have no comparison of their own in libseccomp's
 * text: they are "==", ">=" and ">" with the rule going on when the test
 * fails.  A 64-bit order compares the high words first ("greater" decides
 * at once, "equal" hands over to the low words), so the rest of the rule
 * appears under two branches. */
static void put_chain(struct textbuf *t, unsigned lvl, const struct abi *abi,
		      const struct scmpc_cond *cs, unsigned k, unsigned n, uint32_t act)
{
	if (k == n) {
		put_action(t, lvl, act);
		return;
	}
	const struct scmpc_cond *c = &cs[k];
	uint64_t v = c->value;
	bool one_word = abi->args32 || (c->flags & SCMPC_COND_32BIT);
	const char *lo_op;
	bool negated;
	switch (c->op) {
	case SCMPC_OP_NE: lo_op = "=="; negated = true; break;
	case SCMPC_OP_LT: lo_op = ">="; negated = true; break;
	case SCMPC_OP_LE: lo_op = ">"; negated = true; break;
	case SCMPC_OP_GT: lo_op = ">"; negated = false; break;
	case SCMPC_OP_GE: lo_op = ">="; negated = false; break;
	default: lo_op = "=="; negated = false; break;	/* EQ, MASKED_EQ */
	}

	if (one_word) {
		put_test(t, lvl, abi, c, false, lo_op, v);
		if (negated)
			put_else(t, lvl);
		put_chain(t, lvl + 1, abi, cs, k + 1, n, act);
		return;
	}

	switch (c->op) {
	case SCMPC_OP_EQ:
	case SCMPC_OP_MASKED_EQ:
		put_test(t, lvl, abi, c, true, "==", v);
		put_test(t, lvl + 1, abi, c, false, "==", v);
		put_chain(t, lvl + 2, abi, cs, k + 1, n, act);
		break;
	case SCMPC_OP_NE:
		put_test(t, lvl, abi, c, true, "==", v);
		put_test(t, lvl + 1, abi, c, false, "==", v);
		put_else(t, lvl + 1);
		put_chain(t, lvl + 2, abi, cs, k + 1, n, act);
		put_else(t, lvl);
		put_chain(t, lvl + 1, abi, cs, k + 1, n, act);
		break;
	case SCMPC_OP_GT:
	case SCMPC_OP_GE:
		put_test(t, lvl, abi, c, true, ">", v);
		put_chain(t, lvl + 1, abi, cs, k + 1, n, act);
		put_else(t, lvl);
		put_test(t, lvl + 1, abi, c, true, "==", v);
		put_test(t, lvl + 2, abi, c, false, lo_op, v);
		put_chain(t, lvl + 3, abi, cs, k + 1, n, act);
		break;
	default:	/* LT, LE */
		put_test(t, lvl, abi, c, true, ">", v);
		put_else(t, lvl);
		put_test(t, lvl + 1, abi, c, true, "==", v);
		put_test(t, lvl + 2, abi, c, false, lo_op, v);
		put_else(t, lvl + 2);
		put_chain(t, lvl + 3, abi, cs, k + 1, n, act);
		put_else(t, lvl + 1);
		put_chain(t, lvl + 2, abi, cs, k + 1, n, act);
		break;
	}
}

/* ---------------------------------------------------------- syscalls */

/* The rules of one syscall: a run of the filter's rules sorted by number,
 * in the order they were added. */
struct group {
	uint32_t nr;
	const size_t *idx;
	size_t n;
	unsigned priority;
};

/* Sorts rule indices by syscall number, keeping the order of addition
 * within one number (qsort is not stable, so the index is the tie-break). */
struct keyed {
	uint32_t nr;
	size_t i;
};

static int keyed_cmp(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* One comparison of a 32-bit word as libseccomp keeps it in its tree, and
 * the branch on which the rule goes on from it. */
struct node {
	unsigned arg;
	bool high;
	enum scmpc_op op;	/* EQ, GT, GE or MASKED_EQ */
	uint32_t mask, datum;
	bool on_true;
};

static unsigned add_node(struct node *out, const struct scmpc_cond *c, bool high,
			 enum scmpc_op op, bool on_true)
{
	uint64_t mask = c->op == SCMPC_OP_MASKED_EQ ? c->value : UINT64_MAX;
	uint64_t datum = c->op == SCMPC_OP_MASKED_EQ ? c->value2 : c->value;
	uint32_t m = (uint32_t)(high ? mask >> 32 : mask);
	*out = (struct node){ .arg = c->arg, .high = high, .op = op, .mask = m,
			      .datum = (uint32_t)(high ? datum >> 32 : datum) & m,
			      .on_true = on_true };
	return 1;
}

/* A rule's path through libseccomp's tree.  Where a 64-bit order reaches
 * the rest of the rule from two comparisons, the path follows the one
 * through the low word, which is the one other rules can share. */
static unsigned rule_nodes(const struct abi *abi, const struct scmpc_cond *cs, unsigned n,
			   struct node out[18])
{
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct scmpc_cond *c = &cs[i];
		bool one_word = abi->args32 || (c->flags & SCMPC_COND_32BIT);
		enum scmpc_op lo_op;
		bool lo_true;
		switch (c->op) {
		case SCMPC_OP_NE: lo_op = SCMPC_OP_EQ; lo_true = false; break;
		case SCMPC_OP_LT: lo_op = SCMPC_OP_GE; lo_true = false; break;
		case SCMPC_OP_LE: lo_op = SCMPC_OP_GT; lo_true = false; break;
		default: lo_op = c->op; lo_true = true; break;
		}
		if (!one_word) {
			if (lo_op == SCMPC_OP_GT || lo_op == SCMPC_OP_GE)
				k += add_node(&out[k], c, true, SCMPC_OP_GT, false);
			k += add_node(&out[k], c, true,
				      lo_op == SCMPC_OP_MASKED_EQ ? lo_op : SCMPC_OP_EQ, true);
		}
		k += add_node(&out[k], c, false, lo_op, lo_true);
	}
	return k;
}

static bool node_same(const struct node *a, const struct node *b)
{
	return a->arg == b->arg && a->high == b->high && a->op == b->op && a->mask == b->mask &&
	       a->datum == b->datum;
}

/* libseccomp ranks a syscall by 0xffff minus the comparisons in its tree
 * (shorter trees first), and a comparison that an earlier rule has at the
 * same place is shared, not counted again.  Following each rule's path is
 * exact for the usual rules; libseccomp's pruning of covered rules is not
 * modelled. */
static unsigned group_priority(const struct abi *abi, const struct compat_filter *f,
			       const struct group *g)
{
	struct node *paths = calloc(g->n, 18 * sizeof(*paths));
	unsigned *len = calloc(g->n, sizeof(*len));
	unsigned nodes = 0;
	bool unconditional = false;
	if (!paths || !len) {
		free(paths);
		free(len);
		return 0xffff;	/* an estimate only orders the text */
	}
	for (size_t j = 0; j < g->n && !unconditional; j++) {
		struct scmpc_cond cs[6];
		unsigned nc = effective_conds(abi, &f->rules[g->idx[j]], cs);
		struct node *pj = &paths[j * 18];
		len[j] = rule_nodes(abi, cs, nc, pj);
		unconditional = !len[j];	/* it replaces the tree */
		unsigned shared = 0;
		for (size_t k = 0; k < j; k++) {
			const struct node *pk = &paths[k * 18];
			unsigned s = 0;
			while (s < len[j] && s < len[k] && node_same(&pj[s], &pk[s])) {
				s++;
				if (pj[s - 1].on_true != pk[s - 1].on_true)
					break;
			}
			if (s > shared)
				shared = s;
		}
		nodes += len[j] - shared;
	}
	free(paths);
	free(len);
	if (unconditional)
		return 0xffff;
	return nodes < 0xffff ? 0xffff - nodes : 0;
}

/* libseccomp's order of syscalls: by priority, highest first, and by
 * number, highest first, within one priority; by number alone when it
 * lays calls out as a binary tree. */
static int group_cmp_priority(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->nr > b->nr ? -1 : a->nr < b->nr;
}

static int group_cmp_number(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	return a->nr > b->nr ? -1 : a->nr < b->nr;
}

/* scmpc filters a socket or SysV IPC call a second time through
 * socketcall(2) or ipc(2) where the ABI has them; the rules say nothing
 * of it, so the text does. */
static void put_mux_note(struct textbuf *t, unsigned lvl, enum scmpc_arch a, const char *name)
{
	if (!name)
		return;
	int pnr = compat_pnr_of_name(name);
	enum compat_family fam = compat_family_of_pnr(pnr);
	int64_t mnr = compat_mux_nr(a, fam);
	if (mnr < 0)
		return;
	indent(t, lvl);
	textbuf_put(t, "# scmpc: also reached through %s (%lld) with call %d in $a0 (%s)\n",
	    fam == FAM_SOCKET ? "socketcall" : "ipc", (long long)mnr,
	    -pnr - (fam == FAM_SOCKET ? 100 : 200),
	    fam == FAM_SOCKET ? "its low 32 bits" : "its low 16 bits; a version above them");
}

/* The PFC block of one syscall: its unconditional rule, or its conditional rules as libseccomp's
 * tree. */
static void put_group(struct textbuf *t, unsigned lvl, const struct abi *abi,
		      const struct compat_filter *f, const struct group *g)
{
	char buf[64];
	const char *name = compat_syscall_name(abi->arch, (int)g->nr, buf, sizeof(buf));
	indent(t, lvl);
	textbuf_put(t, "# filter for syscall \"%s\" (%u) [priority: %u]\n", name ? name : "UNKNOWN", g->nr,
	    g->priority);
	put_mux_note(t, lvl, abi->arch, name);
	indent(t, lvl);
	textbuf_put(t, "if ($syscall == %u)\n", g->nr);

	/* An unconditional rule decides the call alone, the first one added
	 * if there are several (libseccomp drops the others). */
	for (size_t j = 0; j < g->n; j++) {
		const struct compat_rule *r = &f->rules[g->idx[j]];
		struct scmpc_cond cs[6];
		if (!effective_conds(abi, r, cs)) {
			put_action(t, lvl + 1, r->action);
			return;
		}
	}
	/* libseccomp merges a call's conditional rules into one tree of
	 * comparisons; scmpc decides them as that tree does but lays its
	 * program out its own way, so they are listed as added. */
	if (g->n > 1) {
		indent(t, lvl + 1);
		textbuf_put(t, "# scmpc: %zu rules, as added; libseccomp's merged tree of them decides "
		       "the same\n", g->n);
	}
	for (size_t j = 0; j < g->n; j++) {
		const struct compat_rule *r = &f->rules[g->idx[j]];
		struct scmpc_cond cs[6];
		unsigned n = effective_conds(abi, r, cs);
		put_chain(t, lvl + 1, abi, cs, 0, n, r->action);
	}
}

/* With the binary-tree optimization libseccomp splits the calls, sorted by
 * number, into nested halves: groups of 4 calls, then 8, 16, ...  Each
 * split tests "$syscall > N" against the first call of the lower half and
 * opens its "else" there.  The same tests are printed here; they describe
 * the same decisions as a flat list, scmpc's program has its own tree. */
#define TREE_LEAF 4U

static unsigned tree_levels(size_t n)
{
	if (!n)
		return 0;
	unsigned lv = 0;
	while (((size_t)TREE_LEAF << lv) < n)
		lv++;
	return lv + 1;
}

/* The PFC of one ABI's filter: the arch test, each syscall's block by number, the default action. */
static void put_filter(struct textbuf *t, const struct compat_ctx *c, const struct compat_filter *f)
{
	struct scmpc_arch_info info = { .sz = sizeof(info) };
	struct abi abi = { .arch = f->arch };
	if (scmpc_arch_describe(f->arch, &info) == 0)
		abi.args32 = info.args32;

	/* libseccomp prints the number the filter compares seccomp_data.arch
	 * with: x32 shares x86_64's AUDIT_ARCH. */
	uint32_t audit = scmpc_arch_audit(f->arch);
	textbuf_put(t, "# filter for arch %s (%u)\n", compat_arch_name(f->arch), audit);
	textbuf_put(t, "if ($arch == %u)\n", audit);

	struct keyed *keys = f->n ? calloc(f->n, sizeof(*keys)) : NULL;
	size_t *idx = f->n ? calloc(f->n, sizeof(*idx)) : NULL;
	struct group *groups = f->n ? calloc(f->n, sizeof(*groups)) : NULL;
	if (f->n && (!keys || !idx || !groups)) {
		t->oom = true;
		goto out;
	}
	for (size_t i = 0; i < f->n; i++)
		keys[i] = (struct keyed){ f->rules[i].nr, i };
	if (f->n)
		qsort(keys, f->n, sizeof(*keys), keyed_cmp);
	size_t ng = 0;
	for (size_t i = 0; i < f->n; i++) {
		idx[i] = keys[i].i;
		if (!ng || groups[ng - 1].nr != keys[i].nr)
			groups[ng++] = (struct group){ .nr = keys[i].nr, .idx = &idx[i] };
		groups[ng - 1].n++;
	}
	for (size_t i = 0; i < ng; i++)
		groups[i].priority = group_priority(&abi, f, &groups[i]);

	bool tree = c->a.optimize == 2;
	if (ng)
		qsort(groups, ng, sizeof(*groups), tree ? group_cmp_number : group_cmp_priority);

	unsigned levels = tree ? tree_levels(ng) : 0, lvl = 1;
	for (size_t i = 0; i < ng; i++) {
		for (unsigned s = levels ? levels - 1 : 0; s > 0; s--) {
			size_t span = (size_t)TREE_LEAF << s;
			if (i % span == 0) {
				/* no split where the lower half would be empty */
				if (i + span / 2 >= ng)
					continue;
				indent(t, lvl);
				textbuf_put(t, "if ($syscall > %u)\n", groups[i + span / 2].nr);
				lvl++;
			} else if (i % (span / 2) == 0) {
				indent(t, lvl - 1);
				textbuf_put(t, "else # ($syscall <= %u)\n", groups[i].nr);
			}
		}
		put_group(t, lvl, &abi, f, &groups[i]);
		for (unsigned s = 0; s < levels; s++)
			if ((i + 1) % ((size_t)2 * TREE_LEAF << s) == 0)
				lvl--;
	}
out:
	indent(t, 1);
	textbuf_put(t, "# default action\n");
	put_action(t, 1, c->a.act_default);
	free(keys);
	free(idx);
	free(groups);
}

/* ------------------------------------------------------------- output */

int compat_write_all(int fd, const void *buf, size_t n)
{
	for (const char *p = buf; n;) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int compat_write_pfc(const struct compat_ctx *c, int fd)
{
	struct textbuf t = { 0 };
	textbuf_put(&t, "#\n# pseudo filter code start\n#\n");
	for (size_t i = 0; i < c->nf; i++)
		put_filter(&t, c, &c->f[i]);
	textbuf_put(&t, "# invalid architecture action\n");
	put_action(&t, 0, c->a.act_badarch);
	textbuf_put(&t, "#\n# pseudo filter code end\n#\n");

	int rc = t.oom ? -ENOMEM : compat_write_all(fd, t.s, t.len);
	free(t.s);
	return rc;
}
