/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp reference compiler for differential tests and benchmarks.
 *
 * One libseccomp filter is built per ABI of the policy and the filters are
 * merged: libseccomp offers no way to add a rule to one ABI of a multi-ABI
 * filter, and scmpc rules can be limited to one ABI.  libseccomp translates
 * the number given to seccomp_rule_add*() from the native ABI to the
 * filter's ABI through the syscall's name, so every number handed over here
 * is a native number (or libseccomp's pseudo-number) whose name leads back
 * to the intended number on the target ABI; that round trip is checked.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "lsc_ref.h"
#include "pipe_io.h"

#define LSC_TIMEOUT_S 3

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* On the ABIs with socketcall(2) and ipc(2) (i386, s390, ppc, mips o32,
 * ...) libseccomp numbers the socket calls from -101 and the IPC calls from
 * -201, whether or not the ABI also has direct numbers for them (calls an
 * ABI lacks are -10000 and below). */
static bool multiplexed_on(enum scmpc_arch a, const char *name)
{
	int n = seccomp_syscall_resolve_name_arch(arch_info(a)->scmp_token, name);
	return n <= -100 && n >= -224;
}

/* The number to give libseccomp so that, in a filter for ABI A, it lands on
 * NR (A's number for the call).  Returns false when no name leads there. */
static bool native_number_for(enum scmpc_arch a, uint32_t nr, int *out)
{
	const struct arch_info *ai = arch_info(a);
	char name[64];

	if (ai->scmp_token == seccomp_arch_native()) {
		/* No translation happens on the native ABI; -1 is libseccomp's
		 * "skipped call" and numbers above INT_MAX do not fit. */
		if (nr > INT32_MAX)
			return false;
		*out = (int)nr;
		return true;
	}
	if (!scmpc_syscall_name(a, nr, name, sizeof(name)))
		return false;
	int n = seccomp_syscall_resolve_name(name);
	if (n == __NR_SCMP_ERROR)
		return false;
	/* Socket and IPC calls there: libseccomp adds the rule to the direct
	 * number and, multiplexed, to socketcall/ipc whatever it is given;
	 * the name's native number is as good as any. */
	if (multiplexed_on(a, name)) {
		*out = n;
		return true;
	}
	/* Aliases could make the native number name another call. */
	char *back = seccomp_syscall_resolve_num_arch(seccomp_arch_native(), n);
	if (!back)
		return false;
	int there = seccomp_syscall_resolve_name_arch(ai->scmp_token, back);
	free(back);
	if (there < 0 || (uint32_t)there != nr)
		return false;
	*out = n;
	return true;
}

static int to_scmp_cmp(const struct scmpc_cond *c, struct scmp_arg_cmp *out)
{
	memset(out, 0, sizeof(*out));
	out->arg = c->arg;
	out->datum_a = c->value;
	switch (c->op) {
	case SCMPC_OP_EQ: out->op = SCMP_CMP_EQ; break;
	case SCMPC_OP_NE: out->op = SCMP_CMP_NE; break;
	case SCMPC_OP_LT: out->op = SCMP_CMP_LT; break;
	case SCMPC_OP_LE: out->op = SCMP_CMP_LE; break;
	case SCMPC_OP_GT: out->op = SCMP_CMP_GT; break;
	case SCMPC_OP_GE: out->op = SCMP_CMP_GE; break;
	case SCMPC_OP_MASKED_EQ:
		/* libseccomp: datum_a is the mask, datum_b the expected value,
		 * the same order as scmpc's value/value2. */
		out->op = SCMP_CMP_MASKED_EQ;
		out->datum_b = c->value2;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* libseccomp accepts an action (KILL_PROCESS, LOG, USER_NOTIF) only when
 * the running kernel reports it.  Where seccomp(2) is missing altogether
 * (API level 1: qemu-user answers ENOSYS, whatever the guest's ABI), the
 * reference is only compiled and emulated, never loaded, so it is given the
 * view of a kernel with every feature libseccomp 2.5 knows (level 6) rather
 * than refuse every such policy.  A real kernel's answer is left alone. */
static void api_for_emulation(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	if (seccomp_api_get() < 2)
		seccomp_api_set(6);
}

static scmp_filter_ctx new_arch_filter(const scmpc_policy *p, enum scmpc_arch a, int level,
				       char *err, size_t errlen, int *rc)
{
	const struct arch_info *ai = arch_info(a);
	uint32_t native = seccomp_arch_native();
	api_for_emulation();
	scmp_filter_ctx ctx = seccomp_init(p->def_action);

	if (!ctx) {
		*rc = fail(err, errlen, -EINVAL, "seccomp_init(0x%08x) failed", p->def_action);
		return NULL;
	}
	if (ai->scmp_token != native) {
		/* Native out first: libseccomp refuses (-EDOM) to hold ABIs of
		 * both byte orders at once. */
		if ((*rc = seccomp_arch_remove(ctx, native)) < 0 ||
		    (*rc = seccomp_arch_add(ctx, ai->scmp_token)) < 0) {
			fail(err, errlen, *rc, "cannot make a %s filter: %s", ai->name,
			     strerror(-*rc));
			seccomp_release(ctx);
			return NULL;
		}
	}
	if ((*rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, p->badarch_action)) < 0) {
		fail(err, errlen, *rc, "bad-arch action 0x%08x refused: %s", p->badarch_action,
		     strerror(-*rc));
		goto out;
	}
	if ((*rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0) {
		fail(err, errlen, *rc, "SCMP_FLTATR_CTL_NNP: %s", strerror(-*rc));
		goto out;
	}
	if ((*rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)level)) < 0) {
		fail(err, errlen, *rc, "optimize level %d refused: %s", level, strerror(-*rc));
		goto out;
	}
	*rc = 0;
	return ctx;
out:
	seccomp_release(ctx);
	return NULL;
}

struct lsc_item {
	enum scmpc_arch arch;
	int num;		/* what libseccomp is given (see native_number_for) */
	uint32_t action;
	unsigned ncmp;
	struct scmp_arg_cmp *cmp;
	const char *what;
};

struct lsc_plan {
	const scmpc_policy *p;
	struct lsc_item *items;
	size_t n;
};

/* Rule RI of P for ABI A as a libseccomp rule.  Returns 1 with *IT filled,
 * 0 when the rule has nothing to add there, or a negative errno. */
static int plan_rule(const scmpc_policy *p, size_t ri, enum scmpc_arch a, struct lsc_item *it,
		     char *err, size_t errlen)
{
	const struct rule *r = &p->rules[ri];
	const char *what = r->origin ? r->origin : "rule";

	if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
		return 0;
	if (r->action == p->def_action)
		return 0;	/* libseccomp: -EACCES; see lsc_check() */
	for (size_t i = 0; i < r->nconds; i++)
		if (r->conds[i].flags & SCMPC_COND_32BIT)
			return fail(err, errlen, -EOPNOTSUPP,
				    "%s: libseccomp 2.5 has no 32-bit comparison", what);

	uint32_t nr;
	if (r->name) {
		int64_t n = scmpc_syscall_resolve(a, r->name);
		if (n < 0)
			return 0;	/* scmpc skips it on this ABI too */
		nr = (uint32_t)n;
	} else {
		nr = r->nr;
	}
	memset(it, 0, sizeof(*it));
	if (!native_number_for(a, nr, &it->num)) {
		/* A call newer than libseccomp 2.5.4's table: it cannot add the
		 * rule, so its programs give the default there (LSC_DIFF_UNNAMED). */
		if (r->name)
			return 0;
		return fail(err, errlen, -EOPNOTSUPP, "%s: libseccomp cannot name %s number %u",
			    what, scmpc_arch_name(a), nr);
	}
	it->arch = a;
	it->action = r->action;
	it->what = what;
	it->ncmp = (unsigned)r->nconds;
	if (r->nconds) {
		it->cmp = calloc(r->nconds, sizeof(*it->cmp));
		if (!it->cmp)
			return fail(err, errlen, -ENOMEM, "out of memory");
		for (size_t i = 0; i < r->nconds; i++)
			if (to_scmp_cmp(&r->conds[i], &it->cmp[i]) < 0) {
				free(it->cmp);
				return fail(err, errlen, -EINVAL, "%s: bad operator", what);
			}
	}
	return 1;
}

void lsc_plan_free(lsc_plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++)
		free(pl->items[i].cmp);
	free(pl->items);
	free(pl);
}

int lsc_plan_new(const scmpc_policy *p, lsc_plan **out, char *err, size_t errlen)
{
	lsc_plan *pl = calloc(1, sizeof(*pl));
	size_t cap = p->nrules * p->narches;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (p->narches == 0) {
		free(pl);
		return fail(err, errlen, -EINVAL, "policy has no architecture");
	}
	if (!pl || (cap && !(pl->items = calloc(cap, sizeof(*pl->items))))) {
		free(pl);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	pl->p = p;
	for (size_t ai = 0; ai < p->narches; ai++)
		for (size_t ri = 0; ri < p->nrules; ri++) {
			int rc = plan_rule(p, ri, p->arches[ai], &pl->items[pl->n], err, errlen);
			if (rc < 0) {
				lsc_plan_free(pl);
				return rc;
			}
			pl->n += (size_t)rc;
		}
	*out = pl;
	return 0;
}

static int export_insns(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *len, char *err,
			size_t errlen)
{
	int fd = memfd_create("lsc_ref", MFD_CLOEXEC);
	FILE *tmp = NULL;
	int rc;

	if (fd < 0) {
		tmp = tmpfile();
		if (!tmp)
			return fail(err, errlen, -errno, "no memfd or tmpfile: %s", strerror(errno));
		fd = fileno(tmp);
	}
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		fail(err, errlen, rc, "seccomp_export_bpf: %s", strerror(-rc));
		goto out;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = fail(err, errlen, -errno, "fstat: %s", strerror(errno));
		goto out;
	}
	size_t size = (size_t)st.st_size;
	if (size == 0 || size % sizeof(struct sock_filter)) {
		rc = fail(err, errlen, -EIO, "exported %zu bytes, not a program", size);
		goto out;
	}
	struct sock_filter *buf = malloc(size);
	if (!buf) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, (off_t)got);
		if (n <= 0) {
			rc = fail(err, errlen, n < 0 ? -errno : -EIO, "reading the export back failed");
			free(buf);
			goto out;
		}
		got += (size_t)n;
	}
	/* libseccomp exports in the filter's byte order: a big-endian ABI's
	 * program comes swapped on this host, and scmpc reads it as a .bpf. */
	scmpc_prog *prog;
	scmpc_diag *d = scmpc_diag_new();
	if (!d || scmpc_prog_from_bytes(buf, size, &prog, NULL) < 0) {
		free(buf);
		scmpc_diag_free(d);
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(buf, scmpc_prog_insns(prog), size);
	/* A program the kernel would refuse is not a reference. */
	rc = scmpc_verify_insns(buf, size / sizeof(*buf), d);
	if (rc < 0) {
		fail(err, errlen, -EPROTO, "libseccomp's program is one the kernel refuses: %s at %s",
		     scmpc_diag_message(d), scmpc_diag_where(d));
		free(buf);
		scmpc_prog_free(prog);
		scmpc_diag_free(d);
		goto out;
	}
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
	*insns = buf;
	*len = size / sizeof(struct sock_filter);
	rc = 0;
out:
	if (tmp)
		fclose(tmp);
	else
		close(fd);
	return rc;
}

