/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile exec: install a policy's program (or a .bpf) in this process
 * and execute a command under it, handing the listener to the policy's
 * agent when it has one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/* Whether execvp() will find NAME, asked before any filter is in place:
 * a typo then costs nothing and is reported in env(1)'s terms.  Returns 0,
 * or the status to exit with. */
static int find_command(const char *name)
{
	const char *path = getenv("PATH");
	bool denied = false;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(name, '/')) {
		/* access(X_OK) holds for a directory too, which execve then
		 * refuses with EACCES: said here, that is not the filter's doing. */
		if (access(name, X_OK) == 0) {
			if (stat(name, &st) < 0 || S_ISREG(st.st_mode))
				return EXIT_OK;
			errorf("%s: %s", name, S_ISDIR(st.st_mode) ? strerror(EISDIR)
					: "not a regular file, so it cannot be executed");
			return EXIT_CANNOT_RUN;
		}
		int e = errno;
		errorf("%s: %s", name, strerror(e));
		return e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	}
	if (!path)
		path = "/bin:/usr/bin";	/* what glibc's execvp() searches then */
	for (const char *p = path;;) {
		const char *next = strchrnul(p, ':');
		int dl = (int)(next - p);

		/* An empty entry is the current directory. */
		int n = snprintf(buf, sizeof(buf), "%.*s%s%s", dl ? dl : 1, dl ? p : ".",
				 "/", name);
		if (n > 0 && (size_t)n < sizeof(buf)) {
			if (access(buf, X_OK) == 0) {
				if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
					return EXIT_OK;
			} else if (errno == EACCES) {
				denied = true;
			}
		}
		if (!*next)
			break;
		p = next + 1;
	}
	if (denied) {
		errorf("%s: %s", name, strerror(EACCES));
		return EXIT_CANNOT_RUN;
	}
	errorf("%s: command not found", name);
	return EXIT_NOT_FOUND;
}

/* Whether the program can return SCMP_ACT_NOTIFY. */
static bool returns_notify(const struct sock_filter *f, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (f[i].code == (BPF_RET | BPF_K) && (f[i].k & 0xffff0000U) == SCMPC_ACT_USER_NOTIF)
			return true;
	return false;
}

/* The listener's way to the agent.  A helper forked before the filter is
 * loaded (so that none of its calls pass it) waits for the listener's fd
 * number, takes a copy with pidfd_getfd(2) (which needs ptrace rights over
 * this process, as runc has), sends it to the agent and says so; the
 * double fork leaves no child behind for CMD. */
struct handoff {
	int to[2], from[2];
	pid_t pid;
};

static void handoff_close(struct handoff *h)
{
	for (int i = 0; i < 2; i++) {
		if (h->to[i] >= 0)
			close(h->to[i]);
		if (h->from[i] >= 0)
			close(h->from[i]);
		h->to[i] = h->from[i] = -1;
	}
}

static int handoff_start(struct handoff *h, const char *agent, const char *meta)
{
	h->pid = getpid();
	if (pipe2(h->to, O_CLOEXEC) < 0 || pipe2(h->from, O_CLOEXEC) < 0) {
		errorf("pipe: %s", strerror(errno));
		handoff_close(h);
		return -1;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		errorf("fork: %s", strerror(errno));
		handoff_close(h);
		return -1;
	}
	if (child == 0) {
		if (fork() != 0)
			_exit(0);
		/* the grandchild */
		char ok = 0;
		int fdnum = -1;
		close(h->to[1]);
		close(h->from[0]);
		if (read(h->to[0], &fdnum, sizeof(fdnum)) == (ssize_t)sizeof(fdnum)) {
			int pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
			int fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fdnum, 0);
			char id[64], cwd[4096];
			snprintf(id, sizeof(id), "scmp-compile-exec-%d", (int)h->pid);
			struct scmpc_process_state st = {
				.sz = sizeof(st), .pid = h->pid, .metadata = meta, .id = id,
				.bundle = getcwd(cwd, sizeof(cwd)),
			};
			scmpc_diag *d = scmpc_diag_new();
			if (fd < 0)
				errorf("taking the listener from process %d: %s", (int)h->pid,
				       strerror(errno));
			else if (scmpc_notify_handoff(fd, agent, &st, d) < 0)
				errorf("%s", scmpc_diag_message(d));
			else
				ok = 1;
			scmpc_diag_free(d);
		}
		if (write(h->from[1], &ok, 1) < 0)
			_exit(1);
		_exit(0);
	}
	int st;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	close(h->to[0]);
	close(h->from[1]);
	h->to[0] = h->from[1] = -1;
	return 0;
}

static int handoff_finish(struct handoff *h, int listener)
{
	char ok = 0;
	int r = write(h->to[1], &listener, sizeof(listener)) == (ssize_t)sizeof(listener) &&
			read(h->from[0], &ok, 1) == 1 && ok
		? 0 : -1;
	handoff_close(h);
	return r;
}

static void handoff_abort(struct handoff *h)
{
	handoff_close(h);	/* the helper reads EOF and ends */
}

