/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The loader against the running kernel: actions and their precedence,
 * the chain's instruction budget, flags, probes and the prctl fallback
 * (kernel/seccomp.c; tools/testing/selftests/seccomp/seccomp_bpf.c in the
 * kernel tree tests the same behaviour).
 * A filter cannot be removed, so every test that installs one does so in a
 * fork()ed child, which reports a failure as a message through a pipe and
 * its exit status (77: skipped).  cmocka's assertions are used only in the
 * parent: in a child they would unwind into the copy of the test runner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include "internal.h"
#include "testutil.h"
#if defined(__has_include)
#if __has_include("lsc_ref.h")
#include "lsc_ref.h"
#include "oracle.h"
#define HAVE_LSC_REF 1
#endif
#endif

/* The ABI of this build; the compat and differential parts are x86_64's. */
#define NATIVE scmpc_arch_native()
#define NATIVE_AUDIT scmpc_arch_audit(scmpc_arch_native())

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW SCMPC_ACT_ALLOW
#define X32_BIT 0x40000000U
#define CHILD_TIMEOUT 60
#define SKIPPED 77

/* i386 numbers used below (arch/x86/entry/syscalls/syscall_32.tbl). */
#define I386_GETPPID 64
#define I386_GETPGRP 65
#define I386_GETPID 20

/* ---------------------------------------------------------- child harness */

static bool in_child;
static int report_fd = -1;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	size_t len = strlen(buf);
	if (len + 1 < sizeof(buf))
		buf[len++] = '\n';
	if (report_fd >= 0 && write(report_fd, buf, len) < 0)
		_exit(3);
}

static void check_failed(int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check_failed(int line, const char *cond, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "line %d: %s: ", line, cond);
	if (in_child) {
		va_start(ap, fmt);
		vreport(prefix, fmt, ap);
		va_end(ap);
		_exit(1);
	}
	char msg[2048];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_error("%s%s\n", prefix, msg);
	fail();
}

/* In a child or the parent: a failure ends the test with the message. */
#define CHECK(c, ...)                                              \
	do {                                                       \
		if (!(c))                                          \
			check_failed(__LINE__, #c, __VA_ARGS__);   \
	} while (0)

static void child_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void child_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	_exit(SKIPPED);
}

/* A note from a child that passes (shown by the parent). */
static void child_note(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void child_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note: ", fmt, ap);
	va_end(ap);
}

/* cmocka catches SIGSEGV, SIGILL, SIGSYS, ... to report a crashing test;
 * a child must die of them instead, or it would run the remaining tests. */
static void child_init(int fd)
{
	static const int sigs[] = { SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGSYS, SIGABRT };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	report_fd = fd;
	in_child = true;
	alarm(CHILD_TIMEOUT);
}

struct child {
	int status;
	char msg[8192];
};

static void run_child(void (*fn)(void *), void *arg, struct child *c)
{
	int p[2];
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_init(p[1]);
		fn(arg);
		_exit(0);
	}
	close(p[1]);
	/* Until EOF: the child and anything it forked are done writing. */
	while ((n = read(p[0], c->msg + got, sizeof(c->msg) - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (got += (size_t)n) == sizeof(c->msg) - 1)
			break;
	}
	c->msg[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
}

static const char *status_str(int st)
{
	static char buf[64];
	if (WIFEXITED(st))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, sizeof(buf), "status 0x%x", st);
	return buf;
}

/* Run FN in a child that must exit 0; exit 77 skips the test. */
static void expect_child_ok(void (*fn)(void *), void *arg)
{
	struct child c;
	run_child(fn, arg, &c);
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == SKIPPED) {
		print_message("skipped: %s", c.msg);
		skip();
	}
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
		print_error("child: %s\n%s", status_str(c.status), c.msg);
		fail();
	}
	if (c.msg[0])
		print_message("%s", c.msg);
}

/* Run FN in a child that the kernel must kill with SIGSYS. */
static void expect_child_sigsys(void (*fn)(void *), void *arg)
{
	struct child c;
	run_child(fn, arg, &c);
	if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == SKIPPED) {
		print_message("skipped: %s", c.msg);
		skip();
	}
	if (!WIFSIGNALED(c.status) || WTERMSIG(c.status) != SIGSYS) {
		print_error("child: %s, expected SIGSYS\n%s", status_str(c.status), c.msg);
		fail();
	}
}

/* A killed child must not leave a core file in the build directory. */
static void no_core_dumps(void)
{
	struct rlimit rl = { 0, 0 };
	setrlimit(RLIMIT_CORE, &rl);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* Tests that install filters need seccomp(2) itself: it answers ENOSYS
 * under valgrind (which would also run its own calls under the guest's
 * filter) and qemu-user (which has no handler for it in
 * linux-user/syscall.c).  Checked in the parent, where the probe is
 * harmless. */
static void require_seccomp(void)
{
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_probe_flags(0, d);
	if (r != 1) {
		print_message("skipped: %s\n", scmpc_diag_message(d));
		scmpc_diag_free(d);
		skip();
	}
	scmpc_diag_free(d);
}

struct seccomp_status_view {
	int mode;
	long filters;
	int nnp;
};

static void read_status(const char *path, struct seccomp_status_view *v)
{
	char line[256];
	FILE *f = fopen(path, "re");
	v->mode = v->nnp = -1;
	v->filters = -1;
	if (!f)
		return;	/* -1s: a test comparing them fails with the values shown */
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Seccomp:", 8))
			v->mode = atoi(line + 8);
		else if (!strncmp(line, "Seccomp_filters:", 16))
			v->filters = atol(line + 16);
		else if (!strncmp(line, "NoNewPrivs:", 11))
			v->nnp = atoi(line + 11);
	}
	fclose(f);
}

static void status_of_self(struct seccomp_status_view *v)
{
	read_status("/proc/thread-self/status", v);
}

/* The test process's own state at start.  Run inside a sandbox (a
 * container's filter, no_new_privs), tests that count filters skip. */
static struct seccomp_status_view base;

static void require_unfiltered(void)
{
	if (base.mode != 0 || base.nnp != 0) {
		print_message("skipped: the test process already runs under seccomp (mode %d, "
			      "%ld filters, no_new_privs %d), and this test counts filters\n",
			      base.mode, base.filters, base.nnp);
		skip();
	}
}

/* ------------------------------------------------------- policy helpers */

static scmpc_policy *pol_new(uint32_t def)
{
	scmpc_policy *p = scmpc_policy_new(def);
	CHECK(p, "scmpc_policy_new(0x%x)", def);
	CHECK(scmpc_policy_add_arch(p, NATIVE, NULL) == 0, "add the native ABI");
	return p;
}

static __attribute__((unused)) void pol_add_arch(scmpc_policy *p, enum scmpc_arch a)
{
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_policy_add_arch(p, a, d);
	CHECK(r == 0, "add arch %s: %s", scmpc_arch_name(a), scmpc_diag_message(d));
	scmpc_diag_free(d);
}

/* One rule for NAME (on every ABI of the policy when ARCH is NONE) with up
 * to one condition. */
static void pol_rule(scmpc_policy *p, const char *name, enum scmpc_arch arch, uint32_t act,
		     const struct scmpc_cond *c)
{
	struct scmpc_rule r = {
		.sz = sizeof(r), .syscall = name, .arch = arch, .action = act,
		.conds = c, .nconds = c ? 1 : 0,
	};
	scmpc_diag *d = scmpc_diag_new();
	int rc = scmpc_policy_add_rule(p, &r, d);
	CHECK(rc >= 0, "rule %s: %s", name, scmpc_diag_message(d));
	scmpc_diag_free(d);
}

static scmpc_prog *pol_compile(const scmpc_policy *p)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o) };
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_compile(p, &o, &prog, d);
	CHECK(r == 0, "compile: %s at %s", scmpc_diag_message(d), scmpc_diag_where(d));
	scmpc_diag_free(d);
	return prog;
}

/* Load with scmpc_load; returns its value (the listener fd or 0). */
static int load_ok(const scmpc_prog *prog, unsigned seccomp_flags)
{
	struct scmpc_load_opts o = { .sz = sizeof(o), .seccomp_flags = seccomp_flags };
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_load_prog(prog, NULL, &o, NULL, d);
	CHECK(r >= 0, "scmpc_load: %d: %s", r, scmpc_diag_message(d));
	scmpc_diag_free(d);
	return r;
}

/* Compile a policy of one rule per call and load it: the common case. */
struct one {
	const char *name;
	uint32_t act;
};

static void load_rules(uint32_t def, const struct one *rules, size_t n, unsigned flags)
{
	scmpc_policy *p = pol_new(def);
	for (size_t i = 0; i < n; i++)
		pol_rule(p, rules[i].name, SCMPC_ARCH_NONE, rules[i].act, NULL);
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, flags);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
}

/* Install a raw program with seccomp(2) directly (no checks). */
static long raw_load(const struct sock_filter *f, size_t n, unsigned flags)
{
	struct sock_fprog fp = { .len = (unsigned short)n, .filter = (struct sock_filter *)f };
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
}

/* -1 with errno E from the call, checked in one place. */
#define EXPECT_ERRNO(call, e)                                                             \
	do {                                                                               \
		errno = 0;                                                                 \
		long r_ = (call);                                                          \
		int e_ = errno;                                                            \
		CHECK(r_ == -1 && e_ == (e), "%s: got %ld errno %d (%s), expected errno %d", \
		      #call, r_, e_, strerror(e_), (e));                                   \
	} while (0)


static const struct sock_filter allow_all[] = {
	BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
};

/* ------------------------------------------------- checks before loading */

/* Argument checks and a dry run, in the test process itself: nothing here
 * installs a filter (verified at the end), so these paths also run under
 * valgrind, where seccomp(2) answers ENOSYS. */
static void test_api_in_parent(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_opts o = { .sz = sizeof(o), .flags = SCMPC_LOAD_DRY_RUN };
	struct scmpc_load_result res = { .sz = sizeof(res) };
	struct scmpc_budget b;
	scmpc_prog **progs = (scmpc_prog **)&o;
	scmpc_notify *n = (scmpc_notify *)&o;
	const struct seccomp_notif *req;

	assert_int_equal(scmpc_load(allow_all, 1, &o, &res, d), 0);
	assert_int_equal(res.ebpf_len, 5);
	assert_int_equal(res.listener_fd, -1);
	if (base.mode == 0) {
		assert_true(res.budget.exact);
		assert_int_equal(res.budget.left, SCMPC_CHAIN_BUDGET);
	}
	assert_int_equal(scmpc_load(allow_all, 0, &o, &res, d), -EINVAL);
	o.nchain = 2;
	assert_int_equal(scmpc_load(allow_all, 1, &o, &res, d), -EINVAL);
	assert_int_equal(scmpc_load_prog(NULL, NULL, &o, &res, d), -EINVAL);

	assert_int_equal(scmpc_chain_budget(0, &b, d), 0);
	assert_int_equal(b.exact, base.mode == 0);
	assert_int_equal(b.filters, base.mode == 0 ? 0 : base.filters);
	assert_int_equal(scmpc_chain_budget(-2, &b, d), -EINVAL);
	assert_int_equal(scmpc_chain_budget(0, NULL, d), -EINVAL);
	if (base.mode == 0) {
		/* Nothing to read: exact, and the thread is not stopped. */
		assert_int_equal(scmpc_introspect(getpid(), NULL, &progs, d), 0);
		assert_null(progs);
	}
	assert_int_equal(scmpc_introspect(getpid(), NULL, NULL, d), -EINVAL);
	struct scmpc_introspect_opts io = { .sz = sizeof(io), .flags = 0x80 };
	assert_int_equal(scmpc_introspect(getpid(), &io, &progs, d), -EINVAL);
	scmpc_prog_array_free(NULL, 0);

	assert_int_equal(scmpc_notify_new(-1, &n, d), -EBADF);
	assert_null(n);
	assert_int_equal(scmpc_notify_receive(NULL, &req, d), -EINVAL);
	assert_int_equal(scmpc_notify_id_valid(NULL, 1, d), -EINVAL);
	assert_int_equal(scmpc_notify_respond(NULL, 1, 0, 0, 0, d), -EINVAL);
	scmpc_notify_free(NULL);

	struct seccomp_status_view v;
	status_of_self(&v);
	assert_int_equal(v.mode, base.mode);
	assert_int_equal(v.filters, base.filters);
	scmpc_diag_free(d);
}

static void probes_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	const unsigned flags[] = { SECCOMP_FILTER_FLAG_TSYNC, SECCOMP_FILTER_FLAG_LOG,
				   SECCOMP_FILTER_FLAG_SPEC_ALLOW,
				   SECCOMP_FILTER_FLAG_NEW_LISTENER,
				   SECCOMP_FILTER_FLAG_TSYNC_ESRCH,
				   SECCOMP_FILTER_FLAG_NEW_LISTENER |
					   SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV };
	const uint32_t acts[] = { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD, SCMPC_ACT_TRAP,
				  SCMPC_ACT_ERRNO(5), SCMPC_ACT_USER_NOTIF, SCMPC_ACT_TRACE(1),
				  SCMPC_ACT_LOG, SCMPC_ACT_ALLOW };
	int r;

	/* The probe (seccomp(SET_MODE_FILTER, flag, NULL): EFAULT for a known
	 * flag, EINVAL for an unknown one) needs no privilege and installs
	 * nothing. */
	r = scmpc_probe_flags(0, d);
	if (r == -ENOSYS)
		child_skip("seccomp(2) is not available: %s", scmpc_diag_message(d));
	CHECK(r == 1, "probe 0: %d %s", r, scmpc_diag_message(d));
	for (size_t i = 0; i < N(flags); i++)
		CHECK(scmpc_probe_flags(flags[i], d) == 1, "flag 0x%x unknown to Linux 6.18?",
		      flags[i]);
	CHECK(scmpc_probe_flags(0x40, d) == 0, "flag 0x40 should be unknown");
	CHECK(scmpc_probe_flags(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, d) == 0,
	      "WAIT_KILLABLE_RECV alone is invalid");
	CHECK(scmpc_probe_flags(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER, d) ==
		      0, "TSYNC|NEW_LISTENER without ESRCH is invalid");
	CHECK(scmpc_probe_flags(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER |
					SECCOMP_FILTER_FLAG_TSYNC_ESRCH, d) == 1,
	      "TSYNC|NEW_LISTENER|TSYNC_ESRCH is valid");
	for (size_t i = 0; i < N(acts); i++)
		CHECK(scmpc_probe_action(acts[i], d) == 1, "action 0x%x unavailable", acts[i]);
	CHECK(scmpc_probe_action(0x00040000U, d) == 0, "0x00040000 is no action");
	CHECK(scmpc_probe_action(0x90000000U, d) == 0, "0x90000000 is no action");

	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.mode == base.mode && v.filters == base.filters,
	      "probing installed something (Seccomp: %d, %ld filters)", v.mode, v.filters);
	scmpc_diag_free(d);
}