int lsc_plan_compile(const lsc_plan *pl, int optimize_level, struct sock_filter **insns,
		     size_t *len, char *err, size_t errlen)
{
	const scmpc_policy *p = pl->p;
	scmp_filter_ctx all = NULL;
	int rc = 0;

	*insns = NULL;
	*len = 0;
	if (err && errlen)
		err[0] = '\0';
	if (optimize_level != 1 && optimize_level != 2)
		return fail(err, errlen, -EINVAL, "optimize level %d (1 or 2)", optimize_level);

	for (size_t ai = 0; ai < p->narches; ai++) {
		enum scmpc_arch a = p->arches[ai];
		scmp_filter_ctx ctx = new_arch_filter(p, a, optimize_level, err, errlen, &rc);
		if (!ctx)
			goto out;
		for (size_t i = 0; i < pl->n; i++) {
			const struct lsc_item *it = &pl->items[i];
			if (it->arch != a)
				continue;
			rc = seccomp_rule_add_array(ctx, it->action, it->num, it->ncmp,
						    it->ncmp ? it->cmp : NULL);
			if (rc < 0) {
				fail(err, errlen, rc, "%s (on %s): seccomp_rule_add_array: %s",
				     it->what, scmpc_arch_name(a), strerror(-rc));
				seccomp_release(ctx);
				goto out;
			}
		}
		if (!all) {
			all = ctx;
			continue;
		}
		rc = seccomp_merge(all, ctx);
		if (rc < 0) {
			fail(err, errlen, rc, "seccomp_merge(%s): %s", scmpc_arch_name(a),
			     strerror(-rc));
			seccomp_release(ctx);
			goto out;
		}
	}
	rc = export_insns(all, insns, len, err, errlen);
out:
	if (all)
		seccomp_release(all);
	return rc;
}

