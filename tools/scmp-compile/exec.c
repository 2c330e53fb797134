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
static int find_command(const char *name, char *found, size_t foundlen)
{
	const char *path = getenv("PATH");
	bool denied = false;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(name, '/')) {
		/* access(X_OK) holds for a directory too, which execve then
		 * refuses with EACCES: said here, that is not the filter's doing. */
		if (access(name, X_OK) == 0) {
			snprintf(found, foundlen, "%s", name ? name : "");
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
				if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
					snprintf(found, foundlen, "%s", buf);
					return EXIT_OK;
				}
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

/* Whether PROG serves ABI A: it tests A's AUDIT_ARCH, or none at all.
 * The ABIs it serves are listed into LIST. */
static bool serves_abi(const struct sock_filter *insns, size_t len, enum scmpc_arch a,
		       char *list, size_t listlen)
{
	enum scmpc_arch abis[64];
	int n = scmpc_prog_abis(insns, len, abis, 64);
	bool found = n <= 0;

	for (int i = 0; i < n && i < 64; i++) {
		size_t used = strlen(list);
		if (!strstr(list, scmpc_arch_name(abis[i])))
			snprintf(list + used, listlen - used, "%s%s", used ? ", " : "",
				 scmpc_arch_name(abis[i]));
		found |= abis[i] == a;
	}
	return found;
}

/* Why the policy P denies SD, as " (rule syscalls[3])", or "". */
static void exec_cause(const scmpc_policy *p, const struct seccomp_data *sd, uint32_t act,
		       char *buf, size_t len)
{
	struct scmpc_explanation ex = { .sz = sizeof(ex) };
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };

	buf[0] = '\0';
	if (!p || scmpc_policy_explain(p, sd, &ex, NULL) < 0 || ex.action != act)
		return;
	if (ex.rule >= 0 && scmpc_policy_rule(p, (size_t)ex.rule, &ri) == 0 && ri.origin)
		snprintf(buf, len, " (rule %s)", ri.origin);
	else if (ex.reason == SCMPC_REASON_DEFAULT)
		snprintf(buf, len, " (the policy's default action)");
	else if (ex.reason == SCMPC_REASON_LIMIT)
		snprintf(buf, len, " (runc's ENOSYS stub)");
}

/* The execve(2) call exec will make, as the filters will see it: PATH,
 * ARGV and the environment, the three unused argument registers zero
 * (exec makes it with syscall(2) so that they are).  Each of the N
 * programs must let it through (or leave it to a tracer or an agent), or
 * CMD could never start: said now, while the error can still be printed.
 * Returns 0, or -1 having said why. */
static int check_execve(const char *name, const scmpc_policy *p, const struct sock_filter *const *insns,
			const size_t *lens, size_t n, const char *path, char *const *argv)
{
	extern char **environ;
	struct seccomp_data sd = {
		.nr = SYS_execve, .arch = scmpc_arch_audit(native_arch()),
		.args = { (uintptr_t)path, (uintptr_t)argv, (uintptr_t)environ },
	};
	for (size_t i = 0; i < n; i++) {
		uint32_t act;
		if (scmpc_emulate(insns[i], lens[i], &sd, &act, NULL) < 0)
			continue;
		uint32_t a = act & 0xffff0000U;
		if (a == SCMPC_ACT_ALLOW || a == SCMPC_ACT_LOG || a == SCMPC_ACT_TRACE(0) ||
		    a == SCMPC_ACT_USER_NOTIF)
			continue;
		char as[32], cause[160], which[64] = "";
		scmpc_action_str(act, as, sizeof(as));
		exec_cause(p, &sd, act, cause, sizeof(cause));
		if (n > 1)
			snprintf(which, sizeof(which), "program %zu of %zu ", i + 1, n);
		errorf("%s: the filter denies execve(2)%s: %sreturns %s for the call that would "
		       "start %s, so nothing was installed", name, cause, which, as, argv[0]);
		return -1;
	}
	return 0;
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
	/* A filter with no program for this ABI answers every call, execve
	 * first, with its bad-arch action: a kill that prints nothing. */
	char served[512] = "";
	bool has_native = true;
	if (f.policy) {
		has_native = false;
		for (size_t i = 0; i < scmpc_policy_arch_count(f.policy); i++) {
			size_t used = strlen(served);
			enum scmpc_arch a = scmpc_policy_arch(f.policy, i);
			snprintf(served + used, sizeof(served) - used, "%s%s", used ? ", " : "",
				 scmpc_arch_name(a));
			has_native |= a == native;
		}
	} else if (c->split) {
		for (size_t i = 0; i < set.n; i++)
			has_native &= serves_abi(scmpc_prog_insns(set.progs[i]),
						 scmpc_prog_len(set.progs[i]), native, served,
						 sizeof(served));
	} else {
		has_native = serves_abi(f.insns, f.len, native, served, sizeof(served));
	}
	if (!has_native && !c->any_abi) {
		errorf("%s: no program for %s, the ABI this process runs (the filter serves %s): "
		       "every call, execve first, would get its bad-arch action; nothing was "
		       "installed (--any-abi installs it anyway)", f.name, scmpc_arch_name(native),
		       served[0] ? served : "no ABI");
		goto out;
	}
	char path[PATH_MAX] = "";
	status = find_command(c->cmd_argv[0], path, sizeof(path));
	if (status != EXIT_OK)
		goto out;
	status = EXIT_INPUT;

	if (!c->any_abi) {
		const struct sock_filter *one[1] = { f.insns };
		size_t onelen[1] = { f.len };
		const struct sock_filter **ins = one;
		size_t *lens = onelen, n = 1;
		if (c->split) {
			ins = calloc(set.n, sizeof(*ins));
			lens = calloc(set.n, sizeof(*lens));
			n = set.n;
			for (size_t i = 0; ins && lens && i < n; i++) {
				ins[i] = scmpc_prog_insns(set.progs[i]);
				lens[i] = scmpc_prog_len(set.progs[i]);
			}
		}
		int bad = !ins || !lens ? (errorf("%s", strerror(ENOMEM)), -1)
			: check_execve(f.name, f.policy, ins, lens, n, path, c->cmd_argv);
		if (c->split) {
			free(ins);
			free(lens);
		}
		if (bad)
			goto out;
	}
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
	/* The call check_execve() judged, to the register; a script without
	 * "#!" (ENOEXEC) goes to execvp(), which hands it to the shell. */
	extern char **environ;
	syscall(SYS_execve, path, c->cmd_argv, environ, 0UL, 0UL, 0UL);
	if (errno == ENOEXEC)
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
	"exec", run_exec, F_ARCH | F_POLICY | F_FLAGS | F_KEEP_NNP | F_SPLIT | F_ANY_ABI,
	"Usage: " PROG_NAME " exec [--flags LIST] [--keep-nnp] [-a ABI] [--caps LIST]\n"
	"                         [--kernel X.Y] [--strict] [--no-enosys]\n"
	"                         [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n"
	"                         [--split] [--any-abi] POLICY|FILE.bpf|PREFIX [--] CMD\n"
	"                         [ARG...]\n",
	"Compile POLICY for this machine (or take a raw FILE.bpf), install it in this\n"
	"process with seccomp(2), setting no_new_privs first, and execute CMD under\n"
	"it.  Options are read up to the first word after POLICY, the command; what\n"
	"follows it is CMD's.\n",
	"Exit status: 1 when the filter cannot be installed, 2 usage error, 126 when\n"
	"CMD cannot be run, 127 when it is not found, else CMD's own status.\n",
};