static void test_probes(void **state)
{
	(void)state;
	require_seccomp();
	expect_child_ok(probes_child, NULL);
}

/* Every refusal below happens before the kernel is asked to install. */
static void refusals_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_opts o = { .sz = sizeof(o) };
	struct scmpc_load_result res = { .sz = sizeof(res) };
	int r;

	if (scmpc_probe_flags(0, NULL) != 1)
		child_skip("seccomp(2) is not available");

	/* A jump past the end: the verifier names it; the kernel would say EINVAL. */
	const struct sock_filter bad_jump[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 5, 0),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	r = scmpc_load(bad_jump, N(bad_jump), &o, &res, d);
	CHECK(r == -EINVAL && scmpc_diag_insn(d) == 0, "bad jump: %d insn %ld: %s", r,
	      scmpc_diag_insn(d), scmpc_diag_message(d));
	r = scmpc_load(NULL, 0, &o, &res, d);
	CHECK(r == -EINVAL, "empty program: %d", r);

	/* An action value no kernel knows. */
	const struct sock_filter odd_action[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x00040000U),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	r = scmpc_load(odd_action, N(odd_action), &o, &res, d);
	CHECK(r == -EOPNOTSUPP && scmpc_diag_insn(d) == 2, "odd action: %d insn %ld: %s", r,
	      scmpc_diag_insn(d), scmpc_diag_message(d));

	/* Flags: invalid combinations and a flag this kernel lacks. */
	o.seccomp_flags = SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -EINVAL && strstr(scmpc_diag_message(d), "TSYNC_ESRCH"), "%d: %s", r,
	      scmpc_diag_message(d));
	o.seccomp_flags = SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -EINVAL && strstr(scmpc_diag_message(d), "NEW_LISTENER"), "%d: %s", r,
	      scmpc_diag_message(d));
	o.seccomp_flags = SECCOMP_FILTER_FLAG_LOG | 0x80U;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -EOPNOTSUPP && strstr(scmpc_diag_message(d), "0x80"), "%d: %s", r,
	      scmpc_diag_message(d));
	o.seccomp_flags = 0;
	o.flags = 0x100;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -EINVAL, "unknown load flag: %d", r);

	/* A dry run reports the cost and the budget and installs nothing. */
	o.flags = SCMPC_LOAD_DRY_RUN;
	o.seccomp_flags = SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == 0, "dry run: %d %s", r, scmpc_diag_message(d));
	CHECK(res.ebpf_len == 5 && res.budget.exact && res.budget.filters == 0 &&
		      res.budget.left == SCMPC_CHAIN_BUDGET && res.listener_fd == -1,
	      "dry run result: ebpf %u exact %d filters %u left %u fd %d", res.ebpf_len,
	      res.budget.exact, res.budget.filters, res.budget.left, res.listener_fd);

	/* A result struct from an older header: only its sz is written. */
	struct {
		size_t sz;
		int listener_fd;
		int canary;
	} small = { .sz = offsetof(struct scmpc_load_result, listener_fd) + sizeof(int),
		    .canary = 0x5a5a };
	r = scmpc_load(allow_all, 1, &o, (struct scmpc_load_result *)(void *)&small, d);
	CHECK(r == 0 && small.listener_fd == -1 && small.canary == 0x5a5a,
	      "short result: %d fd %d canary 0x%x", r, small.listener_fd, small.canary);

	struct scmpc_budget b;
	CHECK(scmpc_chain_budget(0, &b, d) == 0 && b.exact && b.left == SCMPC_CHAIN_BUDGET,
	      "budget of an unfiltered thread: %s", scmpc_diag_message(d));

	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.mode == 0 && v.nnp == 0, "a refused or dry load changed the thread: Seccomp %d "
	      "NoNewPrivs %d", v.mode, v.nnp);
	scmpc_diag_free(d);
}

static void test_refusals(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	expect_child_ok(refusals_child, NULL);
}

/* no_new_privs: set unless the options say not to; with neither it nor
 * CAP_SYS_ADMIN the loader says so before the kernel's bare EACCES. */
static void drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2];
	memset(c, 0, sizeof(c));
	CHECK(syscall(SYS_capget, &h, c) == 0, "capget: %s", strerror(errno));
	c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	CHECK(syscall(SYS_capset, &h, c) == 0, "capset: %s", strerror(errno));
}

static void nnp_child(void *arg)
{
	bool keep_cap = *(bool *)arg;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_opts o = { .sz = sizeof(o), .flags = SCMPC_LOAD_KEEP_NNP };
	struct seccomp_status_view v;
	int r;

	if (scmpc_probe_flags(0, NULL) != 1)
		child_skip("seccomp(2) is not available");
	if (!keep_cap) {
		drop_cap_sys_admin();
		r = scmpc_load(allow_all, 1, &o, NULL, d);
		CHECK(r == -EACCES && strstr(scmpc_diag_message(d), "no_new_privs") &&
			      strstr(scmpc_diag_message(d), "CAP_SYS_ADMIN"),
		      "keep NNP without CAP_SYS_ADMIN: %d %s", r, scmpc_diag_message(d));
		/* The kernel agrees. */
		struct sock_fprog fp = { .len = 1, .filter = (struct sock_filter *)allow_all };
		EXPECT_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp), EACCES);
		o.flags = 0;	/* let scmpc set no_new_privs */
	} else {
		struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct c[2];
		memset(c, 0, sizeof(c));
		syscall(SYS_capget, &h, c);
		if (!(c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)))
			child_skip("CAP_SYS_ADMIN is needed to load without no_new_privs");
	}
	r = scmpc_load(allow_all, 1, &o, NULL, d);
	CHECK(r == 0, "load: %d %s", r, scmpc_diag_message(d));
	status_of_self(&v);
	CHECK(v.mode == 2 && v.nnp == (keep_cap ? 0 : 1), "Seccomp %d NoNewPrivs %d", v.mode,
	      v.nnp);
	scmpc_diag_free(d);
}

static void test_no_new_privs(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	bool keep_cap = false;
	expect_child_ok(nnp_child, &keep_cap);
}

static void test_keep_nnp_with_cap(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	bool keep_cap = true;
	expect_child_ok(nnp_child, &keep_cap);
}

/* ------------------------------------------------- actions at the kernel */

static volatile sig_atomic_t trap_count;
static volatile int trap_code, trap_syscall, trap_errno;
static volatile unsigned trap_arch;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	trap_count++;
	trap_code = si->si_code;
	trap_syscall = si->si_syscall;
	trap_arch = si->si_arch;
	trap_errno = si->si_errno;
}

static void catch_sigsys(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(SIGSYS, &sa, NULL) == 0, "sigaction: %s", strerror(errno));
}

static void actions_child(void *arg)
{
	(void)arg;
	const pid_t sid = getsid(0);
	const struct one rules[] = {
		{ "getppid", SCMPC_ACT_ERRNO(EDOM) },
		{ "getsid", SCMPC_ACT_ERRNO(0) },
		{ "getuid", SCMPC_ACT_ERRNO(4095) },
		{ "getpgid", SCMPC_ACT_TRACE(7) },
		{ "getegid", SCMPC_ACT_USER_NOTIF },
		{ "geteuid", SCMPC_ACT_LOG },
		{ "getgid", SCMPC_ACT_TRAP | 0x2a },
	};

	catch_sigsys();
	load_rules(ALLOW, rules, N(rules), 0);

	EXPECT_ERRNO(syscall(SYS_getppid), EDOM);
	long r = syscall(SYS_getsid, 0);
	CHECK(r == 0 && sid != 0, "ERRNO(0) makes getsid return 0: got %ld (real %d)", r,
	      (int)sid);
	EXPECT_ERRNO(syscall(SYS_getuid), 4095);
	/* TRACE without a tracer and USER_NOTIF without a listener both fail
	 * the call with ENOSYS (kernel/seccomp.c `__seccomp_filter`). */
	EXPECT_ERRNO(syscall(SYS_getpgid, 0), ENOSYS);
	EXPECT_ERRNO(syscall(SYS_getegid), ENOSYS);
	/* LOG lets the call run. */
	CHECK(syscall(SYS_geteuid) == (long)geteuid(), "LOG must allow");

	CHECK(trap_count == 0, "no trap yet");
	syscall(SYS_getgid, 1, 2, 3);
	CHECK(trap_count == 1, "TRAP delivered %d SIGSYS", (int)trap_count);
	CHECK(trap_code == 1 /* SYS_SECCOMP */, "si_code %d", trap_code);
	CHECK(trap_syscall == SYS_getgid, "si_syscall %d", trap_syscall);
	CHECK(trap_arch == NATIVE_AUDIT, "si_arch 0x%x", trap_arch);
	CHECK(trap_errno == 0x2a, "si_errno %d carries TRAP's data", trap_errno);
}

/* TRAP's SIGSYS is forced: blocked (or ignored), the handler is reset and
 * the process dies of it. */
static void trap_blocked_child(void *arg)
{
	(void)arg;
	const struct one rules[] = { { "getppid", SCMPC_ACT_TRAP } };
	sigset_t set;

	no_core_dumps();
	catch_sigsys();
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigprocmask(SIG_BLOCK, &set, NULL);
	load_rules(ALLOW, rules, 1, 0);
	syscall(SYS_getppid);
	CHECK(0, "survived TRAP with SIGSYS blocked (handler ran %d times)", (int)trap_count);
}

static void test_actions(void **state)
{
	(void)state;
	require_seccomp();
	expect_child_ok(actions_child, NULL);
	expect_child_sigsys(trap_blocked_child, NULL);
}

struct kill_case {
	uint32_t act;
	bool in_thread;
};

static void *call_getppid(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
	return NULL;
}

static void kill_child(void *arg)
{
	const struct kill_case *k = arg;
	const struct one rules[] = { { "getppid", k->act } };

	no_core_dumps();
	load_rules(ALLOW, rules, 1, 0);
	if (!k->in_thread) {
		syscall(SYS_getppid);
		CHECK(0, "survived %s", testutil_act(k->act));
	}
	pthread_t t;
	CHECK(pthread_create(&t, NULL, call_getppid, NULL) == 0, "pthread_create");
	pthread_join(t, NULL);
	/* Only KILL_THREAD gets here: the other thread died alone. */
	CHECK(k->act == SCMPC_ACT_KILL_THREAD, "process survived %s", testutil_act(k->act));
}

static void test_kill_process(void **state)
{
	(void)state;
	require_seccomp();
	struct kill_case k = { SCMPC_ACT_KILL_PROCESS, false };
	expect_child_sigsys(kill_child, &k);
	k.in_thread = true;	/* from another thread the whole process dies */
	expect_child_sigsys(kill_child, &k);
}

static void test_kill_thread(void **state)
{
	(void)state;
	require_seccomp();
	/* The only thread: the process dies of SIGSYS. */
	struct kill_case k = { SCMPC_ACT_KILL_THREAD, false };
	expect_child_sigsys(kill_child, &k);
	/* Another thread: it alone dies, the process goes on. */
	k.in_thread = true;
	expect_child_ok(kill_child, &k);
}

/* ------------------------------------------------ operators at boundaries */

/* Calls that ignore their arguments (or fail with an errno of their own),
 * one per operator, so one filter tests all seven at once.  The filter
 * sees the registers whatever the call makes of them; EDOM marks a denial. */
static const long op_calls[] = { SYS_getppid, SYS_getpgid, SYS_getuid, SYS_getgid,
				 SYS_geteuid, SYS_getegid, SYS_getsid };
static const enum scmpc_op ops[] = { SCMPC_OP_EQ, SCMPC_OP_NE, SCMPC_OP_LT, SCMPC_OP_LE,
				     SCMPC_OP_GT, SCMPC_OP_GE, SCMPC_OP_MASKED_EQ };
static const uint64_t op_values[] = {
	0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x180000000,
	0x123456789abcdef0, 0xffffffffffffffff,
};

struct op_case {
	size_t vi;
	unsigned flags;	/* SCMPC_COND_* */
};

