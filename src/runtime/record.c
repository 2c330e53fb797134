/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Recording what a command does: every system call of it, its threads and
 * its children, with its ABI and six arguments.  The command runs under a
 * filter that returns USER_NOTIF for every call; this process takes the
 * listener with pidfd_getfd(2), records each notification and answers it
 * with CONTINUE, so the call runs as made (Linux 5.9 for pidfd_getfd, 5.5
 * for CONTINUE).  Nothing is decided from the call's memory, so CONTINUE's
 * caveat (arguments read by the supervisor may change) does not apply.
 * Where notification is not to be had (a kernel before 5.9, a filter
 * above this process that refuses seccomp(2) or pidfd_getfd(2)), the
 * calls are seen at ptrace's syscall-entry stops instead (Linux 5.3 for
 * PTRACE_GET_SYSCALL_INFO), by a tracer process of its own so that its
 * waits never reap another child of the caller.
 * The calls go into a scmpc_recording (front/recording.c).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
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

/* Whether call SD of process PID is kept: with SCMPC_RECORD_TAIL, only
 * between the process's own filter and its exec.  -ENOMEM. */
static int tail_keep(struct tail *tail, unsigned flags, pid_t pid,
		     const struct seccomp_data *sd, bool *keep)
{
	*keep = true;
	if (!(flags & SCMPC_RECORD_TAIL))
		return 0;
	bool installs, execs;
	classify(sd, &installs, &execs);
	struct tail_pid *tp = tail_of(tail, pid);
	if (!tp)
		return -ENOMEM;
	*keep = tp->armed;
	if (installs)
		tp->armed = true;
	if (execs)
		tp->armed = false;
	return 0;
}

/* The recording by seccomp user notification.  *UNAVAILABLE: it failed
 * before the command ran (no listener to be had), so another mechanism
 * may run it instead. */
static int record_notify(char *const argv[], const struct scmpc_record_opts *o,
			 scmpc_recording *rec, struct scmpc_record_info *info_out,
			 bool *unavailable, scmpc_diag *d)
{
	struct scmpc_record_opts opts = *o;
	struct scmpc_record_info res = *info_out;
	int err = 0;

	res.method = "seccomp user notification";
	*unavailable = false;
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
		*unavailable = true;	/* the child waits for nothing: it is killed */
		goto kill;
	}
	while (lfd < 0) {
		lfd = (int)syscall(SYS_pidfd_getfd, pidfd, 3, 0);
		if (lfd < 0 && errno != EBADF && errno != ESRCH) {
			/* pidfd_getfd refused (ENOSYS, EPERM): no listener */
			err = diag_err(d, -errno, NULL, "pidfd_getfd: %s (Linux 5.9)", strerror(errno));
			*unavailable = true;
			goto kill;
		}
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
			*unavailable = true;
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
		bool keep;
		if (tail_keep(&tail, opts.flags, (pid_t)req->pid, &req->data, &keep) < 0) {
			err = diag_err(d, -ENOMEM, NULL, "out of memory");
			goto kill;
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
	*info_out = res;
	return err;
}


/* ------------------------------------------------------------ ptrace */

/* What the tracer process tells the recorder, one per write (smaller than
 * PIPE_BUF, so never torn). */
struct wire {
	uint32_t kind;		/* WIRE_* */
	int32_t pid;
	struct seccomp_data sd;	/* WIRE_END: args[0] the command's wait status,
				   args[1] every call seen; WIRE_ERROR: args[0]
				   the errno, args[1] the step (a string index) */
};
enum { WIRE_CALL, WIRE_END, WIRE_ERROR };

static const char *const tracer_steps[] = { "fork", "waitpid", "PTRACE_SETOPTIONS",
					    "PTRACE_SYSCALL", "the traced child" };

static void wire_send(int fd, uint32_t kind, pid_t pid, const struct seccomp_data *sd)
{
	struct wire w = { .kind = kind, .pid = pid };
	if (sd)
		w.sd = *sd;
	while (write(fd, &w, sizeof(w)) < 0 && errno == EINTR)
		;
}

static void tracer_fail(int fd, int step, int e)
{
	struct seccomp_data sd = { .args = { (uint64_t)e, (uint64_t)step } };
	wire_send(fd, WIRE_ERROR, 0, &sd);
	_exit(1);
}

/* The tracer (a child of the recorder): runs ARGV traced, with its
 * children and threads, and sends each syscall-entry stop down FD.  The
 * command's own calls start at its first execve: what comes before is
 * this process's fork and raise(SIGSTOP), not the command's. */
static void tracer(char *const argv[], int fd)
{
	pid_t pid = fork();
	if (pid < 0)
		tracer_fail(fd, 0, errno);
	if (pid == 0) {
		for (int k = 0; k < 3; k++)
			if (fcntl(k, F_GETFD) < 0 && open("/dev/null", O_RDWR) != k)
				_exit(125);
		for (int k = 3; k < 1024; k++)
			close(k);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(125);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			tracer_fail(fd, 1, errno);
	if (!WIFSTOPPED(st))
		tracer_fail(fd, 4, ECHILD);
	long optset = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		      PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)optset) < 0)
		tracer_fail(fd, 2, errno);
	if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) < 0)
		tracer_fail(fd, 3, errno);
	bool started = false;
	int status = 0;
	uint64_t calls = 0;
	for (;;) {
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: every tracee is gone */
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == pid)
				status = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), inject = 0;
		if (sig == (SIGTRAP | 0x80)) {
			/* zeroed: what the kernel does not fill (an older struct)
			 * reads as 0, not as stack garbage */
			struct __ptrace_syscall_info si;
			memset(&si, 0, sizeof(si));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, w, (void *)sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY) {
				struct seccomp_data sd = { .nr = (int)si.entry.nr, .arch = si.arch,
							   .instruction_pointer =
								   si.instruction_pointer };
				for (int k = 0; k < 6; k++)
					sd.args[k] = si.entry.args[k];
				if (!started && w == pid) {
					bool installs, execs;
					classify(&sd, &installs, &execs);
					started = execs;
				}
				if (started || w != pid) {
					calls++;
					wire_send(fd, WIRE_CALL, w, &sd);
				}
			}
		} else if ((st >> 16) == 0 && sig != SIGSTOP) {
			/* a signal for the tracee: passed on.  SIGSTOP is a new
			 * tracee's first stop (or a group stop): not passed on */
			siginfo_t info;
			if (ptrace(PTRACE_GETSIGINFO, w, NULL, &info) == 0)
				inject = sig;
		}
		/* a tracee that vanished meanwhile (SIGKILL) is reported by
		 * the next wait */
		ptrace(PTRACE_SYSCALL, w, NULL, (void *)(long)inject);
	}
	struct seccomp_data end = { .args = { (uint64_t)(unsigned)status, calls } };
	wire_send(fd, WIRE_END, 0, &end);
	_exit(0);
}

