/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's C API (seccomp.h 2.5, 2.6's additions and main's
 * seccomp_notify_addfd) on scmpc.  This file holds what the others build
 * on: the error mapping, the API level, contexts, ABIs, name resolution
 * and transactions (api.h declares what it shares).  Rules are in
 * api_rules.c, attributes in api_attrs.c, compiling, export and load in
 * api_export.c, user notification in api_notify.c.  The
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
 * Nothing in the API prints: load and export call compat_log() (log.c),
 * which says what was compiled only when SCMPC_COMPAT_LOG was set at load
 * time.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "compat.h"
#include "refusal.h"

#define CTX_MAGIC 0x5eccc0deU
/* libseccomp accepts ERRNO data below 4095 (the kernel would take 4095). */
#define MAX_ERRNO 4095U
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
_Atomic int compat_notify_fd = -1;

static const struct scmp_version version = { SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO };

/* ------------------------------------------------------------ errors */

/* libseccomp passes on a fixed set of errors and calls everything else an
 * internal error. */
int compat_rc_filter(int err)
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
int compat_rc_sys(const struct compat_ctx *c, int err)
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

unsigned compat_level(void)
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
	return compat_level();
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
bool compat_action_ok(const struct compat_ctx *c, uint32_t act)
{
	unsigned l = compat_level();
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

void compat_changed(struct compat_ctx *c)
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
	compat_changed(c);
	return 0;
}

static struct compat_ctx *ctx_of(scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx;
	return c && c->magic == CTX_MAGIC ? c : NULL;
}

/* libseccomp's test for a usable context: one with an ABI. */
struct compat_ctx *compat_ctx_valid(scmp_filter_ctx ctx)
{
	struct compat_ctx *c = ctx_of(ctx);
	return c && c->nf ? c : NULL;
}

static void ctx_clear(struct compat_ctx *c)
{
	filters_free(c->f, c->nf);
	c->f = NULL;
	c->nf = 0;
	compat_changed(c);
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
	if (!compat_action_ok(NULL, def_action))
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
		atomic_store(&compat_notify_fd, -1);
		compat_level();
		return 0;
	}
	struct compat_ctx *c = ctx_of(ctx);
	if (!c || !compat_action_ok(NULL, def_action))
		return -EINVAL;
	ctx_clear(c);
	snapshots_free(c->saved);
	c->saved = NULL;
	attrs_default(&c->a, def_action);
	c->notify_used = false;
	return compat_rc_filter(filter_add(c, scmpc_arch_native()));
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
	struct compat_ctx *d = compat_ctx_valid(dst), *s = compat_ctx_valid(src);
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
	compat_changed(d);
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
	return compat_rc_filter(filter_add(c, a));
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
	compat_changed(c);
	return 0;
}
/* ------------------------------------------------------ transactions */

/* A deep copy of the N filters at F (their rules, not their indexes), for a transaction's
 * snapshot. */
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
	struct compat_ctx *c = compat_ctx_valid(ctx);
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
	compat_changed(c);
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
