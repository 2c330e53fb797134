/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * SCMPC_COMPAT_LOG: the one place where the compatible library prints.
 *
 * A library must not write to its caller's stderr: the caller owns it (a
 * daemon's stderr may be a journal, a protocol pipe or a container's
 * console).  But an operator who preloads this library, or diverts the
 * system's libseccomp.so.2 to it, has no other way to see that a program
 * got scmpc's program: seccomp_version() says 2.5.4 (or 2.6.0), as it
 * must, because bindings gate features on it.  So, and only when
 * SCMPC_COMPAT_LOG is set to something other than "" or "0", each
 * seccomp_load(), seccomp_export_bpf() and seccomp_export_bpf_mem() says
 * in one line on fd 2 what was compiled: the instructions and, per ABI,
 * the worst path, from scmpc_stats() over the policy the context makes.
 *
 * What libseccomp's own layout of the same rules would give is not said:
 * the compiler's model of it (chain_layout() in src/compiler/size.c) is
 * not part of scmpc's public API, which is all this file uses, so the line
 * says that instead of guessing.  `scmp-compile inspect` on the filter
 * that the system's libseccomp exports, or bench/bench_compare, gives
 * libseccomp's figures.
 *
 * seccomp_load()'s line is written before the filter is installed, and
 * only a failure to install it is said afterwards: once installed, the
 * filter may deny what saying it takes (the stats' allocations, write(2)
 * itself), and a log must not kill the process it describes.
 *
 * The variable is read once, when the dynamic linker loads the library (a
 * constructor, before the program's own threads exist), never at the call:
 * getenv() races with a setenv() in another thread, and a program that
 * edits its environment later must not switch the log on or off midway.
 * The line is built in a buffer and written with one write(2), so that it
 * neither goes through the caller's stdio buffers nor interleaves with
 * another thread's output; a failed write is ignored, as it must not
 * change what the call returns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

static bool log_on;

__attribute__((constructor)) static void log_read_env(void)
{
	const char *v = getenv("SCMPC_COMPAT_LOG");
	log_on = v && *v && strcmp(v, "0") != 0;
}

struct line {
	char buf[1024];
	size_t n;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct line *l, const char *fmt, ...)
{
	if (l->n >= sizeof(l->buf))
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		l->n += (size_t)k < sizeof(l->buf) - l->n ? (size_t)k : sizeof(l->buf) - l->n - 1;
}

/* The worst path of ABI I of P on INSNS: over the argument-free numbers
 * and every argument value of the argument-checked calls; 0 when the
 * engine cannot follow the program. */
static unsigned worst_path(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			   size_t i)
{
	SCMPC_OPTS(scmpc_stats_opts, o, .probe_limit = 0);
	SCMPC_OPTS(scmpc_arch_stats, s, .argsys = NULL);
	if (scmpc_stats(p, insns, len, i, &o, &s, NULL) < 0)
		return 0;
	unsigned worst = s.worst_path;
	if (!s.nargsys)
		return worst;
	struct scmpc_argsys_stats *as = calloc(s.nargsys, sizeof(*as));
	if (!as)
		return worst;
	SCMPC_OPTS(scmpc_arch_stats, t, .argsys = as, .argsys_cap = s.nargsys);
	if (scmpc_stats(p, insns, len, i, &o, &t, NULL) == 0)
		for (size_t k = 0; k < t.nargsys && k < t.argsys_cap; k++)
			if (as[k].worst_path > worst)
				worst = as[k].worst_path;
	free(as);
	return worst;
}

void compat_log(const char *fn, const struct compat_ctx *c, int rc)
{
	if (!log_on)
		return;
	int saved = errno;
	struct line l = { .n = 0 };
	put(&l, "libseccomp.so.2 %u.%u.%u on scmpc %s [%ld]: %s: ", SCMP_VER_MAJOR,
	    SCMP_VER_MINOR, SCMP_VER_MICRO, scmpc_version(), (long)getpid(), fn);
	if (!c) {
		put(&l, "not installed: %s\n", strerror(rc < 0 ? -rc : EINVAL));
		goto out;
	}
	if (!c->prog) {
		put(&l, "nothing compiled (%s)\n", strerror(rc < 0 ? -rc : EINVAL));
		goto out;
	}
	const struct sock_filter *insns = scmpc_prog_insns(c->prog);
	size_t len = scmpc_prog_len(c->prog);
	put(&l, "scmpc's program, %zu instructions", len);
	scmpc_policy *p = NULL;
	if (compat_policy(c, &p, NULL) == 0) {
		/* "worst path 10 x86_64, 12 i386, 17 x32" */
		put(&l, ", worst path");
		for (size_t i = 0; i < scmpc_policy_arch_count(p); i++)
			put(&l, "%s %u %s", i ? "," : "", worst_path(p, insns, len, i),
			    scmpc_arch_name(scmpc_policy_arch(p, i)));
		scmpc_policy_free(p);
	}
	put(&l, " (libseccomp's layout not estimated: scmpc's public API has no model of it)");
	if (rc < 0)
		put(&l, "; %s failed: %s", fn, strerror(-rc));
	put(&l, "\n");
out:
	if (write(STDERR_FILENO, l.buf, l.n) < 0) {
		/* nowhere to say it: the call's result stands */
	}
	errno = saved;
}
