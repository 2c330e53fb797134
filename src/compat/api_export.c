/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * From a context to a program and into the kernel: the context as an
 * scmpc policy (compat_policy(), which log.c reads too), compiled once
 * until a change, exported as .bpf bytes or PFC text, and loaded with the
 * seccomp(2) flags the context's attributes and the API level give.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "compat.h"

/* ------------------------------------------------------ compile, export */

static int add_to_policy(scmpc_policy *p, enum scmpc_arch a, const struct compat_rule *r,
			 scmpc_diag *d)
{
	struct scmpc_rule sr = { .sz = sizeof(sr), .nr = r->nr, .arch = a, .action = r->action,
				 .conds = r->conds, .nconds = r->nconds };
	int rc = scmpc_policy_add_rule(p, &sr, d);
	return rc < 0 ? rc : 0;
}

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
	struct compat_ctx *c = compat_ctx_valid(ctx);
	return c ? compat_rc_filter(compile(c)) : -EINVAL;
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
	struct compat_ctx *c = compat_ctx_valid(ctx);
	char *buf;
	size_t left;
	if (!c)
		return -EINVAL;
	int rc = program_bytes(c, &buf, &left);
	if (rc < 0) {
		compat_log("seccomp_export_bpf", c, rc);
		return compat_rc_filter(rc);
	}
	rc = compat_rc_sys(c, compat_write_all(fd, buf, left));
	free(buf);
	compat_log("seccomp_export_bpf", c, rc);
	return rc;
}

API int seccomp_export_bpf_mem(const scmp_filter_ctx ctx, void *buf, size_t *len)
{
	struct compat_ctx *c = compat_ctx_valid(ctx);
	char *bytes;
	size_t size;
	if (!c || !len)
		return -EINVAL;
	int rc = program_bytes(c, &bytes, &size);
	compat_log("seccomp_export_bpf_mem", c, rc);
	if (rc < 0)
		return compat_rc_filter(rc);
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
	struct compat_ctx *c = compat_ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	return compat_rc_sys(c, compat_write_pfc(c, fd));
}

/* ------------------------------------------------------------- load */

API int seccomp_load(const scmp_filter_ctx ctx)
{
	struct compat_ctx *c = compat_ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	int rc = compile(c);
	if (rc < 0) {
		compat_log("seccomp_load", c, rc);
		return compat_rc_filter(rc);
	}
	unsigned l = compat_level();
	/* One listener per process, as libseccomp keeps it: later loads
	 * neither ask for another nor combine TSYNC with one. */
	bool have_fd = atomic_load(&compat_notify_fd) >= 0;
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
		return compat_rc_sys(c, rc);
	if (listener && rc > 0)
		atomic_store(&compat_notify_fd, rc);
	return 0;
}