static struct scmpc_cond op_cond(size_t oi, size_t vi, unsigned flags)
{
	uint64_t v = op_values[vi];
	struct scmpc_cond c = {
		.arg = (unsigned)((vi + oi) % 6), .op = ops[oi], .value = v, .flags = flags,
	};
	if (ops[oi] == SCMPC_OP_MASKED_EQ)
		c.value2 = v & 0x0ff000ff0000ff0fULL;	/* within the mask: satisfiable */
	return c;
}

/* The operator's meaning, written independently of scmpc (oracle.h). */
static bool op_holds(const struct scmpc_cond *c, uint64_t a)
{
	return oracle_cond(c, a, false);
}

static size_t probe_values(uint64_t v, uint64_t *out)
{
	const uint64_t lo = v & 0xffffffffU, hi = v & ~0xffffffffULL;
	size_t n = 0;
	out[n++] = v - 1;
	out[n++] = v;
	out[n++] = v + 1;
	out[n++] = v ^ (1ULL << 32);	/* same low word, other high word */
	out[n++] = v ^ (1ULL << 31);
	out[n++] = v ^ (1ULL << 63);
	out[n++] = lo;
	out[n++] = hi;
	out[n++] = hi | ((lo + 1) & 0xffffffffU);
	out[n++] = hi | ((lo - 1) & 0xffffffffU);
	out[n++] = v | 0xffffffff00000000ULL;
	out[n++] = 0;
	out[n++] = ~0ULL;
	out[n++] = 0x5555555555555555ULL;
	return n;
}

static void operators_child(void *arg)
{
	const struct op_case *oc = arg;
	scmpc_policy *p = pol_new(ALLOW);
	struct scmpc_cond conds[N(ops)];
	char name[32];

	for (size_t oi = 0; oi < N(ops); oi++) {
		conds[oi] = op_cond(oi, oc->vi, oc->flags);
		CHECK(scmpc_syscall_name(NATIVE, (uint32_t)op_calls[oi], name,
					 sizeof(name)), "name of %ld", op_calls[oi]);
		pol_rule(p, name, SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EDOM), &conds[oi]);
	}
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, 0);

	uint64_t vals[16];
	size_t nv = probe_values(op_values[oc->vi], vals);
	unsigned denied = 0, allowed = 0;
	for (size_t oi = 0; oi < N(ops); oi++) {
		for (size_t i = 0; i < nv; i++) {
			uint64_t a[6] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
			a[conds[oi].arg] = vals[i];
			bool want = op_holds(&conds[oi], vals[i]);
			struct seccomp_data sd = testutil_sd(NATIVE,
							     (uint32_t)op_calls[oi], a);
			uint32_t ev = scmpc_policy_eval(p, &sd, NULL);
			CHECK((ev == SCMPC_ACT_ERRNO(EDOM)) == want,
			      "scmpc_policy_eval disagrees with the operator: op %d value 0x%llx "
			      "flags %u arg 0x%llx", (int)ops[oi],
			      (unsigned long long)op_values[oc->vi], oc->flags,
			      (unsigned long long)vals[i]);
			errno = 0;
			long r = syscall(op_calls[oi], a[0], a[1], a[2], a[3], a[4], a[5]);
			bool got = r == -1 && errno == EDOM;
			CHECK(got == want,
			      "kernel: op %d value2 0x%llx arg%u value 0x%llx flags %u: arg "
			      "0x%llx was %s, expected %s", (int)ops[oi],
			      (unsigned long long)conds[oi].value2, conds[oi].arg,
			      (unsigned long long)op_values[oc->vi], oc->flags,
			      (unsigned long long)vals[i], got ? "denied" : "allowed",
			      want ? "denied" : "allowed");
			got ? denied++ : allowed++;
		}
	}
	CHECK(denied && allowed, "probes should see both outcomes (%u denied, %u allowed)",
	      denied, allowed);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
}

static void test_operators(void **state)
{
	(void)state;
	require_seccomp();
	for (size_t vi = 0; vi < N(op_values); vi++) {
		struct op_case oc = { vi, 0 };
		expect_child_ok(operators_child, &oc);
		oc.flags = SCMPC_COND_32BIT;
		expect_child_ok(operators_child, &oc);
	}
}

/* ------------------------------------------------------------ compat ABIs */

#if defined(__x86_64__)

/* Deny rules on i386 only: getppid(arg0 == 5) and getpgrp(arg0 > 7).  A
 * 64-bit rule on semget (x86_64 number 64 = i386 getppid) must not leak. */
static scmpc_prog *compat_prog(bool with_i386, uint32_t bad_arch)
{
	scmpc_policy *p = pol_new(ALLOW);
	struct scmpc_cond eq5 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_cond gt7 = { .arg = 0, .op = SCMPC_OP_GT, .value = 7 };

	if (with_i386) {
		pol_add_arch(p, SCMPC_ARCH_I386);
		pol_rule(p, "getppid", SCMPC_ARCH_I386, SCMPC_ACT_ERRNO(EDOM), &eq5);
		pol_rule(p, "getpgrp", SCMPC_ARCH_I386, SCMPC_ACT_ERRNO(ERANGE), &gt7);
	}
	pol_rule(p, "semget", SCMPC_ARCH_X86_64, SCMPC_ACT_ERRNO(ENOTBLK), NULL);
	CHECK(scmpc_policy_set_bad_arch_action(p, bad_arch, NULL) == 0, "bad arch action");
	scmpc_prog *prog = pol_compile(p);
	scmpc_policy_free(p);
	return prog;
}

/* A freestanding i386 program: no libc, so only `gcc -m32` and an i386
 * linker are needed.  It prints the results of its probes and exits. */
static const char i386_src[] =
	"static int sys3(int nr, unsigned a, unsigned b, unsigned c)\n"
	"{\n"
	"	int r;\n"
	"	__asm__ volatile(\"int $0x80\" : \"=a\"(r) : \"0\"(nr), \"b\"(a), \"c\"(b), \"d\"(c)\n"
	"			 : \"memory\");\n"
	"	return r;\n"
	"}\n"
	"static char out[160];\n"
	"static unsigned pos;\n"
	"static void put(int v)\n"
	"{\n"
	"	char t[12];\n"
	"	unsigned n = 0, u = v < 0 ? 0u - (unsigned)v : (unsigned)v;\n"
	"	if (v < 0)\n"
	"		out[pos++] = '-';\n"
	"	do\n"
	"		t[n++] = (char)('0' + u % 10);\n"
	"	while ((u /= 10) != 0);\n"
	"	while (n)\n"
	"		out[pos++] = t[--n];\n"
	"	out[pos++] = ' ';\n"
	"}\n"
	"void _start(void)\n"
	"{\n"
	"	put(sys3(64, 5, 0, 0));\n"	/* getppid(5): denied with EDOM */
	"	put(sys3(64, 6, 0, 0));\n"	/* getppid(6): the parent */
	"	put(sys3(65, 3, 0, 0));\n"	/* getpgrp(3): allowed */
	"	put(sys3(65, 8, 0, 0));\n"	/* getpgrp(8): denied with ERANGE */
	"	put(sys3(20, 0, 0, 0));\n"	/* getpid */
	"	out[pos++] = '\\n';\n"
	"	sys3(4, 1, (unsigned)(unsigned long)out, pos);\n"
	"	for (;;)\n"
	"		sys3(252, 0, 0, 0);\n"
	"}\n";

static char i386_dir[64], i386_bin[128];
static char i386_why[512];

/* Build the i386 program once; false (with the reason) when this machine
 * cannot, which skips the test rather than failing it. */
static bool build_i386(void)
{
	static int state;	/* 0 untried, 1 built, -1 impossible */
	char src[128], cmd[1024];

	if (state)
		return state > 0;
	state = -1;
	const char *tmp = getenv("TMPDIR");
	snprintf(i386_dir, sizeof(i386_dir), "%s/scmpc-i386-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(i386_dir)) {
		snprintf(i386_why, sizeof(i386_why), "mkdtemp: %s", strerror(errno));
		return false;
	}
	snprintf(src, sizeof(src), "%s/probe.c", i386_dir);
	snprintf(i386_bin, sizeof(i386_bin), "%s/probe", i386_dir);
	FILE *f = fopen(src, "w");
	if (!f || fputs(i386_src, f) < 0 || fclose(f) != 0) {
		snprintf(i386_why, sizeof(i386_why), "writing %s failed", src);
		return false;
	}
	const char *cc = getenv("SCMPC_CC_M32");
	snprintf(cmd, sizeof(cmd),
		 "%s -m32 -O2 -static -nostdlib -ffreestanding -fno-pic -fno-pie -no-pie "
		 "-fno-stack-protector -fno-asynchronous-unwind-tables -o '%s' '%s' 2>&1",
		 cc && *cc ? cc : "gcc", i386_bin, src);
	FILE *pp = popen(cmd, "r");
	char out[256] = "";
	size_t n = pp ? fread(out, 1, sizeof(out) - 1, pp) : 0;
	out[n] = '\0';
	int st = pp ? pclose(pp) : -1;
	unlink(src);
	if (st != 0) {
		snprintf(i386_why, sizeof(i386_why), "gcc -m32 is not usable here (%s)",
			 out[0] ? out : "not found");
		rmdir(i386_dir);
		return false;
	}
	state = 1;
	return true;
}

static void remove_i386(void)
{
	if (i386_bin[0]) {
		unlink(i386_bin);
		rmdir(i386_dir);
	}
}

struct i386_run {
	bool with_i386;
	char out[256];
};

static void i386_child(void *arg)
{
	struct i386_run *run = arg;
	no_core_dumps();
	scmpc_prog *prog = compat_prog(run->with_i386, SCMPC_ACT_KILL_PROCESS);
	load_ok(prog, 0);
	scmpc_prog_free(prog);
	/* Filters survive execve: the i386 program runs under this one. */
	char *argv[] = { i386_bin, NULL }, *envp[] = { NULL };
	execve(i386_bin, argv, envp);
	if (errno == ENOEXEC)
		child_skip("the kernel cannot run i386 programs (IA32 emulation is off)");
	CHECK(0, "execve %s: %s", i386_bin, strerror(errno));
}

/* Run the i386 program under the compat policy; its stdout into RUN->out. */
static int run_i386(struct i386_run *run, char *msg, size_t msglen)
{
	int out[2];
	assert_int_equal(pipe(out), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(out[0]);
		dup2(out[1], 1);
		close(out[1]);
		child_init(2);	/* stdout carries the program's output */
		i386_child(run);
		_exit(0);
	}
	close(out[1]);
	size_t got = 0;
	ssize_t n;
	while ((n = read(out[0], run->out + got, sizeof(run->out) - 1 - got)) > 0)
		got += (size_t)n;
	run->out[got] = '\0';
	close(out[0]);
	int st;
	waitpid(pid, &st, 0);
	snprintf(msg, msglen, "%s", run->out);
	return st;
}

static void test_compat_i386_program(void **state)
{
	(void)state;
	require_seccomp();
	char msg[256];

	if (!build_i386()) {
		print_message("skipped: %s\n", i386_why);
		skip();
	}
	struct i386_run run = { .with_i386 = true };
	int st = run_i386(&run, msg, sizeof(msg));
	if (WIFEXITED(st) && WEXITSTATUS(st) == SKIPPED) {
		print_message("skipped: the kernel cannot run i386 programs\n");
		skip();
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "i386 program: %s: %s", status_str(st),
	      msg);
	int a, b, c, e, pid;
	CHECK(sscanf(run.out, "%d %d %d %d %d", &a, &b, &c, &e, &pid) == 5, "output \"%s\"",
	      run.out);
	CHECK(a == -EDOM, "i386 getppid(5) gave %d, expected -EDOM", a);
	CHECK(b == getpid(), "i386 getppid(6) gave %d, expected %d (the x86_64 semget rule "
	      "must not apply)", b, (int)getpid());
	CHECK(c >= 0, "i386 getpgrp(3) gave %d", c);
	CHECK(e == -ERANGE, "i386 getpgrp(8) gave %d, expected -ERANGE", e);
	CHECK(pid > 0, "getpid %d", pid);

	/* The same program under a filter without i386: the bad-arch action. */
	run.with_i386 = false;
	st = run_i386(&run, msg, sizeof(msg));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	      "i386 call under an x86_64-only filter: %s, output \"%s\"", status_str(st), msg);
}

/* int $0x80 from 64-bit code: the kernel takes the i386 path with the
 * full 64-bit registers in seccomp_data: compat arguments are not
 * truncated before the filter runs, so a filter must compare only their
 * low word. */
static long int80(long nr, unsigned long a0)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(nr), "b"(a0)
			 : "memory", "r8", "r9", "r10", "r11");
	return (int)r;
}

static void int80_works_child(void *arg)
{
	(void)arg;
	CHECK(int80(I386_GETPID, 0) == getpid(), "int $0x80 getpid");
}

static void int80_premise_child(void *arg)
{
	(void)arg;
	/* Raw filter: ERRNO(EILSEQ) for i386 calls whose args[0] high word is
	 * non-zero, to show what a 64-bit compare would see. */
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(EILSEQ)),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	CHECK(raw_load(f, N(f), 0) == 0, "raw load: %s", strerror(errno));
	long r = int80(I386_GETPPID, 0x0000000100000006UL);
	if (r != -EILSEQ)
		child_note("this kernel hides high words from compat filters (%ld)", r);
}

