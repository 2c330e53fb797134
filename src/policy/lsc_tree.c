/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp keeps the conditional rules of one syscall as a tree of 32-bit
 * comparisons.  Each rule becomes a chain: its conditions in argument
 * order, a 64-bit condition split into comparisons of the high and the low
 * word (a 64-bit "greater than" is "high word greater, or high word equal
 * and low word greater", so the next condition is reached from two
 * comparisons).  Chains are merged one by one, in the order the rules are
 * added: where a comparison equals one already on a level, the two are
 * shared and the merge goes on below it; any other comparison is placed on
 * the level in libseccomp's order: higher argument first, a high word
 * before a low one, equality before "less" before "greater", then by
 * constant (descending, ascending for "less").
 *
 * The program tries the comparisons of a level in that order.  A branch
 * with an action decides; a branch that goes on to a deeper level and
 * decides nothing there comes back to the next comparison of the level
 * above; a comparison with nothing on the taken branch passes to the next
 * one too.  So the first comparison in that order leading to an action
 * wins, whatever the actions' severity: `a2 > 256 -> ERRNO(5)` and
 * `a2 > 128 -> ERRNO(6)` give ERRNO(6) for 200 and ERRNO(5) for 300, in
 * either order.
 *
 * What is reproduced (facts from libseccomp 2.5.4's db.c and gen_bpf.c;
 * tests/test_differential.c holds the result against its programs): the
 * chains, the merge with its refusals (-EEXIST, which runc and crun turn
 * into a failure to start) and with what it does to a level that a
 * two-way chain links in twice, and the order of evaluation.  Not
 * reproduced: libseccomp's pruning, which removes what it takes for
 * covered by a rule with the same action and in doing so drops some rules
 * that are not covered (`a4 == 7` then `a4 != 7 && a2 == 9`, both KILL,
 * installs only the first), and the faults of its code generator
 * (tests/lsc_ref.c names them).  Copying those would install filters
 * missing rules; the differential skips such calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include "policy/lsc_tree.h"

#define NONE (-1)
/* Steps a merge or a walk may take before the tree is called looping:
 * far above any real tree (a level holds at most a few thousand nodes). */
#define STEP_LIMIT (1u << 24)

enum { CMP_EQ, CMP_MASKED, CMP_GT, CMP_GE };

struct lt_node {
	uint32_t mask, datum;
	uint64_t full;		/* the rule's 64-bit constant */
	uint8_t arg, cmp;	/* CMP_* */
	uint8_t orig;		/* the rule's scmpc_op: it, not cmp, orders a level */
	bool hi;		/* compares the high word */
	/* Per branch, [1] taken when the comparison holds, [0] when not. */
	bool has[2];		/* the branch has an action */
	uint32_t act[2];
	uint32_t rule[2];	/* the policy rule the action comes from */
	int32_t sub[2];		/* the level the branch goes on to, or NONE */
	int32_t prev, next;	/* neighbours on the node's level */
	bool freed;		/* libseccomp would have freed it (pruning) */
};

/* A node as it was before the insert being made changed it. */
struct lt_saved {
	int32_t at;
	struct lt_node was;
};

struct lsc_tree {
	struct lt_node *n;
	size_t len, cap;
	int32_t root;
	bool wide;		/* the ABI compares 64-bit arguments word by word */
	bool prune;		/* prune before each merge, as libseccomp's add does */
	size_t steps;		/* merge steps so far, against STEP_LIMIT */
	uint8_t *mark;		/* loop check: 0 unseen, 1 in progress, 2 done */
	/* What the last insert changed, so that it can be taken back: the
	 * nodes it found (new ones go with len), the root, the count. */
	struct lt_saved *log;
	size_t nlog, logcap;
	size_t len0, steps0;
	int32_t root0;
	bool undoable;
};

/* ------------------------------------------------------------ chains */

static int32_t node(struct lsc_tree *t, const struct scmpc_cond *c, bool hi, uint8_t cmp,
		    uint32_t k, uint32_t mask, uint64_t full)
{
	int32_t i = (int32_t)t->len++;
	t->n[i] = (struct lt_node){ .mask = mask, .datum = k & mask, .full = full,
				    .arg = (uint8_t)c->arg, .cmp = cmp, .orig = (uint8_t)c->op,
				    .hi = hi, .sub = { NONE, NONE }, .prev = NONE, .next = NONE };
	return i;
}

/* A branch through which a chain goes on: to the next condition, or, after
 * the last, to the rule's action. */
struct exit {
	int32_t node;
	int branch;
};

