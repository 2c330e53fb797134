/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Declarations shared between the library's modules; not installed. */
#ifndef SCMPC_INTERNAL_H
#define SCMPC_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include "scmpc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The options-struct contract, as libbpf keeps it: SZ must cover the
 * fields this call needs (through NEED, the last of them), and bytes past
 * the struct this version knows must be zero, since they are fields of a
 * newer scmpc this one would silently ignore.  Returns 0 or -EINVAL with a
 * message naming the struct.  TYPE is the struct's tag. */
int opts_check(const void *opts, size_t sz, size_t need, size_t known, const char *type,
	       scmpc_diag *d);
#define OPTS_END(type, field) (offsetof(struct type, field) + sizeof(((struct type *)0)->field))
#define OPTS_VALID(src, type, need, d)                                              \
	((src) ? opts_check((src), (src)->sz, OPTS_END(type, need), sizeof(struct type), \
			    #type, (d))                                              \
	       : 0)

/* Read an options struct the caller may have built against an older header:
 * copy what its sz covers over zeroed defaults. */
#define OPTS_COPY(dst, src)                                                        \
	do {                                                                       \
		memset(&(dst), 0, sizeof(dst));                                    \
		if (src) {                                                         \
			size_t n_ = (src)->sz < sizeof(dst) ? (src)->sz : sizeof(dst); \
			memcpy(&(dst), (src), n_);                                 \
		}                                                                  \
	} while (0)

/* Hand back an output struct the caller sized with its own header: OUT_SZ
 * bytes at OUT get what both versions know from LOCAL (a full struct of
 * this version's, LOCAL_SZ bytes), zeros in fields only a newer header has,
 * and OUT_SZ in the leading sz.  OUT_SZ must cover sz itself. */
void out_fill(void *out, size_t out_sz, const void *local, size_t local_sz);
#define OUT_FILL(out, local) out_fill((out), (out)->sz, &(local), sizeof(local))

/* SECCOMP_FILTER_FLAG_* (linux/seccomp.h), for headers older than the
 * flags: their values are kernel ABI. */
#include <linux/seccomp.h>
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
/* ---- array.c */
/* Make room for element N of *ARRP (a T ** with *CAP elements allocated),
 * doubling from FIRST.  Returns false on ENOMEM; *ARRP is then unchanged. */
bool array_reserve(void *arrp, size_t *cap, size_t n, size_t size, size_t first);
/* qsort() order of uint32_t and of uint64_t values. */
int cmp_uint32(const void *a, const void *b);
int cmp_uint64(const void *a, const void *b);
/* Sort the N elements of SIZE bytes at BASE by CMP and drop repeats;
 * returns how many are left. */
size_t sort_unique(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* A set of numbers grown one at a time, then sorted once. */
struct u64set {
	uint64_t *v;
	size_t n, cap;
};
bool u64set_add(struct u64set *s, uint64_t x);
void u64set_sort_unique(struct u64set *s);
/* The first of the N elements of SIZE bytes at BASE (sorted by the uint32_t
 * at KEY_OFF in each) whose key is not below KEY; N when none. */
size_t lower_bound_u32(const void *base, size_t n, size_t size, size_t key_off, uint32_t key);

/* ---- workload.c: a workload as the dispatch sees it */
struct hot_call {
	uint32_t nr;
	uint64_t count;
	bool cached;		/* its ABI's constant allows are served by the kernel's cache */
};
/* The calls of W that reach P's section for AUDIT: entries of P's ABIs
 * with that AUDIT_ARCH, those without an ABI counting as PRIMARY's; by
 * number, repeats summed.  *OUT is malloc'ed (NULL when none); returns
 * how many or -ENOMEM. */
long hot_calls(const scmpc_workload *w, const scmpc_policy *p, uint32_t audit,
	       enum scmpc_arch primary, struct hot_call **out);

/* ---- diag.c */
/* Record an error and return ERR (a negative errno) so callers can write
 * `return diag_err(d, -EINVAL, where, "...")`. */
int diag_err(scmpc_diag *d, int err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int diag_err_insn(scmpc_diag *d, int err, long insn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_warn(scmpc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, unless D already holds that exact warning (views are made once
 * per compile, eval and check, and say the same each time). */
void diag_warn_once(scmpc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- arch.c: every fact about an ABI */
/* On x86_64 the x32 ABI's numbers carry bit 30 (__X32_SYSCALL_BIT) under
 * x86_64's AUDIT_ARCH. */
#define X32_SYSCALL_BIT 0x40000000U

struct arch_info {
	enum scmpc_arch arch;
	const char *name;		/* scmpc's name: "x86_64", "i386", ... */
	const char *scmp_name;		/* libseccomp's token name, "SCMP_ARCH_X86" */
	const char *docker_name;	/* the host's name in Docker's includes/excludes.arches */
	const char *aliases;		/* other accepted spellings, space-separated */
	uint32_t audit;			/* seccomp_data.arch value */
	uint32_t scmp_token;		/* libseccomp's SCMP_ARCH_* value */
	uint32_t nr_base;		/* x32: 0x40000000; mips: 4000, 5000, 6000; else 0 */
	uint8_t column;			/* column of the syscall table */
	bool compat32;			/* arguments are 32-bit: compare the low word only */
	bool big_endian;		/* seccomp_data in big-endian byte order */
	bool cached;			/* the kernel's action cache can serve its calls */
	enum scmpc_arch host;		/* the ABI of the kernels that run it */
};
const struct arch_info *arch_info(enum scmpc_arch a);
/* The ABI whose libseccomp token name is TOK ("SCMP_ARCH_X86"), or NONE. */
enum scmpc_arch arch_from_scmp_name(const char *tok);
/* Highest number in the syscall table for the ABI (with its base), ARM's
 * private calls left out. */
uint32_t arch_table_max(enum scmpc_arch a);
/* ABI whose numbers reach the filter with seccomp_data.arch == AUDIT and
 * number NR (on x86_64, x32 from 0x40000000 up), or SCMPC_ARCH_NONE. */
enum scmpc_arch arch_of_call(uint32_t audit, uint32_t nr);
/* The ABI's private calls, [*LO, *HI] (ARM's 0x0f0000-0x0f07ff): never
 * "unknown", never counted in the table's highest number.  False when the
 * ABI has none. */
bool arch_private_range(const struct arch_info *i, uint32_t *lo, uint32_t *hi);
bool arch_is_private(const struct arch_info *i, uint32_t nr);
/* Number of NAME on ABI I (with the ABI's base), or -ENOENT. */
int64_t arch_resolve(const struct arch_info *i, const char *name);
/* Name of NR on ABI I, or NULL. */
const char *arch_syscall_name(const struct arch_info *i, uint32_t nr);
/* True when some ABI of the table has NAME. */
bool syscall_name_known(const char *name);
/* Offset in seccomp_data of the HIGH or low word of argument ARG. */
uint32_t arch_arg_offset(const struct arch_info *i, unsigned arg, bool high);
/* Byte order of the seccomp_data a filter sees for AUDIT (its LE bit). */
bool audit_big_endian(uint32_t audit);

/* The socketcall(2) and ipc(2) multiplexers. */
enum arch_mux { MUX_SOCKETCALL, MUX_IPC };
/* The multiplexer's number on ABI I, or -ENOENT when it has none. */
int arch_multiplexer(const struct arch_info *i, enum arch_mux m, uint32_t *nr);
/* The multiplexer and call number (its first argument) that reach NAME,
 * or -ENOENT when NAME is not a multiplexed call. */
int arch_subcall(const char *name, enum arch_mux *m, uint32_t *call);
/* The test of the multiplexer's first argument that reaches sub-call CALL,
 * on the bits the kernel reads (ipc: the low 16; socketcall: the low 32). */
struct scmpc_cond arch_subcall_test(enum arch_mux m, uint32_t call);

/* ---- policy.c: the IR */
struct rule {
	char *name;		/* NULL when given by number */
	uint32_t nr;
	enum scmpc_arch arch;	/* NONE: every ABI of the policy */
	uint32_t action;
	struct scmpc_cond *conds;
	size_t nconds;
	char *origin;
	uint32_t source;	/* a view's own rule: the policy rule it stands for */
};

/* runc's ENOSYS stub for one ABI (scmpc_policy_set_limit). */
struct limit {
	bool set;
	uint32_t max;
	uint32_t action;
	unsigned flags;		/* SCMPC_LIMIT_* */
};

struct scmpc_policy {
	uint32_t def_action;
	uint32_t badarch_action;
	unsigned load_flags;
	enum scmpc_merge merge;		/* RESTRICTIVE or LIBSECCOMP */
	bool lsc_strict;		/* LIBSECCOMP_STRICT: refusals are errors */
	uint32_t unknown_action;
	bool unknown_set;
	enum scmpc_unknown_threshold unknown_thr;
	enum scmpc_arch arches[SCMPC_ARCH_COUNT];
	size_t narches;
	struct limit limits[SCMPC_ARCH_COUNT + 1];	/* by enum scmpc_arch */
	char *listener_path, *listener_meta;	/* OCI listenerPath, listenerMetadata */
	struct rule *rules;
	size_t nrules, cap;
	/* Lifted (lift.c): rules decide the numbers they name and nothing
	 * else; none is copied onto socketcall(2)/ipc(2). */
	bool literal;
};

bool policy_has_arch(const scmpc_policy *p, enum scmpc_arch a);
/* A policy with every setting of P (actions, ABIs, limits, flags, merge,
 * listener) and none of its rules; NULL without memory.  Whoever adds a
 * field above adds it there. */
scmpc_policy *policy_new_like(const scmpc_policy *p);

/* A rule resolved for one ABI. Sorted by nr, then by rule index. */
struct resolved {
	uint32_t nr;
	uint32_t rule;		/* < p->nrules: p->rules[]; else v->own[rule - p->nrules] */
	uint32_t order;		/* the policy rule it comes from: ties keep add order */
};

struct arch_view {
	enum scmpc_arch arch;
	const struct arch_info *info;
	struct resolved *rs;
	size_t nrs;
	uint32_t threshold;	/* numbers above get the unknown action */
	bool unknown_set;
	/* Rules the view made itself: multiplexed copies of socket and IPC
	 * rules (socketcall(2), ipc(2)), and libseccomp's 32-bit truncation of
	 * wide constants.  Their conditions are owned here. */
	struct rule *own;
	size_t nown, ownc;
	size_t base;		/* p->nrules when the view was made */
	/* LIBSECCOMP merge: the calls libseccomp decides by its tree of
	 * comparisons (lsc_tree.h), sorted by number. */
	struct view_tree *trees;
	size_t ntrees;
};

struct view_tree {
	uint32_t nr;
	struct lsc_tree *t;
};

/* The view whose rules decide nr == -1 under AUDIT: the first of the
 * policy's ABIs with that AUDIT_ARCH that has rules for -1 (positions
 * [*LO, *HI) of it), or NULL when none has and -1 gets the default. */
const struct arch_view *minus1_view(const scmpc_policy *p, const struct arch_view *views,
				    uint32_t audit, size_t *lo, size_t *hi);

/* The tree that decides NR on V, or NULL when its rules do. */
const struct lsc_tree *view_tree(const struct arch_view *v, uint32_t nr);

/* The rule at view position I. */
static inline const struct rule *view_rule(const scmpc_policy *p, const struct arch_view *v,
					   size_t i)
{
	uint32_t r = v->rs[i].rule;
	return r < v->base ? &p->rules[r] : &v->own[r - v->base];
}
/* The policy rule index to report for view position I. */
static inline uint32_t view_source(const struct arch_view *v, size_t i)
{
	uint32_t r = v->rs[i].rule;
	return r < v->base ? r : v->own[r - v->base].source;
}

/* Resolve every rule of P for ABI A. Names missing on the ABI are skipped. */
int arch_view_init(struct arch_view *v, const scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d);
void arch_view_fini(struct arch_view *v);
/* Index range [*lo, *hi) of the resolved rules for NR. */
void arch_view_find(const struct arch_view *v, uint32_t nr, size_t *lo, size_t *hi);
/* Whether any of NR's rules on V has conditions. */
bool arch_view_has_conds(const scmpc_policy *p, const struct arch_view *v, uint32_t nr);
/* The action when no rule for NR decides: default, or unknown above the
 * threshold. */
uint32_t arch_view_fallback(const scmpc_policy *p, const struct arch_view *v, uint32_t nr);
/* The limit (runc's stub) for a call of P's with AUDIT and NR, or NULL:
 * its ABI's, bit 30 choosing between x86_64 and x32. */
const struct limit *call_limit(const scmpc_policy *p, uint32_t audit, uint32_t nr);
/* Whether limit L decides number NR (L may be NULL). */
static inline bool limit_hits(const struct limit *l, uint32_t nr)
{
	return l && (nr > l->max || (nr == 0 && (l->flags & SCMPC_LIMIT_ZERO)));
}

/* ---- policy_eval.c */
/* Decision of the rules alone for a call on ABI V (no arch dispatch). */
uint32_t eval_on_view(const scmpc_policy *p, const struct arch_view *v,
		      const struct seccomp_data *sd, int *rule);

/* The same for repeated questions about one call NR of V with many rules
 * (the verifier asks thousands): rules with an equality are filed by its
 * constant, rules of one order comparison by their bound with the best of
 * each run precomputed, and the best `!=` rules are kept.  Built per call;
 * eval_indexed() falls back to eval_on_view() for other numbers. */
struct call_key {
	uint64_t value;		/* equality: the constant; order: the bound */
	size_t pos;		/* in v->rs */
	size_t best;		/* order: the best rule of the run that matches with this one */
	uint8_t slot;		/* 0-5: 64-bit compare of args[slot]; 6-11: low word of args[slot - 6] */
	bool upper;		/* order: x < value; else x >= value */
};
#define CALL_INDEX_MIN 8	/* calls with at most this many rules are scanned */
struct call_index {
	uint32_t nr;
	bool filed;		/* false: too few rules to file; eval_on_view() decides */
	size_t lo, hi;		/* v->rs range of NR */
	struct call_key *keys;	/* equalities by (slot, value) */
	size_t nkeys;
	struct call_key *bounds;	/* order comparisons by (slot, upper, value) */
	size_t nbounds;
	/* x != c alone, per slot: the best such rule, and the best whose
	 * constant differs from its (SIZE_MAX: none). */
	size_t ne[12][2];
	size_t *scan;		/* positions of the other rules */
	size_t nscan;
};
int call_index_init(struct call_index *ix, const scmpc_policy *p, const struct arch_view *v,
		    uint32_t nr);
void call_index_fini(struct call_index *ix);
uint32_t eval_indexed(const scmpc_policy *p, const struct arch_view *v,
		      const struct call_index *ix, const struct seccomp_data *sd, int *rule);

/* scmpc_conds_witness() of R's conditions, for the compiler fuzzer. */
void rule_witness(const struct rule *r, uint64_t args[6]);

/* The whole policy's decision, given views[i] for p->arches[i]. */
uint32_t policy_decide(const scmpc_policy *p, const struct arch_view *views,
		       const struct seccomp_data *sd, int *rule);
int policy_views_init(const scmpc_policy *p, struct arch_view *views, scmpc_diag *d);
void policy_views_fini(const scmpc_policy *p, struct arch_view *views, size_t n);

/* ---- verify_policy.c: probe points shared by the verifier and stats */
/* Argument vectors that exercise every condition on NR's rules in V:
 * constants, their neighbours, high-word and mask variants.  *OUT is
 * malloc'ed; returns the count (at least 1) or a negative errno. */
long probe_args(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
		uint64_t (**out)[6]);

int verify_with_views(const scmpc_policy *p, const struct arch_view *views,
		      const struct sock_filter *insns, size_t len, scmpc_diag *d);

/* verify_args.c: prove call NR of view V (under AUDIT) over every argument
 * vector: 1 when proven, 0 when the walk gave up (the caller probes),
 * -ENOMEM, or -EPROTO with *WITNESS an input in a class where program and
 * policy part. */
int verify_args_symbolic(const scmpc_policy *p, const struct arch_view *v,
			 const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
			 struct seccomp_data *witness);

/* ---- emulate.c / verify.c / cache.c */
/* eBPF length the kernel's converter produces for INSNS. */
size_t bpf_ebpf_len(const struct sock_filter *insns, size_t len);
/* Mnemonic of a classic BPF opcode ("ld h abs"), or NULL when the kernel's
 * classic table lacks it (verify.c; shared with the disassembler). */
const char *bpf_code_name(uint16_t code);
/* True for the 41 opcodes seccomp_check_filter() accepts. */
bool bpf_code_seccomp(uint16_t code);

/* ---- prog.c */
bool host_big_endian(void);
/* Byte-swap each instruction's code and k (a .bpf of the other byte
 * order). */
void bpf_swap(struct sock_filter *insns, size_t len);

/* ---- compile.c */
struct scmpc_prog {
	struct sock_filter *insns;
	size_t len;
	uint64_t compile_ns;
	bool swapped;		/* read from bytes of the other byte order */
};

#endif