static void int80_child(void *arg)
{
	(void)arg;
	scmpc_prog *prog = compat_prog(true, SCMPC_ACT_KILL_PROCESS);
	load_ok(prog, 0);
	scmpc_prog_free(prog);
	const long ppid = getppid();

	/* Deny rule arg0 == 5: high words must not let the call slip past. */
	long r = int80(I386_GETPPID, 0xdeadbeef00000005UL);
	CHECK(r == -EDOM, "getppid(0xdeadbeef00000005) via int $0x80 gave %ld, expected -EDOM", r);
	r = int80(I386_GETPPID, 0x0000000100000005UL);
	CHECK(r == -EDOM, "getppid(0x100000005) via int $0x80 gave %ld, expected -EDOM", r);
	r = int80(I386_GETPPID, 0x0000000500000006UL);
	CHECK(r == ppid, "getppid(0x500000006) via int $0x80 gave %ld, expected %ld", r, ppid);
	/* Deny rule arg0 > 7: high words must not deny an allowed call. */
	r = int80(I386_GETPGRP, 0xffffffff00000003UL);
	CHECK(r == getpgrp(), "getpgrp(0xffffffff00000003) via int $0x80 gave %ld", r);
	r = int80(I386_GETPGRP, 8);
	CHECK(r == -ERANGE, "getpgrp(8) via int $0x80 gave %ld, expected -ERANGE", r);
	/* The x86_64 rule for semget (64) stays on its ABI. */
	EXPECT_ERRNO(syscall(SYS_semget, 0, 0, 0), ENOTBLK);
	CHECK(syscall(SYS_getppid) == ppid, "native getppid");
}

/* Seccomp, and i386 code through int $0x80 (the kernel may lack
 * IA32_EMULATION or have it off). */
static void require_int80(void)
{
	require_seccomp();
	struct child c;
	run_child(int80_works_child, NULL, &c);
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
		print_message("skipped: int $0x80 does not work here (%s)\n", status_str(c.status));
		skip();
	}
}

static void test_compat_int80_high_words(void **state)
{
	(void)state;
	require_int80();
	expect_child_ok(int80_premise_child, NULL);
	expect_child_ok(int80_child, NULL);
}

/* socketcall(2) and ipc(2) from i386 code (int $0x80): a deny on socket or
 * semop must hold through the multiplexer, or an i386 process walks past
 * it (include/uapi/linux/net.h SYS_SOCKET 1, SYS_BIND 2;
 * include/uapi/linux/ipc.h SEMOP 1, SEMGET 2, the version in the high 16
 * bits of the call). */
#define I386_SOCKETCALL 102
#define I386_IPC 117
#define I386_SOCKET 359

#define I386_MSGRCV 12

static void multiplexer_child(void *arg)
{
	const enum scmpc_merge *merge = arg;
	scmpc_policy *p = pol_new(ALLOW);
	CHECK(scmpc_policy_set_merge(p, *merge, NULL) == 0, "merge %d", (int)*merge);
	pol_add_arch(p, SCMPC_ARCH_I386);
	pol_rule(p, "socket", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EACCES), NULL);
	pol_rule(p, "semop", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(ENOTBLK), NULL);
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, 0);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);

	long r = int80(I386_SOCKETCALL, 1);
	CHECK(r == -EACCES, "socketcall(SYS_SOCKET) via int $0x80 gave %ld, expected -EACCES", r);
	r = int80(I386_SOCKET, AF_UNIX);
	CHECK(r == -EACCES, "socket(AF_UNIX) via int $0x80 gave %ld, expected -EACCES", r);
	/* Other sub-calls run: the kernel reads their arguments from the
	 * pointer in ecx, which is not a valid one here. */
	r = int80(I386_SOCKETCALL, 2);
	CHECK(r != -EACCES && r < 0, "socketcall(SYS_BIND) via int $0x80 gave %ld", r);
	r = int80(I386_IPC, 1);
	CHECK(r == -ENOTBLK, "ipc(SEMOP) via int $0x80 gave %ld, expected -ENOTBLK", r);
	/* The kernel reads ipc's call from the low 16 bits, a version above
	 * them (libseccomp compares the whole argument: its filter lets
	 * these run semop). */
	r = int80(I386_IPC, 1 | 1UL << 16);
	CHECK(r == -ENOTBLK, "ipc(SEMOP, version 1) via int $0x80 gave %ld, expected -ENOTBLK", r);
	r = int80(I386_IPC, 1 | 0xffffUL << 16);
	CHECK(r == -ENOTBLK, "ipc(SEMOP | 0xffff << 16) via int $0x80 gave %ld, expected -ENOTBLK",
	      r);
	r = int80(I386_IPC, 2);
	CHECK(r != -ENOTBLK, "ipc(SEMGET) via int $0x80 gave %ld", r);
	/* The native calls are the x86_64 rules'. */
	EXPECT_ERRNO(syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0), EACCES);
}

/* The other way: an allowed sub-call stays allowed whatever version glibc
 * passes.  The filter has i386 only, with ALLOW as its bad-arch action,
 * so the child's own x86_64 calls run. */
static void multiplexer_allow_child(void *arg)
{
	const enum scmpc_merge *merge = arg;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(EPERM));
	CHECK(p && scmpc_policy_set_merge(p, *merge, NULL) == 0, "policy");
	pol_add_arch(p, SCMPC_ARCH_I386);
	CHECK(scmpc_policy_set_bad_arch_action(p, ALLOW, NULL) == 0, "bad-arch ALLOW");
	pol_rule(p, "msgrcv", SCMPC_ARCH_NONE, ALLOW, NULL);
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, 0);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);

	/* msgrcv runs (and fails on the register garbage it reads as a queue
	 * id or a pointer), with or without a version; semop does not. */
	long r = int80(I386_IPC, I386_MSGRCV);
	CHECK(r < 0 && r != -EPERM, "ipc(MSGRCV) via int $0x80 gave %ld", r);
	r = int80(I386_IPC, I386_MSGRCV | 1UL << 16);
	CHECK(r < 0 && r != -EPERM, "ipc(MSGRCV, version 1) via int $0x80 gave %ld", r);
	r = int80(I386_IPC, 1);
	CHECK(r == -EPERM, "ipc(SEMOP) via int $0x80 gave %ld, expected -EPERM", r);
	r = int80(I386_IPC, 1 | 1UL << 16);
	CHECK(r == -EPERM, "ipc(SEMOP, version 1) via int $0x80 gave %ld, expected -EPERM", r);
}

static void test_compat_multiplexers(void **state)
{
	(void)state;
	require_int80();
	/* every merge: the runtime modes (LIBSECCOMP) copy libseccomp's rules
	 * but test the call as the kernel reads it */
	static const enum scmpc_merge merges[] = { SCMPC_MERGE_RESTRICTIVE,
						   SCMPC_MERGE_LIBSECCOMP };
	for (size_t i = 0; i < N(merges); i++) {
		expect_child_ok(multiplexer_child, (void *)&merges[i]);
		expect_child_ok(multiplexer_allow_child, (void *)&merges[i]);
	}
}

/* x32 numbers from a 64-bit process: arch X86_64 with bit 30 set
 * (__X32_SYSCALL_BIT, arch/x86/include/uapi/asm/unistd.h). */
struct x32_case {
	bool with_x32;
	uint32_t bad_arch;
};

static void x32_child(void *arg)
{
	const struct x32_case *xc = arg;
	const long ppid = getppid();
	scmpc_policy *p = pol_new(ALLOW);

	no_core_dumps();
	if (xc->with_x32) {
		pol_add_arch(p, SCMPC_ARCH_X32);
		pol_rule(p, "getppid", SCMPC_ARCH_X32, SCMPC_ACT_ERRNO(EMLINK), NULL);
		CHECK(scmpc_syscall_resolve(SCMPC_ARCH_X32, "getppid") ==
			      (int64_t)(X32_BIT | SYS_getppid), "x32 getppid number");
	}
	CHECK(scmpc_policy_set_bad_arch_action(p, xc->bad_arch, NULL) == 0, "bad arch action");
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, 0);

	/* The native call of the same number is untouched. */
	CHECK(syscall(SYS_getppid) == ppid, "native getppid");
	if (xc->with_x32) {
		EXPECT_ERRNO(syscall(X32_BIT | SYS_getppid), EMLINK);
		/* Allowed on x32: the kernel runs it or (no x32 ABI) says ENOSYS. */
		errno = 0;
		long r = syscall(X32_BIT | SYS_getpid);
		CHECK(r == getpid() || (r == -1 && errno == ENOSYS), "x32 getpid: %ld errno %d",
		      r, errno);
		return;
	}
	if (xc->bad_arch == SCMPC_ACT_KILL_PROCESS) {
		syscall(X32_BIT | SYS_getppid);
		CHECK(0, "an x32 number under an x86_64-only filter was not killed");
	}
	EXPECT_ERRNO(syscall(X32_BIT | SYS_getppid), (int)(xc->bad_arch & 0xffff));
	EXPECT_ERRNO(syscall(X32_BIT | 0x3fffffffU), (int)(xc->bad_arch & 0xffff));
}

static void test_x32_numbers(void **state)
{
	(void)state;
	require_seccomp();
	struct x32_case xc = { false, SCMPC_ACT_KILL_PROCESS };
	expect_child_sigsys(x32_child, &xc);
	xc.bad_arch = SCMPC_ACT_ERRNO(EXDEV);
	expect_child_ok(x32_child, &xc);
	xc.with_x32 = true;
	xc.bad_arch = SCMPC_ACT_KILL_PROCESS;
	expect_child_ok(x32_child, &xc);
}

#else /* !__x86_64__ */

static void skip_not_x86_64(void)
{
	print_message("skipped: the compat ABIs tested here are x86_64's\n");
	skip();
}

static void test_compat_i386_program(void **state)
{
	(void)state;
	skip_not_x86_64();
}

static void test_compat_int80_high_words(void **state)
{
	(void)state;
	skip_not_x86_64();
}

static void test_compat_multiplexers(void **state)
{
	(void)state;
	skip_not_x86_64();
}

static void test_x32_numbers(void **state)
{
	(void)state;
	skip_not_x86_64();
}

static void remove_i386(void)
{
}
#endif

/* ------------------------------------------------- native socketcall(2) */

/* The native ABI's own socketcall(2) (s390x, ppc64, ppc64le): its call is
 * an int, so the kernel ignores the register's high word, where
 * libseccomp compares all 64 bits and socketcall(SYS_SOCKET | 1 << 32, ...)
 * passes its rules on socket.  Run on s390x's kernel under qemu-system
 * (tools/qemu-s390x-test); skipped on ABIs without the call. */
static void native_socketcall_child(void *arg)
{
	const enum scmpc_merge *merge = arg;
	int64_t sc = scmpc_syscall_resolve(NATIVE, "socketcall");
	scmpc_policy *p = pol_new(ALLOW);
	CHECK(scmpc_policy_set_merge(p, *merge, NULL) == 0, "merge %d", (int)*merge);
	pol_rule(p, "socket", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EACCES), NULL);
	scmpc_prog *prog = pol_compile(p);
	load_ok(prog, 0);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);

	unsigned long args[3] = { AF_UNIX, SOCK_STREAM, 0 };
	static const unsigned long calls[] = { 1, 1 | 1UL << 32, 1 | 0xffffffffUL << 32 };
	for (size_t i = 0; i < N(calls); i++) {
		errno = 0;
		long r = syscall((long)sc, calls[i], args);
		CHECK(r == -1 && errno == EACCES,
		      "socketcall(0x%lx, {AF_UNIX, SOCK_STREAM}) gave %ld (errno %d), expected EACCES",
		      calls[i], r, errno);
	}
	/* SYS_SOCKETPAIR (8) is not denied: it runs */
	int sv[2];
	unsigned long pair[4] = { AF_UNIX, SOCK_STREAM, 0, (unsigned long)sv };
	CHECK(syscall((long)sc, 8UL | 1UL << 32, pair) == 0, "socketcall(SYS_SOCKETPAIR): %s",
	      strerror(errno));
}

static void test_native_socketcall(void **state)
{
	(void)state;
	require_seccomp();
	if (scmpc_syscall_resolve(NATIVE, "socketcall") < 0) {
		print_message("skipped: %s has no socketcall(2)\n", scmpc_arch_name(NATIVE));
		skip();
	}
	static const enum scmpc_merge merges[] = { SCMPC_MERGE_RESTRICTIVE,
						   SCMPC_MERGE_LIBSECCOMP };
	for (size_t i = 0; i < N(merges); i++)
		expect_child_ok(native_socketcall_child, (void *)&merges[i]);
}

/* ------------------------------------------------------------------ TSYNC */

#define NTHREADS 3

struct tsync_thread {
	pthread_barrier_t *bar;
	pid_t tid;
	long pgrp_a;
	int pgrp_a_errno;
	long ppid_b, pgrp_b;
	int ppid_b_errno, pgrp_b_errno;
	struct seccomp_status_view st_b, st_c;
};

static void *tsync_thread_fn(void *arg)
{
	struct tsync_thread *t = arg;
	t->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(t->bar);	/* 1: started */
	pthread_barrier_wait(t->bar);	/* 2: main loaded a filter for itself */
	errno = 0;
	t->pgrp_a = syscall(SYS_getpgid, 0);
	t->pgrp_a_errno = errno;
	pthread_barrier_wait(t->bar);	/* 3 */
	pthread_barrier_wait(t->bar);	/* 4: main loaded with TSYNC */
	errno = 0;
	t->ppid_b = syscall(SYS_getppid);
	t->ppid_b_errno = errno;
	errno = 0;
	t->pgrp_b = syscall(SYS_getpgid, 0);
	t->pgrp_b_errno = errno;
	status_of_self(&t->st_b);
	pthread_barrier_wait(t->bar);	/* 5 */
	pthread_barrier_wait(t->bar);	/* 6: TSYNC with a listener */
	status_of_self(&t->st_c);
	return NULL;
}