/* Rule R's chain, appended to T (room reserved).  NONE when no condition
 * tests anything, -ENOMEM on failure. */
static int64_t chain(struct lsc_tree *t, const struct rule *r, uint32_t source)
{
	/* By argument, conditions on one argument in their order: a stable
	 * insertion sort, on the stack for the rules there are (a policy's
	 * have at most 64 conditions, a multiplexed copy one more). */
	const struct scmpc_cond *stack[80], **order = stack;
	size_t nconds = r->nconds;
	if (nconds > ARRAY_SIZE(stack) && !(order = malloc(nconds * sizeof(*order))))
		return -ENOMEM;
	for (size_t i = 0; i < nconds; i++) {
		size_t j = i;
		while (j > 0 && order[j - 1]->arg > r->conds[i].arg) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = &r->conds[i];
	}
	bool wide_abi = t->wide;

	int32_t head = NONE;
	struct exit prev[2];
	size_t nprev = 0;
	for (size_t i = 0; i < nconds; i++) {
		const struct scmpc_cond *c = order[i];
		bool wide = wide_abi && !(c->flags & SCMPC_COND_32BIT);
		bool masked = c->op == SCMPC_OP_MASKED_EQ;
		uint64_t mask = masked ? c->value : UINT64_MAX, k = masked ? c->value2 : c->value;
		/* A masked compare of no bits tests nothing: libseccomp leaves it
		 * out (in the width the ABI compares). */
		if (masked && !(wide ? mask : (uint32_t)mask))
			continue;
		struct exit out[2];
		size_t nout = 0;
		int32_t first;
		if (!wide) {
			/* One comparison; "!=", "<" and "<=" are "==", ">=" and ">"
			 * going on through the false branch. */
			uint8_t cmp = masked ? CMP_MASKED : CMP_EQ;
			int b = 1;
			switch (c->op) {
			case SCMPC_OP_NE: b = 0; break;
			case SCMPC_OP_GT: cmp = CMP_GT; break;
			case SCMPC_OP_GE: cmp = CMP_GE; break;
			case SCMPC_OP_LT: cmp = CMP_GE; b = 0; break;
			case SCMPC_OP_LE: cmp = CMP_GT; b = 0; break;
			default: break;
			}
			first = node(t, c, false, cmp, (uint32_t)k, (uint32_t)mask, k);
			out[nout++] = (struct exit){ first, b };
		} else if (c->op == SCMPC_OP_EQ || c->op == SCMPC_OP_NE || masked) {
			uint8_t cmp = masked ? CMP_MASKED : CMP_EQ;
			first = node(t, c, true, cmp, (uint32_t)(k >> 32), (uint32_t)(mask >> 32), k);
			int32_t low = node(t, c, false, cmp, (uint32_t)k, (uint32_t)mask, k);
			t->n[first].sub[1] = low;
			if (c->op == SCMPC_OP_NE) {
				out[nout++] = (struct exit){ first, 0 };
				out[nout++] = (struct exit){ low, 0 };
			} else {
				out[nout++] = (struct exit){ low, 1 };
			}
		} else {
			/* high > K's: decided; high == K's: the low words decide */
			bool gt = c->op == SCMPC_OP_GT || c->op == SCMPC_OP_LE;
			first = node(t, c, true, CMP_GT, (uint32_t)(k >> 32), UINT32_MAX, k);
			int32_t same = node(t, c, true, CMP_EQ, (uint32_t)(k >> 32), UINT32_MAX, k);
			int32_t low = node(t, c, false, gt ? CMP_GT : CMP_GE, (uint32_t)k, UINT32_MAX, k);
			t->n[first].sub[0] = same;
			t->n[same].sub[1] = low;
			if (c->op == SCMPC_OP_GT || c->op == SCMPC_OP_GE) {
				out[nout++] = (struct exit){ first, 1 };
				out[nout++] = (struct exit){ low, 1 };
			} else {
				out[nout++] = (struct exit){ same, 0 };
				out[nout++] = (struct exit){ low, 0 };
			}
		}
		if (head == NONE)
			head = first;
		for (size_t e = 0; e < nprev; e++)
			t->n[prev[e].node].sub[prev[e].branch] = first;
		memcpy(prev, out, sizeof(out));
		nprev = nout;
	}
	if (order != stack)
		free(order);
	for (size_t e = 0; e < nprev; e++) {
		struct lt_node *x = &t->n[prev[e].node];
		x->has[prev[e].branch] = true;
		x->act[prev[e].branch] = r->action;
		x->rule[prev[e].branch] = source;
	}
	return head;
}

