/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Recording what a command does: every system call of it, its threads and
 * its children, with its ABI and six arguments.  The command runs under a
 * filter that returns USER_NOTIF for every call; this process takes the
 * listener with pidfd_getfd(2), records each notification and answers it
 * with CONTINUE, so the call runs as made (Linux 5.9 for pidfd_getfd, 5.5
 * for CONTINUE).  Nothing is decided from the call's memory, so CONTINUE's
 * caveat (arguments read by the supervisor may change) does not apply.
 * The calls go into a scmpc_recording (front/recording.c).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include "arch/arch.h"
#include "runtime/runtime.h"

/* ----------------------------------------------------------- recording */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The filter every recorded process runs: USER_NOTIF for every call. */
static const struct sock_filter notify_all[] = {
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
};

/* The child: the listener will be fd 3 (everything from 3 up closed, 0-2
 * open), then the filter, then the command.  Errors are the exit status:
 * nothing can be said on a stream the command owns. */
static void child(char *const argv[])
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			_exit(125);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(125);
	struct sock_fprog prog = { .len = 1, .filter = (struct sock_filter *)notify_all };
	if (sys_seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) != 3)
		_exit(125);
	/* the listener is close-on-exec: the command does not see it */
	execvp(argv[0], argv);
	_exit(errno == ENOENT ? 127 : 126);
}

/* Per process of the tail mode: whether it installed a filter of its own
 * and has not exec'd since. */
struct tail_pid {
	pid_t pid;
	bool armed;
};

struct tail {
	struct tail_pid *v;
	size_t n, cap;
};

static struct tail_pid *tail_of(struct tail *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == pid)
			return &t->v[i];
	if (!array_reserve(&t->v, &t->cap, t->n, sizeof(*t->v), 16))
		return NULL;
	t->v[t->n] = (struct tail_pid){ pid, false };
	return &t->v[t->n++];
}

/* Whether SD installs a seccomp filter (seccomp(SET_MODE_FILTER) or
 * prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)), or execs. */
static void classify(const struct seccomp_data *sd, bool *installs, bool *execs)
{
	enum scmpc_arch a = arch_of_call(sd->arch, (uint32_t)sd->nr);
	const struct arch_info *ai = arch_info(a);
	*installs = *execs = false;
	if (!ai)
		return;
	int64_t nr = (uint32_t)sd->nr;
	/* A probe passes no program (libseccomp asks the kernel which flags
	 * it knows with seccomp(SET_MODE_FILTER, flag, NULL)): not an install. */
	if (nr == arch_resolve(ai, "seccomp") && (uint32_t)sd->args[0] == SECCOMP_SET_MODE_FILTER &&
	    sd->args[2])
		*installs = true;
	if (nr == arch_resolve(ai, "prctl") && (uint32_t)sd->args[0] == PR_SET_SECCOMP &&
	    (uint32_t)sd->args[1] == SECCOMP_MODE_FILTER && sd->args[2])
		*installs = true;
	if (nr == arch_resolve(ai, "execve") || nr == arch_resolve(ai, "execveat"))
		*execs = true;
}

SCMPC_API int scmpc_record(char *const argv[], const struct scmpc_record_opts *o,
			   scmpc_recording *rec, struct scmpc_record_info *info, scmpc_diag *d)
{
	struct scmpc_record_opts opts;
	struct scmpc_record_info res = { .sz = sizeof(res), .method = "seccomp user notification" };
	int err;

	if ((err = OPTS_VALID(o, scmpc_record_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~SCMPC_RECORD_TAIL)
		return diag_err(d, -EINVAL, NULL, "unknown record flags %#x", opts.flags);
	if (!argv || !argv[0] || !rec)
		return diag_err(d, -EINVAL, NULL, "no command or no recording");
	if (info && info->sz < OPTS_END(scmpc_record_info, sz))
		return diag_err(d, -EINVAL, NULL, "a malformed struct scmpc_record_info");

	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0)
		return diag_err(d, -errno, NULL, "fork: %s", strerror(errno));
	if (pid == 0)
		child(argv);

	/* Take the listener from the child once it is there (fd 3). */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), lfd = -1, status = 0;
	scmpc_notify *n = NULL;
	struct tail tail = { 0 };
	bool exited = false;
	if (pidfd < 0) {
		err = diag_err(d, -errno, NULL, "pidfd_open: %s (Linux 5.3)", strerror(errno));
		goto kill;
	}
	while (lfd < 0) {
		lfd = (int)syscall(SYS_pidfd_getfd, pidfd, 3, 0);
		if (lfd >= 0 && scmpc_notify_new(lfd, &n, NULL) < 0) {
			close(lfd);	/* not the listener yet: the child's own fd 3 */
			lfd = -1;
		}
		if (lfd >= 0)
			break;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			exited = true;
			err = diag_err(d, -ECHILD, NULL, "the recorder's child ended before its "
				       "filter was in place (status %d): is seccomp user "
				       "notification available (Linux 5.0; 5.9 for pidfd_getfd)?",
				       status);
			goto out;
		}
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}

	/* Every notification until the last process under the filter ends. */
	for (;;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		int pr = poll(&pfd, 1, -1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			err = diag_err(d, -errno, NULL, "poll: %s", strerror(errno));
			goto kill;
		}
		if (!(pfd.revents & POLLIN))
			break;	/* POLLHUP: no process holds the filter any more */
		const struct seccomp_notif *req;
		int rc = scmpc_notify_receive(n, &req, d);
		if (rc == -ENOENT || rc == -EINTR)
			continue;
		if (rc < 0) {
			err = rc;
			goto kill;
		}
		bool keep = true;
		if (opts.flags & SCMPC_RECORD_TAIL) {
			/* between a process's own filter and its exec */
			bool installs, execs;
			classify(&req->data, &installs, &execs);
			struct tail_pid *tp = tail_of(&tail, (pid_t)req->pid);
			if (!tp) {
				err = diag_err(d, -ENOMEM, NULL, "out of memory");
				goto kill;
			}
			keep = tp->armed;
			if (installs)
				tp->armed = true;
			if (execs)
				tp->armed = false;
		}
		if (keep && (rc = scmpc_recording_add(rec, req->data.arch, (uint32_t)req->data.nr,
						      (const uint64_t *)req->data.args, 1)) < 0) {
			err = diag_err(d, rc, NULL, "out of memory");
			goto kill;
		}
		res.calls++;
		rc = scmpc_notify_respond(n, req->id, 0, 0, SCMPC_NOTIFY_CONTINUE, d);
		if (rc < 0 && rc != -ENOENT) {
			err = rc;
			goto kill;
		}
	}
	goto out;
kill:
	kill(pid, SIGKILL);
out:
	if (!exited)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	res.status = status;
	res.seconds = now_s() - t0;
	scmpc_notify_free(n);
	if (lfd >= 0)
		close(lfd);
	if (pidfd >= 0)
		close(pidfd);
	free(tail.v);
	if (info)
		OUT_FILL(info, res);
	return err;
}