static void tsync_child(void *arg)
{
	(void)arg;
	pthread_barrier_t bar;
	pthread_t th[NTHREADS];
	struct tsync_thread t[NTHREADS];
	const struct one only_pgrp[] = { { "getpgid", SCMPC_ACT_ERRNO(ENOENT) } };
	const struct one only_ppid[] = { { "getppid", SCMPC_ACT_ERRNO(EDOM) } };
	const struct one notif[] = { { "getsid", SCMPC_ACT_USER_NOTIF } };

	pthread_barrier_init(&bar, NULL, NTHREADS + 1);
	for (int i = 0; i < NTHREADS; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].bar = &bar;
		CHECK(pthread_create(&th[i], NULL, tsync_thread_fn, &t[i]) == 0, "pthread_create");
	}
	pthread_barrier_wait(&bar);	/* 1 */
	/* Without TSYNC a filter binds the calling thread alone. */
	load_rules(ALLOW, only_pgrp, 1, 0);
	pthread_barrier_wait(&bar);	/* 2 */
	pthread_barrier_wait(&bar);	/* 3 */
	EXPECT_ERRNO(syscall(SYS_getpgid, 0), ENOENT);
	/* With TSYNC every thread gets this thread's whole chain. */
	load_rules(ALLOW, only_ppid, 1, SECCOMP_FILTER_FLAG_TSYNC);
	pthread_barrier_wait(&bar);	/* 4 */
	pthread_barrier_wait(&bar);	/* 5 */
	/* TSYNC with a listener needs TSYNC_ESRCH; the fd comes back. */
	scmpc_policy *p = pol_new(ALLOW);
	pol_rule(p, notif[0].name, SCMPC_ARCH_NONE, notif[0].act, NULL);
	scmpc_prog *prog = pol_compile(p);
	int fd = load_ok(prog, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER |
				       SECCOMP_FILTER_FLAG_TSYNC_ESRCH);
	CHECK(fd > 2, "listener fd %d", fd);
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC, "the listener fd is close-on-exec");
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	pthread_barrier_wait(&bar);	/* 6 */
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	for (int i = 0; i < NTHREADS; i++) {
		CHECK(t[i].pgrp_a >= 0, "thread %d saw main's private filter: %ld errno %d",
		      t[i].tid, t[i].pgrp_a, t[i].pgrp_a_errno);
		CHECK(t[i].ppid_b == -1 && t[i].ppid_b_errno == EDOM,
		      "thread %d after TSYNC: getppid %ld errno %d", t[i].tid, t[i].ppid_b,
		      t[i].ppid_b_errno);
		CHECK(t[i].pgrp_b == -1 && t[i].pgrp_b_errno == ENOENT,
		      "thread %d after TSYNC lacks main's older filter: getpgid %ld errno %d",
		      t[i].tid, t[i].pgrp_b, t[i].pgrp_b_errno);
		CHECK(t[i].st_b.mode == 2 && t[i].st_b.filters == 2 && t[i].st_b.nnp == 1,
		      "thread %d: Seccomp %d filters %ld NoNewPrivs %d (TSYNC copies NNP)",
		      t[i].tid, t[i].st_b.mode, t[i].st_b.filters, t[i].st_b.nnp);
		CHECK(t[i].st_c.filters == 3, "thread %d after TSYNC+listener: %ld filters",
		      t[i].tid, t[i].st_c.filters);
	}
}

static void test_tsync_threads(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	expect_child_ok(tsync_child, NULL);
}

struct blocker {
	pthread_barrier_t *bar;
	pid_t tid;
	int load_rc;
	char msg[512];
};

static void *blocker_fn(void *arg)
{
	struct blocker *b = arg;
	const struct sock_filter own[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpgid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(ENOENT)),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	scmpc_diag *d = scmpc_diag_new();
	b->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_SET_NAME, "scmpc-blocker", 0, 0, 0);
	/* A filter of its own, which the main thread's chain does not hold. */
	b->load_rc = scmpc_load(own, N(own), NULL, NULL, d);
	snprintf(b->msg, sizeof(b->msg), "%s", scmpc_diag_message(d));
	scmpc_diag_free(d);
	pthread_barrier_wait(b->bar);	/* 1: loaded */
	pthread_barrier_wait(b->bar);	/* 2: main is done */
	return NULL;
}

static void tsync_fail_child(void *arg)
{
	(void)arg;
	pthread_barrier_t bar;
	pthread_t th;
	struct blocker b = { .bar = &bar };
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_opts o = { .sz = sizeof(o), .seccomp_flags = SECCOMP_FILTER_FLAG_TSYNC };
	struct scmpc_load_result res = { .sz = sizeof(res) };
	const long ppid = getppid();
	char tidstr[32];

	pthread_barrier_init(&bar, NULL, 2);
	CHECK(pthread_create(&th, NULL, blocker_fn, &b) == 0, "pthread_create");
	pthread_barrier_wait(&bar);	/* 1 */
	CHECK(b.load_rc == 0, "blocker's own load: %d %s", b.load_rc, b.msg);

	scmpc_policy *p = pol_new(ALLOW);
	pol_rule(p, "getppid", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EDOM), NULL);
	scmpc_prog *prog = pol_compile(p);
	int r = scmpc_load_prog(prog, p, &o, &res, d);
	snprintf(tidstr, sizeof(tidstr), "%d", (int)b.tid);
	CHECK(r == -ESRCH, "TSYNC against a foreign filter: %d %s", r, scmpc_diag_message(d));
	CHECK(res.tsync_tid == b.tid, "blocking thread %d reported as %d", (int)b.tid,
	      (int)res.tsync_tid);
	CHECK(strstr(scmpc_diag_message(d), tidstr) &&
		      strstr(scmpc_diag_message(d), "scmpc-blocker"),
	      "message names the thread: %s", scmpc_diag_message(d));

	/* With TSYNC_ESRCH the kernel withholds the thread id. */
	o.seccomp_flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	r = scmpc_load_prog(prog, p, &o, &res, d);
	CHECK(r == -ESRCH && res.tsync_tid == 0, "TSYNC_ESRCH: %d tid %d %s", r,
	      (int)res.tsync_tid, scmpc_diag_message(d));

	/* The policy's stored flags are used too. */
	CHECK(scmpc_policy_set_flags(p, SECCOMP_FILTER_FLAG_TSYNC, NULL) == 0, "set flags");
	o.seccomp_flags = 0;
	r = scmpc_load_prog(prog, p, &o, &res, d);
	CHECK(r == -ESRCH && res.tsync_tid == b.tid, "policy flags: %d %s", r,
	      scmpc_diag_message(d));

	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.mode == 0, "nothing may be installed after a TSYNC failure (Seccomp %d)", v.mode);
	CHECK(syscall(SYS_getppid) == ppid, "getppid");
	pthread_barrier_wait(&bar);	/* 2 */
	pthread_join(th, NULL);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_tsync_failure(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	expect_child_ok(tsync_fail_child, NULL);
}

/* ---------------------------------------------------------- stacked filters */

enum stack_outcome { O_ERRNO, O_ALLOWED, O_TRAPPED, O_KILLED, O_THREAD_DIED };

struct stack_case {
	uint32_t acts[3];	/* getppid's action in each filter, oldest first */
	size_t n;
	bool in_thread;
	enum stack_outcome want;
	int err;
};

static void *stacked_thread(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
	return NULL;
}

static void stacked_child(void *arg)
{
	const struct stack_case *sc = arg;

	no_core_dumps();
	catch_sigsys();
	for (size_t i = 0; i < sc->n; i++) {
		const struct one r[] = { { "getppid", sc->acts[i] } };
		load_rules(ALLOW, r, 1, 0);
	}
	if (sc->in_thread) {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, stacked_thread, NULL) == 0, "pthread_create");
		pthread_join(t, NULL);
		CHECK(sc->want == O_THREAD_DIED, "process survived");
		return;
	}
	errno = 0;
	long r = syscall(SYS_getppid);
	switch (sc->want) {
	case O_ERRNO:
		CHECK(r == -1 && errno == sc->err, "got %ld errno %d, expected errno %d", r, errno,
		      sc->err);
		break;
	case O_ALLOWED:
		CHECK(r == getppid() && r > 0, "got %ld errno %d, expected the call to run", r,
		      errno);
		break;
	case O_TRAPPED:
		CHECK(trap_count == 1, "expected SIGSYS from TRAP, got %ld errno %d", r, errno);
		break;
	default:
		CHECK(0, "survived: %ld errno %d", r, errno);
	}
}

static void test_stacked_precedence(void **state)
{
	(void)state;
	require_seccomp();
	static const struct stack_case cases[] = {
		/* Equal actions: the newest filter's data wins (kernel/seccomp.c
		 * `seccomp_run_filters` replaces the result only on a strict <). */
		{ { SCMPC_ACT_ERRNO(11), SCMPC_ACT_ERRNO(13), SCMPC_ACT_ERRNO(12) }, 3, false,
		  O_ERRNO, 12 },
		{ { SCMPC_ACT_ERRNO(EPERM), ALLOW }, 2, false, O_ERRNO, EPERM },
		{ { ALLOW, SCMPC_ACT_LOG, SCMPC_ACT_ERRNO(5) }, 3, false, O_ERRNO, 5 },
		{ { SCMPC_ACT_LOG, ALLOW }, 2, false, O_ALLOWED, 0 },
		{ { SCMPC_ACT_USER_NOTIF, SCMPC_ACT_ERRNO(7) }, 2, false, O_ERRNO, 7 },
		{ { SCMPC_ACT_TRACE(3), SCMPC_ACT_ERRNO(7) }, 2, false, O_ERRNO, 7 },
		{ { SCMPC_ACT_ERRNO(5), SCMPC_ACT_TRAP }, 2, false, O_TRAPPED, 0 },
		{ { SCMPC_ACT_TRAP, SCMPC_ACT_ERRNO(5), ALLOW }, 3, false, O_TRAPPED, 0 },
		{ { SCMPC_ACT_ERRNO(5), SCMPC_ACT_KILL_THREAD }, 2, false, O_KILLED, 0 },
		{ { SCMPC_ACT_KILL_THREAD, SCMPC_ACT_TRAP }, 2, false, O_KILLED, 0 },
		/* From a second thread: KILL_PROCESS beats KILL_THREAD in either order. */
		{ { SCMPC_ACT_KILL_THREAD, SCMPC_ACT_KILL_PROCESS }, 2, true, O_KILLED, 0 },
		{ { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD }, 2, true, O_KILLED, 0 },
		{ { SCMPC_ACT_KILL_THREAD, SCMPC_ACT_ERRNO(5) }, 2, true, O_THREAD_DIED, 0 },
	};
	for (size_t i = 0; i < N(cases); i++) {
		if (cases[i].want == O_KILLED)
			expect_child_sigsys(stacked_child, (void *)&cases[i]);
		else
			expect_child_ok(stacked_child, (void *)&cases[i]);
	}
}

/* ------------------------------------------------------- user notification */

struct supervisor {
	scmpc_notify *n;
	pid_t caller_tid;
	int rounds;
	char err[512];
	uint64_t stale_id;
};

/* Receive three requests for getppid and answer with an errno, a value,
 * and CONTINUE.  Runs in a thread that shares the caller's filters but
 * makes no call they send to the listener. */
static void *supervisor_fn(void *arg)
{
	struct supervisor *s = arg;
	scmpc_diag *d = scmpc_diag_new();
	const struct seccomp_notif *req;

	for (s->rounds = 0; s->rounds < 3; s->rounds++) {
		int r = scmpc_notify_receive(s->n, &req, d);
		if (r < 0) {
			snprintf(s->err, sizeof(s->err), "receive: %d %s", r, scmpc_diag_message(d));
			break;
		}
		if (req->data.nr != SYS_getppid || req->data.arch != NATIVE_AUDIT ||
		    req->pid != (uint32_t)s->caller_tid ||
		    req->data.args[0] != (uint64_t)s->rounds + 100) {
			snprintf(s->err, sizeof(s->err), "request: nr %d arch 0x%x pid %u arg0 %llu",
				 req->data.nr, req->data.arch, req->pid,
				 (unsigned long long)req->data.args[0]);
			break;
		}
		uint64_t id = req->id;
		if (scmpc_notify_id_valid(s->n, id, d) != 1) {
			snprintf(s->err, sizeof(s->err), "id %llu not valid while pending",
				 (unsigned long long)id);
			break;
		}
		if (s->rounds == 0)
			r = scmpc_notify_respond(s->n, id, 0, EXFULL, 0, d);
		else if (s->rounds == 1)
			r = scmpc_notify_respond(s->n, id, 4242, 0, 0, d);
		else
			r = scmpc_notify_respond(s->n, id, 0, 0, SCMPC_NOTIFY_CONTINUE, d);
		if (r < 0) {
			snprintf(s->err, sizeof(s->err), "respond: %d %s", r, scmpc_diag_message(d));
			break;
		}
		if (scmpc_notify_id_valid(s->n, id, d) != 0) {
			snprintf(s->err, sizeof(s->err), "id %llu still valid after the answer",
				 (unsigned long long)id);
			break;
		}
		s->stale_id = id;
	}
	scmpc_diag_free(d);
	return NULL;
}