/* Whether libseccomp has to merge multi-condition rules of one call that
 * test a common argument, the only place its loops were seen (and a
 * superset of them): rules are compared per number across all ABIs, which
 * over-approximates. */
static bool may_loop(const scmpc_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *x = &p->rules[i];
		if (x->nconds < 2)
			continue;
		for (size_t j = 0; j < p->nrules; j++) {
			const struct rule *y = &p->rules[j];
			if (i == j || !y->nconds)
				continue;
			bool same;
			if (x->name && y->name)
				same = !strcmp(x->name, y->name);
			else if (!x->name && !y->name)
				same = x->nr == y->nr;
			else
				same = true;	/* a name and a number may meet */
			if (!same)
				continue;
			for (size_t a = 0; a < x->nconds; a++)
				for (size_t b = 0; b < y->nconds; b++)
					if (x->conds[a].arg == y->conds[b].arg)
						return true;
		}
	}
	return false;
}

/* Everything the child sends back, in this order: the header, the error
 * text, then len instructions. */
struct child_msg {
	int rc;
	size_t len;
	char err[256];
};


int lsc_compile(const scmpc_policy *p, int optimize_level, struct sock_filter **insns,
		size_t *len, char *err, size_t errlen)
{
	/* libseccomp 2.5.4 can loop forever in seccomp_rule_add(), e.g. on
	 * "LOG if a1 == 40 && a0 != 5" then "KILL if a2 == 6 && a0 != 5" (any
	 * shared condition but == and masked ==), so where its tree merge is
	 * involved the work runs in a child given LSC_TIMEOUT_S seconds. */
	int fd[2];
	*insns = NULL;
	*len = 0;
	if (err && errlen)
		err[0] = '\0';
	if (!may_loop(p)) {
		lsc_plan *pl;
		int rc = lsc_plan_new(p, &pl, err, errlen);
		if (rc < 0)
			return rc;
		rc = lsc_plan_compile(pl, optimize_level, insns, len, err, errlen);
		lsc_plan_free(pl);
		return rc;
	}
	if (pipe(fd) < 0)
		return fail(err, errlen, -errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fd[0]);
		close(fd[1]);
		return fail(err, errlen, -e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		struct child_msg m = { 0 };
		struct sock_filter *out = NULL;
		lsc_plan *pl;
		close(fd[0]);
		m.rc = lsc_plan_new(p, &pl, m.err, sizeof(m.err));
		if (m.rc == 0) {
			m.rc = lsc_plan_compile(pl, optimize_level, &out, &m.len, m.err,
						sizeof(m.err));
			lsc_plan_free(pl);
		}
		bool ok = pipe_write_all(fd[1], &m, sizeof(m)) &&
			  (m.rc < 0 || pipe_write_all(fd[1], out, m.len * sizeof(*out)));
		_exit(ok ? 0 : 1);
	}
	close(fd[1]);

	uint64_t deadline = pipe_deadline(LSC_TIMEOUT_S * 1000ULL);
	struct child_msg m;
	struct sock_filter *buf = NULL;
	int rc = pipe_read_all(fd[0], &m, sizeof(m), deadline);
	if (rc == 0 && m.rc == 0) {
		if (m.len == 0 || m.len > 65536 || !(buf = malloc(m.len * sizeof(*buf))))
			rc = -ENOMEM;
		else
			rc = pipe_read_all(fd[0], buf, m.len * sizeof(*buf), deadline);
	}
	close(fd[0]);
	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		free(buf);
		if (rc == -ETIMEDOUT)
			return fail(err, errlen, rc,
				    "libseccomp did not finish in %d s (2.5.4 loops on some rule sets)",
				    LSC_TIMEOUT_S);
		return fail(err, errlen, rc, "lost the libseccomp child's answer");
	}
	if (m.rc < 0) {
		m.err[sizeof(m.err) - 1] = '\0';
		return fail(err, errlen, m.rc, "%s", m.err);
	}
	*insns = buf;
	*len = m.len;
	return 0;
}