bool lsc_unconditional(const struct rule *r)
{
	for (size_t k = 0; k < r->nconds; k++)
		if (r->conds[k].op != SCMPC_OP_MASKED_EQ || r->conds[k].value ||
		    r->conds[k].value2)
			return false;
	return true;
}

/* ------------------------------------------------------------- merge */

static unsigned rank_arg(const struct lt_node *x)
{
	return (unsigned)x->arg * 2 + x->hi;
}

static unsigned rank_op(uint8_t op)
{
	switch (op) {
	case SCMPC_OP_EQ: case SCMPC_OP_NE: case SCMPC_OP_MASKED_EQ: return 3;
	case SCMPC_OP_LT: case SCMPC_OP_LE: return 2;
	default: return 1;
	}
}

/* A is placed after B on a level (libseccomp's "less than"). */
static bool after(const struct lt_node *a, const struct lt_node *b)
{
	if (rank_arg(a) != rank_arg(b))
		return rank_arg(a) < rank_arg(b);
	if (rank_op(a->orig) != rank_op(b->orig))
		return rank_op(a->orig) < rank_op(b->orig);
	if (a->orig == SCMPC_OP_LT || a->orig == SCMPC_OP_LE)
		return a->datum > b->datum;
	return a->datum < b->datum;
}

static bool same_test(const struct lt_node *a, const struct lt_node *b)
{
	return rank_arg(a) == rank_arg(b) && a->cmp == b->cmp && a->datum == b->datum &&
	       a->mask == b->mask;
}

static bool leaf(const struct lt_node *x)
{
	return x->sub[0] == NONE && x->sub[1] == NONE;
}

/* The first node of AT's level, as libseccomp's walks find it (its
 * neighbours backwards); NONE when STEPS (if counted) passes the limit. */
static int32_t level_start(const struct lsc_tree *t, int32_t at, size_t *steps)
{
	while (t->n[at].prev != NONE) {
		at = t->n[at].prev;
		if (steps && ++*steps > STEP_LIMIT)
			return NONE;
	}
	return at;
}