static int run_exec(struct cli *c)
{
	enum scmpc_arch native = native_arch();
	struct scmpc_load_opts o;
	struct scmpc_load_result res;
	struct filter f;
	struct filter_set set;
	scmpc_diag *d = NULL;
	int status = EXIT_INPUT, rc;

	memset(&f, 0, sizeof(f));
	memset(&set, 0, sizeof(set));
	/* The filter goes into this kernel: a policy resolved for another
	 * host would answer every call, execve first, with its bad-arch action. */
	if (c->arch != SCMPC_ARCH_NONE && c->arch != native)
		return usage_error("exec installs the filter here: --arch can only be %s",
				   scmpc_arch_name(native));
	/* --split: a set of programs, stacked; f stays empty but for its name
	 * and policy, which the rest reads. */
	if (c->split ? load_filter_set(c, c->pos[0], native, &set)
		     : load_filter(c, c->pos[0], native, &f))
		goto out;
	if (c->split) {
		f.name = set.name;
		f.policy = set.policy;
	}
	if (f.policy) {
		bool has_native = false;

		for (size_t i = 0; i < scmpc_policy_arch_count(f.policy); i++)
			has_native |= scmpc_policy_arch(f.policy, i) == native;
		if (!has_native) {
			errorf("%s: the policy has no %s section, so every call (execve first) "
			       "would get its bad-arch action", f.name, scmpc_arch_name(native));
			goto out;
		}
	}
	status = find_command(c->cmd_argv[0]);
	if (status != EXIT_OK)
		goto out;
	status = EXIT_INPUT;

	d = scmpc_diag_new();
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.flags = c->keep_nnp ? SCMPC_LOAD_KEEP_NNP : 0;
	o.seccomp_flags = c->seccomp_flags;
	memset(&res, 0, sizeof(res));
	res.sz = sizeof(res);

	/* SCMP_ACT_NOTIFY calls need an agent: the profile's listenerPath gets
	 * the listener, as from runc, by a helper started now, before the
	 * filter holds this process. */
	const char *agent = NULL, *meta = NULL;
	struct handoff h = { .to = { -1, -1 }, .from = { -1, -1 } };
	bool notify = returns_notify(f.insns, f.len);
	for (size_t i = 0; i < set.n; i++)
		notify |= returns_notify(scmpc_prog_insns(set.progs[i]), scmpc_prog_len(set.progs[i]));
	if (notify) {
		if (!f.policy || !scmpc_policy_listener(f.policy, &agent, &meta)) {
			if (!c->quiet)
				errorf("warning: %s: calls the filter sends to an agent will fail with "
				       "ENOSYS: it has no listenerPath", f.name);
		} else {
			o.seccomp_flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
			if (handoff_start(&h, agent, meta) < 0)
				goto out;
		}
	}
	if (c->split)
		rc = scmpc_load_set((const scmpc_prog *const *)set.progs, set.n, set.policy, &o, &res,
				    d);
	else
		rc = f.policy ? scmpc_load_prog(f.prog, f.policy, &o, &res, d)
			      : scmpc_load(f.insns, f.len, &o, &res, d);
	report_warnings(f.name, d, c->quiet);
	if (rc == -EACCES && c->keep_nnp) {
		/* the library's message names its flag; the user gave an option */
		errorf("%s: --keep-nnp needs CAP_SYS_ADMIN or an inherited no_new_privs, and "
		       "this process has neither: the kernel refuses the filter then (EACCES), "
		       "because it could subvert a set-user-ID program; drop --keep-nnp or run "
		       "with CAP_SYS_ADMIN", f.name);
		handoff_abort(&h);
		goto out;
	}
	if (rc < 0) {
		report_diag(f.name, d, rc);
		handoff_abort(&h);
		goto out;
	}
	if (rc > 0) {
		/* From here on every call passes the filter: the few left are
		 * write, read and close (which runc too makes after loading). */
		if (agent && handoff_finish(&h, rc) < 0) {
			errorf("%s: the seccomp agent at %s did not get the listener", f.name, agent);
			goto out;
		}
		close(rc);
	}

	fflush(stdout);
	execvp(c->cmd_argv[0], c->cmd_argv);
	/* From here on every call, these too, passes the new filter. */
	int e = errno;
	errorf("%s: cannot execute under the filter: %s", c->cmd_argv[0], strerror(e));
	status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
out:
	scmpc_diag_free(d);
	if (c->split)
		memset(&f, 0, sizeof(f));	/* its policy is the set's */
	filter_free(&f);
	filter_set_free(&set);
	return status;
}

const struct command exec_command = {
	"exec", run_exec, F_ARCH | F_POLICY | F_FLAGS | F_KEEP_NNP | F_SPLIT,
	"Usage: " PROG_NAME " exec [--flags LIST] [--keep-nnp] [-a ABI] [--caps LIST]\n"
	"                         [--kernel X.Y] [--strict] [--no-enosys]\n"
	"                         [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n"
	"                         [--split] POLICY|FILE.bpf|PREFIX [--] CMD [ARG...]\n",
	"Compile POLICY for this machine (or take a raw FILE.bpf), install it in this\n"
	"process with seccomp(2), setting no_new_privs first, and execute CMD under\n"
	"it.  Options are read up to the first word after POLICY, the command; what\n"
	"follows it is CMD's.\n",
	"Exit status: 1 when the filter cannot be installed, 2 usage error, 126 when\n"
	"CMD cannot be run, 127 when it is not found, else CMD's own status.\n",
};