static void notify_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	const long ppid = getppid();
	struct supervisor s = { .caller_tid = (pid_t)syscall(SYS_gettid) };
	pthread_t th;
	const struct one rules[] = { { "getppid", SCMPC_ACT_USER_NOTIF } };
	scmpc_policy *p = pol_new(ALLOW);

	pol_rule(p, rules[0].name, SCMPC_ARCH_NONE, rules[0].act, NULL);
	scmpc_prog *prog = pol_compile(p);
	int fd = load_ok(prog, SECCOMP_FILTER_FLAG_NEW_LISTENER |
				       SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
	CHECK(fd >= 0, "listener fd %d", fd);

	/* One listener per chain. */
	struct scmpc_load_opts o = { .sz = sizeof(o),
				     .seccomp_flags = SECCOMP_FILTER_FLAG_NEW_LISTENER };
	int r = scmpc_load_prog(prog, NULL, &o, NULL, d);
	CHECK(r == -EBUSY && strstr(scmpc_diag_message(d), "listener"), "second listener: %d %s",
	      r, scmpc_diag_message(d));

	r = scmpc_notify_new(fd, &s.n, d);
	CHECK(r == 0, "scmpc_notify_new: %d %s", r, scmpc_diag_message(d));
	CHECK(scmpc_notify_respond(s.n, 1, 1, 0, SCMPC_NOTIFY_CONTINUE, d) == -EINVAL,
	      "CONTINUE with a value is refused");
	CHECK(scmpc_notify_respond(s.n, 1, 0, 5000, 0, d) == -EINVAL, "errno 5000 is refused");
	CHECK(pthread_create(&th, NULL, supervisor_fn, &s) == 0, "pthread_create");

	EXPECT_ERRNO(syscall(SYS_getppid, 100), EXFULL);
	long v = syscall(SYS_getppid, 101);
	CHECK(v == 4242, "supervisor's value: %ld", v);
	v = syscall(SYS_getppid, 102);
	CHECK(v == ppid, "CONTINUE runs the call: %ld, expected %ld", v, ppid);
	pthread_join(th, NULL);
	CHECK(s.rounds == 3 && !s.err[0], "supervisor after %d rounds: %s", s.rounds, s.err);

	r = scmpc_notify_respond(s.n, s.stale_id, 0, EPERM, 0, d);
	CHECK(r == -ENOENT, "answering a finished request: %d %s", r, scmpc_diag_message(d));
	CHECK(scmpc_notify_id_valid(s.n, s.stale_id, d) == 0, "stale id");

	scmpc_notify *bad;
	CHECK(scmpc_notify_new(-1, &bad, d) == -EBADF && !bad, "fd -1");
	/* Only a listener is taken: fd 0 (stdin here, or whatever took its
	 * number) and /dev/null are refused at once, not at the first receive. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char want[128];
	r = scmpc_notify_new(devnull, &bad, d);
	snprintf(want, sizeof(want), "fd %d is not a seccomp listener (it is /dev/null, not "
		 "anon_inode:seccomp notify)", devnull);
	CHECK(r == -EINVAL && !bad && !strcmp(scmpc_diag_message(d), want),
	      "handle on /dev/null: %d %s", r, scmpc_diag_message(d));
	int saved0 = dup(0);
	CHECK(saved0 >= 0 && dup2(devnull, 0) == 0, "put /dev/null on fd 0");
	r = scmpc_notify_new(0, &bad, d);
	CHECK(r == -EINVAL && !bad && strstr(scmpc_diag_message(d), "fd 0 is not a seccomp listener"),
	      "fd 0: %d %s", r, scmpc_diag_message(d));
	close(0);
	r = scmpc_notify_new(0, &bad, d);
	CHECK(r == -EBADF && !bad && !strcmp(scmpc_diag_message(d), "fd 0 is not open"),
	      "closed fd 0: %d %s", r, scmpc_diag_message(d));
	CHECK(dup2(saved0, 0) == 0, "restore fd 0");
	close(saved0);
	struct scmpc_process_state pst = { .sz = sizeof(pst), .pid = getpid() };
	r = scmpc_notify_handoff(devnull, "/nonexistent.sock", &pst, d);
	CHECK(r == -EINVAL && !strcmp(scmpc_diag_message(d), want), "handoff of /dev/null: %d %s",
	      r, scmpc_diag_message(d));
	close(devnull);

	scmpc_notify_free(s.n);
	close(fd);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_notify_round_trip(void **state)
{
	(void)state;
	require_seccomp();
	expect_child_ok(notify_child, NULL);
}

/* SECCOMP_IOCTL_NOTIF_ADDFD: the supervisor puts a pipe's read end into
 * the caller, once at the lowest free number with the call answered by the
 * kernel (SCMPC_ADDFD_SEND), once at a chosen number answered by itself;
 * the caller reads what the supervisor wrote through each. */
struct addfd_sup {
	scmpc_notify *n;
	int pipe_rd;
	char err[256];
};

static void *addfd_fn(void *arg)
{
	struct addfd_sup *s = arg;
	scmpc_diag *d = scmpc_diag_new();
	const struct seccomp_notif *req;
	for (int round = 0; round < 2; round++) {
		int r = scmpc_notify_receive(s->n, &req, d);
		if (r < 0) {
			snprintf(s->err, sizeof(s->err), "receive: %s", scmpc_diag_message(d));
			break;
		}
		uint64_t id = req->id;
		if (round == 0) {
			r = scmpc_notify_addfd(s->n, id, s->pipe_rd, -1,
					       SCMPC_ADDFD_SEND | SCMPC_ADDFD_CLOEXEC, d);
		} else {
			r = scmpc_notify_addfd(s->n, id, s->pipe_rd, 77, 0, d);
			if (r == 77)
				r = scmpc_notify_respond(s->n, id, 77, 0, 0, d);
		}
		if (r < 0) {
			snprintf(s->err, sizeof(s->err), "round %d: %d %s", round, r,
				 scmpc_diag_message(d));
			break;
		}
	}
	scmpc_diag_free(d);
	return NULL;
}

static void addfd_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = pol_new(ALLOW);
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 200 };
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "getppid", .action = SCMPC_ACT_USER_NOTIF,
				.conds = &c, .nconds = 1 };
	CHECK(scmpc_policy_add_rule(p, &r, d) >= 0, "rule: %s", scmpc_diag_message(d));
	scmpc_prog *prog = pol_compile(p);
	int pfd[2];
	CHECK(pipe2(pfd, O_CLOEXEC) == 0, "pipe");
	CHECK(write(pfd[1], "ab", 2) == 2, "write");
	int fd = load_ok(prog, SECCOMP_FILTER_FLAG_NEW_LISTENER);
	struct addfd_sup s = { .pipe_rd = pfd[0] };
	CHECK(scmpc_notify_new(fd, &s.n, d) == 0, "notify: %s", scmpc_diag_message(d));
	CHECK(scmpc_notify_addfd(s.n, 1, -1, -1, 0, d) == -EBADF, "srcfd -1");
	CHECK(scmpc_notify_addfd(s.n, 1, 0, -1, 0x80, d) == -EINVAL, "unknown flag");
	CHECK(scmpc_notify_addfd(s.n, 12345, pfd[0], -1, 0, d) == -ENOENT, "no such request: %s",
	      scmpc_diag_message(d));
	pthread_t th;
	CHECK(pthread_create(&th, NULL, addfd_fn, &s) == 0, "pthread_create");

	long got = syscall(SYS_getppid, 200);
	CHECK(got > 2 && got != pfd[0] && got != pfd[1], "the injected fd: %ld", got);
	char ch = 0;
	CHECK(read((int)got, &ch, 1) == 1 && ch == 'a', "read through the injected fd");
	CHECK((fcntl((int)got, F_GETFD) & FD_CLOEXEC) != 0, "SCMPC_ADDFD_CLOEXEC");
	long at = syscall(SYS_getppid, 200);
	CHECK(at == 77, "fd at the chosen number: %ld", at);
	CHECK(read(77, &ch, 1) == 1 && ch == 'b', "read through fd 77");
	pthread_join(th, NULL);
	CHECK(!s.err[0], "supervisor: %s", s.err);
	CHECK(syscall(SYS_getppid, 1) == getppid(), "other calls run");
	scmpc_notify_free(s.n);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_notify_addfd(void **state)
{
	(void)state;
	require_seccomp();
	expect_child_ok(addfd_child, NULL);
}

/* ---------------------------------------------------------- introspection */

struct introspect_case {
	scmpc_prog *progs[2];
	int go[2], ready[2];
};

static void introspect_target(void *arg)
{
	struct introspect_case *ic = arg;
	char c = 0;
	close(ic->go[1]);
	close(ic->ready[0]);
	for (int i = 0; i < 2; i++)
		load_ok(ic->progs[i], i ? SECCOMP_FILTER_FLAG_LOG : 0);

	/* Its own chain cannot be read from inside: only counted. */
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_budget b;
	CHECK(scmpc_chain_budget(0, &b, d) == 0, "own budget: %s", scmpc_diag_message(d));
	CHECK(!b.exact && b.filters == 2 && b.left == SCMPC_CHAIN_BUDGET - 18 &&
		      scmpc_diag_warning_count(d) == 1,
	      "own budget: exact %d filters %u left %u warnings %zu", b.exact, b.filters, b.left,
	      scmpc_diag_warning_count(d));
	/* And a filtered process cannot read anyone's. */
	scmpc_prog **got;
	CHECK(scmpc_introspect(getpid(), NULL, &got, d) == -EACCES &&
		      strstr(scmpc_diag_message(d), "seccomp"),
	      "introspection from under seccomp: %s", scmpc_diag_message(d));
	scmpc_diag_free(d);

	CHECK(write(ic->ready[1], &c, 1) == 1, "ready");
	/* Blocked here while the parent reads the filters. */
	while (read(ic->go[0], &c, 1) < 0 && errno == EINTR)
		;
}

static bool same_prog(const scmpc_prog *a, const scmpc_prog *b)
{
	return scmpc_prog_len(a) == scmpc_prog_len(b) &&
	       !memcmp(scmpc_prog_insns(a), scmpc_prog_insns(b),
		       scmpc_prog_len(a) * sizeof(struct sock_filter));
}

