/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The compatible library's index of rules by call, and libseccomp's
 * refusals decided on it one add at a time (refusal.h).
 *
 * This file reaches scmpc's internals (internal.h, lsc_tree.h), unlike the
 * rest of src/compat: the public API can only check a whole policy, and an
 * add that must cost what libseccomp's own insertion costs needs the tree
 * of comparisons itself, grown one rule at a time.  src/compat is part of
 * the library (it links libscmpc's objects), so nothing leaks; the CLI and
 * the tools stay on the public API.
 *
 * What a call's group holds mirrors the LIBSECCOMP merge's view of a policy
 * (policy.c, arch_view_init and build_trees), which decided every add
 * before: a rule lands on its own number, and a rule on a socket or IPC
 * call also on its ABI's multiplexer as a copy whose argument 0 is tested
 * for the call and whose other conditions stay; on an ABI whose arguments
 * are 32-bit, constants lose their high word (a rule with a wide constant
 * also loses its masked compares that then test nothing; a copy keeps
 * them).  A group's rules are merged into its tree in the order they came,
 * up to its first unconditional rule, after which libseccomp keeps no tree
 * and refuses nothing more.  The tree is grown only once two actions meet:
 * rules of one action never clash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/lsc_tree.h"
#include "refusal.h"

#define NO_MUX UINT32_MAX

/* A rule of a group: the filter's rule IDX, itself (CALL 0) or its copy on
 * the multiplexer for sub-call CALL. */
struct member {
	uint32_t idx;
	uint32_t call;
};

struct group {
	uint32_t nr;
	/* Where a rule on this number also lands: the multiplexer and the
	 * call number its copy tests (NO_MUX: nowhere), found once. */
	uint32_t mux, call;
	uint32_t action;	/* the first rule's, while there is no tree */
	struct member *m;	/* its rules in add order, until it has a tree */
	size_t n, cap;
	bool closed;		/* an unconditional rule came: nothing more counts */
	bool dead;		/* libseccomp's merge loops here: it refuses nothing */
	struct lsc_tree *tree;	/* once two actions met */
};

/* What one group looked like before the add under way changed it. */
struct pending {
	size_t group;
	size_t n;
	uint32_t action;
	bool closed, dead;
	bool inserted;		/* the add went into the tree */
	bool built;		/* the tree was grown for this add */
};

struct compat_index {
	const struct arch_info *info;
	bool lsc32;		/* 32-bit arguments: constants lose their high word */
	uint32_t mux[2];	/* socketcall(2) and ipc(2), or NO_MUX */
	struct group *g;
	size_t ng, gcap;
	uint32_t *slot;		/* open addressing by number: group + 1, 0 empty */
	size_t nslot;		/* a power of two, at least twice ng */
	size_t count;
	struct pending pend[2];	/* a rule lands on two groups at most */
	size_t npend;
};

struct compat_index *compat_index_new(enum scmpc_arch a)
{
	const struct arch_info *info = arch_info(a);
	if (!info)
		return NULL;
	struct compat_index *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->info = info;
	x->lsc32 = info->compat32;
	for (int m = 0; m < 2; m++)
		if (arch_multiplexer(info, m ? MUX_IPC : MUX_SOCKETCALL, &x->mux[m]) < 0)
			x->mux[m] = NO_MUX;
	return x;
}

static void group_drop_tree(struct group *g)
{
	lsc_tree_free(g->tree);
	g->tree = NULL;
}

void compat_index_free(struct compat_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->ng; i++) {
		group_drop_tree(&x->g[i]);
		free(x->g[i].m);
	}
	free(x->g);
	free(x->slot);
	free(x);
}

size_t compat_index_count(const struct compat_index *x)
{
	return x->count;
}

/* ------------------------------------------------------------ groups */

static size_t hash_nr(uint32_t nr, size_t nslot)
{
	return (size_t)((nr * 0x9e3779b1U) >> 7) & (nslot - 1);
}