bool lsc_policy_multiplexes(const scmpc_policy *p, enum scmpc_arch a)
{
	const struct arch_info *ai = arch_info(a);
	if (!policy_has_arch(p, a))
		return false;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		enum arch_mux m;
		uint32_t call, mux;
		if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
			continue;
		const char *name = r->name ? r->name : arch_syscall_name(ai, r->nr);
		if (name && arch_subcall(name, &m, &call) == 0 && arch_multiplexer(ai, m, &mux) == 0)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- overlaps */

/* Whether the conditions C[0..N) on one argument (all of one width) can all
 * hold for some value.  Answers true when unsure. */
static bool arg_satisfiable(const struct scmpc_cond *const *c, size_t n, uint64_t max)
{
	uint64_t lo = 0, hi = max;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = c[i]->value;
		switch (c[i]->op) {
		case SCMPC_OP_EQ:
			if (v > lo)
				lo = v;
			if (v < hi)
				hi = v;
			break;
		case SCMPC_OP_LT:
			if (v == 0)
				return false;
			if (v - 1 < hi)
				hi = v - 1;
			break;
		case SCMPC_OP_LE:
			if (v < hi)
				hi = v;
			break;
		case SCMPC_OP_GT:
			if (v >= max)
				return false;
			if (v + 1 > lo)
				lo = v + 1;
			break;
		case SCMPC_OP_GE:
			if (v > lo)
				lo = v;
			break;
		case SCMPC_OP_MASKED_EQ:
			if (c[i]->value2 & ~(c[i]->value & max))
				return false;
			break;
		case SCMPC_OP_NE:
			break;
		}
		if (lo > hi)
			return false;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (c[i]->op != SCMPC_OP_MASKED_EQ || c[j]->op != SCMPC_OP_MASKED_EQ)
				continue;
			uint64_t common = c[i]->value & c[j]->value;
			if ((c[i]->value2 & common) != (c[j]->value2 & common))
				return false;
		}
	if (lo == hi) {
		/* One candidate left: test every condition on it. */
		for (size_t i = 0; i < n; i++) {
			uint64_t v = c[i]->value;
			bool ok = true;
			switch (c[i]->op) {
			case SCMPC_OP_EQ: ok = lo == v; break;
			case SCMPC_OP_NE: ok = lo != v; break;
			case SCMPC_OP_LT: ok = lo < v; break;
			case SCMPC_OP_LE: ok = lo <= v; break;
			case SCMPC_OP_GT: ok = lo > v; break;
			case SCMPC_OP_GE: ok = lo >= v; break;
			case SCMPC_OP_MASKED_EQ: ok = (lo & v) == c[i]->value2; break;
			}
			if (!ok)
				return false;
		}
	}
	return true;
}