static void test_introspect(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	struct introspect_case ic;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog **got = NULL;
	bool skipped = false;
	char c = 0;
	int n;

	/* Two different filters: a compiled policy and a raw allow-all. */
	scmpc_policy *p = pol_new(ALLOW);
	pol_rule(p, "getppid", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EDOM), NULL);
	pol_rule(p, "getpgid", SCMPC_ARCH_NONE, SCMPC_ACT_TRAP, NULL);
	ic.progs[0] = pol_compile(p);
	assert_int_equal(scmpc_prog_new(allow_all, 1, &ic.progs[1], NULL), 0);

	/* A process without filters has nothing to read (and is not stopped). */
	n = scmpc_introspect(getpid(), NULL, &got, d);
	if (n == -EACCES || n == -EPERM) {
		print_message("skipped: %s\n", scmpc_diag_message(d));
		skipped = true;
		goto out;
	}
	assert_int_equal(n, 0);
	assert_null(got);
	assert_int_equal(scmpc_introspect(0x3fffffff, NULL, &got, d), -ESRCH);
	assert_int_equal(scmpc_introspect(-1, NULL, &got, d), -EINVAL);

	assert_int_equal(pipe2(ic.go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ic.ready, O_CLOEXEC), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		child_init(2);
		introspect_target(&ic);
		_exit(0);
	}
	close(ic.go[0]);
	close(ic.ready[1]);
	if (read(ic.ready[0], &c, 1) != 1) {
		int st;
		waitpid(pid, &st, 0);
		fail_msg("target failed: %s", status_str(st));
	}

	n = scmpc_introspect(pid, NULL, &got, d);
	if (n == -EACCES || n == -EPERM || n == -EOPNOTSUPP) {
		print_message("skipped: %s\n", scmpc_diag_message(d));
		skipped = true;
	} else {
		if (n != 2)
			print_error("introspect: %d %s\n", n, scmpc_diag_message(d));
		assert_int_equal(n, 2);
		/* Index 0 is the oldest; the bytes are those loaded. */
		assert_true(same_prog(got[0], ic.progs[0]));
		assert_true(same_prog(got[1], ic.progs[1]));

		/* What came back feeds the cache analyzer as the originals do. */
		const struct sock_filter *pa[2], *pb[2];
		size_t la[2], lb[2];
		uint8_t ba[64], bb[64];
		for (int i = 0; i < 2; i++) {
			pa[i] = scmpc_prog_insns(ic.progs[i]);
			la[i] = scmpc_prog_len(ic.progs[i]);
			pb[i] = scmpc_prog_insns(got[i]);
			lb[i] = scmpc_prog_len(got[i]);
		}
		memset(ba, 0, sizeof(ba));
		memset(bb, 0, sizeof(bb));
		int ca = scmpc_cache_bitmap(pa, la, 2, NATIVE, NULL, ba);
		int cb = scmpc_cache_bitmap(pb, lb, 2, NATIVE, NULL, bb);
		assert_true(ca > 400);
		assert_int_equal(ca, cb);
		assert_memory_equal(ba, bb, sizeof(ba));
		assert_false(ba[SYS_getppid / 8] & (1U << (SYS_getppid % 8)));
		scmpc_prog_array_free(got, (size_t)n);
		got = NULL;

		/* The exact budget of another process. */
		struct scmpc_budget b;
		assert_int_equal(scmpc_chain_budget(pid, &b, d), 0);
		unsigned used = (unsigned)(scmpc_prog_ebpf_len(ic.progs[0]) + 4 + 5 + 4);
		assert_true(b.exact);
		assert_int_equal(b.filters, 2);
		assert_int_equal(b.used, used);
		assert_int_equal(b.left, SCMPC_CHAIN_BUDGET - used);

		/* A caller that already holds the thread stopped says so. */
		int st;
		assert_int_equal(ptrace(PTRACE_SEIZE, pid, NULL, NULL), 0);
		assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL), 0);
		assert_int_equal(waitpid(pid, &st, __WALL), pid);
		assert_true(WIFSTOPPED(st));
		struct scmpc_introspect_opts io = { .sz = sizeof(io),
						    .flags = SCMPC_INTROSPECT_STOPPED };
		/* Without the flag the attach fails: it is traced already. */
		assert_int_equal(scmpc_introspect(pid, NULL, &got, d), -EPERM);
		assert_non_null(strstr(scmpc_diag_message(d), "SCMPC_INTROSPECT_STOPPED"));
		n = scmpc_introspect(pid, &io, &got, d);
		assert_int_equal(n, 2);
		assert_true(same_prog(got[1], ic.progs[1]));
		scmpc_prog_array_free(got, (size_t)n);
		got = NULL;
		assert_int_equal(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0);
	}

	/* The target carries on after being read: let it finish. */
	assert_int_equal(write(ic.go[1], &c, 1), 1);
	close(ic.go[1]);
	close(ic.ready[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("target: %s", status_str(st));
out:
	scmpc_prog_free(ic.progs[0]);
	scmpc_prog_free(ic.progs[1]);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	if (skipped)
		skip();
}

/* ------------------------------------------------------------ chain budget */

/* An allow-all program whose converted length is exactly EBPF (5..8195):
 * K `ld [0]` (1 each) and M `ret` (2 each) after the 3-insn prologue. */
static scmpc_prog *prog_of_ebpf_len(unsigned ebpf)
{
	unsigned body = ebpf - 3, m = body / 2, k = body % 2;
	while (m + k > BPF_MAXINSNS) {
		m--;
		k += 2;
	}
	CHECK(m >= 1 && m + k <= BPF_MAXINSNS, "no program of eBPF length %u", ebpf);
	struct sock_filter *f = calloc(m + k, sizeof(*f));
	for (unsigned i = 0; i < k; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	for (unsigned i = k; i < m + k; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ALLOW);
	scmpc_prog *p = NULL;
	CHECK(scmpc_prog_new(f, m + k, &p, NULL) == 0, "prog_new");
	free(f);
	CHECK(scmpc_prog_ebpf_len(p) == ebpf, "built %zu, wanted %u", scmpc_prog_ebpf_len(p),
	      ebpf);
	return p;
}

/* Constant blinding (net.core.bpf_jit_harden: 1 for loaders without
 * CAP_BPF or CAP_SYS_ADMIN, 2 for all) lengthens every filter before the
 * kernel counts it, so exact budget boundaries do not hold. */
static bool jit_blinding(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_harden", "re");
	int v = 1;	/* unreadable (mode 0600): assume the default-on setting */
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	if (v != 1)
		return v >= 2;
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2];
	memset(c, 0, sizeof(c));
	syscall(SYS_capget, &h, c);
	const unsigned cap_bpf = 39;	/* CAP_BPF, newer than some headers */
	bool privileged = (c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)) ||
			  (c[CAP_TO_INDEX(cap_bpf)].effective & CAP_TO_MASK(cap_bpf));
	return !privileged;
}

static long raw_load_prog(const scmpc_prog *p)
{
	return raw_load(scmpc_prog_insns(p), scmpc_prog_len(p), 0);
}

/* Known chain: three 8195-instruction filters use 3 * 8199 = 24597, so
 * 8171 fit and 8172 do not; scmpc refuses the latter itself, and the kernel
 * agrees at both lengths. */
static void budget_known_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	const scmpc_prog *chain[4];
	struct scmpc_load_opts o = { .sz = sizeof(o), .chain = chain };
	struct scmpc_load_result res = { .sz = sizeof(res) };
	int r;

	if (jit_blinding())
		child_skip("net.core.bpf_jit_harden blinds constants here: lengths grow");
	for (unsigned i = 0; i < 3; i++) {
		chain[i] = prog_of_ebpf_len(8195);
		o.nchain = i;
		r = scmpc_load_prog(chain[i], NULL, &o, &res, d);
		CHECK(r == 0, "load %u: %d %s", i, r, scmpc_diag_message(d));
		CHECK(res.budget.exact && res.budget.filters == i &&
			      res.budget.used == i * 8199 && res.ebpf_len == 8195,
		      "budget before load %u: exact %d filters %u used %u", i, res.budget.exact,
		      res.budget.filters, res.budget.used);
	}
	o.nchain = 3;
	scmpc_prog *over = prog_of_ebpf_len(8172), *fits = prog_of_ebpf_len(8171);

	r = scmpc_load_prog(over, NULL, &o, &res, d);
	CHECK(r == -ENOMEM && strstr(scmpc_diag_message(d), "8171"),
	      "over budget by one: %d %s", r, scmpc_diag_message(d));
	CHECK(res.budget.left == 8171 && res.budget.used == 24597, "left %u used %u",
	      res.budget.left, res.budget.used);
	o.flags = SCMPC_LOAD_DRY_RUN;
	r = scmpc_load_prog(fits, NULL, &o, &res, d);
	CHECK(r == 0, "exactly the budget (dry run): %d %s", r, scmpc_diag_message(d));
	o.flags = 0;

	/* The kernel draws the line at the same place. */
	EXPECT_ERRNO(raw_load_prog(over), ENOMEM);
	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.filters == 3, "%ld filters after the refusals", v.filters);
	r = scmpc_load_prog(fits, NULL, &o, &res, d);
	CHECK(r == 0, "exactly the budget: %d %s", r, scmpc_diag_message(d));

	/* Now full (32772 counted); without the chain scmpc only knows the count
	 * and lets the kernel decide, then explains its ENOMEM. */
	o.chain = NULL;
	o.nchain = 0;
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -ENOMEM && !res.budget.exact && res.budget.filters == 4 &&
		      strstr(scmpc_diag_message(d), "4 filters") &&
		      strstr(scmpc_diag_message(d), "could not be read"),
	      "unknown chain: %d exact %d filters %u: %s", r, res.budget.exact,
	      res.budget.filters, scmpc_diag_message(d));
	/* A chain that does not match the count is not trusted. */
	o.chain = chain;
	o.nchain = 2;
	scmpc_diag_clear(d);
	r = scmpc_load(allow_all, 1, &o, &res, d);
	CHECK(r == -ENOMEM && !res.budget.exact && scmpc_diag_warning_count(d) >= 2,
	      "mismatched chain: %d exact %d warnings %zu", r, res.budget.exact,
	      scmpc_diag_warning_count(d));
	scmpc_prog_free(over);
	scmpc_prog_free(fits);
	for (int i = 0; i < 3; i++)
		scmpc_prog_free((scmpc_prog *)chain[i]);
	scmpc_diag_free(d);
}

/* Unknown chain of minimal filters.  The kernel (kernel/seccomp.c
 * `seccomp_attach_filter`, MAX_INSNS_PER_PATH) refuses a filter with ENOMEM
 * unless its eBPF length plus, for each filter already loaded, its eBPF
 * length + 4 is at most 32768; a one-insn `ret` filter converts to 5.  So
 * 2731 `ret` filters use 2731 * 9 = 24579, scmpc's lower bound is exact
 * here and it refuses an 8195-instruction program itself; the kernel takes
 * 8189 and refuses 8190. */
#define MIN_FILTERS 2731

static void budget_bound_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_result res = { .sz = sizeof(res) };
	int r;

	if (jit_blinding())
		child_skip("net.core.bpf_jit_harden blinds constants here: lengths grow");
	for (int i = 0; i < MIN_FILTERS; i++)
		CHECK(raw_load(allow_all, 1, 0) == 0, "minimal filter %d: %s", i, strerror(errno));
	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.filters == MIN_FILTERS, "Seccomp_filters %ld", v.filters);

	scmpc_prog *big = prog_of_ebpf_len(8195), *over = prog_of_ebpf_len(8190),
		   *fits = prog_of_ebpf_len(8189);
	r = scmpc_load_prog(big, NULL, NULL, &res, d);
	CHECK(r == -ENOMEM && !res.budget.exact && res.budget.left == 8189 &&
		      strstr(scmpc_diag_message(d), "smallest possible"),
	      "bound refusal: %d exact %d left %u: %s", r, res.budget.exact, res.budget.left,
	      scmpc_diag_message(d));
	EXPECT_ERRNO(raw_load_prog(big), ENOMEM);
	EXPECT_ERRNO(raw_load_prog(over), ENOMEM);
	r = scmpc_load_prog(fits, NULL, NULL, &res, d);
	CHECK(r == 0, "8189 fit: %d %s", r, scmpc_diag_message(d));
	scmpc_prog_free(big);
	scmpc_prog_free(over);
	scmpc_prog_free(fits);
	scmpc_diag_free(d);
}

static void test_chain_budget(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	expect_child_ok(budget_known_child, NULL);
	expect_child_ok(budget_bound_child, NULL);
}

/* -------------------------------------------------------- prctl fallback */

static void prctl_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_opts o = { .sz = sizeof(o) };
	struct scmpc_load_result res = { .sz = sizeof(res) };
	/* A parent filter that answers ENOSYS for seccomp(2) alone, as on a
	 * host whose sandbox predates it: the loader must fall back to
	 * prctl(PR_SET_SECCOMP), which reaches the same kernel code. */
	const struct sock_filter hide[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(ENOSYS)),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	struct sock_fprog fp = { .len = N(hide), .filter = (struct sock_filter *)hide };
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "nnp");
	CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) == 0, "prctl load: %s",
	      strerror(errno));
	CHECK(scmpc_probe_flags(0, d) == -ENOSYS, "probe under the ENOSYS filter");

	scmpc_policy *p = pol_new(ALLOW);
	pol_rule(p, "getppid", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EDOM), NULL);
	scmpc_prog *prog = pol_compile(p);

	o.seccomp_flags = SECCOMP_FILTER_FLAG_LOG;
	int r = scmpc_load_prog(prog, NULL, &o, &res, d);
	CHECK(r == -ENOSYS && strstr(scmpc_diag_message(d), "prctl"), "flags need seccomp(2): "
	      "%d %s", r, scmpc_diag_message(d));
	o.seccomp_flags = 0;
	o.flags = SCMPC_LOAD_NO_PRCTL;
	r = scmpc_load_prog(prog, NULL, &o, &res, d);
	CHECK(r == -ENOSYS, "fallback disabled: %d %s", r, scmpc_diag_message(d));
	o.flags = 0;
	scmpc_diag_clear(d);
	r = scmpc_load_prog(prog, NULL, &o, &res, d);
	CHECK(r == 0 && res.via_prctl, "fallback: %d via_prctl %d %s", r, res.via_prctl,
	      scmpc_diag_message(d));
	/* The actions were judged without GET_ACTION_AVAIL, and it says so. */
	CHECK(scmpc_diag_warning_count(d) >= 1, "no warning about the action probe");
	EXPECT_ERRNO(syscall(SYS_getppid), EDOM);
	struct seccomp_status_view v;
	status_of_self(&v);
	CHECK(v.filters == 2, "%ld filters", v.filters);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_prctl_fallback(void **state)
{
	(void)state;
	require_seccomp();
	require_unfiltered();
	expect_child_ok(prctl_child, NULL);
}

/* Where seccomp(2) answers ENOSYS for real (valgrind, old kernels), the
 * loader goes through prctl; under qemu-user that fails too (qemu's
 * linux-user/syscall.c answers EINVAL to PR_SET_SECCOMP). */
