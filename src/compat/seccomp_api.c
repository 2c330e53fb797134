/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's C API (seccomp.h 2.5, 2.6's additions and main's
 * seccomp_notify_addfd) on scmpc: contexts, ABIs, name resolution, rules,
 * attributes, export and load.  The
 * return codes and the order in which arguments are checked are
 * libseccomp's, because programs test them (-EACCES for a rule with the
 * default action, -EEXIST for a conflicting one, -EDOM for an ABI of the
 * other byte order ...); the programs are scmpc's.
 *
 * Two things are process-wide because libseccomp's API makes them so: the
 * API level (seccomp_api_set() changes what every context may use) and the
 * listener fd of the last load (seccomp_notify_fd() takes no context that
 * could hold it).  Both are atomics.
 *
 * What the header it is built against decides (see src/compat/meson.build):
 * the version seccomp_version() reports (SCMP_VER_*), the pseudo syscall
 * numbers, and whether SCMP_ACT_TRAP may carry data (SCMP_ACT_TRAPX, in
 * headers after 2.6).  The exported functions do not follow the header:
 * every build exports 2.6's calls and main's seccomp_notify_addfd, so that
 * a program built against a newer header finds them instead of dying on a
 * symbol lookup, while one built against an older header never calls them.
 *
 * Nothing here prints: load and export call compat_log() (log.c), which
 * says what was compiled only when SCMPC_COMPAT_LOG was set at load time.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "refusal.h"

#define API __attribute__((visibility("default")))

#define CTX_MAGIC 0x5eccc0deU
/* libseccomp accepts ERRNO data below 4095 (the kernel would take 4095). */
#define MAX_ERRNO 4095U
/* seccomp.h 2.6 values a 2.5 header does not declare. */
#define ATTR_WAITKILL 10
#define FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
/* The highest API level (libseccomp 2.6: WAIT_KILLABLE_RECV). */
#define MAX_LEVEL 7
/* TRAP with data (si_errno of the SIGSYS) is libseccomp main's TRAPX: a
 * header that has it lets the data through, a released one (up to 2.6)
 * refuses it as its library does. */
#ifdef SCMP_ACT_TRAPX
#define TRAP_DATA_OK true
#else
#define TRAP_DATA_OK false
#endif


static _Atomic unsigned api_level;	/* 0: not yet probed */
static _Atomic int notify_fd = -1;

static const struct scmp_version version = { SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO };

/* ------------------------------------------------------------ errors */

/* libseccomp passes on a fixed set of errors and calls everything else an
 * internal error. */
static int rc_filter(int err)
{
	switch (err) {
	case -EACCES: case -ECANCELED: case -EDOM: case -EEXIST: case -EINVAL:
	case -ENOENT: case -ENOMEM: case -EOPNOTSUPP: case -ESRCH:
		return err;
	default:
		return err >= 0 ? err : -EFAULT;
	}
}

/* A failed system call: its own errno only when the caller asked for it. */
static int rc_sys(const struct compat_ctx *c, int err)
{
	if (err >= 0)
		return err;
	return c->a.sysrawrc ? err : -ECANCELED;
}

/* --------------------------------------------------------- API level */

/* What the running kernel offers, as libseccomp's levels count it: 2
 * seccomp(2) with TSYNC, 3 LOG and KILL_PROCESS, 4 SPEC_ALLOW, 5 user
 * notification, 6 TSYNC_ESRCH, 7 WAIT_KILLABLE_RECV.  The kernel takes
 * WAIT_KILLABLE_RECV only beside NEW_LISTENER (alone it is EINVAL even
 * where it is known), so level 7 asks for the pair, as libseccomp 2.6
 * does. */
static unsigned probe_level(void)
{
	unsigned level = 1;
	if (scmpc_probe_flags(SECCOMP_FILTER_FLAG_TSYNC, NULL) == 1)
		level = 2;
	if (level == 2 && scmpc_probe_flags(SECCOMP_FILTER_FLAG_LOG, NULL) == 1 &&
	    scmpc_probe_action(SCMPC_ACT_LOG, NULL) == 1 &&
	    scmpc_probe_action(SCMPC_ACT_KILL_PROCESS, NULL) == 1)
		level = 3;
	if (level == 3 && scmpc_probe_flags(SECCOMP_FILTER_FLAG_SPEC_ALLOW, NULL) == 1)
		level = 4;
	if (level == 4 && scmpc_probe_flags(SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL) == 1 &&
	    scmpc_probe_action(SCMPC_ACT_USER_NOTIF, NULL) == 1)
		level = 5;
	if (level == 5 && scmpc_probe_flags(SECCOMP_FILTER_FLAG_TSYNC_ESRCH, NULL) == 1)
		level = 6;
	if (level == 6 && scmpc_probe_flags(SECCOMP_FILTER_FLAG_NEW_LISTENER |
						    FILTER_FLAG_WAIT_KILLABLE_RECV,
					    NULL) == 1)
		level = 7;
	return level;
}

