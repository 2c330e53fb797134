/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Reading back a thread's filters: PTRACE_SECCOMP_GET_FILTER (kernel/ptrace.c,
 * kernel/seccomp.c `seccomp_get_filter`, Linux 4.4+) on a ptrace-stopped
 * tracee, by a caller with CAP_SYS_ADMIN that is not itself under seccomp.
 * Index 0 is the oldest filter; the call returns the instruction count and
 * fills the buffer when one is given.  The kernel keeps each filter's
 * original cBPF, before its own rewriting, so what comes back can be
 * inspected, fed to the cache analyzer, and measured against the chain
 * budget exactly.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "runtime/runtime.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif
#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

int proc_seccomp_status(pid_t tid, struct seccomp_status *st)
{
	char path[64], line[256];
	FILE *f;

	st->mode = -1;
	st->filters = -1;
	st->nnp = -1;
	st->state = 0;
	if (tid == 0)
		snprintf(path, sizeof(path), "/proc/thread-self/status");
	else
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	f = fopen(path, "re");
	if (!f && tid == 0 && errno == ENOENT) {
		/* /proc/thread-self arrived in 3.17; the task directory is older. */
		snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
		f = fopen(path, "re");
	}
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Seccomp:", 8))
			st->mode = atoi(line + 8);
		else if (!strncmp(line, "Seccomp_filters:", 16))
			st->filters = atol(line + 16);
		else if (!strncmp(line, "NoNewPrivs:", 11))
			st->nnp = atoi(line + 11);
		else if (!strncmp(line, "State:", 6))
			st->state = line[6 + strspn(line + 6, " \t")];
	}
	fclose(f);
	return 0;
}

SCMPC_API void scmpc_prog_array_free(scmpc_prog **progs, size_t n)
{
	if (!progs)
		return;
	for (size_t i = 0; i < n; i++)
		scmpc_prog_free(progs[i]);
	free(progs);
}

/* A zombie still shows its Seccomp lines, but ptrace cannot attach to it:
 * said plainly, instead of every reason PTRACE_SEIZE may fail. */
static int zombie_error(pid_t tid, scmpc_diag *d)
{
	return diag_err(d, -ESRCH, NULL, "thread %ld is a zombie: it has exited, and its "
			"filters can no longer be read", (long)tid);
}

static bool is_zombie(pid_t tid)
{
	struct seccomp_status st;

	return proc_seccomp_status(tid, &st) == 0 && (st.state == 'Z' || st.state == 'X');
}

/* Bring TID into a ptrace-stop.  *SIG gets a signal the stop intercepted,
 * to hand back at detach so the thread still receives it. */
static int seize_stop(pid_t tid, int *sig, scmpc_diag *d)
{
	int st, e;

	*sig = 0;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		e = errno;
		if (e == ESRCH)
			return diag_err(d, -ESRCH, NULL, "no thread %ld", (long)tid);
		/* it may have exited since its status was read */
		if (e == EPERM && is_zombie(tid))
			return zombie_error(tid, d);
		if (e == EPERM)
			return diag_err(d, -EPERM, NULL,
					"cannot attach to thread %ld: it is already traced (if this "
					"thread is its tracer, stop it and pass "
					"SCMPC_INTROSPECT_STOPPED), it belongs to the caller's own "
					"process, or ptrace is not permitted (CAP_SYS_PTRACE, Yama "
					"ptrace_scope)", (long)tid);
		return diag_err(d, -e, NULL, "PTRACE_SEIZE of thread %ld failed: %s", (long)tid,
				strerror(e));
	}
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		e = errno;
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return diag_err(d, -e, NULL, "PTRACE_INTERRUPT of thread %ld failed: %s",
				(long)tid, strerror(e));
	}
	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return diag_err(d, -e, NULL, "waiting for thread %ld to stop failed: %s",
					(long)tid, strerror(e));
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return diag_err(d, -ESRCH, NULL, "thread %ld exited while being stopped",
					(long)tid);
		if (WIFSTOPPED(st)) {
			/* Any ptrace-stop will do; only a signal-delivery-stop
			 * (no event) swallowed a signal the thread must still get. */
			if ((st >> 16) != PTRACE_EVENT_STOP)
				*sig = WSTOPSIG(st);
			return 0;
		}
	}
}

