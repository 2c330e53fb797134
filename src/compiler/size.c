/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The size strategy: which lowering the compiler emits.  Argument checks
 * are laid out for the shortest worst path, unless the program is then too
 * long for the kernel, or larger than libseccomp's own program of the
 * policy would be (its model is here: chain_layout()), or the caller asks
 * for size (SCMPC_COMPILE_SMALLEST) or for the path (SHORTEST).  One entry
 * point, size_lower_emit(); the rest of the compiler does not know why a
 * layout was chosen.
 */
#include <stdlib.h>
#include <string.h>
#include "bpf/bpf.h"
#include "compiler/compile.h"
#include "compiler/emit.h"
#include "compiler/layout.h"
#include "compiler/lower.h"
#include "compiler/treecache.h"
#include "policy/lsc_tree.h"

/*
 * The lean program.  Argument checks are laid out for the shortest worst
 * path, which can take more instructions than a chain of their tests
 * (four values: a jge and two jeq pairs, 5 instructions 3 deep, against a
 * 4-deep chain of 4).  The lean lowering lays them out size first
 * (LAYOUT_ARGS_COMPACT): a tree's path is at most its size, which is at
 * most the chain's, so no call's checks run longer than the chain that
 * libseccomp tests them with.  That bounds each call's path, but the
 * program's worst path still grows (by one compare for four values, by
 * dozens for a set of forty), so it is paid only where the path-first
 * program has lost what justifies it, being smaller than the chain
 * layout: one jeq per call and each call's checks as libseccomp chains
 * them (lsc_tree.c's model of its tree), the program of its level 1.
 * Its instructions are counted at the least (struct l1_count: tests,
 * masks, returns, equal tails once, and the loads libseccomp cannot avoid;
 * no copies of a return a jump cannot reach, no `ja`, no x32 edges): a
 * program no larger than that is surely no larger than level 1's, and
 * only those keep their paths without a second look.
 * Docker's profile is a fifth of that and keeps its paths even though
 * one call's checks could be a compare shorter (personality); hundreds of
 * calls with a few values each, thousands of values on one call, or sets
 * of 64-bit values are larger than it, and get the lean program.
 */
static size_t calls_named(const scmpc_policy *p, const struct arch_view *views)
{
	size_t n = 0;
	for (size_t a = 0; a < p->narches; a++)
		for (size_t i = 0; i < views[a].nrs; i++)
			n += i == 0 || views[a].rs[i].nr != views[a].rs[i - 1].nr;
	return n;
}

/* The compares of the chain layout; SIZE_MAX when a call's tree cannot
 * be had (then the path-first program stands). */
/* The instructions libseccomp must spend on the DAG of its layout, with a
 * load before every test as lsc_tree_lower() makes them: tests, masks and
 * returns, each once (it merges equal blocks, no more), and a load only
 * where some path arrives with another word in A (a test of that word
 * skips it, libseccomp's own shortcut). */
struct l1_count {
	int64_t *word;		/* per test: the word it tests; -1 masked or mixed */
	uint8_t *need;		/* per load: some path arrives without its word */
	size_t n;
	size_t ebpf;		/* the same instructions as the kernel converts them */
};

/* For each test node, the word every load before it reads unmasked (-1 when loads differ or mask
 * it), for the chain's size model. */
static void l1_words(void *ctx, const struct dag *g, uint32_t id)
{
	struct l1_count *c = ctx;
	const struct node *x = dag_node(g, id);
	if (x->kind != N_LD)
		return;
	uint32_t t = x->a;
	int64_t w = x->k;
	if (dag_node(g, t)->kind == N_AND) {
		t = dag_node(g, t)->a;
		w = -1;
	}
	if (dag_node(g, t)->kind == N_JMP)
		c->word[t] = c->word[t] == INT64_MIN || c->word[t] == w ? w : -1;
}

static void l1_loads(void *ctx, const struct dag *g, uint32_t id)
{
	struct l1_count *c = ctx;
	const struct node *x = dag_node(g, id);
	if (x->kind != N_JMP)
		return;
	for (int b = 0; b < 2; b++) {
		const struct node *y = dag_node(g, b ? x->b : x->a);
		if (y->kind == N_LD && c->word[id] != (int64_t)y->k)
			c->need[b ? x->b : x->a] = 1;
	}
}