static unsigned level(void)
{
	unsigned l = atomic_load(&api_level);
	if (!l) {
		unsigned zero = 0;
		l = probe_level();
		if (!atomic_compare_exchange_strong(&api_level, &zero, l))
			l = zero;
	}
	return l;
}

API unsigned int seccomp_api_get(void)
{
	return level();
}

API int seccomp_api_set(unsigned int l)
{
	if (l < 1 || l > MAX_LEVEL)
		return -EINVAL;
	atomic_store(&api_level, l);
	return 0;
}

API const struct scmp_version *seccomp_version(void)
{
	return &version;
}

/* Whether the kernel (at the API level in force) runs ACT. */
static bool action_ok(const struct compat_ctx *c, uint32_t act)
{
	unsigned l = level();
	if (c && act == SCMP_ACT_NOTIFY && c->a.tsync && l < 6)
		return false;
	switch (act & 0xffff0000U) {
	case SCMP_ACT_TRAP:
		return TRAP_DATA_OK || !(act & 0xffffU);
	case SCMP_ACT_KILL_THREAD:
	case SCMP_ACT_ALLOW:
		return !(act & 0xffffU);
	case SCMP_ACT_ERRNO(0):
		return (act & 0xffffU) < MAX_ERRNO;
	case SCMP_ACT_TRACE(0):
		return true;
	case SCMP_ACT_KILL_PROCESS:
	case SCMP_ACT_LOG:
		return !(act & 0xffffU) && l >= 3;
	case SCMP_ACT_NOTIFY:
		return !(act & 0xffffU) && l >= 5;
	default:
		return false;
	}
}

/* ---------------------------------------------------- ABIs and names */

/* libseccomp's token for A: its AUDIT_ARCH value, except for x32, which
 * shares x86_64's and is told apart by its token (EM_X86_64 without the
 * 64-bit flag) and, in the program, by bit 30 of the syscall number. */
static uint32_t token_of(enum scmpc_arch a)
{
	return a == SCMPC_ARCH_X32 ? SCMP_ARCH_X32 : scmpc_arch_audit(a);
}

static enum scmpc_arch arch_of(uint32_t token)
{
	if (token == SCMP_ARCH_NATIVE)
		return scmpc_arch_native();
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if (token_of((enum scmpc_arch)a) == token)
			return (enum scmpc_arch)a;
	return SCMPC_ARCH_NONE;
}


API uint32_t seccomp_arch_resolve_name(const char *name)
{
	if (!name)
		return 0;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if (!strcmp(name, compat_arch_name((enum scmpc_arch)a)))
			return token_of((enum scmpc_arch)a);
	return 0;
}

API uint32_t seccomp_arch_native(void)
{
	return token_of(scmpc_arch_native());
}

API char *seccomp_syscall_resolve_num_arch(uint32_t token, int num)
{
	enum scmpc_arch a = arch_of(token);
	char buf[64];
	const char *name = a ? compat_syscall_name(a, num, buf, sizeof(buf)) : NULL;
	return name ? strdup(name) : NULL;
}

API int seccomp_syscall_resolve_name_arch(uint32_t token, const char *name)
{
	enum scmpc_arch a = arch_of(token);
	if (!name || !a)
		return __NR_SCMP_ERROR;
	return compat_resolve_name(a, name);
}

API int seccomp_syscall_resolve_name_rewrite(uint32_t token, const char *name)
{
	enum scmpc_arch a = arch_of(token);
	if (!name || !a)
		return __NR_SCMP_ERROR;
	int nr = compat_resolve_name(a, name);
	int64_t mux = nr < -1 ? compat_mux_nr(a, compat_family_of_pnr(nr)) : -1;
	return mux >= 0 ? (int)mux : nr;
}

API int seccomp_syscall_resolve_name(const char *name)
{
	return seccomp_syscall_resolve_name_arch(SCMP_ARCH_NATIVE, name);
}

/* ----------------------------------------------------------- context */

static void attrs_default(struct compat_attrs *a, uint32_t def)
{
	*a = (struct compat_attrs){ .act_default = def, .act_badarch = SCMP_ACT_KILL_THREAD,
				    .optimize = 1, .nnp = true };
}

static void filters_free(struct compat_filter *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].rules);
		compat_index_free(f[i].ix);
	}
	free(f);
}

static void changed(struct compat_ctx *c)
{
	scmpc_prog_free(c->prog);
	c->prog = NULL;
}