/* What PTRACE_SECCOMP_GET_FILTER's errno E for filter I of TID means, as an error in D. */
static int get_filter_error(pid_t tid, unsigned long i, int e, const struct seccomp_status *ts,
			    scmpc_diag *d)
{
	switch (e) {
	case EINVAL:
		if (ts->mode == 2)
			return diag_err(d, -EOPNOTSUPP, NULL,
					"the kernel cannot read filters back "
					"(PTRACE_SECCOMP_GET_FILTER needs CONFIG_CHECKPOINT_RESTORE)");
		return diag_err(d, -EINVAL, NULL,
				"PTRACE_SECCOMP_GET_FILTER refused thread %ld: it is not in filter "
				"mode, or the kernel lacks CONFIG_CHECKPOINT_RESTORE", (long)tid);
	case EACCES:
		return diag_err(d, -EACCES, NULL,
				"reading filters back needs CAP_SYS_ADMIN in the initial user "
				"namespace and a caller that is not itself under seccomp");
	case EMEDIUMTYPE:
		return diag_err(d, -EMEDIUMTYPE, NULL,
				"filter %lu of thread %ld has no saved original program", i,
				(long)tid);
	case ESRCH:
		return diag_err(d, -ESRCH, NULL,
				"thread %ld is gone, not traced by this thread, or not stopped",
				(long)tid);
	default:
		return diag_err(d, -e, NULL, "reading filter %lu of thread %ld failed: %s", i,
				(long)tid, strerror(e));
	}
}

/* Every filter of the stopped TID, oldest first, into *OUT; the count, or an error in D. */
static int read_filters(pid_t tid, const struct seccomp_status *ts, scmpc_prog ***out,
			scmpc_diag *d)
{
	scmpc_prog **progs = NULL, *p;
	size_t n = 0;
	int r;

	for (unsigned long i = 0;; i++) {
		long len = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, NULL);
		if (len < 0) {
			if (errno == ENOENT)	/* past the newest filter */
				break;
			r = get_filter_error(tid, i, errno, ts, d);
			goto fail;
		}
		if (len == 0 || len > BPF_MAXINSNS) {
			r = diag_err(d, -EPROTO, NULL, "filter %lu of thread %ld claims %ld "
				     "instructions", i, (long)tid, len);
			goto fail;
		}
		struct sock_filter *buf = calloc((size_t)len, sizeof(*buf));
		if (!buf) {
			r = diag_err(d, -ENOMEM, NULL, "out of memory");
			goto fail;
		}
		long got = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, buf);
		if (got != len) {
			/* A filter never changes once attached, so a different
			 * count means the read itself failed. */
			r = got < 0 ? get_filter_error(tid, i, errno, ts, d)
				    : diag_err(d, -EPROTO, NULL, "filter %lu changed size while "
					       "being read", i);
			free(buf);
			goto fail;
		}
		r = scmpc_prog_new(buf, (size_t)len, &p, d);
		free(buf);
		if (r < 0)
			goto fail;
		scmpc_prog **grown = realloc(progs, (n + 1) * sizeof(*progs));
		if (!grown) {
			scmpc_prog_free(p);
			r = diag_err(d, -ENOMEM, NULL, "out of memory");
			goto fail;
		}
		progs = grown;
		progs[n++] = p;
	}
	*out = progs;
	return (int)n;
fail:
	scmpc_prog_array_free(progs, n);
	return r;
}

SCMPC_API int scmpc_introspect(pid_t tid, const struct scmpc_introspect_opts *o,
			       scmpc_prog ***out, scmpc_diag *d)
{
	struct scmpc_introspect_opts opts;
	struct seccomp_status ts, self;
	int r, sig = 0;

	if (OPTS_VALID(o, scmpc_introspect_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(opts, o);
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the programs");
	*out = NULL;
	if (tid <= 0)
		return diag_err(d, -EINVAL, NULL, "%ld is not a thread id", (long)tid);
	if (opts.flags & ~SCMPC_INTROSPECT_STOPPED)
		return diag_err(d, -EINVAL, NULL, "unknown introspection flags 0x%x", opts.flags);

	r = proc_seccomp_status(tid, &ts);
	if (r == -ENOENT)
		return diag_err(d, -ESRCH, NULL, "no thread %ld", (long)tid);
	if (r == 0 && (ts.state == 'Z' || ts.state == 'X'))
		return zombie_error(tid, d);
	/* Stopping a thread that has nothing to read would only disturb it. */
	if (r == 0 && ts.mode == 0)
		return 0;
	if (r == 0 && ts.mode == 1) {
		diag_warn(d, "thread %ld is in strict mode, which has no filters", (long)tid);
		return 0;
	}
	if (proc_seccomp_status(0, &self) == 0 && self.mode > 0)
		return diag_err(d, -EACCES, NULL,
				"this thread runs under seccomp, and the kernel refuses "
				"PTRACE_SECCOMP_GET_FILTER to a filtered caller; read the filters "
				"from a process outside the sandbox");

	if (!(opts.flags & SCMPC_INTROSPECT_STOPPED) && (r = seize_stop(tid, &sig, d)) < 0)
		return r;
	r = read_filters(tid, &ts, out, d);
	if (!(opts.flags & SCMPC_INTROSPECT_STOPPED))
		ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig);
	return r;
}