/* Each counted instruction at what bpf_convert_filter() makes of it when
 * no jump costs a `ja` (libseccomp's chain falls through on one side of
 * almost every test): a return is two, a test against a constant of 2^31
 * or more two (the constant is moved into a register first), the rest
 * one. */
static void l1_sum(void *ctx, const struct dag *g, uint32_t id)
{
	struct l1_count *c = ctx;
	const struct node *x = dag_node(g, id);
	if (x->kind == N_LD && !c->need[id])
		return;
	c->n++;
	c->ebpf += 1 + (x->kind == N_RET || (x->kind == N_JMP && x->k >= 0x80000000U));
}

/* V's calls put in front of CHAIN as libseccomp chains them, each its jeq
 * and its rules' tree; false on ENOMEM. */
static bool chain_calls(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			uint32_t *chain, size_t **pos, size_t *cap)
{
	for (size_t i = 0, j; i < v->nrs; i = j) {
		size_t n = 0;
		const struct rule *plain = NULL;
		for (j = i; j < v->nrs && v->rs[j].nr == v->rs[i].nr; j++) {
			const struct rule *r = view_rule(p, v, j);
			if (!plain && r->nconds == 0)
				plain = r;
			if (!array_reserve(pos, cap, n, sizeof(**pos), 16))
				return false;
			(*pos)[n++] = j;
		}
		struct lsc_tree *t;
		uint32_t call = NODE_NONE;
		if (plain) {
			call = dag_ret(g, plain->action);
		} else if (lsc_tree_build(&t, p, v, *pos, n, NULL) == 0) {
			call = lsc_tree_lower(g, t, v->info, dag_ret(g, p->def_action));
			lsc_tree_free(t);
		}
		if ((*chain = dag_jmp(g, BPF_JEQ, v->rs[i].nr, call, *chain)) == NODE_NONE)
			return false;
	}
	return true;
}

/* The length of libseccomp's chain program for the policy, SIZE_MAX when it
 * cannot be built; *EBPF (if not NULL) its least eBPF length, SIZE_MAX
 * with it. */
static size_t chain_layout(const scmpc_policy *p, const struct arch_view *views, size_t *ebpf)
{
	struct dag g;
	size_t *pos = NULL, cap = 0, total = SIZE_MAX, x32 = 0;
	bool bad = false;
	dag_init(&g);
	uint32_t root = dag_ret(&g, p->badarch_action);
	for (size_t a = p->narches; a-- > 0 && !bad;) {
		/* ABIs of one AUDIT_ARCH value (x86_64 and x32) share a section:
		 * the last of them builds it, over all of their calls. */
		bool later = false;
		for (size_t b = a + 1; b < p->narches; b++)
			later |= views[b].info->audit == views[a].info->audit;
		if (later)
			continue;
		uint32_t chain = dag_ret(&g, p->def_action);
		bool has_x32 = false;
		for (size_t s = 0; s <= a && !bad; s++) {
			if (views[s].info->audit != views[a].info->audit)
				continue;
			bad = !chain_calls(&g, p, &views[s], &chain, &pos, &cap);
			has_x32 |= views[s].arch == SCMPC_ARCH_X32;
		}
		/* x86_64 alone, libseccomp tells x32's numbers apart from it with
		 * a jge and a jne -1 (whose K needs a register): 3 eBPF; the
		 * instruction count leaves them out, as it always has. */
		x32 += views[a].arch == SCMPC_ARCH_X86_64 && !has_x32 ? 3 : 0;
		uint32_t sec = bad ? NODE_NONE : dag_ld(&g, offsetof(struct seccomp_data, nr), chain);
		root = dag_jmp(&g, BPF_JEQ, views[a].info->audit, sec, root);
		bad |= root == NODE_NONE;
	}
	root = bad ? NODE_NONE : dag_ld(&g, offsetof(struct seccomp_data, arch), root);
	struct l1_count c = { .word = malloc(g.n * sizeof(*c.word)), .need = calloc(g.n, 1) };
	if (root != NODE_NONE && c.word && c.need) {
		for (size_t k = 0; k < g.n; k++)
			c.word[k] = INT64_MIN;
		c.need[root] = 1;
		if (dag_walk(&g, root, l1_words, &c) && dag_walk(&g, root, l1_loads, &c) &&
		    dag_walk(&g, root, l1_sum, &c))
			total = c.n;
	}
	/* The converter's prologue: A and X cleared, the context saved. */
	if (ebpf)
		*ebpf = total == SIZE_MAX ? SIZE_MAX : c.ebpf + 3 + x32;
	free(c.word);
	free(c.need);
	free(pos);
	dag_fini(&g);
	return total;
}