static void enosys_child(void *arg)
{
	(void)arg;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_load_result res = { .sz = sizeof(res) };
	scmpc_policy *p = pol_new(ALLOW);
	pol_rule(p, "getppid", SCMPC_ARCH_NONE, SCMPC_ACT_ERRNO(EDOM), NULL);
	scmpc_prog *prog = pol_compile(p);
	int r = scmpc_load_prog(prog, p, NULL, &res, d);
	if (r == -EINVAL && res.via_prctl)
		child_skip("prctl(PR_SET_SECCOMP) is refused too: %s", scmpc_diag_message(d));
	CHECK(r == 0 && res.via_prctl, "load: %d via_prctl %d %s", r, res.via_prctl,
	      scmpc_diag_message(d));
	EXPECT_ERRNO(syscall(SYS_getppid), EDOM);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_without_seccomp_syscall(void **state)
{
	(void)state;
	if (scmpc_probe_flags(0, NULL) != -ENOSYS) {
		print_message("skipped: seccomp(2) works here (test_prctl_fallback covers the "
			      "fallback)\n");
		skip();
	}
	/* qemu-user refuses PR_GET_SECCOMP as well (linux-user/syscall.c), and
	 * cannot be trusted to fork: nothing to test there. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		print_message("skipped: prctl(PR_GET_SECCOMP) fails too (%s): an emulator\n",
			      strerror(errno));
		skip();
	}
	expect_child_ok(enosys_child, NULL);
}

/* ------------------------------------------- differential at the kernel */

/*
 * docker-default.json loaded for the native ABI by scmpc and by libseccomp
 * (lsc_ref.h), each in its own child; there every number 0..500 is issued
 * from a grandchild with all six arguments -1 (bad fds, bad pointers,
 * invalid flags and sizes make calls fail fast), and only the outcome
 * class is compared: killed by SIGSYS, -1 with errno E, or anything else.
 *
 * Allowed differences: numbers above the policy's threshold that no rule
 * names get runc's ENOSYS from scmpc but the default errno from libseccomp
 * (LSC_DIFF_UNKNOWN), and calls lsc_call_diffs() flags.  An errno the
 * call itself returns cannot be told from a filter's, so agreement is on
 * what the caller sees.
 */
#if defined(HAVE_LSC_REF) && (defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__))
#define HAVE_DIFFERENTIAL 1
#define DIFF_NRS 501

enum cls { CLS_OTHER, CLS_ERRNO, CLS_SIGSYS };

struct outcome {
	uint8_t cls;
	uint16_t err;
};

/* Issue NR with all arguments -1.  Whatever the call creates (fork, vfork,
 * clone) exits at once, without touching the stack a vfork parent shares. */
#if defined(__x86_64__)
static long guarded_call(long nr, long self)
{
	register long r10 __asm__("r10") = -1;
	register long r8 __asm__("r8") = -1;
	register long r9 __asm__("r9") = -1;
	register long r12 __asm__("r12") = self;
	long ret = nr, a0 = -1, a1 = -1, a2 = -1;
	__asm__ volatile("syscall\n\t"
			 "mov %%rax, %%r13\n\t"
			 "mov %[getpid], %%eax\n\t"
			 "syscall\n\t"
			 "cmp %%rax, %%r12\n\t"
			 "je 1f\n\t"
			 "mov %[exit_group], %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "1:\n\t"
			 "mov %%r13, %%rax\n\t"
			 : "+a"(ret), "+D"(a0), "+S"(a1), "+d"(a2), "+r"(r10), "+r"(r8), "+r"(r9)
			 : "r"(r12), [getpid] "i"(SYS_getpid), [exit_group] "i"(SYS_exit_group)
			 : "rcx", "r11", "r13", "memory", "cc");
	return ret;
}
#elif defined(__s390x__)
/* svc 0 takes the number in r1 and the arguments in r2-r7; the result
 * comes back in r2 and every other register is preserved. */
static long guarded_call(long nr, long self)
{
	register long r1 __asm__("r1") = nr;
	register long r2 __asm__("r2") = -1;
	register long r3 __asm__("r3") = -1;
	register long r4 __asm__("r4") = -1;
	register long r5 __asm__("r5") = -1;
	register long r6 __asm__("r6") = -1;
	register long r7 __asm__("r7") = -1;
	register long r8 __asm__("r8") = self;
	__asm__ volatile("svc 0\n\t"
			 "lgr %%r9, %%r2\n\t"
			 "lghi %%r1, %[getpid]\n\t"
			 "svc 0\n\t"
			 "cgr %%r2, %%r8\n\t"
			 "je 1f\n\t"
			 "lghi %%r1, %[exit_group]\n\t"
			 "lghi %%r2, 0\n\t"
			 "svc 0\n\t"
			 "1:\n\t"
			 "lgr %%r2, %%r9\n\t"
			 : "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7)
			 : "r"(r8), [getpid] "i"(SYS_getpid), [exit_group] "i"(SYS_exit_group)
			 : "r9", "memory", "cc");
	return r2;
}
#else
static long guarded_call(long nr, long self)
{
	register long x0 __asm__("x0") = -1;
	register long x1 __asm__("x1") = -1;
	register long x2 __asm__("x2") = -1;
	register long x3 __asm__("x3") = -1;
	register long x4 __asm__("x4") = -1;
	register long x5 __asm__("x5") = -1;
	register long x8 __asm__("x8") = nr;
	register long x19 __asm__("x19") = self;
	__asm__ volatile("svc #0\n\t"
			 "mov x20, x0\n\t"
			 "mov x8, %[getpid]\n\t"
			 "svc #0\n\t"
			 "cmp x0, x19\n\t"
			 "b.eq 1f\n\t"
			 "mov x8, %[exit_group]\n\t"
			 "mov x0, #0\n\t"
			 "svc #0\n\t"
			 "1:\n\t"
			 "mov x0, x20\n\t"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x8)
			 : "r"(x19), [getpid] "i"(SYS_getpid), [exit_group] "i"(SYS_exit_group)
			 : "x20", "memory", "cc");
	return x0;
}
#endif

static struct outcome run_number(long nr)
{
	struct outcome o = { CLS_OTHER, 0 };
	int p[2], st;
	long ret;

	if (pipe2(p, O_CLOEXEC) < 0)
		return o;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		setsid();	/* no controlling terminal for vhangup & co */
		struct itimerval it = { .it_value = { 0, 500000 } };
		setitimer(ITIMER_REAL, &it, NULL);	/* pause() and friends */
		ret = guarded_call(nr, getpid());
		if (write(p[1], &ret, sizeof(ret)) < 0)
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return o;
	}
	ssize_t n = read(p[0], &ret, sizeof(ret));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		o.cls = CLS_SIGSYS;
	else if (n == sizeof(ret) && ret < 0 && ret >= -4095) {
		o.cls = CLS_ERRNO;
		o.err = (uint16_t)-ret;
	}
	return o;
}

struct diff_run {
	const struct sock_filter *insns;
	size_t len;
	struct outcome *out;	/* shared with the parent */
};

static void diff_child(void *arg)
{
	struct diff_run *dr = arg;
	scmpc_diag *d = scmpc_diag_new();
	no_core_dumps();
	/* msgget(-1, -1) creates a queue (IPC_CREAT|IPC_EXCL): keep that, and
	 * its EEXIST in the next run, out of the machine's namespace; UTS too,
	 * should a set*name call ever get through. */
	const int ns = CLONE_NEWIPC | CLONE_NEWUTS;
	if (unshare(ns) < 0 && unshare(CLONE_NEWUSER | ns) < 0)
		child_skip("no private IPC namespace for the calls' side effects: %s",
			   strerror(errno));
	int r = scmpc_load(dr->insns, dr->len, NULL, NULL, d);
	CHECK(r == 0, "load: %d %s", r, scmpc_diag_message(d));
	scmpc_diag_free(d);
	for (long nr = 0; nr < DIFF_NRS; nr++)
		dr->out[nr] = run_number(nr);
}

static const char *outcome_str(struct outcome o, char *buf, size_t len)
{
	if (o.cls == CLS_SIGSYS)
		snprintf(buf, len, "SIGSYS");
	else if (o.cls == CLS_ERRNO)
		snprintf(buf, len, "errno %u", o.err);
	else
		snprintf(buf, len, "ran");
	return buf;
}

#endif /* HAVE_DIFFERENTIAL */

static void test_docker_differential(void **state)
{
	(void)state;
	require_seccomp();
#ifndef HAVE_DIFFERENTIAL
	print_message("skipped: needs tests/lsc_ref.h (the libseccomp reference) and an "
		      "x86_64, aarch64 or s390x build\n");
	skip();
#else
	scmpc_policy *p = testutil_policy("docker-default.json", NATIVE);
	if (!p)
		fail_msg("docker-default.json: %s", testutil_last_error());
	struct sock_filter *lsc = NULL;
	size_t lsc_len = 0;
	char err[512];
	int r = lsc_compile(p, 2, &lsc, &lsc_len, err, sizeof(err));
	if (r < 0) {
		scmpc_policy_free(p);
		print_message("skipped: libseccomp cannot build the reference: %s\n", err);
		skip();
	}
	scmpc_prog *prog = pol_compile(p);
	struct lsc_call_diff *cd = NULL;
	long ncd = lsc_call_diffs(p, &cd);
	assert_true(ncd >= 0);

	struct outcome *out = mmap(NULL, 2 * DIFF_NRS * sizeof(*out), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(out != MAP_FAILED);
	struct diff_run runs[2] = {
		{ scmpc_prog_insns(prog), scmpc_prog_len(prog), out },
		{ lsc, lsc_len, out + DIFF_NRS },
	};
	uint64_t t0 = testutil_now_ns();
	for (int i = 0; i < 2; i++) {
		struct child c;
		run_child(diff_child, &runs[i], &c);
		if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
			bool skipped = WIFEXITED(c.status) && WEXITSTATUS(c.status) == SKIPPED;
			print_message("%s: %s %s", skipped ? "skipped" : "failed",
				      status_str(c.status), c.msg);
			munmap(out, 2 * DIFF_NRS * sizeof(*out));
			free(cd);
			free(lsc);
			scmpc_prog_free(prog);
			scmpc_policy_free(p);
			if (skipped)
				skip();
			fail();
		}
	}
	uint64_t t1 = testutil_now_ns();

	unsigned same = 0, ran = 0, denied = 0, killed = 0, unknown = 0, explained = 0, bad = 0;
	unsigned eval_bad = 0, policy_denied = 0, unknown_lo = DIFF_NRS, unknown_hi = 0;
	char a[32], b[32], act[32];
	for (uint32_t nr = 0; nr < DIFF_NRS; nr++) {
		struct outcome s = out[nr], l = out[DIFF_NRS + nr];
		const uint64_t ones[6] = { ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL };
		struct seccomp_data sd = testutil_sd(NATIVE, nr, ones);
		int rule;
		uint32_t ev = scmpc_policy_eval(p, &sd, &rule);

		/* What the policy denies, the kernel must deny the same way
		 * under scmpc's filter (x86_64's uretprobe, 335, since Linux 6.14
		 * and uprobe, 336, since 6.18 bypass every filter:
		 * kernel/seccomp.c `seccomp_uprobe_exception`). */
		bool eval_ok = true;
		policy_denied += ev != SCMPC_ACT_ALLOW;
		if ((ev & 0xffff0000U) == SCMPC_ACT_ERRNO(0))
			eval_ok = s.cls == CLS_ERRNO && s.err == (ev & 0xffff);
		else if (ev == SCMPC_ACT_KILL_PROCESS || ev == SCMPC_ACT_KILL_THREAD)
			eval_ok = s.cls == CLS_SIGSYS;
		if (!eval_ok && nr != 335 && nr != 336) {
			scmpc_action_str(ev, act, sizeof(act));
			print_error("nr %u: policy says %s, kernel under scmpc: %s\n", nr, act,
				    outcome_str(s, a, sizeof(a)));
			eval_bad++;
		}

		if (s.cls == l.cls && s.err == l.err) {
			same++;
			s.cls == CLS_OTHER ? ran++ : s.cls == CLS_ERRNO ? denied++ : killed++;
			continue;
		}
		if (rule < 0 && ev == SCMPC_ACT_ERRNO(ENOSYS) && s.cls == CLS_ERRNO &&
		    s.err == ENOSYS && l.cls == CLS_ERRNO &&
		    SCMPC_ACT_ERRNO(l.err) == scmpc_policy_default_action(p)) {
			unknown++;	/* runc's ENOSYS for numbers newer than the profile */
			unknown_lo = nr < unknown_lo ? nr : unknown_lo;
			unknown_hi = nr;
			continue;
		}
		unsigned why = lsc_call_diff_find(cd, (size_t)ncd, NATIVE, nr);
		print_message("nr %u: scmpc %s, libseccomp %s%s (reasons 0x%x)\n", nr,
			      outcome_str(s, a, sizeof(a)), outcome_str(l, b, sizeof(b)),
			      why ? ", explained" : "", why);
		why ? explained++ : bad++;
	}
	print_message("kernel differential, docker-default.json on %s, numbers 0..%d "
		      "(%.1f s): the policy denies %u; %u same outcome (%u ran, %u errno, %u "
		      "SIGSYS), %u differ only by runc's ENOSYS for unknown numbers (%u..%u), "
		      "%u explained by lsc_call_diffs, %u unexplained; %u disagree with "
		      "scmpc_policy_eval\n",
		      scmpc_arch_name(NATIVE), DIFF_NRS - 1, (double)(t1 - t0) / 1e9, policy_denied, same, ran, denied,
		      killed, unknown, unknown_lo, unknown_hi, explained, bad, eval_bad);
	munmap(out, 2 * DIFF_NRS * sizeof(*out));
	free(cd);
	free(lsc);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	assert_int_equal(bad, 0);
	assert_int_equal(eval_bad, 0);
#endif
}

/* -------------------------------------------------------------------- main */

int main(void)
{
	read_status("/proc/self/status", &base);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_in_parent),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_no_new_privs),
		cmocka_unit_test(test_keep_nnp_with_cap),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_kill_process),
		cmocka_unit_test(test_kill_thread),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_compat_i386_program),
		cmocka_unit_test(test_compat_int80_high_words),
		cmocka_unit_test(test_compat_multiplexers),
		cmocka_unit_test(test_x32_numbers),
		cmocka_unit_test(test_native_socketcall),
		cmocka_unit_test(test_tsync_threads),
		cmocka_unit_test(test_tsync_failure),
		cmocka_unit_test(test_stacked_precedence),
		cmocka_unit_test(test_notify_round_trip),
		cmocka_unit_test(test_notify_addfd),
		cmocka_unit_test(test_introspect),
		cmocka_unit_test(test_chain_budget),
		cmocka_unit_test(test_prctl_fallback),
		cmocka_unit_test(test_without_seccomp_syscall),
		cmocka_unit_test(test_docker_differential),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	remove_i386();
	return r;
}