/* Every action in the level at AT and below is ACT. */
static int acts_all(const struct lsc_tree *t, int32_t at, uint32_t act, size_t *steps)
{
	if (at == NONE)
		return 0;
	if ((at = level_start(t, at, steps)) == NONE)
		return -ELOOP;
	for (; at != NONE; at = t->n[at].next) {
		const struct lt_node *x = &t->n[at];
		if (++*steps > STEP_LIMIT)
			return -ELOOP;
		for (int b = 1; b >= 0; b--)
			if (x->has[b] && x->act[b] != act)
				return -EEXIST;
		for (int b = 1; b >= 0; b--) {
			int rc = acts_all(t, x->sub[b], act, steps);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Keep node AT as it is before the insert under way changes it (nodes
 * that insert added go with the length).  False without memory. */
static bool keep(struct lsc_tree *t, int32_t at)
{
	if (at == NONE || (size_t)at >= t->len0)
		return true;
	if (t->nlog == t->logcap) {
		size_t cap = t->logcap ? 2 * t->logcap : 16;
		struct lt_saved *l = realloc(t->log, cap * sizeof(*l));
		if (!l)
			return false;
		t->log = l;
		t->logcap = cap;
	}
	t->log[t->nlog++] = (struct lt_saved){ at, t->n[at] };
	return true;
}

/* The link to a level: the root's, or branch B of node OWNER's. */
static int32_t *slot_of(struct lsc_tree *t, int32_t owner, int b)
{
	return owner == NONE ? &t->root : &t->n[owner].sub[b];
}

/* Merge the chain level at N into the level linked from OWNER's branch B
 * (the root when OWNER is NONE).  Nodes are linked, not copied: a level a
 * chain reaches twice is linked twice, as in libseccomp, with what that
 * does to its neighbours.  Every node of the tree is kept before it
 * changes, so that a refused rule leaves no trace. */
static int merge(struct lsc_tree *t, int32_t owner, int ob, int32_t ni)
{
	int32_t xi = *slot_of(t, owner, ob);
	while (xi != NONE) {
		struct lt_node *x = &t->n[xi], *n = &t->n[ni];
		if (++t->steps > STEP_LIMIT)
			return -ELOOP;
		if (same_test(x, n)) {
			if (!keep(t, xi))
				return -ENOMEM;
			for (int b = 1; b >= 0; b--) {
				if (!n->has[b])
					continue;
				if (!x->has[b]) {
					/* The new chain ends here: what the tree has below must
					 * already give its action. */
					int rc = acts_all(t, x->sub[b], n->act[b], &t->steps);
					if (rc)
						return rc;
					x->sub[b] = NONE;
					x->has[b] = true;
					x->act[b] = n->act[b];
					x->rule[b] = n->rule[b];
				} else if (n->act[b] != x->act[b]) {
					/* A shared high-word comparison of two range rules
					 * takes the action of the rule with the larger
					 * constant ("greater") or the smaller ("less"), which
					 * libseccomp always writes to the true branch. */
					if (n->hi && (b ? n->full > x->full : n->full < x->full)) {
						x->act[1] = n->act[1];
						x->rule[1] = n->rule[1];
					}
					if (leaf(x) || leaf(n))
						return -EEXIST;
				}
			}
			for (int b = 1; b >= 0; b--) {
				if (n->sub[b] == NONE)
					continue;
				if (x->sub[b] != NONE) {
					int rc = merge(t, xi, b, n->sub[b]);
					if (rc)
						return rc;
					/* the merge below may have kept nodes: x still points
					 * into t->n, which only an insert's chain() moves */
				} else if (!x->has[b]) {
					x->sub[b] = n->sub[b];
				} else {
					return 0;	/* the tree's chain is the shorter */
				}
			}
			return 0;
		}
		if (!after(x, n)) {
			if (x->next == NONE) {
				if (!keep(t, xi))
					return -ENOMEM;
				n->prev = xi;
				x->next = ni;
				return 0;
			}
			xi = x->next;
			continue;
		}
		if (!keep(t, xi) || !keep(t, x->prev) || !keep(t, owner))
			return -ENOMEM;
		if (x->prev != NONE) {
			t->n[x->prev].next = ni;
			n->prev = x->prev;
		}
		x->prev = ni;
		n->next = xi;
		int32_t *slot = slot_of(t, owner, ob);
		if (*slot == xi)
			*slot = ni;
		return 0;
	}
	return 0;
}

/* Whether walking the tree ends: a level's neighbours and the levels below
 * must not lead back into themselves. */
static int check_level(struct lsc_tree *t, int32_t at, size_t *steps)
{
	if (at == NONE)
		return 0;
	if ((at = level_start(t, at, steps)) == NONE)
		return -ELOOP;
	if (t->mark[at] == 2)
		return 0;
	if (t->mark[at] == 1)
		return -ELOOP;
	t->mark[at] = 1;
	for (int32_t i = at; i != NONE; i = t->n[i].next) {
		if (++*steps > STEP_LIMIT)
			return -ELOOP;
		for (int b = 1; b >= 0; b--) {
			int rc = check_level(t, t->n[i].sub[b], steps);
			if (rc)
				return rc;
		}
	}
	t->mark[at] = 2;
	return 0;
}

/* ----------------------------------------------------------- pruning */

/* Before it merges a rule, libseccomp's add prunes the tree against the
 * new chain (db.c, db_rule_add and _db_tree_prune): a subtree the new rule
 * covers with the same action goes, and a new rule that an existing one
 * with the same action covers is dropped whole.  Either changes what a
 * later rule meets, so whether it is refused (`a2 == 2` then `a0 == 3 &&
 * a2 == 2 && a4 == 3`, both KILL, keeps only the first: a later ALLOW
 * `a0 == 3` is taken, not refused).  The compiler does not prune (the top
 * of this file says why); the compatible library's refusals do.  The walk
 * keeps libseccomp's flags, by these names. */
enum {
	PR_MATCH = 0x1,		/* the chains match from here down */
	PR_MATCH_ONCE = 0x2,	/* they matched somewhere above */
	PR_X_FINISHED = 0x10,	/* the tree's chain ended on the match */
	PR_N_FINISHED = 0x20,	/* the new chain did */
	PR_X_PREFIX = 0x100,	/* the tree has comparisons the new chain lacks */
	PR_N_PREFIX = 0x200,	/* the new chain has comparisons the tree lacks */
};
#define PR_MATCHSET (PR_MATCH | PR_MATCH_ONCE)
#define PR_REDUNDANT (PR_MATCH | PR_X_FINISHED | PR_N_PREFIX)

static bool goes_on(const struct lt_node *x, int b)
{
	return x->has[b] || x->sub[b] != NONE;
}

/* Count in *N the branches of the level linked from SLOT and below that
 * link to AT (the root's link counts as one).  SEEN marks the nodes walked,
 * so that a level linked twice is walked once; its links count twice. */
static void count_parents(const struct lsc_tree *t, int32_t slot, int32_t at, uint8_t *seen,
			  size_t *n)
{
	if (slot == NONE)
		return;
	if (slot == at)
		++*n;
	int32_t i = slot;
	/* a level is walked once; a loop of neighbours ends on a seen node */
	while (t->n[i].prev != NONE && !seen[t->n[i].prev])
		i = t->n[i].prev;
	for (; i != NONE && !seen[i]; i = t->n[i].next) {
		seen[i] = 1;
		for (int b = 1; b >= 0; b--)
			count_parents(t, t->n[i].sub[b], at, seen, n);
	}
}

/* Whether libseccomp frees node AT when it takes it off its level: it
 * holds one reference per link to it (its neighbours' and its parents')
 * and drops one there.  -ENOMEM as an error. */
static int freed_on_removal(const struct lsc_tree *t, int32_t at)
{
	size_t n = (t->n[at].prev != NONE) + (t->n[at].next != NONE);
	if (n > 1)
		return 0;
	uint8_t *seen = calloc(t->len ? t->len : 1, 1);
	if (!seen)
		return -ENOMEM;
	count_parents(t, t->root, at, seen, &n);
	free(seen);
	return n <= 1;
}

/* Take NODE off the tree below the level linked from OWNER's branch OB,
 * with every node on the way that is left with neither action nor level
 * below, as libseccomp does (_db_tree_remove): adds to *FREED the nodes it
 * frees (whether it freed any decides what the add does next). */
static int tree_remove(struct lsc_tree *t, int32_t owner, int ob, int32_t node, size_t *freed)
{
	int32_t at = *slot_of(t, owner, ob);
	size_t cnt = 0;
	if (at == NONE)
		return 0;
	if ((at = level_start(t, at, &t->steps)) == NONE)
		return -ELOOP;
	for (;;) {
		if (++t->steps > STEP_LIMIT)
			return -ELOOP;
		if (at == node)
			break;
		for (int b = 1; b >= 0; b--) {
			int rc = tree_remove(t, at, b, node, &cnt);
			if (rc)
				return rc;
		}
		const struct lt_node *x = &t->n[at];
		if (leaf(x) && !x->has[0] && !x->has[1])
			break;	/* nothing is left of it */
		at = x->next;
		if (at == NONE || cnt) {
			*freed += cnt;
			return 0;
		}
	}
	int fr = freed_on_removal(t, at);
	if (fr < 0)
		return fr;
	struct lt_node *x = &t->n[at];
	if (!keep(t, at) || !keep(t, x->prev) || !keep(t, x->next) || !keep(t, owner))
		return -ENOMEM;
	int32_t *slot = slot_of(t, owner, ob);
	if (*slot == at)
		*slot = x->prev != NONE ? x->prev : x->next;
	if (x->prev != NONE)
		t->n[x->prev].next = x->next;
	if (x->next != NONE)
		t->n[x->next].prev = x->prev;
	x->prev = x->next = NONE;
	if (fr) {
		x->freed = true;
		cnt++;
	}
	*freed += cnt;
	return 0;
}

/* Prune the level at XI against the new chain's level at NI for a rule of
 * ACTION, with libseccomp's flags in *STATE (_db_tree_prune); adds to
 * *FREED the nodes freed.  -ELOOP, -ENOMEM. */
static int prune(struct lsc_tree *t, int32_t xi, int32_t ni, unsigned *state, uint32_t action,
		 size_t *freed)
{
	unsigned fl = *state;
	int rc;
	if (ni == NONE || xi == NONE)
		goto out;
	if ((*state & PR_MATCHSET) == PR_MATCH_ONCE)
		goto out;	/* a match above broke off */
	if ((xi = level_start(t, xi, &t->steps)) == NONE)
		return -ELOOP;
	do {
		if (++t->steps > STEP_LIMIT)
			return -ELOOP;
		int32_t xnext = t->n[xi].next;
		const struct lt_node *x = &t->n[xi], *n = &t->n[ni];
		if (same_test(x, n)) {
			fl |= PR_MATCHSET;
			if (leaf(n))
				fl |= PR_N_FINISHED;
			if (leaf(x))
				fl |= PR_X_FINISHED;
			/* the tree goes on where the new chain does not: keep it */
			for (int b = 1; b >= 0; b--)
				if (goes_on(x, b) && !goes_on(n, b))
					goto out;
			if ((fl & PR_N_FINISHED) && (fl & PR_X_FINISHED))
				for (int b = 1; b >= 0; b--)
					if (n->has[b] != x->has[b] || n->act[b] != x->act[b])
						goto out;
			for (int b = 1; b >= 0; b--) {
				if (n->sub[b] == NONE)
					continue;
				unsigned below = *state | PR_MATCHSET;
				if ((rc = prune(t, x->sub[b], n->sub[b], &below, action, freed)))
					return rc;
				if (below & PR_MATCH)
					fl |= below;
				if (x->freed)
					goto next;
			}
			rc = acts_all(t, xi, action, &t->steps);
			if (rc == -ELOOP)
				return rc;
			if (!rc && (fl & PR_MATCH) && (fl & PR_N_FINISHED) && (fl & PR_X_PREFIX)) {
				/* the new chain is the shorter: the tree's goes */
				if ((rc = tree_remove(t, NONE, 0, xi, freed)))
					return rc;
				if (t->root == NONE)
					goto out;
			} else if (!rc && (fl & PR_MATCH) && (fl & PR_X_FINISHED) &&
				   (fl & PR_N_PREFIX)) {
				goto out;	/* the tree's is the shorter */
			}
		} else if (after(x, n)) {
			/* go on down the tree's chain */
			if (*state & PR_N_PREFIX)
				goto out;
			for (int b = 1; b >= 0; b--) {
				if (x->sub[b] == NONE)
					continue;
				unsigned below = (*state & ~PR_MATCH) | PR_X_PREFIX;
				if ((rc = prune(t, x->sub[b], ni, &below, action, freed)))
					return rc;
				if (below & PR_MATCH) {
					fl |= below;
					goto out;
				}
				if (x->freed)
					goto next;
			}
		} else {
			/* go on down the new chain */
			if (*state & PR_X_PREFIX)
				goto out;
			for (int b = 1; b >= 0; b--) {
				if (n->sub[b] == NONE)
					continue;
				unsigned below = (*state & ~PR_MATCH) | PR_N_PREFIX;
				if ((rc = prune(t, xi, n->sub[b], &below, action, freed)))
					return rc;
				if (below & PR_MATCH) {
					fl |= below;
					goto out;
				}
				if (x->freed)
					goto next;
			}
		}
next:
		xi = xnext;
	} while (xi != NONE);
	fl &= ~PR_MATCH;	/* nothing on the level matched */
out:
	if (fl & PR_MATCH)
		*state |= fl;
	else
		*state &= ~PR_MATCH;
	return 0;
}

struct lsc_tree *lsc_tree_new(bool wide, bool prune)
{
	struct lsc_tree *t = calloc(1, sizeof(*t));
	if (t) {
		t->root = NONE;
		t->wide = wide;
		t->prune = prune;
	}
	return t;
}

/* Put back what the insert under way (or the last one) changed. */
static void roll_back(struct lsc_tree *t)
{
	while (t->nlog) {
		struct lt_saved *s = &t->log[--t->nlog];
		t->n[s->at] = s->was;
	}
	t->len = t->len0;
	t->root = t->root0;
	t->steps = t->steps0;
	t->undoable = false;
}

int lsc_tree_insert(struct lsc_tree *t, const struct rule *r, uint32_t source)
{
	t->nlog = 0;
	t->len0 = t->len;
	t->root0 = t->root;
	t->steps0 = t->steps;
	t->undoable = false;
	/* A condition becomes at most three comparisons (a 64-bit range). */
	size_t need = t->len + 3 * r->nconds;
	if (need > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		while (cap < need)
			cap *= 2;
		struct lt_node *n = realloc(t->n, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->n = n;
		t->cap = cap;
	}
	int64_t head = chain(t, r, source);
	int rc = head < 0 && head != NONE ? (int)head : 0;
	bool add = !rc && head != NONE;
	if (add && t->prune && t->root != NONE) {
		unsigned state = 0;
		size_t freed = 0;
		rc = prune(t, t->root, (int32_t)head, &state, r->action, &freed);
		/* libseccomp drops a covered rule only when the prune freed
		 * nothing; a prune that emptied the tree leaves the new chain
		 * as the tree */
		if (!rc && !freed && (state & PR_REDUNDANT) == PR_REDUNDANT) {
			add = false;
			t->len = t->len0;
		}
		add = add && !rc;
	}
	if (add) {
		if (t->root == NONE)
			t->root = (int32_t)head;
		else
			rc = merge(t, NONE, 0, (int32_t)head);
	}
	if (rc) {
		roll_back(t);
		return rc;
	}
	t->undoable = true;
	return 0;
}

void lsc_tree_undo(struct lsc_tree *t)
{
	if (t->undoable)
		roll_back(t);
}

int lsc_tree_build(struct lsc_tree **out, const scmpc_policy *p, const struct arch_view *v,
		   const size_t *pos, size_t npos, scmpc_diag *d)
{
	struct lsc_tree *t = lsc_tree_new(!v->info->compat32, false);
	*out = NULL;
	if (!t)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	for (size_t k = 0; k < npos; k++) {
		size_t i = pos[k];
		int rc = lsc_tree_insert(t, view_rule(p, v, i), view_source(v, i));
		if (!rc)
			continue;
		lsc_tree_free(t);
		if (rc != -EEXIST && rc != -ELOOP)
			return diag_err(d, rc, NULL, "out of memory");
		const struct rule *orig = &p->rules[view_source(v, i)];
		char call[64];
		const char *name = arch_syscall_name(v->info, v->rs[i].nr);
		if (name)
			snprintf(call, sizeof(call), "%s", name);
		else
			snprintf(call, sizeof(call), "syscall %u", v->rs[i].nr);
		if (rc == -EEXIST && p->lsc_strict)
			diag_err(d, rc, orig->origin, "libseccomp 2.5.4 refuses this rule for %s on %s "
				 "(EEXIST: an earlier rule with the same comparisons ends in another "
				 "action)", call, v->info->name);
		else if (rc == -EEXIST)
			diag_warn_once(d, "%s%slibseccomp 2.5.4 refuses this rule for %s on %s (EEXIST: "
				       "an earlier rule with the same comparisons ends in another "
				       "action), so runc and crun refuse the profile; scmpc decides "
				       "the call by severity instead", orig->origin ? orig->origin : "",
				       orig->origin ? ": " : "", call, v->info->name);
		else
			diag_warn_once(d, "%s%slibseccomp 2.5.4 does not finish adding this rule for %s "
				       "on %s (its tree of comparisons loops), so runc and crun hang "
				       "on the profile; scmpc decides the call by severity instead",
				       orig->origin ? orig->origin : "", orig->origin ? ": " : "",
				       call, v->info->name);
		return rc;
	}
	/* Built: nothing to take back, and the log's memory can go. */
	free(t->log);
	t->log = NULL;
	t->nlog = t->logcap = 0;
	t->undoable = false;
	t->mark = calloc(t->len ? t->len : 1, 1);
	if (!t->mark) {
		lsc_tree_free(t);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	size_t steps = 0;
	if (check_level(t, t->root, &steps) < 0) {
		lsc_tree_free(t);
		diag_warn_once(d, "libseccomp 2.5.4's tree of comparisons for syscall %u on %s "
			       "loops, so its program would not end; scmpc decides the call by "
			       "severity instead", v->rs[pos[0]].nr, v->info->name);
		return -ELOOP;
	}
	*out = t;
	return 0;
}

void lsc_tree_free(struct lsc_tree *t)
{
	if (!t)
		return;
	free(t->n);
	free(t->mark);
	free(t->log);
	free(t);
}

/* -------------------------------------------------------- evaluation */

static bool holds(const struct lt_node *x, const struct seccomp_data *sd)
{
	uint64_t a = sd->args[x->arg];
	uint32_t w = (x->hi ? (uint32_t)(a >> 32) : (uint32_t)a) & x->mask;
	switch (x->cmp) {
	case CMP_GT: return w > x->datum;
	case CMP_GE: return w >= x->datum;
	default: return w == x->datum;
	}
}

/* libseccomp's walk of the level at AT for SD: true with *ACT and *RULE when a comparison leads
 * to an action. */
static bool walk(const struct lsc_tree *t, int32_t at, const struct seccomp_data *sd,
		 uint32_t *act, uint32_t *rule)
{
	if (at == NONE)
		return false;
	for (at = level_start(t, at, NULL); at != NONE; at = t->n[at].next) {
		const struct lt_node *x = &t->n[at];
		int b = holds(x, sd);
		if (x->sub[b] != NONE) {
			if (walk(t, x->sub[b], sd, act, rule))
				return true;
			continue;
		}
		if (x->has[b]) {
			*act = x->act[b];
			*rule = x->rule[b];
			return true;
		}
	}
	return false;
}

bool lsc_tree_eval(const struct lsc_tree *t, const struct seccomp_data *sd, uint32_t *act,
		   uint32_t *rule)
{
	return walk(t, t->root, sd, act, rule);
}

/* ----------------------------------------------------- reading levels */

long lsc_tree_level(const struct lsc_tree *t, int32_t at, struct lsc_cmp **out)
{
	*out = NULL;
	if (at == LSC_ROOT)
		at = t->root;
	if (at == NONE)
		return 0;
	at = level_start(t, at, NULL);	/* the tree was checked: no loops */
	size_t n = 0;
	for (int32_t i = at; i != NONE; i = t->n[i].next)
		n++;
	struct lsc_cmp *v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (int32_t i = at; i != NONE; i = t->n[i].next) {
		const struct lt_node *x = &t->n[i];
		v[n++] = (struct lsc_cmp){
			.arg = x->arg, .hi = x->hi, .mask = x->mask, .datum = x->datum,
			.op = x->cmp == CMP_GT ? BPF_JGT : x->cmp == CMP_GE ? BPF_JGE : BPF_JEQ,
			.has = { x->has[0], x->has[1] }, .act = { x->act[0], x->act[1] },
			.sub = { x->sub[0], x->sub[1] },
		};
	}
	*out = v;
	return (long)n;
}

/* --------------------------------------------------------- overlap test */

/* The values of one argument that meet a set of conditions, kept as a
 * range, a list of excluded values and masked equalities; enough to prove
 * the set empty in the cases that matter (different constants, disjoint
 * ranges, contradicting masks). */
struct span {
	uint64_t lo, hi;
	bool eq;		/* lo == hi is an equality's value */
};

static bool narrow(const struct scmpc_cond *c, bool compat32)
{
	return compat32 || (c->flags & SCMPC_COND_32BIT);
}

/* Narrow S to the values condition C allows; false when none is left. */
static bool clip(struct span *s, const struct scmpc_cond *c)
{
	uint64_t v = c->value;
	switch (c->op) {
	case SCMPC_OP_EQ:
		if (v < s->lo || v > s->hi)
			return false;
		s->lo = s->hi = v;
		s->eq = true;
		return true;
	case SCMPC_OP_LT:
		if (v == 0)
			return false;
		v--;
		/* fall through */
	case SCMPC_OP_LE:
		if (v < s->hi)
			s->hi = v;
		return s->lo <= s->hi;
	case SCMPC_OP_GT:
		if (v == UINT64_MAX)
			return false;
		v++;
		/* fall through */
	case SCMPC_OP_GE:
		if (v > s->lo)
			s->lo = v;
		return s->lo <= s->hi;
	default:
		return true;
	}
}

/* Whether some value of argument ARG can meet the conditions of both rules R on it (true when
 * unsure). */
static bool arg_may_hold(const struct rule *const r[2], unsigned arg, bool compat32)
{
	const struct scmpc_cond *cs[64];
	size_t n = 0;
	bool narrow_any = false, wide_any = false;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < r[k]->nconds; i++) {
			const struct scmpc_cond *c = &r[k]->conds[i];
			if (c->arg != arg)
				continue;
			if (n == sizeof(cs) / sizeof(cs[0]))
				return true;
			cs[n++] = c;
			if (narrow(c, compat32))
				narrow_any = true;
			else
				wide_any = true;
		}
	if (n < 2 || (narrow_any && wide_any))
		return true;	/* one rule alone can hold; mixed widths: not worth it */
	uint64_t width = narrow_any ? UINT32_MAX : UINT64_MAX;
	struct span s = { 0, width, false };
	for (size_t i = 0; i < n; i++)
		if (!clip(&s, cs[i]))
			return false;
	for (size_t i = 0; i < n; i++) {
		const struct scmpc_cond *c = cs[i];
		if (c->op == SCMPC_OP_NE && s.eq && s.lo == c->value)
			return false;
		if (c->op != SCMPC_OP_MASKED_EQ)
			continue;
		uint64_t m = c->value & width, want = c->value2 & c->value;
		if (want & ~m)
			return false;	/* bits a narrow argument does not have */
		if (s.eq && (s.lo & m) != want)
			return false;
		for (size_t j = 0; j < i; j++) {
			const struct scmpc_cond *o = cs[j];
			if (o->op != SCMPC_OP_MASKED_EQ)
				continue;
			uint64_t both = m & o->value;
			if ((want & both) != (o->value2 & o->value & both))
				return false;
		}
	}
	return true;
}

bool rules_may_overlap(const struct rule *a, const struct rule *b, bool compat32)
{
	const struct rule *const r[2] = { a, b };
	for (unsigned arg = 0; arg < 6; arg++)
		if (!arg_may_hold(r, arg, compat32))
			return false;
	return true;
}