/* The path-first lowering's DAG and number trees, kept for
 * try_argfirst(): the argfirst lowering would make every call that one
 * made again before its own (lower_argfirst() says why it may start from
 * them instead).  OK: the lowering succeeded. */
struct kept {
	struct dag g;
	struct lowered low;
	bool ok;
};

/* P lowered (argument checks laid out as MODE says) and emitted.  *LIMIT
 * (if not NULL) says which of the compiler's own bounds stopped the
 * lowering, DAG_LIMIT_NONE when none did.  KEEP (or NULL, zeroed, for a
 * LOWER_PATH lowering without a budget) receives the DAG and its number
 * trees, for the caller to free. */
static int lower_emit(const scmpc_policy *p, struct arch_view *views,
		      const struct scmpc_compile_opts *o, enum lower_mode mode, unsigned slack,
		      struct sock_filter **insns, size_t *len, enum dag_limit *limit,
		      struct compile_budget *budget, struct tree_cache *trees, struct kept *keep,
		      scmpc_diag *d)
{
	struct dag own, *g = keep ? &keep->g : &own;
	dag_init(g);
	g->trees = trees;
	if (budget && budget->left < g->max_work)
		g->max_work = budget->left;
	int64_t root = (o->flags & SCMPC_COMPILE_NAIVE)
			       ? lower_naive(g, p, views, d)
			       : lower_policy(g, p, views, mode, slack, o->hot,
					      keep ? &keep->low : NULL, d);
	int err = root < 0 ? (int)root : emit_program(g, (uint32_t)root, insns, len, d);
	if (limit)
		*limit = g->too_big ? g->limit : DAG_LIMIT_NONE;
	if (budget)
		budget->left -= g->work < budget->left ? g->work : budget->left;
	if (keep)
		keep->ok = err == 0;
	else
		dag_fini(g);
	return err;
}

/* Whether a rule of any view has an argument condition: without one,
 * LOWER_COMPACT_LOFIRST has no halves to order and lowers as
 * LOWER_COMPACT. */
static bool any_conds(const scmpc_policy *p, const struct arch_view *views)
{
	for (size_t a = 0; a < p->narches; a++)
		for (size_t i = 0; i < views[a].nrs; i++)
			if (view_rule(p, &views[a], i)->nconds)
				return true;
	return false;
}

/* The program MODE lays P out as, in place of *INSNS when there is none
 * (*ERR < 0) or it is smaller; a lowering that fails leaves what there is
 * and says nothing. */
static void try_smaller(const scmpc_policy *p, struct arch_view *views,
			const struct scmpc_compile_opts *o, enum lower_mode mode,
			struct sock_filter **insns, size_t *len, int *err, struct compile_budget *budget,
			struct tree_cache *trees)
{
	struct sock_filter *t = NULL;
	size_t n = 0;
	if (lower_emit(p, views, o, mode, 0, &t, &n, NULL, budget, trees, NULL, NULL) == 0 &&
	    (*err < 0 || n < *len)) {
		free(*insns);
		*insns = t;
		*len = n;
		*err = 0;
		t = NULL;
	}
	free(t);
}

/* A program and its figures. */
struct cand {
	struct sock_filter *insns;
	size_t len, ebpf;
};

/* P lowered as MODE with SLACK into C, its work charged to BUDGET (if not
 * NULL); false when it fails. */