/* The recording by ptrace: a tracer process runs the command and sends
 * each call; this one records them. */
static int record_ptrace(char *const argv[], const struct scmpc_record_opts *o,
			 scmpc_recording *rec, struct scmpc_record_info *info_out, scmpc_diag *d)
{
	struct scmpc_record_info res = *info_out;
	struct tail tail = { 0 };
	int p[2], err = 0, st;
	bool ended = false;

	res.method = "ptrace";
	res.calls = 0;
	double t0 = now_s();
	if (pipe2(p, O_CLOEXEC) < 0)
		return diag_err(d, -errno, NULL, "pipe: %s", strerror(errno));
	pid_t tp = fork();
	if (tp < 0) {
		err = diag_err(d, -errno, NULL, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (tp == 0) {
		close(p[0]);
		tracer(argv, p[1]);
	}
	close(p[1]);
	for (;;) {
		struct wire w;
		size_t got = 0;
		while (got < sizeof(w)) {
			ssize_t r = read(p[0], (char *)&w + got, sizeof(w) - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got < sizeof(w))
			break;
		if (w.kind == WIRE_END) {
			res.status = (int)w.sd.args[0];
			ended = true;
			continue;
		}
		if (w.kind == WIRE_ERROR) {
			size_t step = (size_t)w.sd.args[1];
			err = diag_err(d, -(int)w.sd.args[0], NULL, "ptrace recorder: %s: %s",
				       step < ARRAY_SIZE(tracer_steps) ? tracer_steps[step] : "?",
				       strerror((int)w.sd.args[0]));
			continue;
		}
		bool keep;
		int rc = err ? 0 : tail_keep(&tail, o->flags, w.pid, &w.sd, &keep);
		if (!err && !rc && keep)
			rc = scmpc_recording_add(rec, w.sd.arch, (uint32_t)w.sd.nr,
						 (const uint64_t *)w.sd.args, 1);
		if (rc < 0 && !err) {
			/* the tracer goes on to the end: the command is not cut */
			err = diag_err(d, -ENOMEM, NULL, "out of memory");
		}
		res.calls++;
	}
	close(p[0]);
	while (waitpid(tp, &st, 0) < 0 && errno == EINTR)
		;
	if (!err && !ended)
		err = diag_err(d, -ECHILD, NULL, "the ptrace recorder ended without a word "
			       "(wait status %d)", st);
	res.seconds = now_s() - t0;
	free(tail.v);
	*info_out = res;
	return err;
}

SCMPC_API int scmpc_record(char *const argv[], const struct scmpc_record_opts *o,
			   scmpc_recording *rec, struct scmpc_record_info *info, scmpc_diag *d)
{
	struct scmpc_record_opts opts;
	struct scmpc_record_info res = { .sz = sizeof(res), .method = "seccomp user notification" };
	const unsigned known = SCMPC_RECORD_TAIL | SCMPC_RECORD_PTRACE | SCMPC_RECORD_NOTIFY;
	int err;

	if ((err = OPTS_VALID(o, scmpc_record_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~known)
		return diag_err(d, -EINVAL, NULL, "unknown record flags %#x", opts.flags);
	if ((opts.flags & SCMPC_RECORD_PTRACE) && (opts.flags & SCMPC_RECORD_NOTIFY))
		return diag_err(d, -EINVAL, NULL, "SCMPC_RECORD_PTRACE and SCMPC_RECORD_NOTIFY "
				"together");
	if (!argv || !argv[0] || !rec)
		return diag_err(d, -EINVAL, NULL, "no command or no recording");
	if (info && info->sz < OPTS_END(scmpc_record_info, sz))
		return diag_err(d, -EINVAL, NULL, "a malformed struct scmpc_record_info");

	bool unavailable = false;
	if (opts.flags & SCMPC_RECORD_PTRACE) {
		err = record_ptrace(argv, &opts, rec, &res, d);
	} else {
		err = record_notify(argv, &opts, rec, &res, &unavailable, d);
		if (err < 0 && unavailable && !(opts.flags & SCMPC_RECORD_NOTIFY)) {
			/* nothing of the command ran: ptrace runs it instead,
			 * and says why in a warning */
			char why[256];
			snprintf(why, sizeof(why), "%s", scmpc_diag_message(d));
			scmpc_diag_clear(d);
			diag_warn(d, "seccomp user notification unavailable (%s): recorded with "
				  "ptrace", why);
			res.status = 0;
			err = record_ptrace(argv, &opts, rec, &res, d);
		}
	}
	if (info)
		OUT_FILL(info, res);
	return err;
}