/* Rebuild X's hash table of groups with NSLOT slots (a power of two); false without memory. */
static bool rehash(struct compat_index *x, size_t nslot)
{
	uint32_t *s = calloc(nslot, sizeof(*s));
	if (!s)
		return false;
	for (size_t i = 0; i < x->ng; i++) {
		size_t h = hash_nr(x->g[i].nr, nslot);
		while (s[h])
			h = (h + 1) & (nslot - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(x->slot);
	x->slot = s;
	x->nslot = nslot;
	return true;
}

/* Where a rule on NR also lands on this ABI, as the policy's view finds
 * it: the multiplexer of the call NR names, and the call's number there. */
static void find_mux(const struct compat_index *x, uint32_t nr, uint32_t *mux, uint32_t *call)
{
	const char *name = arch_syscall_name(x->info, nr);
	enum arch_mux m;
	*mux = NO_MUX;
	*call = 0;
	if (name && arch_subcall(name, &m, call) == 0)
		*mux = x->mux[m == MUX_IPC];
	if (*mux == NO_MUX)
		*call = 0;
}

/* The group of NR, made when missing; -1 without memory. */
static long group_of(struct compat_index *x, uint32_t nr)
{
	if (x->nslot) {
		size_t h = hash_nr(nr, x->nslot);
		for (; x->slot[h]; h = (h + 1) & (x->nslot - 1))
			if (x->g[x->slot[h] - 1].nr == nr)
				return (long)x->slot[h] - 1;
	}
	if (!array_reserve(&x->g, &x->gcap, x->ng, sizeof(*x->g), 16))
		return -1;
	if (2 * (x->ng + 1) > x->nslot && !rehash(x, x->nslot ? 2 * x->nslot : 64))
		return -1;
	struct group *g = &x->g[x->ng];
	*g = (struct group){ .nr = nr };
	find_mux(x, nr, &g->mux, &g->call);
	size_t h = hash_nr(nr, x->nslot);
	while (x->slot[h])
		h = (h + 1) & (x->nslot - 1);
	x->slot[h] = (uint32_t)x->ng + 1;
	return (long)x->ng++;
}

/* ------------------------------------------------------------ rules */

/* Rule R (its copy for sub-call CALL on the multiplexer, when CALL is not
 * 0) as the policy's view has it: in OUT, with its conditions in BUF
 * (room for 7). */
static void view_form(const struct compat_index *x, const struct compat_rule *r, uint32_t call,
		      struct rule *out, struct scmpc_cond *buf)
{
	size_t n = 0;
	bool wide_consts = false;
	if (call)
		buf[n++] = (struct scmpc_cond){ .arg = 0, .op = SCMPC_OP_EQ, .value = call };
	for (unsigned k = 0; k < r->nconds; k++) {
		struct scmpc_cond c = r->conds[k];
		if (call && c.arg == 0)
			continue;	/* the copy tests argument 0 for the call */
		/* A policy keeps a masked compare's datum within its mask. */
		if (c.op == SCMPC_OP_MASKED_EQ)
			c.value2 &= c.value;
		wide_consts |= (c.value >> 32) || (c.value2 >> 32);
		buf[n++] = c;
	}
	if (x->lsc32 && (call || wide_consts)) {
		size_t kept = 0;
		for (size_t k = 0; k < n; k++) {
			struct scmpc_cond c = buf[k];
			c.value &= UINT32_MAX;
			c.value2 &= UINT32_MAX;
			/* a rule's own masked compare of no low bits goes; the
			 * copy's stays (it tests nothing in the tree either) */
			if (!call && c.op == SCMPC_OP_MASKED_EQ && !c.value)
				continue;
			buf[kept++] = c;
		}
		n = kept;
	}
	*out = (struct rule){ .nr = r->nr, .action = r->action, .conds = buf, .nconds = n };
}

/* Grow G's tree from its rules so far; false without memory.  A loop on
 * the way leaves the group dead, as libseccomp never gets past it. */
static bool grow_tree(struct compat_index *x, struct group *g, const struct compat_rule *rules)
{
	g->tree = lsc_tree_new(!x->info->compat32, true);
	if (!g->tree)
		return false;
	for (size_t i = 0; i < g->n; i++) {
		struct rule vr;
		struct scmpc_cond buf[7];
		view_form(x, &rules[g->m[i].idx], g->m[i].call, &vr, buf);
		int rc = lsc_tree_insert(g->tree, &vr, g->m[i].idx);
		if (rc == -ENOMEM) {
			group_drop_tree(g);
			return false;
		}
		if (rc) {
			/* -ELOOP; -EEXIST cannot come from rules of one action */
			group_drop_tree(g);
			g->dead = true;
			return true;
		}
	}
	return true;
}

/* Try rule R on group GI as libseccomp's tree would take it, recording how to undo it. */
static int group_add(struct compat_index *x, size_t gi, const struct compat_rule *rules,
		     uint32_t idx, const struct compat_rule *r, uint32_t call)
{
	struct group *g = &x->g[gi];
	struct pending *p = &x->pend[x->npend++];
	*p = (struct pending){ .group = gi, .n = g->n, .action = g->action, .closed = g->closed,
			       .dead = g->dead };
	if (g->closed || g->dead)
		return 0;
	struct rule vr;
	struct scmpc_cond buf[7];
	view_form(x, r, call, &vr, buf);
	if (lsc_unconditional(&vr)) {
		g->closed = true;
		return 0;
	}
	if (!g->tree && !array_reserve(&g->m, &g->cap, g->n, sizeof(*g->m), 4))
		return -ENOMEM;
	if (!g->tree) {
		if (!g->n || r->action == g->action) {
			if (!g->n)
				g->action = r->action;
			g->m[g->n++] = (struct member){ idx, call };
			return 0;
		}
		if (!grow_tree(x, g, rules))
			return -ENOMEM;
		p->built = g->tree != NULL;
		if (g->dead)
			return 0;
	}
	int rc = lsc_tree_insert(g->tree, &vr, idx);
	if (rc == -ELOOP) {
		g->dead = true;
		return 0;
	}
	if (rc)
		return rc;
	p->inserted = true;
	return 0;
}

void compat_index_undo(struct compat_index *x)
{
	while (x->npend) {
		struct pending *p = &x->pend[--x->npend];
		struct group *g = &x->g[p->group];
		if (p->inserted)
			lsc_tree_undo(g->tree);
		if (p->built)
			group_drop_tree(g);
		g->n = p->n;
		g->action = p->action;
		g->closed = p->closed;
		g->dead = p->dead;
	}
}

void compat_index_commit(struct compat_index *x)
{
	for (size_t i = 0; i < x->npend; i++) {
		struct group *g = &x->g[x->pend[i].group];
		if (g->closed || g->dead)
			group_drop_tree(g);	/* nothing here will be refused again */
		if (g->closed || g->dead || g->tree) {
			/* the tree holds the rules now, or nothing needs them */
			free(g->m);
			g->m = NULL;
			g->n = g->cap = 0;
		}
	}
	x->npend = 0;
	x->count++;
}

int compat_index_add(struct compat_index *x, const struct compat_rule *rules, uint32_t idx,
		     const struct compat_rule *r)
{
	x->npend = 0;
	long own = group_of(x, r->nr);
	if (own < 0)
		return -ENOMEM;
	uint32_t mux = x->g[own].mux, call = x->g[own].call;
	long other = mux != NO_MUX ? group_of(x, mux) : -1;
	if (mux != NO_MUX && other < 0)
		return -ENOMEM;
	int rc = group_add(x, (size_t)own, rules, idx, r, 0);
	if (!rc && other >= 0)
		rc = group_add(x, (size_t)other, rules, idx, r, call);
	if (rc)
		compat_index_undo(x);
	return rc;
}