static bool capped(const scmpc_policy *p, struct arch_view *views,
		   const struct scmpc_compile_opts *o, enum lower_mode mode, unsigned slack,
		   struct compile_budget *budget, struct tree_cache *trees, struct cand *c)
{
	c->insns = NULL;
	if (lower_emit(p, views, o, mode, slack, &c->insns, &c->len, NULL, budget, trees, NULL,
		       NULL) != 0) {
		free(c->insns);
		c->insns = NULL;
		return false;
	}
	c->ebpf = bpf_ebpf_len(c->insns, c->len);
	return true;
}

/* Whether C meets libseccomp's figures (CHAIN, CHAIN_EBPF) in more ways
 * than B, or as many and with less eBPF, or as much and fewer
 * instructions. */
static bool cand_better(const struct cand *c, const struct cand *b, size_t chain,
			size_t chain_ebpf)
{
	int mc = (c->len <= chain) + (c->ebpf <= chain_ebpf);
	int mb = (b->len <= chain) + (b->ebpf <= chain_ebpf);
	if (mc != mb)
		return mc > mb;
	return c->ebpf != b->ebpf ? c->ebpf < b->ebpf : c->len < b->len;
}

/*
 * A program larger than libseccomp's chain would be, in instructions
 * (CHAIN) or in the kernel's eBPF (CHAIN_EBPF), usually because its number
 * search is a tree where the chain spends one jeq per call and a tree's
 * splits cost instructions (a scattered allowlist of 64 calls: 80 against
 * 60), or because a tree's leaves jump on both sides, which the kernel's
 * converter pays with a `ja` each (3 calls x 19 64-bit values: 76
 * instructions but 114 eBPF against 87 and 103).  The number trees laid
 * out with the fewest tests (LOWER_CAPPED, slack 0), or the fewest as the
 * converter counts them (LOWER_CAPPED_EBPF), are taken if no worse on
 * either count and better on one (of the two, the one closer to
 * libseccomp's figures); then as much slack as keeps the program within
 * libseccomp's figures (or its own, where those are larger) buys back the
 * worst path: all of it if that fits, else found by bisection, since the
 * program grows with the slack.  Each try is a whole lowering, charged to
 * a caller's BUDGET like the others: the splitter's program of a policy
 * that fits is the one scmpc_compile() makes.
 */
static void try_capped(const scmpc_policy *p, struct arch_view *views,
		       const struct scmpc_compile_opts *o, size_t chain, size_t chain_ebpf,
		       struct sock_filter **insns, size_t *len, struct compile_budget *budget,
		       struct tree_cache *trees)
{
	struct cand cur = { *insns, *len, bpf_ebpf_len(*insns, *len) }, best = { 0 }, t;
	enum lower_mode mode = LOWER_CAPPED;
	for (int m = 0; m < 2; m++) {
		enum lower_mode mm = m ? LOWER_CAPPED_EBPF : LOWER_CAPPED;
		if (!capped(p, views, o, mm, 0, budget, trees, &t))
			continue;
		bool ok = t.len <= cur.len && t.ebpf <= cur.ebpf &&
			  (t.len < cur.len || t.ebpf < cur.ebpf);
		if (ok && (!best.insns || cand_better(&t, &best, chain, chain_ebpf))) {
			free(best.insns);
			best = t;
			mode = mm;
		} else {
			free(t.insns);
		}
	}
	if (!best.insns)
		return;
	size_t lmax = cur.len < chain ? cur.len : chain;
	size_t emax = cur.ebpf < chain_ebpf ? cur.ebpf : chain_ebpf;
	lmax = lmax > best.len ? lmax : best.len;
	emax = emax > best.ebpf ? emax : best.ebpf;
	unsigned lo = 0;
	unsigned hi = (unsigned)(lmax - best.len < LAYOUT_SLACK_MAX ? lmax - best.len
							    : LAYOUT_SLACK_MAX);
	/* The most slack first: when the bounds leave room for all of it,
	 * that is the only further lowering. */
	for (bool first = true; lo < hi; first = false) {
		unsigned mid = first ? hi : lo + (hi - lo + 1) / 2;
		if (capped(p, views, o, mode, mid, budget, trees, &t) && t.len <= lmax &&
		    t.ebpf <= emax) {
			free(best.insns);
			best = t;
			lo = mid;
		} else {
			free(t.insns);
			hi = mid - 1;
		}
	}
	free(*insns);
	*insns = best.insns;
	*len = best.len;
}