static int filter_add(struct compat_ctx *c, enum scmpc_arch a)
{
	if (c->nf && scmpc_arch_big_endian(a) != scmpc_arch_big_endian(c->f[0].arch))
		return -EDOM;
	struct compat_filter *f = realloc(c->f, (c->nf + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	c->f = f;
	c->f[c->nf++] = (struct compat_filter){ .arch = a };
	changed(c);
	return 0;
}

static struct compat_ctx *ctx_of(scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx;
	return c && c->magic == CTX_MAGIC ? c : NULL;
}

/* libseccomp's test for a usable context: one with an ABI. */
static struct compat_ctx *ctx_valid(scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_of(ctx);
	return c && c->nf ? c : NULL;
}

static void ctx_clear(struct compat_ctx *c)
{
	filters_free(c->f, c->nf);
	c->f = NULL;
	c->nf = 0;
	changed(c);
}

static void snapshots_free(struct compat_ctx *s)
{
	while (s) {
		struct compat_ctx *next = s->saved;
		filters_free(s->f, s->nf);
		free(s);
		s = next;
	}
}

API scmp_filter_ctx seccomp_init(uint32_t def_action)
{
	if (!action_ok(NULL, def_action))
		return NULL;
	struct compat_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->magic = CTX_MAGIC;
	attrs_default(&c->a, def_action);
	if (!scmpc_arch_native() || filter_add(c, scmpc_arch_native()) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

API int seccomp_reset(scmp_filter_ctx ctx, uint32_t def_action)
{
	if (!ctx) {
		/* the process-wide state: probe the kernel again */
		atomic_store(&api_level, 0);
		atomic_store(&notify_fd, -1);
		level();
		return 0;
	}
	struct compat_ctx *c = ctx_of(ctx);
	if (!c || !action_ok(NULL, def_action))
		return -EINVAL;
	ctx_clear(c);
	snapshots_free(c->saved);
	c->saved = NULL;
	attrs_default(&c->a, def_action);
	c->notify_used = false;
	return rc_filter(filter_add(c, scmpc_arch_native()));
}

API void seccomp_release(scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_of(ctx);
	if (!c)
		return;
	ctx_clear(c);
	snapshots_free(c->saved);
	c->magic = 0;
	free(c);
}

API int seccomp_merge(scmp_filter_ctx dst, scmp_filter_ctx src)
{
	struct compat_ctx *d = ctx_valid(dst), *s = ctx_valid(src);
	if (!d || !s || d == s)
		return -EINVAL;
	if (d->a.act_default != s->a.act_default || d->a.nnp != s->a.nnp ||
	    d->a.tsync != s->a.tsync)
		return -EINVAL;
	if (scmpc_arch_big_endian(d->f[0].arch) != scmpc_arch_big_endian(s->f[0].arch))
		return -EDOM;
	for (size_t i = 0; i < d->nf; i++)
		for (size_t j = 0; j < s->nf; j++)
			if (d->f[i].arch == s->f[j].arch)
				return -EEXIST;
	struct compat_filter *f = realloc(d->f, (d->nf + s->nf) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	memcpy(f + d->nf, s->f, s->nf * sizeof(*f));
	d->f = f;
	d->nf += s->nf;
	d->notify_used |= s->notify_used;
	changed(d);
	free(s->f);
	s->f = NULL;
	s->nf = 0;
	seccomp_release(s);
	return 0;
}

static struct compat_filter *filter_of(struct compat_ctx *c, enum scmpc_arch a, size_t *idx)
{
	for (size_t i = 0; i < c->nf; i++)
		if (c->f[i].arch == a) {
			if (idx)
				*idx = i;
			return &c->f[i];
		}
	return NULL;
}

API int seccomp_arch_exist(const scmp_filter_ctx ctx, uint32_t token)
{
	struct compat_ctx *c = ctx_of(ctx);
	enum scmpc_arch a = arch_of(token);
	if (!c || !a)
		return -EINVAL;
	return filter_of(c, a, NULL) ? 0 : -EEXIST;
}

API int seccomp_arch_add(scmp_filter_ctx ctx, uint32_t token)
{
	struct compat_ctx *c = ctx_of(ctx);
	enum scmpc_arch a = arch_of(token);
	if (!c || !a)
		return -EINVAL;
	if (filter_of(c, a, NULL))
		return -EEXIST;
	return rc_filter(filter_add(c, a));
}

API int seccomp_arch_remove(scmp_filter_ctx ctx, uint32_t token)
{
	struct compat_ctx *c = ctx_of(ctx);
	enum scmpc_arch a = arch_of(token);
	size_t i;
	if (!c || !a)
		return -EINVAL;
	if (!filter_of(c, a, &i))
		return -EEXIST;
	free(c->f[i].rules);
	compat_index_free(c->f[i].ix);
	memmove(&c->f[i], &c->f[i + 1], (c->nf - i - 1) * sizeof(*c->f));
	c->nf--;
	changed(c);
	return 0;
}

/* ------------------------------------------------------------- rules */

/* A rule about to land on one ABI, before it is committed. */
struct landing {
	size_t filter;
	struct compat_rule r;
};

static int cond_of(const struct scmp_arg_cmp *in, struct scmpc_cond *out)
{
	static const enum scmpc_op ops[] = {
		[SCMP_CMP_NE] = SCMPC_OP_NE, [SCMP_CMP_LT] = SCMPC_OP_LT,
		[SCMP_CMP_LE] = SCMPC_OP_LE, [SCMP_CMP_EQ] = SCMPC_OP_EQ,
		[SCMP_CMP_GE] = SCMPC_OP_GE, [SCMP_CMP_GT] = SCMPC_OP_GT,
		[SCMP_CMP_MASKED_EQ] = SCMPC_OP_MASKED_EQ,
	};
	if (in->arg >= 6 || in->op <= _SCMP_CMP_MIN || in->op >= _SCMP_CMP_MAX)
		return -EINVAL;
	*out = (struct scmpc_cond){ .arg = in->arg, .op = ops[in->op], .value = in->datum_a,
				    .value2 = in->op == SCMP_CMP_MASKED_EQ ? in->datum_b : 0 };
	return 0;
}

/* The number a rule given in the host's numbering has on A: libseccomp
 * goes through the name, so a call the host numbers but A lacks becomes
 * A's pseudo number; -EFAULT when the host has no name for it. */
static int translate(enum scmpc_arch a, int nr, int *out)
{
	if (nr == -1 || a == scmpc_arch_native()) {
		*out = nr;
		return 0;
	}
	char buf[64];
	const char *name = compat_syscall_name(scmpc_arch_native(), nr, buf, sizeof(buf));
	if (!name)
		return -EFAULT;
	*out = compat_resolve_name(a, name);
	return *out == __NR_SCMP_ERROR ? -EFAULT : 0;
}

/* Where a rule lands on filter FI: NOUT (0, 1) landings in OUT.  A socket
 * or IPC call on an ABI that multiplexes it lands on its direct number
 * when there is one (scmpc adds the multiplexer's copy itself, as
 * libseccomp does: argument 0 tested for the call's number in place of
 * the rule's own test of it) and on the multiplexer otherwise. */
static int land(const struct compat_ctx *c, size_t fi, bool strict, const struct compat_rule *r,
		int nr, struct landing *out, size_t *nout)
{
	enum scmpc_arch a = c->f[fi].arch;
	char buf[64];
	int sys, rc = translate(a, nr, &sys);
	*nout = 0;
	if (rc < 0)
		return rc;
	const char *name = sys == -1 ? NULL : compat_syscall_name(a, sys, buf, sizeof(buf));
	enum compat_family fam = name ? compat_family_of_pnr(compat_pnr_of_name(name)) : FAM_NONE;
	int64_t mux = compat_mux_nr(a, fam);
	out->filter = fi;
	out->r = *r;
	if (mux >= 0) {
		if (strict && r->nconds)
			return -EINVAL;
		int64_t direct = sys >= 0 ? sys : scmpc_syscall_resolve(a, name);
		if (direct >= 0) {
			out->r.nr = (uint32_t)direct;
		} else {
			/* The sub-call test on the bits the kernel reads, where
			 * libseccomp compares the whole argument (README). */
			unsigned k = 0;
			uint32_t mnr;
			if (scmpc_syscall_multiplexer(a, name, &mnr, &out->r.conds[k++]) != 1)
				return -EFAULT;
			for (unsigned j = 0; j < r->nconds; j++)
				if (r->conds[j].arg != 0)
					out->r.conds[k++] = r->conds[j];
			out->r.nconds = k;
			out->r.nr = (uint32_t)mux;
		}
		*nout = 1;
		return 0;
	}
	if (sys >= -1) {
		out->r.nr = (uint32_t)sys;
		*nout = 1;
		return 0;
	}
	/* A call the ABI does not have: refused when the caller wants the rule
	 * exactly as given, else kept out of the program (and, except on the
	 * ABIs that multiplex calls, where libseccomp drops it, listed in the
	 * PFC as libseccomp lists it). */
	if (strict)
		return -EDOM;
	if (compat_mux_nr(a, FAM_SOCKET) < 0 && compat_mux_nr(a, FAM_IPC) < 0) {
		out->r.nr = (uint32_t)sys;
		out->r.pseudo = true;
		*nout = 1;
	}
	return 0;
}

static int add_to_policy(scmpc_policy *p, enum scmpc_arch a, const struct compat_rule *r,
			 scmpc_diag *d)
{
	struct scmpc_rule sr = { .sz = sizeof(sr), .nr = r->nr, .arch = a, .action = r->action,
				 .conds = r->conds, .nconds = r->nconds };
	int rc = scmpc_policy_add_rule(p, &sr, d);
	return rc < 0 ? rc : 0;
}

/* F's index of its rules by call, made from them when it has none or
 * holds other rules than F's (never: a safety net). */
static int index_ready(struct compat_filter *f)
{
	if (f->ix && compat_index_count(f->ix) == f->n)
		return 0;
	compat_index_free(f->ix);
	if (!(f->ix = compat_index_new(f->arch)))
		return -ENOMEM;
	for (size_t j = 0; j < f->n; j++) {
		/* Each was taken in this order once, so it is taken again. */
		if (compat_index_add(f->ix, f->rules, (uint32_t)j, &f->rules[j]) == -ENOMEM) {
			compat_index_free(f->ix);
			f->ix = NULL;
			return -ENOMEM;
		}
		compat_index_commit(f->ix);
	}
	return 0;
}

static int rule_add(scmp_filter_ctx ctx, bool strict, uint32_t action, int syscall,
		    unsigned int n, const struct scmp_arg_cmp *args)
{
	struct compat_ctx *c = ctx_valid(ctx);
	if (n > 6 || (n && !args) || !c)
		return -EINVAL;
	if (syscall <= -1 && syscall >= -99 && !(syscall == -1 && c->a.tskip))
		return -EINVAL;
	if (!action_ok(c, action))
		return -EINVAL;
	if (action == c->a.act_default)
		return -EACCES;
	if (strict && c->nf > 1)
		return -EOPNOTSUPP;

	struct compat_rule r = { .action = action, .nr = 0 };
	bool seen[6] = { false };
	for (unsigned i = 0; i < n; i++) {
		if (args[i].arg >= 6 || seen[args[i].arg])
			return -EINVAL;
		seen[args[i].arg] = true;
	}
	/* libseccomp chains the comparisons by argument number. */
	for (unsigned arg = 0; arg < 6; arg++)
		for (unsigned i = 0; i < n; i++)
			if (args[i].arg == arg) {
				if (cond_of(&args[i], &r.conds[r.nconds++]) < 0)
					return -EINVAL;
			}

	struct landing *ls = calloc(c->nf, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	size_t nl = 0;
	int rc = 0;
	for (size_t fi = 0; fi < c->nf && !rc; fi++) {
		size_t k;
		rc = land(c, fi, strict, &r, syscall, &ls[nl], &k);
		nl += k;
	}
	/* libseccomp refuses a rule with the same comparisons as an earlier
	 * one of the same call but another action (EEXIST) when it is added:
	 * each ABI's index decides on the rules of the calls the new one
	 * reaches.  All or nothing, as libseccomp's transaction around the
	 * ABIs: an ABI that takes the rule gives it back if another refuses. */
	size_t checked = 0;
	for (size_t i = 0; i < nl && !rc; i++) {
		struct compat_filter *f = &c->f[ls[i].filter];
		rc = index_ready(f);
		if (!rc)
			rc = compat_index_add(f->ix, f->rules, (uint32_t)f->n, &ls[i].r);
		if (!rc)
			checked = i + 1;
	}
	for (size_t i = 0; i < nl && !rc; i++) {
		struct compat_filter *f = &c->f[ls[i].filter];
		if (f->n == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : 16;
			struct compat_rule *nr = realloc(f->rules, cap * sizeof(*nr));
			if (!nr) {
				rc = -ENOMEM;
				break;
			}
			f->rules = nr;
			f->cap = cap;
		}
	}
	if (rc) {
		for (size_t i = 0; i < checked; i++)
			compat_index_undo(c->f[ls[i].filter].ix);
	} else {
		for (size_t i = 0; i < nl; i++) {
			struct compat_filter *f = &c->f[ls[i].filter];
			f->rules[f->n++] = ls[i].r;
			compat_index_commit(f->ix);
		}
		if (action == SCMP_ACT_NOTIFY)
			c->notify_used = true;
		changed(c);
	}
	free(ls);
	return rc_filter(rc);
}

API int seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall,
			       unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
	return rule_add(ctx, false, action, syscall, arg_cnt, arg_array);
}

API int seccomp_rule_add_exact_array(scmp_filter_ctx ctx, uint32_t action, int syscall,
				     unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
	return rule_add(ctx, true, action, syscall, arg_cnt, arg_array);
}

/* The variadic calls pass the comparisons by value, ARG_CNT of them. */
static int rule_add_va(scmp_filter_ctx ctx, bool strict, uint32_t action, int syscall,
		       unsigned int arg_cnt, va_list ap)
{
	struct scmp_arg_cmp args[6];
	if (arg_cnt > 6)
		return -EINVAL;
	for (unsigned i = 0; i < arg_cnt; i++)
		args[i] = va_arg(ap, struct scmp_arg_cmp);
	return rule_add(ctx, strict, action, syscall, arg_cnt, args);
}

API int seccomp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall,
			 unsigned int arg_cnt, ...)
{
	va_list ap;
	va_start(ap, arg_cnt);
	int rc = rule_add_va(ctx, false, action, syscall, arg_cnt, ap);
	va_end(ap);
	return rc;
}

API int seccomp_rule_add_exact(scmp_filter_ctx ctx, uint32_t action, int syscall,
			       unsigned int arg_cnt, ...)
{
	va_list ap;
	va_start(ap, arg_cnt);
	int rc = rule_add_va(ctx, true, action, syscall, arg_cnt, ap);
	va_end(ap);
	return rc;
}

/* scmpc lays calls out by the shape of the policy, not by hints: the
 * priority is checked and accepted, and changes nothing. */
API int seccomp_syscall_priority(scmp_filter_ctx ctx, int syscall, uint8_t priority)
{
	(void)priority;
	struct compat_ctx *c = ctx_valid(ctx);
	if (!c || (syscall <= -1 && syscall >= -99 && !(syscall == -1 && c->a.tskip)))
		return -EINVAL;
	return 0;
}

/* -------------------------------------------------------- attributes */

API int seccomp_attr_get(const scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t *value)
{
	const struct compat_ctx *c = ctx_valid(ctx);
	if (!c || !value)
		return -EINVAL;
	switch ((int)attr) {
	case SCMP_FLTATR_ACT_DEFAULT: *value = c->a.act_default; break;
	case SCMP_FLTATR_ACT_BADARCH: *value = c->a.act_badarch; break;
	case SCMP_FLTATR_CTL_NNP: *value = c->a.nnp; break;
	case SCMP_FLTATR_CTL_TSYNC: *value = c->a.tsync; break;
	case SCMP_FLTATR_API_TSKIP: *value = c->a.tskip; break;
	case SCMP_FLTATR_CTL_LOG: *value = c->a.log; break;
	case SCMP_FLTATR_CTL_SSB: *value = c->a.ssb; break;
	case SCMP_FLTATR_CTL_OPTIMIZE: *value = c->a.optimize; break;
	case SCMP_FLTATR_API_SYSRAWRC: *value = c->a.sysrawrc; break;
	case ATTR_WAITKILL: *value = c->a.waitkill; break;
	default: return -EINVAL;
	}
	return 0;
}

API int seccomp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value)
{
	struct compat_ctx *c = ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	unsigned l = level();
	switch ((int)attr) {
	case SCMP_FLTATR_ACT_DEFAULT:
		return -EACCES;
	case SCMP_FLTATR_ACT_BADARCH:
		if (!action_ok(c, value))
			return -EINVAL;
		/* the one attribute the program holds (the others are load
		 * flags, or how rules and errors are taken) */
		if (c->a.act_badarch != value)
			changed(c);
		c->a.act_badarch = value;
		break;
	case SCMP_FLTATR_CTL_NNP:
		c->a.nnp = value;
		break;
	case SCMP_FLTATR_CTL_TSYNC:
		if (l < 2)
			return -EOPNOTSUPP;
		if (value && c->notify_used && l < 6)
			return -EINVAL;
		c->a.tsync = value;
		break;
	case SCMP_FLTATR_API_TSKIP:
		c->a.tskip = value;
		break;
	case SCMP_FLTATR_CTL_LOG:
		if (l < 3)
			return -EOPNOTSUPP;
		c->a.log = value;
		break;
	case SCMP_FLTATR_CTL_SSB:
		if (l < 4)
			return -EOPNOTSUPP;
		c->a.ssb = value;
		break;
	case SCMP_FLTATR_CTL_OPTIMIZE:
		/* both of libseccomp's layouts become scmpc's one */
		if (value != 1 && value != 2)
			return -EOPNOTSUPP;
		c->a.optimize = value;
		break;
	case SCMP_FLTATR_API_SYSRAWRC:
		c->a.sysrawrc = value;
		break;
	case ATTR_WAITKILL:
		/* libseccomp 2.6 takes it at any level: it is a request, passed
		 * to the kernel only with a listener (seccomp_load()). */
		c->a.waitkill = value;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------ compile, export */

int compat_policy(const struct compat_ctx *c, scmpc_policy **out, scmpc_diag *d)
{
	scmpc_policy *p = scmpc_policy_new(c->a.act_default);
	if (!p)
		return -ENOMEM;
	int rc = scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, d);
	if (!rc)
		rc = scmpc_policy_set_bad_arch_action(p, c->a.act_badarch, d);
	for (size_t i = 0; i < c->nf && !rc; i++)
		rc = scmpc_policy_add_arch(p, c->f[i].arch, d);
	for (size_t i = 0; i < c->nf && !rc; i++)
		for (size_t j = 0; j < c->f[i].n && !rc; j++)
			if (!c->f[i].rules[j].pseudo)
				rc = add_to_policy(p, c->f[i].arch, &c->f[i].rules[j], d);
	if (rc < 0) {
		scmpc_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static int compile(struct compat_ctx *c)
{
	if (c->prog)
		return 0;
	scmpc_policy *p;
	int rc = compat_policy(c, &p, NULL);
	if (rc < 0)
		return rc;
	rc = scmpc_compile(p, NULL, &c->prog, NULL);
	scmpc_policy_free(p);
	return rc;
}

API int seccomp_precompute(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_valid(ctx);
	return c ? rc_filter(compile(c)) : -EINVAL;
}

/* The program as libseccomp exports it: in the byte order of the
 * filter's ABIs (all of one order), which is what a loader on such a
 * machine, or a simulator told the ABI, reads. */
static int program_bytes(struct compat_ctx *c, char **buf, size_t *len)
{
	int rc = compile(c);
	if (rc < 0)
		return rc;
	struct scmpc_format_opts o = { .sz = sizeof(o), .arch = c->f[0].arch };
	return scmpc_format(scmpc_prog_insns(c->prog), scmpc_prog_len(c->prog), SCMPC_FORMAT_BPF,
			    &o, buf, len, NULL);
}

API int seccomp_export_bpf(const scmp_filter_ctx ctx, int fd)
{
	struct compat_ctx *c = ctx_valid(ctx);
	char *buf;
	size_t left;
	if (!c)
		return -EINVAL;
	int rc = program_bytes(c, &buf, &left);
	if (rc < 0) {
		compat_log("seccomp_export_bpf", c, rc);
		return rc_filter(rc);
	}
	rc = rc_sys(c, compat_write_all(fd, buf, left));
	free(buf);
	compat_log("seccomp_export_bpf", c, rc);
	return rc;
}

API int seccomp_export_bpf_mem(const scmp_filter_ctx ctx, void *buf, size_t *len)
{
	struct compat_ctx *c = ctx_valid(ctx);
	char *bytes;
	size_t size;
	if (!c || !len)
		return -EINVAL;
	int rc = program_bytes(c, &bytes, &size);
	compat_log("seccomp_export_bpf_mem", c, rc);
	if (rc < 0)
		return rc_filter(rc);
	if (buf && *len < size)
		rc = -ERANGE;
	else if (buf)
		memcpy(buf, bytes, size);
	if (!rc)
		*len = size;
	free(bytes);
	return rc;
}

API int seccomp_export_pfc(const scmp_filter_ctx ctx, int fd)
{
	struct compat_ctx *c = ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	return rc_sys(c, compat_write_pfc(c, fd));
}

/* ------------------------------------------------------------- load */

API int seccomp_load(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	int rc = compile(c);
	if (rc < 0) {
		compat_log("seccomp_load", c, rc);
		return rc_filter(rc);
	}
	unsigned l = level();
	/* One listener per process, as libseccomp keeps it: later loads
	 * neither ask for another nor combine TSYNC with one. */
	bool have_fd = atomic_load(&notify_fd) >= 0;
	bool listener = l >= 5 && c->notify_used && !have_fd;
	unsigned flags = 0;
	if (c->a.tsync) {
		if (listener && l < 6)
			return -EFAULT;
		flags |= SECCOMP_FILTER_FLAG_TSYNC;
		if (l >= 6 && !have_fd)
			flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	}
	if (listener)
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
	if (c->a.log)
		flags |= SECCOMP_FILTER_FLAG_LOG;
	if (c->a.ssb)
		flags |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
	/* with the listener only, as libseccomp 2.6 passes it (alone the
	 * kernel refuses it); not gated on the level, as 2.6 does not */
	if (c->a.waitkill && listener)
		flags |= FILTER_FLAG_WAIT_KILLABLE_RECV;
	struct scmpc_load_opts o = { .sz = sizeof(o), .seccomp_flags = flags,
				     .flags = c->a.nnp ? 0 : SCMPC_LOAD_KEEP_NNP };
	/* said before the filter is in place, which may deny the saying */
	compat_log("seccomp_load", c, 0);
	rc = scmpc_load(scmpc_prog_insns(c->prog), scmpc_prog_len(c->prog), &o, NULL, NULL);
	if (rc < 0)
		compat_log("seccomp_load", NULL, rc);
	if (rc == -ESRCH)
		return rc;
	if (rc < 0)
		return rc_sys(c, rc);
	if (listener && rc > 0)
		atomic_store(&notify_fd, rc);
	return 0;
}

/* ----------------------------------------------------- notification */

/* The kernel's sizes, which may be larger than this header's structs. */
static int notif_sizes(struct seccomp_notif_sizes *s)
{
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, s) < 0)
		return -ECANCELED;
	if (s->seccomp_notif < sizeof(struct seccomp_notif))
		s->seccomp_notif = sizeof(struct seccomp_notif);
	if (s->seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		s->seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
	return 0;
}

API int seccomp_notify_alloc(struct seccomp_notif **req, struct seccomp_notif_resp **resp)
{
	struct seccomp_notif_sizes s;
	if (level() < 5)
		return -EOPNOTSUPP;
	if (notif_sizes(&s) < 0)
		return -ECANCELED;
	if (req && !(*req = calloc(1, s.seccomp_notif)))
		return -ENOMEM;
	if (resp && !(*resp = calloc(1, s.seccomp_notif_resp))) {
		if (req) {
			free(*req);
			*req = NULL;
		}
		return -ENOMEM;
	}
	return 0;
}

API void seccomp_notify_free(struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	free(req);
	free(resp);
}

API int seccomp_notify_receive(int fd, struct seccomp_notif *req)
{
	struct seccomp_notif_sizes s;
	if (!req || level() < 5 || notif_sizes(&s) < 0)
		return -EOPNOTSUPP;
	memset(req, 0, s.seccomp_notif);
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return -ECANCELED;
	return 0;
}

API int seccomp_notify_respond(int fd, struct seccomp_notif_resp *resp)
{
	if (!resp || level() < 5)
		return -EOPNOTSUPP;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		return -ECANCELED;
	return 0;
}

API int seccomp_notify_id_valid(int fd, uint64_t id)
{
	if (level() < 5)
		return -EOPNOTSUPP;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return -ENOENT;
	return 0;
}

/* libseccomp main's call: install SRCFD (with the flags and the target
 * number ADDFD asks for) in the task whose notification ADDFD->id names;
 * the number it got there, or a negative errno. */
API int seccomp_notify_addfd(int fd, struct seccomp_notif_addfd *addfd)
{
	if (level() < 5)
		return -EOPNOTSUPP;
	if (!addfd)
		return -EINVAL;
	int rc = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, addfd);
	return rc < 0 ? -ECANCELED : rc;
}

API int seccomp_notify_fd(const scmp_filter_ctx ctx)
{
	if (!ctx_valid(ctx))
		return -EINVAL;
	int fd = atomic_load(&notify_fd);
	return fd >= 0 ? fd : -EFAULT;
}

/* ------------------------------------------------------ transactions */

static struct compat_filter *filters_dup(const struct compat_filter *f, size_t n)
{
	struct compat_filter *out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct compat_filter){ .arch = f[i].arch, .n = f[i].n, .cap = f[i].n };
		if (f[i].n && !(out[i].rules = malloc(f[i].n * sizeof(*f[i].rules)))) {
			filters_free(out, i);
			return NULL;
		}
		if (f[i].n)
			memcpy(out[i].rules, f[i].rules, f[i].n * sizeof(*f[i].rules));
	}
	return out;
}

API int seccomp_transaction_start(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	struct compat_ctx *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = *c;
	s->prog = NULL;
	if (!(s->f = filters_dup(c->f, c->nf))) {
		free(s);
		return -ENOMEM;
	}
	s->saved = c->saved;
	c->saved = s;
	return 0;
}

API void seccomp_transaction_reject(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_of(ctx);
	if (!c || !c->saved)
		return;
	struct compat_ctx *s = c->saved;
	filters_free(c->f, c->nf);
	changed(c);
	c->f = s->f;
	c->nf = s->nf;
	c->notify_used = s->notify_used;
	c->saved = s->saved;
	free(s);
}

API int seccomp_transaction_commit(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_of(ctx);
	if (!c || !c->saved)
		return -EINVAL;
	struct compat_ctx *s = c->saved;
	c->saved = s->saved;
	s->saved = NULL;
	snapshots_free(s);
	return 0;
}