/* Whether rules X and Y can match one call on an ABI (compat32: only the
 * low words are compared).  Conservative: true unless provably not. */
static bool rules_may_overlap(const struct rule *x, const struct rule *y, bool compat32)
{
	for (unsigned arg = 0; arg < 6; arg++) {
		const struct scmpc_cond *c[128];
		size_t n = 0;
		bool narrow = false, wide = false;
		const struct rule *both[2] = { x, y };
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < both[k]->nconds && n < ARRAY_SIZE(c); i++) {
				const struct scmpc_cond *ci = &both[k]->conds[i];
				if (ci->arg != arg)
					continue;
				c[n++] = ci;
				if (compat32 || (ci->flags & SCMPC_COND_32BIT))
					narrow = true;
				else
					wide = true;
			}
		if (n == 0 || (narrow && wide))
			continue;
		if (!arg_satisfiable(c, n, narrow ? 0xffffffffULL : UINT64_MAX))
			return false;
	}
	return true;
}

static void why(char *buf, size_t len, const struct rule *r, const char *fmt, const char *arch)
{
	if (buf && len && !buf[0])
		snprintf(buf, len, fmt, r->origin ? r->origin : (r->name ? r->name : "rule"), arch);
}

static bool wide_constant(const struct scmpc_cond *c)
{
	return (c->value >> 32) || (c->op == SCMPC_OP_MASKED_EQ && (c->value2 >> 32));
}