/*
 * The path-first program kept, its number trees get another look
 * (argfirst.c): trees that reach the argument-checked calls, which the
 * kernel's action cache never serves, in fewer tests.  The strategy above
 * chose on the program without them, so every choice stays as it was, and
 * the result replaces the program only when it is no larger in
 * instructions nor in eBPF.
 */
/* ABI I's worst paths on INSNS as scmpc_stats() measures them: over the
 * argument-free numbers (*FREE) and over those and every argument value
 * of the argument-checked calls (*ALL); false when it cannot. */
static bool abi_worst(const scmpc_policy *p, const struct sock_filter *insns, size_t len, size_t i,
		      unsigned *free_worst, unsigned *all)
{
	/* One walk with room for the calls a policy usually checks, a
	 * second only when more: each walk is a tenth of a compile. */
	struct scmpc_argsys_stats some[64], *as = some;
	struct scmpc_arch_stats s = { .sz = sizeof(s), .argsys = some, .argsys_cap = 64 };
	if (scmpc_stats(p, insns, len, i, NULL, &s, NULL) < 0)
		return false;
	*free_worst = *all = s.worst_path;
	if (s.nargsys > s.argsys_cap) {
		as = calloc(s.nargsys, sizeof(*as));
		s = (struct scmpc_arch_stats){ .sz = sizeof(s), .argsys = as, .argsys_cap = s.nargsys };
		if (!as || scmpc_stats(p, insns, len, i, NULL, &s, NULL) < 0) {
			free(as);
			return false;
		}
	}
	for (size_t k = 0; k < s.nargsys && k < s.argsys_cap; k++)
		*all = as[k].worst_path > *all ? as[k].worst_path : *all;
	if (as != some)
		free(as);
	return true;
}

/* Whether T's worst paths, over argument-free numbers and over all, are
 * no longer than B's on any ABI of P: what argfirst.c's figures promise
 * but for the `ja` the emitter adds where a jump is too far.  Without one
 * in T, every path is the DAG's, which argfirst.c measured, and the
 * measure here (a tenth of a compile of Docker's profile) is skipped. */
static bool paths_kept(const scmpc_policy *p, const struct sock_filter *t, size_t tn,
		       const struct sock_filter *b, size_t bn)
{
	bool ja = false;
	for (size_t i = 0; i < tn && !ja; i++)
		ja = t[i].code == (BPF_JMP | BPF_JA);
	if (!ja)
		return true;
	for (size_t i = 0; i < p->narches; i++) {
		unsigned tf, ta, bf, ba;
		if (!abi_worst(p, t, tn, i, &tf, &ta) || !abi_worst(p, b, bn, i, &bf, &ba) ||
		    tf > bf || ta > ba)
			return false;
	}
	return true;
}

static void try_argfirst(const scmpc_policy *p, struct arch_view *views,
			 const struct scmpc_compile_opts *o, struct sock_filter **insns, size_t *len,
			 struct compile_budget *budget, struct tree_cache *trees, struct kept *keep)
{
	struct sock_filter *t = NULL;
	size_t n = 0;
	int err;
	if (keep && keep->ok) {
		int64_t root = lower_argfirst(&keep->g, p, &keep->low, NULL);
		err = root < 0 ? (int)root : emit_program(&keep->g, (uint32_t)root, &t, &n, NULL);
	} else {
		err = lower_emit(p, views, o, LOWER_PATH_ARGFIRST, 0, &t, &n, NULL, budget, trees,
				 NULL, NULL);
	}
	if (err == 0 &&
	    n <= *len && bpf_ebpf_len(t, n) <= bpf_ebpf_len(*insns, *len) &&
	    (n != *len || memcmp(t, *insns, n * sizeof(*t))) && paths_kept(p, t, n, *insns, *len)) {
		free(*insns);
		*insns = t;
		*len = n;
		t = NULL;
	}
	free(t);
}

int size_lower_emit(const scmpc_policy *p, struct arch_view *views,
		    const struct scmpc_compile_opts *o, struct sock_filter **insns, size_t *len,
		    bool *size_bound, struct compile_budget *budget, scmpc_diag *d)
{
	/* Argument checks are laid out for the shortest worst path; when that
	 * makes the program too long for the kernel, once more for size.
	 * The lowerings below share their number trees' searches (treecache.h);
	 * without memory for that, each searches its own. */
	struct tree_cache *trees = tree_cache_new();
	/* The argfirst lowering below starts from this one's DAG, where no
	 * budget must be charged as a lowering of its own would charge it. */
	struct kept keep = { 0 };
	bool keepable = !budget && !o->hot && !(o->flags & SCMPC_COMPILE_NAIVE) &&
			any_conds(p, views);
	enum dag_limit limit;
	int err = lower_emit(p, views, o, LOWER_PATH, 0, insns, len, &limit, budget, trees,
			     keepable ? &keep : NULL, d);
	const struct sock_filter *path_prog = err == 0 ? *insns : NULL;
	bool sized_out = limit == DAG_LIMIT_NONE || limit == DAG_LIMIT_RANGES;
	if (err == -E2BIG && sized_out && !(o->flags & SCMPC_COMPILE_NAIVE)) {
		err = lower_emit(p, views, o, LOWER_COMPACT, 0, insns, len, &limit, budget, trees,
				 NULL, d);
		bool sized = err == 0 || (err == -E2BIG && (limit == DAG_LIMIT_NONE ||
							    limit == DAG_LIMIT_RANGES));
		/* The other order of an equality's halves may be smaller, or fit
		 * where this one does not; if neither fits, the message stays
		 * the first order's. */
		if (sized)
			try_smaller(p, views, o, LOWER_COMPACT_LOFIRST, insns, len, &err, budget, trees);
	} else if (err == 0 && !(o->flags & (SCMPC_COMPILE_NAIVE | SCMPC_COMPILE_SHORTEST))) {
		size_t chain_ebpf = SIZE_MAX, chain = chain_layout(p, views, &chain_ebpf);
		if ((o->flags & SCMPC_COMPILE_SMALLEST) ||
		    (*len > calls_named(p, views) && *len > chain)) {
			/* Both orders of an equality's halves, the smallest
			 * program kept (the earlier on a tie).  Failing, a
			 * lowering leaves what there is, so it says nothing.
			 * Without a condition the two orders lower alike, and
			 * the second, the same program again, could only tie:
			 * it is skipped unless a caller's budget counts the
			 * work (the splitter's must not change). */
			try_smaller(p, views, o, LOWER_COMPACT, insns, len, &err, budget, trees);
			if (budget || any_conds(p, views))
				try_smaller(p, views, o, LOWER_COMPACT_LOFIRST, insns, len, &err,
					    budget, trees);
		}
		/* For the smallest program the number trees get the fewest
		 * tests too, with no slack spent on the path (figures of 0 leave
		 * none): a scattered allowlist's chain is smaller than any
		 * search of it, and SMALLEST is never larger than the default. */
		if (err == 0 && (o->flags & SCMPC_COMPILE_SMALLEST))
			try_capped(p, views, o, 0, 0, insns, len, budget, trees);
		else if (err == 0 && chain != SIZE_MAX &&
			 (*len > chain || bpf_ebpf_len(*insns, *len) > chain_ebpf))
			try_capped(p, views, o, chain, chain_ebpf, insns, len, budget, trees);
	}
	/* Without an argument check there is nothing for argfirst.c to move. */
	if (err == 0 && *insns == path_prog && !o->hot && !(o->flags & SCMPC_COMPILE_NAIVE) &&
	    any_conds(p, views))
		try_argfirst(p, views, o, insns, len, budget, trees, keepable ? &keep : NULL);
	/* Too big for one program, measured as such: not when the compiler's
	 * own work or node bound stopped it (nor is it lowered again for size
	 * then), which says nothing about the program's size. */
	*size_bound = err == -E2BIG && sized_out &&
		      (limit == DAG_LIMIT_NONE || limit == DAG_LIMIT_RANGES) &&
		      !(o->flags & SCMPC_COMPILE_NAIVE);
	if (keepable) {
		dag_fini(&keep.g);
		lowered_free(&keep.low);
	}
	tree_cache_free(trees);
	return err;
}