bool lsc_narrow_abi(enum scmpc_arch a)
{
	/* Both compilers compare the low word on i386, arm and x32. */
	return arch_info(a)->compat32;
}

/*
 * libseccomp 2.5.4 merges the rules of one call into one tree, and gets the
 * tree wrong when two rules test a common argument and
 *  - either has more than one condition: on i386 "ERRNO(38) if a4 < X" plus
 *    "LOG if a4 >= X && a2 > Y" keeps only the first; on x86_64
 *    "ERRNO(1) if a4 & 0xff == 0 && a2 <= X" plus "TRAP if a4 & 0xff == 1 &&
 *    a2 <= Y" never reaches ERRNO(1) when Y < a2 <= X; "KILL if a4 == 7" plus
 *    "KILL if a4 != 7 && a2 == 9" compiles to "KILL if a4 == 7";
 *  - either's action is KILL_THREAD, whose value 0 the tree takes for "no
 *    action": "KILL_THREAD if a3 == 5" plus "LOG if a3 != 5" lets a3 == 5
 *    through to the default;
 *  - a constant they compare that argument with has a non-zero high word:
 *    "LOG if a4 < 0xff" plus "LOG if a4 > 1 << 32" logs a4 == 0x100.
 * An exhaustive run over two one-condition rules (six operators, constants
 * 0, 5, 0xff, 0xffffffff, 1 << 32, (1 << 32) + 5, 0xffffffff << 32, probes
 * around them) found no other failure; the Docker and Podman profiles are
 * in that class.
 */
static bool tree_merge_unsafe(const struct rule *x, const struct rule *y)
{
	bool common = false, wide = false;
	for (size_t i = 0; i < x->nconds; i++)
		for (size_t j = 0; j < y->nconds; j++) {
			const struct scmpc_cond *a = &x->conds[i], *b = &y->conds[j];
			if (a->arg != b->arg)
				continue;
			common = true;
			wide |= wide_constant(a) || wide_constant(b);
		}
	if (!common)
		return false;
	return x->nconds > 1 || y->nconds > 1 || x->action == SCMPC_ACT_KILL_THREAD ||
	       y->action == SCMPC_ACT_KILL_THREAD || wide;
}

/* Reasons for the rules RS[0..N) (all for one number on ABI V). */
static unsigned group_bits(const scmpc_policy *p, const struct arch_view *v,
			   const struct resolved *rs, size_t n, char *whybuf, size_t whylen)
{
	const char *an = scmpc_arch_name(v->arch);
	unsigned bits = 0;
	int num;

	size_t at = (size_t)(rs - v->rs);	/* the rules' view positions */
	if (n && view_rule(p, v, at)->name && !native_number_for(v->arch, rs[0].nr, &num)) {
		why(whybuf, whylen, view_rule(p, v, at), "%s: a call libseccomp 2.5.4 cannot name%s",
		    "");
		return LSC_DIFF_UNNAMED;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rule *x = view_rule(p, v, at + i);
		for (size_t c = 0; c < x->nconds; c++) {
			const struct scmpc_cond *k = &x->conds[c];
			if (lsc_narrow_abi(v->arch) && wide_constant(k)) {
				bits |= LSC_DIFF_WIDE32;
				why(whybuf, whylen, x, "%s: 64-bit constant on %s", an);
			}
			if (k->op == SCMPC_OP_MASKED_EQ && (k->value2 & ~k->value)) {
				bits |= LSC_DIFF_MASKED;
				why(whybuf, whylen, x, "%s: MASKED_EQ expects bits outside the mask%s",
				    "");
			}
		}
		for (size_t j = i + 1; j < n; j++) {
			const struct rule *y = view_rule(p, v, at + j);
			if (tree_merge_unsafe(x, y)) {
				bits |= LSC_DIFF_TREE;
				why(whybuf, whylen, y,
				    "%s: rules libseccomp 2.5.4 merges wrongly on %s", an);
			}
			if (x->action == y->action || !rules_may_overlap(x, y, lsc_narrow_abi(v->arch)))
				continue;
			if (x->action == p->def_action || y->action == p->def_action) {
				const struct rule *d = x->action == p->def_action ? x : y;
				const struct rule *o = d == x ? y : x;
				/* Dropping the default-valued rule only matters
				 * where it would have won. */
				if (scmpc_action_cmp(d->action, o->action) < 0) {
					bits |= LSC_DIFF_DEFAULT_RULE;
					why(whybuf, whylen, d,
					    "%s: default-action rule overlaps a weaker one on %s", an);
				}
			} else {
				bits |= LSC_DIFF_OVERLAP;
				why(whybuf, whylen, y, "%s: overlaps a rule with another action on %s",
				    an);
			}
		}
	}
	return bits;
}

long lsc_call_diffs(const scmpc_policy *p, struct lsc_call_diff **out)
{
	struct lsc_call_diff *d = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t ai = 0; ai < p->narches; ai++) {
		struct arch_view v;
		int rc = arch_view_init(&v, p, p->arches[ai], NULL);
		if (rc < 0) {
			free(d);
			return rc;
		}
		for (size_t lo = 0; lo < v.nrs;) {
			size_t hi = lo;
			while (hi < v.nrs && v.rs[hi].nr == v.rs[lo].nr)
				hi++;
			unsigned bits = group_bits(p, &v, v.rs + lo, hi - lo, NULL, 0);
			if (bits) {
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					struct lsc_call_diff *nd = realloc(d, cap * sizeof(*d));
					if (!nd) {
						free(d);
						arch_view_fini(&v);
						return -ENOMEM;
					}
					d = nd;
				}
				d[n++] = (struct lsc_call_diff){ v.arch, v.rs[lo].nr, bits };
			}
			lo = hi;
		}
		arch_view_fini(&v);
	}
	*out = d;
	return (long)n;
}

unsigned lsc_call_diff_find(const struct lsc_call_diff *d, size_t n, enum scmpc_arch a,
			    uint32_t nr)
{
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++)
		if (d[i].arch == a && d[i].nr == nr)
			bits |= d[i].bits;
	return bits;
}

unsigned lsc_check(const scmpc_policy *p, char *whybuf, size_t whylen)
{
	unsigned bits = 0;

	if (whybuf && whylen)
		whybuf[0] = '\0';
	if (p->unknown_set) {
		bits |= LSC_DIFF_UNKNOWN;
		if (whybuf && whylen)
			snprintf(whybuf, whylen, "unknown-syscall action set");
	}
	for (size_t ri = 0; ri < p->nrules; ri++) {
		const struct rule *r = &p->rules[ri];
		for (size_t i = 0; i < r->nconds; i++) {
			if (r->conds[i].flags & SCMPC_COND_32BIT) {
				bits |= LSC_DIFF_COND32;
				why(whybuf, whylen, r, "%s: 32-bit condition%s", "");
			}
			for (size_t j = i + 1; j < r->nconds; j++)
				if (r->conds[j].arg == r->conds[i].arg) {
					bits |= LSC_DIFF_SAME_ARG;
					why(whybuf, whylen, r, "%s: two conditions on one argument%s",
					    "");
				}
		}
	}
	for (size_t ai = 0; ai < p->narches; ai++) {
		struct arch_view v;
		if (arch_view_init(&v, p, p->arches[ai], NULL) < 0)
			continue;
		for (size_t lo = 0; lo < v.nrs;) {
			size_t hi = lo;
			while (hi < v.nrs && v.rs[hi].nr == v.rs[lo].nr)
				hi++;
			bits |= group_bits(p, &v, v.rs + lo, hi - lo, whybuf, whylen);
			lo = hi;
		}
		arch_view_fini(&v);
	}
	return bits;
}
