/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc_policy_from_json(): real profiles checked against facts derived by
 * hand from the profile text and from runc/moby semantics, and every error
 * path with its exact message and position.
 */
#include <errno.h>
#include <linux/audit.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "scmpc.h"
#include "front/json_scan.h"	/* the text checks, on text no profile has */
#include "testutil.h"

#define X86_64 SCMPC_ARCH_X86_64
#define I386 SCMPC_ARCH_I386
#define X32 SCMPC_ARCH_X32
#define AARCH64 SCMPC_ARCH_AARCH64
#define ARM SCMPC_ARCH_ARM

#define ALLOW SCMPC_ACT_ALLOW
#define EPERM_ SCMPC_ACT_ERRNO(1)
#define ENOSYS_ SCMPC_ACT_ERRNO(38)

/* Clone flags (include/uapi/linux/sched.h). */
#define CLONE_NEWUSER 0x10000000ULL
#define CLONE_NEWNET 0x40000000ULL
#define SIGCHLD_ 17ULL

/* ------------------------------------------------------------ helpers */

static struct scmpc_json_opts opts_for(enum scmpc_arch a)
{
	struct scmpc_json_opts o;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.arch = a;
	o.kernel_major = 6;
	o.kernel_minor = 8;
	return o;
}

static char *slurp(const char *envvar, const char *name, size_t *len)
{
	const char *dir = getenv(envvar);
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A packaged profile's text (testutil.h names them); a missing one fails
 * the test with the package to install. */
static char *slurp_profile(const char *name, size_t *len)
{
	char path[4096], *text;
	int r;
	if (!testutil_profile_path(name, path, sizeof(path)))
		fail_msg("%s", testutil_last_error());
	r = testutil_load_file(path, &text, len);
	if (r < 0)
		fail_msg("%s: %s (install %s; tools/setup-debian does)", path, strerror(-r),
			 testutil_profile_package(name));
	return text;
}

/* Parses a packaged profile and fails on any error. */
static scmpc_policy *load_policy(const char *name, const struct scmpc_json_opts *o, scmpc_diag *d)
{
	size_t len;
	char *text = slurp_profile(name, &len);
	scmpc_policy *p = NULL;
	int r = scmpc_policy_from_json(text, len, o, &p, d);
	free(text);
	if (r) {
		print_error("%s: %s at %s\n", name, scmpc_diag_message(d), scmpc_diag_where(d));
		fail();
	}
	assert_non_null(p);
	return p;
}

static scmpc_policy *parse_ok(const char *json, const struct scmpc_json_opts *o, scmpc_diag *d)
{
	scmpc_policy *p = NULL;
	int r = scmpc_policy_from_json(json, strlen(json), o, &p, d);
	if (r) {
		print_error("unexpected error: %s at \"%s\"\n", scmpc_diag_message(d), scmpc_diag_where(d));
		fail();
	}
	assert_non_null(p);
	return p;
}

static uint32_t eval_nr(const scmpc_policy *p, enum scmpc_arch a, uint32_t nr, uint64_t a0,
			uint64_t a1, uint64_t a2, int *rule)
{
	struct seccomp_data sd;
	memset(&sd, 0, sizeof(sd));
	sd.nr = (int)nr;
	sd.arch = scmpc_arch_audit(a);
	sd.args[0] = a0;
	sd.args[1] = a1;
	sd.args[2] = a2;
	return scmpc_policy_eval(p, &sd, rule);
}

static void check_call(const scmpc_policy *p, enum scmpc_arch a, const char *name, uint64_t a0,
		       uint64_t a1, uint64_t a2, uint32_t want, int line)
{
	int64_t nr = scmpc_syscall_resolve(a, name);
	char got_s[32], want_s[32];
	if (nr < 0) {
		print_error("line %d: %s does not exist on %s\n", line, name, scmpc_arch_name(a));
		fail();
	}
	uint32_t got = eval_nr(p, a, (uint32_t)nr, a0, a1, a2, NULL);
	if (got != want) {
		scmpc_action_str(got, got_s, sizeof(got_s));
		scmpc_action_str(want, want_s, sizeof(want_s));
		print_error("line %d: %s(%#llx, %#llx, %#llx) on %s: got %s, want %s\n", line, name,
			    (unsigned long long)a0, (unsigned long long)a1, (unsigned long long)a2,
			    scmpc_arch_name(a), got_s, want_s);
		fail();
	}
}

#define CALL(p, a, name, want) check_call(p, a, name, 0, 0, 0, want, __LINE__)
#define CALL1(p, a, name, x, want) check_call(p, a, name, x, 0, 0, want, __LINE__)
#define CALL2(p, a, name, x, y, want) check_call(p, a, name, x, y, 0, want, __LINE__)
#define CALL3(p, a, name, x, y, z, want) check_call(p, a, name, x, y, z, want, __LINE__)

/* The origin of the rule that decides NAME(a0, a1, a2). */
static const char *origin_of(const scmpc_policy *p, enum scmpc_arch a, const char *name, uint64_t a0,
			     uint64_t a1, uint64_t a2)
{
	int rule = -1;
	int64_t nr = scmpc_syscall_resolve(a, name);
	assert_true(nr >= 0);
	eval_nr(p, a, (uint32_t)nr, a0, a1, a2, &rule);
	if (rule < 0)
		return "(default)";
	return scmpc_policy_rule_origin(p, (size_t)rule);
}

static void check_arches(const scmpc_policy *p, size_t n, ...)
{
	va_list ap;
	assert_int_equal(scmpc_policy_arch_count(p), n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(scmpc_policy_arch(p, i), va_arg(ap, int));
	va_end(ap);
}

static bool has_warning(const scmpc_diag *d, const char *text)
{
	for (size_t i = 0; i < scmpc_diag_warning_count(d); i++)
		if (!strcmp(scmpc_diag_warning(d, i), text))
			return true;
	return false;
}

/* Parses JSON and requires the exact error, ERR and its message. */
static void expect_errno_opts(const char *json, size_t len, const struct scmpc_json_opts *o,
			      const char *where, const char *msg, int err, int line)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = (scmpc_policy *)&p;	/* must be reset to NULL */
	int r = scmpc_policy_from_json(json, len, o, &p, d);
	if (r != err || strcmp(scmpc_diag_where(d), where) || strcmp(scmpc_diag_message(d), msg)) {
		print_error("line %d: got %d \"%s\" at \"%s\"\n          want %d \"%s\" at \"%s\"\n",
			    line, r, scmpc_diag_message(d), scmpc_diag_where(d), err, msg, where);
		scmpc_policy_free(r ? NULL : p);
		scmpc_diag_free(d);
		fail();
	}
	assert_null(p);
	assert_int_equal(scmpc_diag_errno(d), err);
	scmpc_diag_free(d);
}

static void expect_err_opts(const char *json, size_t len, const struct scmpc_json_opts *o,
			    const char *where, const char *msg, int line)
{
	expect_errno_opts(json, len, o, where, msg, -EINVAL, line);
}

static void expect_err_at(const char *json, const char *where, const char *msg, int err, int line)
{
	struct scmpc_json_opts o = opts_for(X86_64);
	expect_errno_opts(json, strlen(json), &o, where, msg, err, line);
}

#define EXPECT_ERR(json, where, msg) expect_err_at(json, where, msg, -EINVAL, __LINE__)
/* a number outside what its field can carry */
#define EXPECT_ERANGE(json, where, msg) expect_err_at(json, where, msg, -ERANGE, __LINE__)

/* ------------------------------------------------- Docker default profile */

/* Docker 20.10.24's default.json (golang-github-docker-docker-dev), for
 * amd64 with Docker's default capabilities on kernel 6.8.  No
 * defaultErrnoRet, so the default is EPERM.  Entries by index: 0 the
 * allow-list (socket at names[296], unconditional), 1 ptrace (minKernel
 * 4.8), 2-6 personality 0, 8, 0x20000, 0x20008, 0xffffffff, 8 ARM's calls
 * (arches arm, arm64), 9 arch_prctl (amd64, x32), 13 the CAP_SYS_ADMIN list
 * (clone, clone3, mount, setns, unshare, ...), 14 clone masked 0x7E020000
 * (excludes CAP_SYS_ADMIN and s390), 16 clone3 ERRNO(38) (excludes
 * CAP_SYS_ADMIN and mips), 19 chroot (CAP_SYS_CHROOT, a default cap), 22
 * kcmp/process_vm_readv/... (CAP_SYS_PTRACE, not a default cap). */
static void docker_x86_64(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("docker-default.json", &o, d);

	check_arches(p, 3, X86_64, I386, X32);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "write", ALLOW);

	/* (arg0 & 0x7E020000) == 0 */
	CALL1(p, X86_64, "clone", CLONE_NEWUSER, EPERM_);
	CALL1(p, X86_64, "clone", CLONE_NEWNET | SIGCHLD_, EPERM_);
	CALL1(p, X86_64, "clone", 0x11, ALLOW);
	CALL1(p, X86_64, "clone", 0x003d0f00 | SIGCHLD_, ALLOW);	/* pthread_create's flags */
	assert_string_equal(origin_of(p, X86_64, "clone", 0x11, 0, 0), "syscalls[14].names[0]");
	CALL(p, X86_64, "clone3", ENOSYS_);
	assert_string_equal(origin_of(p, X86_64, "clone3", 0, 0, 0), "syscalls[16].names[0]");

	/* this version allows every socket family */
	CALL1(p, X86_64, "socket", 40, ALLOW);
	CALL1(p, X86_64, "socket", 38, ALLOW);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	assert_string_equal(origin_of(p, X86_64, "socket", 40, 0, 0), "syscalls[0].names[296]");

	CALL1(p, X86_64, "personality", 0, ALLOW);
	CALL1(p, X86_64, "personality", 8, ALLOW);
	CALL1(p, X86_64, "personality", 0x20000, ALLOW);
	CALL1(p, X86_64, "personality", 0x20008, ALLOW);
	CALL1(p, X86_64, "personality", 0xffffffff, ALLOW);
	CALL1(p, X86_64, "personality", 9, EPERM_);
	CALL1(p, X86_64, "personality", 0x100000008ULL, EPERM_);	/* 64-bit compare */
	assert_string_equal(origin_of(p, X86_64, "personality", 8, 0, 0), "syscalls[3].names[0]");
	assert_string_equal(origin_of(p, X86_64, "personality", 9, 0, 0), "(default)");

	CALL(p, X86_64, "ptrace", ALLOW);		/* kernel 6.8 >= 4.8 */
	CALL(p, X86_64, "process_vm_readv", EPERM_);	/* CAP_SYS_PTRACE missing */
	CALL(p, X86_64, "kcmp", EPERM_);
	CALL(p, X86_64, "arch_prctl", ALLOW);
	CALL(p, X86_64, "modify_ldt", ALLOW);
	CALL(p, X86_64, "chroot", ALLOW);
	CALL(p, X86_64, "mount", EPERM_);
	CALL(p, X86_64, "unshare", EPERM_);
	CALL(p, X86_64, "setns", EPERM_);
	CALL(p, X86_64, "reboot", EPERM_);
	CALL(p, X86_64, "kexec_load", EPERM_);		/* below the ENOSYS threshold */
	CALL(p, X86_64, "open_by_handle_at", EPERM_);	/* CAP_DAC_READ_SEARCH missing */
	CALL(p, X86_64, "io_uring_setup", ALLOW);	/* allowed until Docker 25 */
	CALL(p, X86_64, "futex_waitv", ALLOW);		/* 449, the highest it names */

	/* moby tests arches once against the host: amd64 keeps arch_prctl
	 * for the i386 and x32 sections too. */
	CALL(p, I386, "arch_prctl", ALLOW);
	CALL(p, X32, "arch_prctl", ALLOW);
	CALL(p, I386, "read", ALLOW);
	CALL(p, X32, "read", ALLOW);
	CALL(p, I386, "socketcall", ALLOW);
	CALL(p, I386, "mount", EPERM_);

	/* runc's ENOSYS stub: numbers past every named call */
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	assert_int_equal(eval_nr(p, X32, 0x40000000U + 1000, 0, 0, 0, NULL), ENOSYS_);
	/* an ABI outside the policy */
	assert_int_equal(eval_nr(p, AARCH64, 63, 0, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);	/* libseccomp's, which runc keeps */
	/* nothing in the x86 group is unsupported, so no arch warning */
	for (size_t i = 0; i < scmpc_diag_warning_count(d); i++)
		assert_null(strstr(scmpc_diag_warning(d, i), "not supported"));

	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void docker_old_kernel(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	o.kernel_major = 4;
	o.kernel_minor = 4;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("docker-default.json", &o, d);
	CALL(p, X86_64, "ptrace", EPERM_);
	CALL(p, X86_64, "read", ALLOW);
	scmpc_policy_free(p);

	/* 4.8 itself satisfies minKernel 4.8 */
	o.kernel_minor = 8;
	p = load_policy("docker-default.json", &o, d);
	CALL(p, X86_64, "ptrace", ALLOW);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void docker_caps(void **state)
{
	(void)state;
	static const char *const admin[] = { "CAP_CHOWN", "CAP_SYS_ADMIN", NULL };
	static const char *const ptrace[] = { "CAP_SYS_PTRACE", NULL };
	static const char *const none[] = { NULL };
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();

	o.caps = admin;
	scmpc_policy *p = load_policy("docker-default.json", &o, d);
	/* entry 13 allows clone/clone3/mount; 14 and 16 are excluded */
	CALL1(p, X86_64, "clone", CLONE_NEWUSER, ALLOW);
	CALL(p, X86_64, "clone3", ALLOW);
	CALL(p, X86_64, "mount", ALLOW);
	CALL(p, X86_64, "setns", ALLOW);
	CALL(p, X86_64, "chroot", EPERM_);	/* no CAP_SYS_CHROOT in this set */
	scmpc_policy_free(p);

	o.caps = ptrace;
	p = load_policy("docker-default.json", &o, d);
	CALL(p, X86_64, "process_vm_readv", ALLOW);	/* entry 22 */
	CALL(p, X86_64, "kcmp", ALLOW);
	CALL(p, X86_64, "mount", EPERM_);
	scmpc_policy_free(p);

	o.caps = none;
	p = load_policy("docker-default.json", &o, d);
	CALL1(p, X86_64, "clone", CLONE_NEWUSER, EPERM_);
	CALL1(p, X86_64, "clone", 0x11, ALLOW);
	CALL(p, X86_64, "clone3", ENOSYS_);
	CALL(p, X86_64, "chroot", EPERM_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void docker_aarch64(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(AARCH64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("docker-default.json", &o, d);

	check_arches(p, 2, AARCH64, ARM);
	CALL(p, AARCH64, "read", ALLOW);
	CALL(p, AARCH64, "clone3", ENOSYS_);
	CALL1(p, AARCH64, "socket", 40, ALLOW);
	CALL1(p, AARCH64, "clone", CLONE_NEWUSER, EPERM_);
	CALL1(p, AARCH64, "clone", 0x11, ALLOW);
	CALL(p, ARM, "set_tls", ALLOW);		/* entry 8: arches arm, arm64 */
	CALL(p, ARM, "cacheflush", ALLOW);
	CALL(p, ARM, "breakpoint", ALLOW);
	CALL(p, ARM, "read", ALLOW);
	CALL(p, ARM, "mount", EPERM_);
	CALL(p, ARM, "ptrace", ALLOW);
	assert_int_equal(eval_nr(p, X86_64, 0, 0, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);	/* libseccomp's, which runc keeps */
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void docker_no_enosys(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	o.flags = SCMPC_JSON_NO_ENOSYS;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("docker-default.json", &o, d);
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), EPERM_);
	CALL(p, X86_64, "clone3", ENOSYS_);	/* the explicit rule stays */
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Docker's fixtures: the pre-1.13 format ("name" per entry, "architectures"
 * instead of archMap; 311 unconditional allows, personality 0, 8 and
 * 0xffffffff, clone masked 0x7C020000), a minimal profile without
 * architectures, and conditional includes/excludes by capability. */
static void docker_fixtures(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	static const char *const admin[] = { "CAP_SYS_ADMIN", "CAP_SYSLOG", NULL };
	scmpc_diag *d = scmpc_diag_new();

	scmpc_policy *p = load_policy("docker-old-format.json", &o, d);
	check_arches(p, 3, X86_64, I386, X32);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "chroot", ALLOW);
	CALL(p, X86_64, "mount", EPERM_);
	CALL(p, X86_64, "ptrace", EPERM_);
	CALL1(p, X86_64, "personality", 8, ALLOW);
	CALL1(p, X86_64, "personality", 0x20000, EPERM_);	/* not in this version */
	CALL1(p, X86_64, "clone", 0x04000000, EPERM_);	/* CLONE_NEWUTS: in 0x7C020000 */
	CALL1(p, X86_64, "clone", 0x02000000, ALLOW);	/* CLONE_NEWCGROUP: not in it */
	CALL1(p, X86_64, "clone", 0x11, ALLOW);
	CALL(p, I386, "read", ALLOW);
	CALL(p, X32, "read", ALLOW);
	assert_int_equal(eval_nr(p, AARCH64, 63, 0, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);	/* libseccomp's, which runc keeps */
	scmpc_policy_free(p);

	/* No architectures: the target ABI alone. */
	p = load_policy("docker-example.json", &o, d);
	check_arches(p, 1, X86_64);
	CALL(p, X86_64, "open", ALLOW);
	CALL(p, X86_64, "close", ALLOW);
	CALL(p, X86_64, "read", EPERM_);
	CALL1(p, X86_64, "clone", 0x11, ALLOW);
	CALL1(p, X86_64, "clone", CLONE_NEWUSER, EPERM_);
	assert_int_equal(eval_nr(p, I386, 6, 0, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);
	scmpc_policy_free(p);

	/* Docker's default capabilities: CAP_SYSLOG missing, CAP_SYS_ADMIN
	 * missing.  What reaches runc names chmod (90) and ptrace (101), so
	 * syslog (103) is above runc's ENOSYS threshold. */
	p = load_policy("docker-conditional.json", &o, d);
	CALL(p, X86_64, "chmod", ALLOW);
	CALL(p, X86_64, "syslog", ENOSYS_);
	CALL(p, X86_64, "ptrace", ALLOW);
	CALL(p, X86_64, "pipe", EPERM_);	/* 22 */
	scmpc_policy_free(p);
	o.caps = admin;
	p = load_policy("docker-conditional.json", &o, d);
	CALL(p, X86_64, "chmod", ALLOW);
	CALL(p, X86_64, "syslog", ALLOW);
	CALL(p, X86_64, "ptrace", EPERM_);
	CALL(p, X86_64, "getppid", ENOSYS_);	/* 110 > 103 */
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------- Podman default profile */

/* The same overlap under the documented most-restrictive merge. */
static void podman_restrictive_merge(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	o.flags |= SCMPC_JSON_RESTRICTIVE;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("podman-default.json", &o, d);
	CALL(p, X86_64, "setns", EPERM_);
	CALL(p, X86_64, "read", ALLOW);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* containers/common 0.50.1's seccomp.json (golang-github-containers-common):
 * defaultErrnoRet 38; 0 an explicit EPERM list (kexec_file_load, ...); 1
 * the allow-list (setns among them); 2-6 personality; 14/15 the
 * CAP_SYS_ADMIN pair (15: bpf, perf_event_open, setns ... EPERM without
 * it); 16/17 the chroot pair; 28/29 vhangup; 30 socket(16, *, 9) EINVAL,
 * 31 socket(*, *, != 9), 32 socket(!= 16) and 33 socket(*, *, != 9) ALLOW,
 * all four excluded by CAP_AUDIT_WRITE; 34 socket ALLOW with
 * CAP_AUDIT_WRITE. */
static void podman_x86_64(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("podman-default.json", &o, d);

	check_arches(p, 3, X86_64, I386, X32);
	assert_int_equal(scmpc_policy_default_action(p), ENOSYS_);
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "kexec_file_load", EPERM_);
	CALL1(p, X86_64, "personality", 8, ALLOW);
	CALL1(p, X86_64, "personality", 9, ENOSYS_);
	CALL(p, X86_64, "chroot", ALLOW);
	CALL(p, X86_64, "bpf", EPERM_);
	CALL(p, X86_64, "perf_event_open", EPERM_);
	CALL(p, X86_64, "vhangup", EPERM_);
	/* Allowed by entry 1, denied by entry 15 (no CAP_SYS_ADMIN): runc and
	 * crun get libseccomp's answer, the first unconditional rule. */
	CALL(p, X86_64, "setns", ALLOW);
	assert_string_equal(origin_of(p, X86_64, "setns", 0, 0, 0), "syscalls[1].names[289]");

	/* Read with Podman's own default set, which has no CAP_AUDIT_WRITE:
	 * entries 30-33, so a NETLINK_AUDIT socket gets EINVAL, as under
	 * Podman. */
	CALL1(p, X86_64, "socket", 40, ALLOW);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	CALL3(p, X86_64, "socket", 16, 3, 9, SCMPC_ACT_ERRNO(22));
	assert_string_equal(origin_of(p, X86_64, "socket", 16, 3, 9), "syscalls[30].names[0]");

	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Podman's profile read with Docker's set (CAP_AUDIT_WRITE in it), asked
 * for, or as Podman's set plus CAP_AUDIT_WRITE: entry 34 alone. */
static void podman_with_docker_caps(void **state)
{
	(void)state;
	static const char *const audit[] = { "audit_write", NULL };
	static const char *const conf[] = { "CHOWN", "AUDIT_WRITE", NULL };
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();

	for (int i = 0; i < 3; i++) {
		o = opts_for(X86_64);
		if (i == 0)
			o.caps_from = SCMPC_JSON_CAPS_DOCKER;
		else if (i == 1)
			o.caps_add = audit;
		else
			o.podman_caps = conf;
		scmpc_policy *p = load_policy("podman-default.json", &o, d);
		CALL1(p, X86_64, "socket", 40, ALLOW);
		CALL3(p, X86_64, "socket", 16, 3, 9, ALLOW);
		assert_string_equal(origin_of(p, X86_64, "socket", 2, 0, 0), "syscalls[34].names[0]");
		/* CAP_SYS_CHROOT: in Docker's set and Podman's, not in CONF */
		CALL(p, X86_64, "chroot", i == 2 ? EPERM_ : ALLOW);
		scmpc_policy_free(p);
	}
	scmpc_diag_free(d);
}

static void podman_no_audit_write(void **state)
{
	(void)state;
	static const char *const caps[] = { "CAP_CHOWN", NULL };
	struct scmpc_json_opts o = opts_for(X86_64);
	o.caps = caps;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("podman-default.json", &o, d);

	CALL3(p, X86_64, "socket", 16, 3, 9, SCMPC_ACT_ERRNO(22));	/* NETLINK_AUDIT */
	assert_string_equal(origin_of(p, X86_64, "socket", 16, 3, 9), "syscalls[30].names[0]");
	CALL3(p, X86_64, "socket", 16, 3, 0, ALLOW);	/* entry 31 */
	CALL3(p, X86_64, "socket", 2, 1, 9, ALLOW);	/* entry 32 */
	CALL1(p, X86_64, "socket", 40, ALLOW);
	CALL(p, X86_64, "chroot", EPERM_);
	CALL(p, X86_64, "vhangup", EPERM_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------ runc test data */

/* runc 1.1.5's seccomp_syscall_test1.json: architectures x86, x32,
 * x86_64, aarch64, arm; 0 the allow-list (default ERRNO -> EPERM; chdir and
 * ftruncate in it), 1/2 dup3 arg0 == 1 or > 2, 3 kcmp arg0 == 0 && arg1 ==
 * 1337, 4 process_vm_readv with index 0 twice, 5 process_vm_writev
 * likewise with errnoRet 55, 6 clone masked 0x7E020000 without valueTwo,
 * 7 socket (arg2 & 0xF00) == 0. */
static void runc_test1(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("runc-test1.json", &o, d);
	int r1 = -1, r2 = -1;

	/* the target first, then the others in the profile's order */
	check_arches(p, 5, X86_64, I386, X32, AARCH64, ARM);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "chdir", ALLOW);
	CALL2(p, X86_64, "ftruncate", 1, 2, ALLOW);
	CALL1(p, X86_64, "dup3", 0, EPERM_);
	CALL1(p, X86_64, "dup3", 1, ALLOW);
	CALL1(p, X86_64, "dup3", 2, EPERM_);
	CALL1(p, X86_64, "dup3", 3, ALLOW);

	/* distinct indices: one AND rule */
	CALL2(p, X86_64, "kcmp", 0, 1337, ALLOW);
	CALL2(p, X86_64, "kcmp", 0, 0, EPERM_);
	CALL2(p, X86_64, "kcmp", 500, 1337, EPERM_);

	/* index 0 twice: each condition is its own rule, OR-ed */
	CALL1(p, X86_64, "process_vm_readv", 100, ALLOW);
	CALL1(p, X86_64, "process_vm_readv", 9001, ALLOW);
	CALL1(p, X86_64, "process_vm_readv", 5, EPERM_);
	CALL1(p, X86_64, "process_vm_writev", 1337, SCMPC_ACT_ERRNO(55));
	CALL1(p, X86_64, "process_vm_writev", 2020, SCMPC_ACT_ERRNO(55));
	CALL1(p, X86_64, "process_vm_writev", 7, EPERM_);
	eval_nr(p, X86_64, (uint32_t)scmpc_syscall_resolve(X86_64, "process_vm_readv"), 100, 0, 0, &r1);
	eval_nr(p, X86_64, (uint32_t)scmpc_syscall_resolve(X86_64, "process_vm_readv"), 9001, 0, 0, &r2);
	assert_true(r1 >= 0 && r2 >= 0 && r1 != r2);
	assert_string_equal(scmpc_policy_rule_origin(p, (size_t)r1), "syscalls[4].names[0]");
	assert_string_equal(scmpc_policy_rule_origin(p, (size_t)r2), "syscalls[4].names[0]");

	CALL1(p, X86_64, "clone", 0x11, ALLOW);
	CALL1(p, X86_64, "clone", CLONE_NEWNET, EPERM_);
	/* MASKED_EQ with valueTwo: (arg2 & 0xF00) == 0 */
	CALL3(p, X86_64, "socket", 1, 1, 0, ALLOW);
	CALL3(p, X86_64, "socket", 1, 1, 0xff, ALLOW);
	CALL3(p, X86_64, "socket", 1, 1, 0x100, EPERM_);
	CALL3(p, X86_64, "socket", 1, 1, 0xc00, EPERM_);
	CALL3(p, X86_64, "socket", 1, 1, 0x1000, ALLOW);

	/* the same rules on the other ABIs it lists */
	CALL1(p, AARCH64, "dup3", 1, ALLOW);
	CALL1(p, AARCH64, "dup3", 2, EPERM_);
	CALL(p, I386, "chdir", ALLOW);
	CALL2(p, ARM, "kcmp", 0, 1337, ALLOW);

	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	assert_int_equal(eval_nr(p, AARCH64, 1000, 0, 0, 0, NULL), ENOSYS_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* seccomp_syscall_test2.json: the same ABIs, an allow-list without chdir
 * or dup3, defaultErrnoRet 6 (ENXIO). */
static void runc_test2(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("runc-test2.json", &o, d);
	check_arches(p, 5, X86_64, I386, X32, AARCH64, ARM);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_ERRNO(6));
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "ftruncate", ALLOW);
	CALL(p, X86_64, "chdir", SCMPC_ACT_ERRNO(6));
	CALL(p, X86_64, "dup3", SCMPC_ACT_ERRNO(6));
	CALL(p, ARM, "chdir", SCMPC_ACT_ERRNO(6));
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* --------------------------------------------------------- the example */

static void example_container(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	size_t len;
	char *text = slurp("SCMPC_EXAMPLES", "container.json", &len);
	scmpc_policy *p = NULL;

	if (!text)
		skip();
	assert_int_equal(scmpc_policy_from_json(text, len, &o, &p, d), 0);
	free(text);
	check_arches(p, 5, X86_64, I386, X32, AARCH64, ARM);
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "io_uring_setup", ALLOW);
	CALL(p, X86_64, "ptrace", EPERM_);
	CALL(p, X86_64, "mount", EPERM_);
	CALL(p, X86_64, "bpf", EPERM_);
	CALL1(p, X86_64, "socket", 1, ALLOW);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	CALL1(p, X86_64, "socket", 10, ALLOW);
	CALL1(p, X86_64, "socket", 16, ALLOW);
	CALL1(p, X86_64, "socket", 17, EPERM_);	/* AF_PACKET */
	CALL1(p, X86_64, "socket", 40, EPERM_);	/* AF_VSOCK */
	CALL1(p, X86_64, "socketpair", 1, ALLOW);
	CALL1(p, X86_64, "socketpair", 2, EPERM_);
	CALL1(p, X86_64, "personality", 8, ALLOW);
	CALL1(p, X86_64, "personality", 0x0040000, EPERM_);	/* ADDR_NO_RANDOMIZE */
	CALL1(p, X86_64, "clone", CLONE_NEWUSER | SIGCHLD_, EPERM_);
	CALL1(p, X86_64, "clone", SIGCHLD_, ALLOW);
	CALL(p, X86_64, "clone3", ENOSYS_);
	CALL2(p, X86_64, "ioctl", 0, 0x5401, ALLOW);			/* TCGETS */
	CALL2(p, X86_64, "ioctl", 0, 0x80045430, ALLOW);		/* TIOCGPTN */
	CALL2(p, X86_64, "ioctl", 0, 0xffffffff80045430ULL, ALLOW);	/* sign-extended (musl) */
	CALL2(p, X86_64, "ioctl", 0, 0x5412, EPERM_);			/* TIOCSTI */
	CALL2(p, X86_64, "kill", 1234, 15, ALLOW);
	CALL(p, AARCH64, "read", ALLOW);
	CALL(p, ARM, "set_tls", ALLOW);
	CALL1(p, ARM, "socket", 40, EPERM_);
	CALL(p, I386, "socketcall", ALLOW);
	CALL(p, X32, "read", ALLOW);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------ small profiles */

static void config_json(void **state)
{
	(void)state;
	/* Out-of-range and negative numbers outside linux.seccomp are not
	 * scmpc's business. */
	static const char cfg[] =
		"{\"ociVersion\": \"1.0.2\",\n"
		" \"process\": {\"oomScoreAdj\": -500, \"args\": [\"sh\"]},\n"
		" \"linux\": {\"resources\": {\"memory\": {\"limit\": 99999999999999999999}},\n"
		"   \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 13,\n"
		"     \"architectures\": [\"SCMP_ARCH_X86\"],\n"
		"     \"syscalls\": [{\"names\": [\"read\", \"close\"], \"action\": \"SCMP_ACT_ALLOW\"}]}}}";
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = parse_ok(cfg, &o, d);
	check_arches(p, 2, X86_64, I386);
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "write", SCMPC_ACT_ERRNO(13));
	assert_string_equal(origin_of(p, X86_64, "read", 0, 0, 0), "linux.seccomp.syscalls[0].names[0]");
	scmpc_policy_free(p);

	/* explicit OCI flavor accepts a config.json too */
	o.flavor = SCMPC_JSON_OCI;
	p = parse_ok(cfg, &o, d);
	scmpc_policy_free(p);
	scmpc_diag_free(d);

	EXPECT_ERR("{\"ociVersion\": \"1.0.2\", \"linux\": {\"namespaces\": []}}", "linux.seccomp",
		   "config.json has no linux.seccomp");
	EXPECT_ERR("{\"ociVersion\": \"1.0.2\"}", "linux.seccomp", "config.json has no linux.seccomp");
	EXPECT_ERR("{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": null}}", "linux.seccomp",
		   "config.json has no linux.seccomp");
	EXPECT_ERR("{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": []}}", "linux.seccomp",
		   "expected an object, got an array");
	EXPECT_ERR("{\"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
		   "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, "
		   "\"value\": 1, \"op\": \"SCMP_CMP_XX\"}]}]}}}",
		   "linux.seccomp.syscalls[0].args[0].op", "unknown operator \"SCMP_CMP_XX\"");
	EXPECT_ERR("{\"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
		   "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, "
		   "\"value\": 18446744073709551616, \"op\": \"SCMP_CMP_EQ\"}]}]}}}",
		   "linux.seccomp.syscalls[0].args[0].value",
		   "18446744073709551616 does not fit in 64 bits");

	/* a config.json given as a Docker profile */
	struct scmpc_json_opts od = opts_for(X86_64);
	od.flavor = SCMPC_JSON_DOCKER;
	expect_err_opts(cfg, strlen(cfg), &od, "", "expected a Docker profile, got an OCI config.json",
			__LINE__);
}

static void runc_rule_semantics(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p;

	/* a rule repeating the default, errno included, is dropped */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\"},"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},"
		     "{\"names\": [\"nosuchcall\"], \"action\": \"SCMP_ACT_ERRNO\"},"
		     "{\"names\": [\"open\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2}]}",
		     &o, d);
	assert_int_equal(scmpc_policy_rule_count(p), 1);
	CALL(p, X86_64, "open", SCMPC_ACT_ERRNO(2));
	CALL(p, X86_64, "read", EPERM_);
	/* runc skips the redundant rule before looking the name up */
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	scmpc_policy_free(p);

	/* ERRNO and TRACE default to EPERM; errnoRet elsewhere is ignored */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\"},"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_TRACE\"},"
		     "{\"names\": [\"open\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 4242},"
		     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_KILL\", \"errnoRet\": 5},"
		     "{\"names\": [\"dup\"], \"action\": \"SCMP_ACT_KILL_PROCESS\"},"
		     "{\"names\": [\"dup2\"], \"action\": \"SCMP_ACT_KILL_THREAD\"},"
		     "{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_TRAP\"},"
		     "{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_LOG\"},"
		     "{\"names\": [\"getuid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
		     &o, d);
	CALL(p, X86_64, "read", EPERM_);
	CALL(p, X86_64, "write", SCMPC_ACT_TRACE(1));
	CALL(p, X86_64, "open", SCMPC_ACT_TRACE(4242));
	CALL(p, X86_64, "close", SCMPC_ACT_KILL_THREAD);
	CALL(p, X86_64, "dup", SCMPC_ACT_KILL_PROCESS);
	CALL(p, X86_64, "dup2", SCMPC_ACT_KILL_THREAD);
	CALL(p, X86_64, "getpid", SCMPC_ACT_TRAP);
	CALL(p, X86_64, "getppid", SCMPC_ACT_LOG);
	CALL(p, X86_64, "getuid", SCMPC_ACT_USER_NOTIF);
	assert_true(has_warning(d, "syscalls[3].errnoRet: ignored for SCMP_ACT_KILL (runc ignores it)"));
	/* no ENOSYS stub for an ALLOW default */
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ALLOW);
	scmpc_policy_free(p);
	scmpc_diag_clear(d);

	/* nor for LOG and TRACE defaults; KILL gets one */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_LOG\"}", &o, d);
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), SCMPC_ACT_LOG);
	scmpc_policy_free(p);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_TRACE\", \"defaultErrnoRet\": 7}", &o, d);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_TRACE(7));
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), SCMPC_ACT_TRACE(7));
	scmpc_policy_free(p);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_KILL\", \"syscalls\": "
		     "[{\"names\": [\"read\", \"close\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
		     &o, d);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_KILL_THREAD);
	/* runc's threshold is the highest number the profile names: close */
	CALL(p, X86_64, "write", SCMPC_ACT_KILL_THREAD);
	CALL(p, X86_64, "getpid", ENOSYS_);
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	scmpc_policy_free(p);

	/* same index twice splits every condition of the rule, even the one
	 * on another index: (arg0 == 1) || (arg0 == 2) || (arg1 == 3) */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"dup3\"], "
		     "\"action\": \"SCMP_ACT_ALLOW\", \"args\": ["
		     "{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"},"
		     "{\"index\": 1, \"value\": 3, \"op\": \"SCMP_CMP_EQ\"},"
		     "{\"index\": 0, \"value\": 2, \"op\": \"SCMP_CMP_EQ\"}]}]}",
		     &o, d);
	assert_int_equal(scmpc_policy_rule_count(p), 3);
	CALL2(p, X86_64, "dup3", 1, 0, ALLOW);
	CALL2(p, X86_64, "dup3", 2, 0, ALLOW);
	CALL2(p, X86_64, "dup3", 7, 3, ALLOW);
	CALL2(p, X86_64, "dup3", 7, 0, EPERM_);
	scmpc_policy_free(p);

	/* every operator, unsigned 64-bit; valueTwo only matters for MASKED_EQ */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": ["
		     "{\"index\": 0, \"value\": 10, \"op\": \"SCMP_CMP_GE\"},"
		     "{\"index\": 1, \"value\": 20, \"valueTwo\": 99, \"op\": \"SCMP_CMP_LT\"}]},"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": ["
		     "{\"index\": 5, \"value\": 18446744073709551615, \"op\": \"SCMP_CMP_EQ\"}]},"
		     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": ["
		     "{\"index\": 0, \"value\": 5, \"op\": \"SCMP_CMP_LE\"},"
		     "{\"index\": 1, \"value\": 5, \"op\": \"SCMP_CMP_GT\"},"
		     "{\"index\": 2, \"value\": 0, \"op\": \"SCMP_CMP_NE\"}]}]}",
		     &o, d);
	CALL2(p, X86_64, "read", 10, 19, ALLOW);
	CALL2(p, X86_64, "read", 9, 19, EPERM_);
	CALL2(p, X86_64, "read", 10, 20, EPERM_);
	CALL3(p, X86_64, "close", 5, 6, 1, ALLOW);
	CALL3(p, X86_64, "close", 6, 6, 1, EPERM_);
	CALL3(p, X86_64, "close", 5, 5, 1, EPERM_);
	CALL3(p, X86_64, "close", 5, 6, 0, EPERM_);
	{
		struct seccomp_data sd;
		memset(&sd, 0, sizeof(sd));
		sd.nr = (int)scmpc_syscall_resolve(X86_64, "write");
		sd.arch = AUDIT_ARCH_X86_64;
		sd.args[5] = UINT64_MAX;
		assert_int_equal(scmpc_policy_eval(p, &sd, NULL), ALLOW);
		sd.args[5] = 0xffffffffULL;
		assert_int_equal(scmpc_policy_eval(p, &sd, NULL), EPERM_);
	}
	scmpc_policy_free(p);

	/* valueTwo with bits outside the mask: runc's libseccomp compares
	 * (arg & 0xff) with 0x1ff & 0xff = 0xff, so getpid(0xff) is denied. */
	scmpc_diag_clear(d);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
		     "{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": ["
		     "{\"index\": 0, \"value\": 255, \"valueTwo\": 511, "
		     "\"op\": \"SCMP_CMP_MASKED_EQ\"}]}]}",
		     &o, d);
	CALL1(p, X86_64, "getpid", 0xff, EPERM_);
	CALL1(p, X86_64, "getpid", 0x1ff, EPERM_);
	CALL1(p, X86_64, "getpid", 0xfe, ALLOW);
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_string_equal(scmpc_diag_warning(d, 0),
			    "syscalls[0].args[0].valueTwo: valueTwo 0x1ff has bits outside the mask "
			    "0xff; compared as 0xff, as runc does");
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void unknown_names(void **state)
{
	(void)state;
	static const char json[] = "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": "
				   "[\"read\", \"nosuchcall\", \"arm_fadvise64_64\"], "
				   "\"action\": \"SCMP_ACT_ALLOW\"}]}";
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = parse_ok(json, &o, d);

	CALL(p, X86_64, "read", ALLOW);
	/* ARM's call is known to libseccomp, just not on x86_64: no warning */
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_string_equal(scmpc_diag_warning(d, 0),
			    "syscalls[0].names[1]: unknown syscall \"nosuchcall\" skipped");
	scmpc_policy_free(p);
	scmpc_diag_free(d);

	o.flags = SCMPC_JSON_STRICT;
	expect_err_opts(json, strlen(json), &o, "syscalls[0].names[1]", "unknown syscall \"nosuchcall\"",
			__LINE__);
}

static void arches_and_flags(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p;

	/* the target comes first and is not repeated */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_ARM\", "
		     "\"SCMP_ARCH_MIPSEL\", \"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X32\"], \"flags\": "
		     "[\"SECCOMP_FILTER_FLAG_TSYNC\", \"SECCOMP_FILTER_FLAG_LOG\", "
		     "\"SECCOMP_FILTER_FLAG_SPEC_ALLOW\", \"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"], "
		     "\"listenerPath\": \"/run/agent.sock\", \"listenerMetadata\": \"x\"}",
		     &o, d);
	check_arches(p, 4, X86_64, ARM, SCMPC_ARCH_MIPSEL, X32);
	assert_int_equal(scmpc_policy_flags(p), 0x1 | 0x2 | 0x4 | 0x20);
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	scmpc_policy_free(p);

	/* libseccomp refuses to mix byte orders in one filter (runc fails to
	 * start the container), and so does scmpc */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_ARM\", "
		   "\"SCMP_ARCH_MIPS\"]}",
		   "architectures[1]",
		   "mips is big-endian and x86_64 is not: one filter cannot serve both byte orders");

	/* duplicate keys: the last one counts, as in Go */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_KILL\", \"defaultAction\": \"SCMP_ACT_LOG\"}", &o, d);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_LOG);
	scmpc_policy_free(p);

	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": []}", &o, d);
	assert_int_equal(scmpc_policy_flags(p), 0);
	check_arches(p, 1, X86_64);
	scmpc_policy_free(p);

	/* aarch64 target: SCMP_ARCH_AARCH64 first even when listed later */
	struct scmpc_json_opts oa = opts_for(AARCH64);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_ARM\", "
		     "\"SCMP_ARCH_AARCH64\"]}",
		     &oa, d);
	check_arches(p, 2, AARCH64, ARM);
	scmpc_policy_free(p);
	scmpc_diag_free(d);

	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_FOO\"]}",
		   "architectures[0]", "unknown architecture \"SCMP_ARCH_FOO\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"x86_64\"]}",
		   "architectures[0]", "unknown architecture \"x86_64\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_NEW_LISTENER\"]}",
		   "flags[0]", "unknown flag \"SECCOMP_FILTER_FLAG_NEW_LISTENER\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerMetadata\": \"x\"}",
		   "listenerMetadata", "listenerMetadata requires listenerPath");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": 5}", "listenerPath",
		   "expected a string, got a number");
}

/* Docker extensions on small profiles. */
static void docker_features(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	struct scmpc_json_opts oa = opts_for(AARCH64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p;
	static const char arch_json[] =
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": ["
		"{\"architecture\": \"SCMP_ARCH_S390X\", \"subArchitectures\": [\"SCMP_ARCH_S390\"]},"
		"{\"architecture\": \"SCMP_ARCH_AARCH64\", \"subArchitectures\": [\"SCMP_ARCH_ARM\", \"SCMP_ARCH_MIPSEL\"]},"
		"{\"architecture\": \"SCMP_ARCH_AARCH64\", \"subArchitectures\": [\"SCMP_ARCH_X86\"]}],"
		"\"syscalls\": ["
		"{\"name\": \"read\", \"action\": \"SCMP_ACT_ALLOW\", \"comment\": \"deprecated form\"},"
		"{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"arches\": [\"amd64\"]}},"
		"{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"arches\": [\"arm64\", \"x86\"]}},"
		"{\"names\": [\"dup\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"minKernel\": \"\"}},"
		"{\"names\": [\"dup2\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"\"}},"
		"{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"minKernel\": \"6.9\"}},"
		"{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"6.9\"}},"
		"{\"names\": [\"getuid\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_KILL\", \"CAP_CHOWN\"]}},"
		"{\"names\": [\"getgid\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_KILL\", \"CAP_SYS_ADMIN\"]}},"
		"{\"names\": [\"geteuid\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"caps\": [\"CAP_SYS_ADMIN\", \"CAP_KILL\"]}},"
		"{\"names\": [\"getegid\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {}, \"excludes\": {}},"
		"{\"names\": [\"getsid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EACCES\", \"errnoRet\": 1},"
		"{\"names\": [\"getpgid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EWOULDBLOCK\"},"
		"{\"names\": [\"getpgrp\"], \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"5\"},"
		"{\"names\": [\"getcwd\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": {\"arches\": [\"s390x\"]}, "
		"\"args\": [{\"index\": 9, \"value\": 0, \"op\": \"SCMP_CMP_BOGUS\"}]}]}";

	p = parse_ok(arch_json, &o, d);
	/* no archMap entry for the x86_64 target: the native ABI alone */
	check_arches(p, 1, X86_64);
	CALL(p, X86_64, "read", ALLOW);
	assert_string_equal(origin_of(p, X86_64, "read", 0, 0, 0), "syscalls[0].name");
	CALL(p, X86_64, "write", ALLOW);
	CALL(p, X86_64, "close", ALLOW);
	CALL(p, X86_64, "dup", ALLOW);		/* "" is version 0.0 in moby */
	CALL(p, X86_64, "dup2", EPERM_);
	CALL(p, X86_64, "getpid", EPERM_);	/* 6.8 < 6.9 */
	CALL(p, X86_64, "getppid", ALLOW);
	CALL(p, X86_64, "getuid", ALLOW);	/* both in Docker's default set */
	CALL(p, X86_64, "getgid", EPERM_);
	CALL(p, X86_64, "geteuid", EPERM_);	/* CAP_KILL is a default cap */
	CALL(p, X86_64, "getegid", ALLOW);
	CALL(p, X86_64, "getsid", SCMPC_ACT_ERRNO(EACCES));	/* errno overrides errnoRet */
	CALL(p, X86_64, "getpgid", SCMPC_ACT_ERRNO(EWOULDBLOCK));
	CALL(p, X86_64, "getpgrp", SCMPC_ACT_ERRNO(5));
	/* the s390x-only entry with a bad operator is dropped before its
	 * contents are interpreted, as in moby + runc */
	CALL(p, X86_64, "getcwd", EPERM_);
	scmpc_policy_free(p);

	/* aarch64: the first matching archMap entry wins */
	p = parse_ok(arch_json, &oa, d);
	check_arches(p, 3, AARCH64, ARM, SCMPC_ARCH_MIPSEL);
	CALL(p, AARCH64, "write", EPERM_);
	CALL(p, AARCH64, "close", EPERM_);
	CALL(p, ARM, "close", EPERM_);
	scmpc_policy_free(p);

	/* capabilities may be spelled without CAP_ and in any case */
	static const char *const caps[] = { "sys_admin", "kill", NULL };
	o.caps = caps;
	p = parse_ok(arch_json, &o, d);
	CALL(p, X86_64, "getgid", ALLOW);
	CALL(p, X86_64, "getuid", EPERM_);
	scmpc_policy_free(p);

	/* the Docker and Podman keys mean nothing in an OCI profile */
	struct scmpc_json_opts oo = opts_for(X86_64);
	oo.flavor = SCMPC_JSON_OCI;
	scmpc_diag_clear(d);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrno\": \"ENOSYS\", \"syscalls\": "
		     "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"arches\": "
		     "[\"s390x\"]}, \"bogus\": 1}]}",
		     &oo, d);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "read", ALLOW);
	assert_true(has_warning(d, "\"defaultErrno\" is a Docker profile field; ignored in an OCI profile"));
	assert_true(has_warning(d, "syscalls[0]: \"includes\" is a Docker profile field; ignored in an OCI "
				   "profile"));
	assert_true(has_warning(d, "syscalls[0]: unknown key \"bogus\" ignored"));
	scmpc_policy_free(p);

	/* a big-endian target: its archMap group, its includes */
	struct scmpc_json_opts os = opts_for(SCMPC_ARCH_S390X);
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": ["
		     "{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_X86\"]},"
		     "{\"architecture\": \"SCMP_ARCH_S390X\", \"subArchitectures\": [\"SCMP_ARCH_S390\"]}],"
		     "\"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
		     "{\"names\": [\"s390_runtime_instr\"], \"action\": \"SCMP_ACT_ALLOW\", "
		     "\"includes\": {\"arches\": [\"s390\", \"s390x\"]}},"
		     "{\"names\": [\"clone\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"arches\": "
		     "[\"s390x\"]}}]}",
		     &os, d);
	check_arches(p, 2, SCMPC_ARCH_S390X, SCMPC_ARCH_S390);
	CALL(p, SCMPC_ARCH_S390X, "read", ALLOW);
	CALL(p, SCMPC_ARCH_S390, "read", ALLOW);
	CALL(p, SCMPC_ARCH_S390X, "s390_runtime_instr", ALLOW);
	CALL(p, SCMPC_ARCH_S390X, "clone", EPERM_);
	assert_int_equal(eval_nr(p, X86_64, 0, 0, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);	/* libseccomp's, which runc keeps */
	scmpc_policy_free(p);

	/* "architectures" with an empty archMap is fine: moby appends one to
	 * the other */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86\"], "
		     "\"archMap\": []}",
		     &o, d);
	check_arches(p, 2, X86_64, I386);
	scmpc_policy_free(p);

	/* Podman's defaultErrno by name */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, \"defaultErrno\": "
		     "\"ENOSYS\"}",
		     &o, d);
	assert_int_equal(scmpc_policy_default_action(p), ENOSYS_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void docker_errors(void **state)
{
	(void)state;
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"name\": \"read\", "
		   "\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
		   "syscalls[0]", "both \"name\" and \"names\" are set; use one");
	/* moby checks name/names before it filters the entry */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"name\": \"read\", "
		   "\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"arches\": "
		   "[\"s390x\"]}}]}",
		   "syscalls[0]", "both \"name\" and \"names\" are set; use one");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86\"], "
		   "\"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\"}]}",
		   "archMap", "both \"architectures\" and \"archMap\" are set; use one");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [{\"architecture\": "
		   "\"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_I386\"]}]}",
		   "archMap[0].subArchitectures[0]", "unknown architecture \"SCMP_ARCH_I386\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [{\"architecture\": 64}]}",
		   "archMap[0].architecture", "expected a string, got a number");

	/* minKernel is validated in every entry, as Go's decoder does */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"minKernel\": \"0.0\"}}]}",
		   "syscalls[0].includes.minKernel", "invalid kernel version \"0.0\": version cannot be 0.0");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"arches\": [\"s390x\"], \"minKernel\": "
		   "\"4.x.1\"}}]}",
		   "syscalls[0].includes.minKernel",
		   "invalid kernel version \"4.x.1\": expected \"<kernel>.<major>\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"4.8.1\"}}]}",
		   "syscalls[0].excludes.minKernel",
		   "invalid kernel version \"4.8.1\": expected \"<kernel>.<major>\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"256.1\"}}]}",
		   "syscalls[0].excludes.minKernel",
		   "invalid kernel version \"256.1\": expected \"<kernel>.<major>\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"4\"}}]}",
		   "syscalls[0].excludes.minKernel",
		   "invalid kernel version \"4\": expected \"<kernel>.<major>\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": \"+4.8\"}}]}",
		   "syscalls[0].excludes.minKernel",
		   "invalid kernel version \"+4.8\": expected \"<kernel>.<major>\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": {\"minKernel\": 4.8}}]}",
		   "syscalls[0].excludes.minKernel", "expected a string, got a non-integer number");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": \"CAP_KILL\"}}]}",
		   "syscalls[0].includes.caps", "expected an array, got a string");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": []}]}",
		   "syscalls[0].includes", "expected an object, got an array");

	/* errno names */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EFOO\"}]}",
		   "syscalls[0].errno", "unknown errno name \"EFOO\"");
	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrno\": \"5000\"}", "defaultErrno",
		      "defaultErrno 5000 is out of range 0-4095 (the kernel caps errno at 4095)");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrno\": \"EPERM\"}", "defaultErrno",
		   "defaultErrno needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not SCMP_ACT_ALLOW");
}

/* ------------------------------------------------------- error paths */

static void malformed_json(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);

	/* the tokenizer stops at the newline after "tru" */
	EXPECT_ERR("{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n  \"syscalls\": tru\n}", "line 3, column 18",
		   "invalid JSON: boolean expected");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\"", "line 1, column 35",
		   "invalid JSON: unexpected end of input");
	EXPECT_ERR("", "line 1, column 1", "invalid JSON: unexpected end of input");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\"} x", "line 1, column 37",
		   "invalid JSON: unexpected 'x'");
	/* what json-c lets through and Go's decoder does not */
	EXPECT_ERR("{'defaultAction': \"SCMP_ACT_ALLOW\"}", "line 1, column 2",
		   "invalid JSON: expected a double-quoted key");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": NaN}", "line 1, column 56",
		   "invalid JSON: unexpected 'N'");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_\tACT_ALLOW\"}", "line 1, column 25",
		   "invalid JSON: control character in a string");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": 1.}", "line 1, column 58",
		   "invalid JSON: invalid number");
	/* columns count characters, not bytes */
	EXPECT_ERR("{\"comment\": \"\xc3\xa9\xc3\xa9\", x}", "line 1, column 19",
		   "invalid JSON: quoted object property name expected");
	expect_err_opts("{\"defaultAction\":\0}", 19, &o, "line 1, column 18",
			"invalid JSON: NUL byte in the input", __LINE__);

	/* nesting far past any profile's */
	char deep[400];
	memset(deep, '[', 200);
	memset(deep + 200, ']', 200);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_policy_from_json(deep, sizeof(deep), &o, &p, d), -EINVAL);
	assert_null(p);
	assert_string_equal(scmpc_diag_message(d), "invalid JSON: nesting too deep");
	assert_non_null(strstr(scmpc_diag_where(d), "line 1, column "));
	scmpc_diag_free(d);

	EXPECT_ERR("[]", "", "expected a JSON object at the top level, got an array");
	EXPECT_ERR("42", "", "expected a JSON object at the top level, got a number");
}

static void field_errors(void **state)
{
	(void)state;
#define RULE(args) "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], " \
	"\"action\": \"SCMP_ACT_ALLOW\", \"args\": [" args "]}]}"

	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_XX\"}"), "syscalls[0].args[0].op",
		   "unknown operator \"SCMP_CMP_XX\"");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}, "
			"{\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[1].index", "argument index 6 is not 0-5");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": \"1\", \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got a string");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": -1, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got -1");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1.5, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got 1.5");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1e3, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got 1e3");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": true, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got a boolean");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 18446744073709551616, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "18446744073709551616 does not fit in 64 bits");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"valueTwo\": 100000000000000000000000, "
			"\"op\": \"SCMP_CMP_MASKED_EQ\"}"),
		   "syscalls[0].args[0].valueTwo", "100000000000000000000000 does not fit in 64 bits");
	EXPECT_ERR(RULE("{\"index\": -1, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].index", "expected an unsigned integer, got -1");
	/* quoted as written: json-c saturates below INT64_MIN and reads -0 as 0,
	 * which Go's ParseUint (runc, Docker) refuses */
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": -9223372036854775809, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value", "expected an unsigned integer, got -9223372036854775809");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"valueTwo\": -0, \"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].valueTwo",
		   "expected an unsigned integer, got -0 (runc and Docker refuse a minus sign even on zero)");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": -123456789012345678901234567890123456789012, "
			"\"op\": \"SCMP_CMP_EQ\"}"),
		   "syscalls[0].args[0].value",
		   "expected an unsigned integer, got -1234567890123456789... (42 digits)");
	EXPECT_ERR(RULE("{\"value\": 1, \"op\": \"SCMP_CMP_EQ\"}"), "syscalls[0].args[0].index",
		   "missing required \"index\"");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1}"), "syscalls[0].args[0].op", "missing required \"op\"");
	EXPECT_ERR(RULE("{\"index\": 0, \"op\": \"SCMP_CMP_EQ\"}"), "syscalls[0].args[0].value",
		   "missing required \"value\"");
	EXPECT_ERR(RULE("1"), "syscalls[0].args[0]", "expected an object, got a number");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"op\": 1}"), "syscalls[0].args[0].op",
		   "expected a string, got a number");
#undef RULE

	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		      "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 5000}]}",
		      "syscalls[0].errnoRet", "errnoRet 5000 is out of range 0-4095 (the kernel caps errno at 4095)");
	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		      "\"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 65536}]}",
		      "syscalls[0].errnoRet", "errnoRet 65536 is out of range 0-65535 (TRACE data is 16 bits)");
	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 4096}", "defaultErrnoRet",
		      "defaultErrnoRet 4096 is out of range 0-4095 (the kernel caps errno at 4095)");
	/* 65549 is ERRNO(13) in 16 bits: refused, not cut */
	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 65549}", "defaultErrnoRet",
		      "defaultErrnoRet 65549 is out of range 0-4095 (the kernel caps errno at 4095)");
	EXPECT_ERANGE("{\"defaultAction\": \"SCMP_ACT_TRACE\", \"defaultErrnoRet\": 65549}", "defaultErrnoRet",
		      "defaultErrnoRet 65549 is out of range 0-65535 (TRACE data is 16 bits)");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": 1}", "defaultErrnoRet",
		   "defaultErrnoRet needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not SCMP_ACT_ALLOW");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_KILL\", \"defaultErrnoRet\": 0}", "defaultErrnoRet",
		   "defaultErrnoRet needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not SCMP_ACT_KILL");
	/* json-c reads null as no object with the error "success" */
	EXPECT_ERR("null", "", "expected a JSON object at the top level, got null");
	EXPECT_ERR(" null\n", "", "expected a JSON object at the top level, got null");
	EXPECT_ERR("1", "", "expected a JSON object at the top level, got a number");
	EXPECT_ERR("\"x\"", "", "expected a JSON object at the top level, got a string");
	EXPECT_ERR("true", "", "expected a JSON object at the top level, got a boolean");
	EXPECT_ERR("null x", "line 1, column 6", "invalid JSON: unexpected 'x'");
	EXPECT_ERR("-0", "", "expected a JSON object at the top level, got a number");
	EXPECT_ERR("{}", "defaultAction", "missing required \"defaultAction\"");
	EXPECT_ERR("{\"syscalls\": []}", "defaultAction", "missing required \"defaultAction\"");
	EXPECT_ERR("{\"defaultAction\": \"\"}", "defaultAction", "missing required \"defaultAction\"");
	EXPECT_ERR("{\"defaultAction\": null}", "defaultAction", "missing required \"defaultAction\"");
	EXPECT_ERR("{\"defaultAction\": 1}", "defaultAction", "expected a string, got a number");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_FOO\"}", "defaultAction", "unknown action \"SCMP_ACT_FOO\"");
	EXPECT_ERR("{\"defaultAction\": \"scmp_act_allow\"}", "defaultAction",
		   "unknown action \"scmp_act_allow\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_NOTIFY\"}", "defaultAction",
		   "SCMP_ACT_NOTIFY cannot be the default action");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": {}}", "syscalls",
		   "expected an array, got an object");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [null]}", "syscalls[0]",
		   "expected an object, got null");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": \"read\", "
		   "\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "syscalls[0].names", "expected an array, got a string");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", 3], "
		   "\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "syscalls[0].names[1]", "expected a string, got a number");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", \"\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "syscalls[0].names[1]", "empty syscall name");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\\u0000x\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "syscalls[0].names[0]", "string contains a NUL character");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "syscalls[0].names", "missing required \"names\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"]}]}",
		   "syscalls[0].action", "missing required \"action\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_FOO\"}]}",
		   "syscalls[0].action", "unknown action \"SCMP_ACT_FOO\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": \"1\"}]}",
		   "syscalls[0].errnoRet", "expected an unsigned integer, got a string");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": \"SCMP_ARCH_X86\"}",
		   "architectures", "expected an array, got a string");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [1]}", "flags[0]",
		   "expected a string, got a number");
}

static void api_edges(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	struct scmpc_json_opts o = opts_for(X86_64);
	static const char json[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\"}";

	assert_int_equal(scmpc_policy_from_json(NULL, 5, &o, &p, d), -EINVAL);
	assert_int_equal(scmpc_policy_from_json(json, strlen(json), &o, NULL, d), -EINVAL);
	o.flags = 0x100;
	assert_int_equal(scmpc_policy_from_json(json, strlen(json), &o, &p, d), -EINVAL);
	o = opts_for((enum scmpc_arch)99);
	assert_int_equal(scmpc_policy_from_json(json, strlen(json), &o, &p, d), -EINVAL);
	assert_null(p);

	/* NULL options: native target, running kernel; no diag object */
	if (scmpc_arch_native() != SCMPC_ARCH_NONE) {
		assert_int_equal(scmpc_policy_from_json(json, strlen(json), NULL, &p, NULL), 0);
		check_arches(p, 1, scmpc_arch_native());
		scmpc_policy_free(p);
	}
	/* an older caller's shorter struct: the fields past sz read as 0 */
	o = opts_for(AARCH64);
	o.sz = offsetof(struct scmpc_json_opts, arch);
	o.arch = AARCH64;
	if (scmpc_arch_native() != SCMPC_ARCH_NONE) {
		assert_int_equal(scmpc_policy_from_json(json, strlen(json), &o, &p, d), 0);
		check_arches(p, 1, scmpc_arch_native());
		scmpc_policy_free(p);
	}
	/* errors leave no policy behind and keep the diag reusable */
	scmpc_diag_clear(d);
	assert_int_equal(scmpc_policy_from_json("{", 1, NULL, &p, d), -EINVAL);
	assert_null(p);
	scmpc_diag_free(d);
}

/* Every prefix and a spread of byte flips of a real profile must fail or
 * succeed cleanly (valgrind and ASan make "cleanly" checkable). */
static void hostile_input(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp_profile("podman-default.json", &len);
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	static const char junk[] = { '{', '}', '[', ']', '"', ':', ',', '0', '-', 'x', '\\', '\n' };

	for (size_t cut = 0; cut < len; cut += 53) {
		scmpc_policy *p = NULL;
		int r = scmpc_policy_from_json(text, cut, &o, &p, d);
		assert_true(r == -EINVAL);
		assert_null(p);
	}
	for (size_t i = 7, k = 0; i < len; i += 97, k++) {
		char saved = text[i];
		scmpc_policy *p = NULL;
		text[i] = junk[k % sizeof(junk)];
		int r = scmpc_policy_from_json(text, len, &o, &p, d);
		assert_true(r == 0 || r == -EINVAL);
		assert_true((r == 0) == (p != NULL));
		scmpc_policy_free(p);
		text[i] = saved;
	}
	free(text);
	scmpc_diag_free(d);
}

/* ------------------------------------------------- the text around json-c */

#define DUP(path) path ": duplicate key; the last value counts"

/* json_scan_check() accepts JSON and warns exactly WANT (NULL-ended), in
 * that order. */
static void expect_warnings(const char *json, const char *const *want, int line)
{
	scmpc_diag *d = scmpc_diag_new();
	size_t n = 0;
	int r = json_scan_check(json, strlen(json), "", d);

	while (want[n])
		n++;
	if (r || scmpc_diag_warning_count(d) != n) {
		print_error("line %d: returned %d (%s), %zu warnings, want 0 and %zu:\n", line, r,
			    scmpc_diag_message(d), scmpc_diag_warning_count(d), n);
		for (size_t i = 0; i < scmpc_diag_warning_count(d); i++)
			print_error("    %s\n", scmpc_diag_warning(d, i));
		fail();
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(scmpc_diag_warning(d, i), want[i])) {
			print_error("line %d: warning %zu is \"%s\"\n          want \"%s\"\n", line, i,
				    scmpc_diag_warning(d, i), want[i]);
			fail();
		}
	}
	scmpc_diag_free(d);
}

#define WARNS(json, ...) expect_warnings(json, (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)
#define NO_WARNINGS(json) expect_warnings(json, (const char *const[]){ NULL }, __LINE__)

static void duplicate_keys(void **state)
{
	(void)state;

	/* at any depth, including keys no profile has */
	WARNS("{\"a\": {\"b\": {\"c\": 1, \"c\": 2}}}", DUP("a.b.c"));
	WARNS("{\"x\": [{\"k\": 1}, {\"k\": 1, \"j\": 2, \"k\": 3}]}", DUP("x[1].k"));
	WARNS("[[], [{}, {\"k\": [{\"m\": 0, \"m\": 0}]}]]", DUP("[1][1].k[0].m"));
	/* one warning per key, however often it repeats */
	WARNS("{\"a\": 1, \"a\": 2, \"a\": 3}", DUP("a"));
	/* text order, although the inner object is complete first */
	WARNS("{\"a\": 1, \"a\": {\"b\": 1, \"b\": 2}}", DUP("a"), DUP("a.b"));
	WARNS("{\"z\": {\"q\": 1, \"q\": 2}, \"z\": 3}", DUP("z.q"), DUP("z"));

	/* keys are compared as Go decodes them */
	WARNS("{\"a\": 1, \"\\u0061\": 2}", DUP("a"));
	WARNS("{\"\\/\": 1, \"/\": 2}", DUP("/"));
	WARNS("{\"a\\\"b\": 1, \"a\\u0022b\": 2}", DUP("a\"b"));
	WARNS("{\"\\ud83d\\ude00\": 1, \"\xf0\x9f\x98\x80\": 2}", DUP("\xf0\x9f\x98\x80"));
	WARNS("{\"\\u00e9\": 1, \"\xc3\xa9\": 2}", DUP("\xc3\xa9"));
	/* Go turns every lone surrogate into U+FFFD, so these are one key */
	WARNS("{\"\\ud800\": 1, \"\\udc00\": 2}", DUP("\xef\xbf\xbd"));
	/* control characters stay out of the message; "" stays visible */
	WARNS("{\"a\\nb\": 1, \"a\\u000ab\": 2}", DUP("a?b"));
	WARNS("{\"o\": {\"\": 1, \"\": 2}}", DUP("o.\"\""));
	WARNS("{\"\": 1, \"\": 2}", DUP("\"\""));

	/* the same key in different objects is no duplicate */
	NO_WARNINGS("{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}");
	NO_WARNINGS("{\"k\": {\"k\": {\"k\": 1}}}");
	NO_WARNINGS("[{\"k\": 1}, {\"k\": 2}, {\"k\": 3}]");
	NO_WARNINGS("{\"a\": \"a\", \"b\": \"a\", \"c\": [\"a\", \"a\"]}");
	/* nor are keys that only look alike */
	NO_WARNINGS("{\"a\": 1, \"A\": 2, \"a \": 3, \"\\u00e9\": 4, \"e\\u0301\": 5, \"a\\u0000\": 6}");
	NO_WARNINGS("{\"ab\": 1, \"a\": {\"b\": 2}, \"a.b\": 3}");

	/* a duplicate is worth a warning even where another error follows */
	scmpc_diag *d = scmpc_diag_new();
	const char *big = "{\"v\": 1, \"v\": 18446744073709551616}";
	assert_int_equal(json_scan_check(big, strlen(big), "", d), -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "v");
	assert_string_equal(scmpc_diag_message(d), "18446744073709551616 does not fit in 64 bits");
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_string_equal(scmpc_diag_warning(d, 0), DUP("v"));
	/* but not in text that is not JSON: the syntax error is the news */
	scmpc_diag_clear(d);
	const char *nan = "{\"v\": 1, \"v\": NaN}";
	assert_int_equal(json_scan_check(nan, strlen(nan), "", d), -EINVAL);
	assert_string_equal(scmpc_diag_message(d), "invalid JSON: unexpected 'N'");
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	scmpc_diag_free(d);
}

/* Twenty duplicates are listed, the rest counted; the twenty are the first
 * in the text even when later ones are found first. */
static void duplicate_keys_bounded(void **state)
{
	(void)state;
	char json[2048];
	size_t n = (size_t)snprintf(json, sizeof(json), "{\"a\": 1, \"a\": 2, \"x\": [");

	for (int i = 0; i < 25; i++)
		n += (size_t)snprintf(json + n, sizeof(json) - n, "%s{\"k\": 1, \"k\": 2}", i ? ", " : "");
	snprintf(json + n, sizeof(json) - n, "]}");
	WARNS(json, DUP("a"), DUP("x[0].k"), DUP("x[1].k"), DUP("x[2].k"), DUP("x[3].k"), DUP("x[4].k"),
	      DUP("x[5].k"), DUP("x[6].k"), DUP("x[7].k"), DUP("x[8].k"), DUP("x[9].k"), DUP("x[10].k"),
	      DUP("x[11].k"), DUP("x[12].k"), DUP("x[13].k"), DUP("x[14].k"), DUP("x[15].k"),
	      DUP("x[16].k"), DUP("x[17].k"), DUP("x[18].k"),
	      "6 more duplicate keys; the last value of each counts");
}

/* 200 000 keys in one object: compared pair by pair that would be 2e10
 * comparisons; sorted it is a blink, even under valgrind. */
static void duplicate_keys_large_object(void **state)
{
	(void)state;
	enum { KEYS = 200000 };
	size_t cap = (size_t)KEYS * 20 + 64, n = 0;
	char *json = malloc(cap);
	struct timespec t0, t1;

	assert_non_null(json);
	json[n++] = '{';
	for (int i = 0; i < KEYS; i++)
		n += (size_t)snprintf(json + n, cap - n, "%s\"k%d\": %d", i ? ", " : "", i, i);
	json[n++] = '}';
	json[n] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	NO_WARNINGS(json);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 20);

	/* and the duplicates of a large object come in text order too */
	n -= 1;
	snprintf(json + n, cap - n, ", \"k500\": 0, \"k7\": 0, \"k500\": 1}");
	WARNS(json, DUP("k500"), DUP("k7"));
	free(json);
}

/* ASCII text in UTF-16 or UTF-32, in either byte order, with or without a
 * byte order mark.  *LEN is the size in bytes. */
static char *widen(const char *text, size_t width, bool le, bool bom, size_t *len)
{
	size_t n = strlen(text) + bom, k = 0;
	char *out = calloc(n, width);

	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		unsigned ch = bom ? (i ? (unsigned char)text[i - 1] : 0xfeffU) : (unsigned char)text[i];
		for (size_t b = 0; b < width; b++) {
			size_t shift = 8 * (le ? b : width - 1 - b);
			out[k++] = (char)((ch >> shift) & 0xff);
		}
	}
	*len = k;
	return out;
}

static void encodings(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	static const char profile[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\"}\n";
	static const struct {
		size_t width;
		const char *msg;
	} wide[] = {
		{ 2, "the file is UTF-16; save it as UTF-8" },
		{ 4, "the file is UTF-32; save it as UTF-8" },
	};

	for (size_t w = 0; w < sizeof(wide) / sizeof(wide[0]); w++) {
		for (int le = 0; le < 2; le++) {
			for (int bom = 0; bom < 2; bom++) {
				size_t len;
				char *text = widen(profile, wide[w].width, le, bom, &len);
				expect_err_opts(text, len, &o, "", wide[w].msg, __LINE__);
				/* even when the length would suit a filter */
				assert_false(json_is_filter(text, len & ~(size_t)7));
				free(text);
			}
		}
	}
	/* a short file whose two first characters show it */
	expect_err_opts("{\0}\0", 4, &o, "", "the file is UTF-16; save it as UTF-8", __LINE__);
	expect_err_opts("\0{\0}", 4, &o, "", "the file is UTF-16; save it as UTF-8", __LINE__);

	/* UTF-8 with a stray NUL is still UTF-8 */
	expect_err_opts("{\0 }", 4, &o, "line 1, column 2", "invalid JSON: NUL byte in the input", __LINE__);
	expect_err_opts("{\"a\":\0 }", 8, &o, "line 1, column 6", "invalid JSON: NUL byte in the input",
			__LINE__);

	/* a compiled filter in either byte order: ld [0]; div #0; ret A */
	static const char filter_le[] = { 0x20, 0, 0, 0, 0, 0, 0, 0, 0x34, 0, 0, 0, 0, 0, 0, 0,
					  0x16, 0, 0, 0, 0, 0, 0, 0 };
	static const char filter_be[] = { 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0x34, 0, 0, 0, 0, 0, 0,
					  0, 0x16, 0, 0, 0, 0, 0, 0 };
	/* ld [4] (the arch); ret #0x7fff0000 */
	static const char filter_arch[] = { 0x20, 0, 0, 0, 4, 0, 0, 0, 0x06, 0, 0, 0, 0, 0, (char)0xff, 0x7f };
	const char *msg = "not a JSON policy (it looks like a compiled filter)";
	expect_err_opts(filter_le, sizeof(filter_le), &o, "", msg, __LINE__);
	expect_err_opts(filter_be, sizeof(filter_be), &o, "", msg, __LINE__);
	expect_err_opts(filter_arch, sizeof(filter_arch), &o, "", msg, __LINE__);
	assert_true(json_is_filter(filter_le, sizeof(filter_le)));
	/* not whole instructions */
	assert_false(json_is_filter(filter_le, sizeof(filter_le) - 1));
	assert_false(json_is_filter(filter_le, 0));
	assert_false(json_is_filter(profile, 32));
}

/* scmpc_input_kind(): what a caller taking profiles and filters alike is
 * given, told apart as the JSON front end tells it. */
static void input_kinds(void **state)
{
	(void)state;
	static const char filter[] = { 0x20, 0, 0, 0, 4, 0, 0, 0, 0x06, 0, 0, 0, 0, 0, (char)0xff,
				       0x7f };
	size_t len;
	char *wide = widen("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}", 2, 1, 0, &len);

	assert_int_equal(scmpc_input_kind("{}", 2), SCMPC_INPUT_JSON);
	assert_int_equal(scmpc_input_kind(" \r\n\t{", 5), SCMPC_INPUT_JSON);
	assert_int_equal(scmpc_input_kind("\xef\xbb\xbf\n{}", 6), SCMPC_INPUT_JSON);
	assert_int_equal(scmpc_input_kind(wide, len), SCMPC_INPUT_WIDE_TEXT);
	assert_int_equal(scmpc_input_kind(filter, sizeof(filter)), SCMPC_INPUT_FILTER);
	assert_int_equal(scmpc_input_kind("[]", 2), SCMPC_INPUT_OTHER);
	assert_int_equal(scmpc_input_kind("{\0}", 3), SCMPC_INPUT_OTHER);
	assert_int_equal(scmpc_input_kind("", 0), SCMPC_INPUT_OTHER);
	assert_int_equal(scmpc_input_kind(NULL, 4), SCMPC_INPUT_OTHER);
	free(wide);
}

/* scmpc_json_default_caps() is the set a profile is read with when the
 * caller names none. */
/* Which default set a profile is read with: Podman's for a profile that
 * names errnos as containers/common's types do, Docker's otherwise, the
 * one asked for when caps_from says; options that contradict refused. */
static void caps_detection(void **state)
{
	(void)state;
	/* entry 0 needs CAP_AUDIT_WRITE (Docker's, not Podman's), entry 1
	 * CAP_NET_RAW (likewise) */
	static const char *const texts[] = {
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
		"{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
		" \"includes\": {\"caps\": [\"CAP_AUDIT_WRITE\"]}}]}",
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrno\": \"EPERM\", \"syscalls\": ["
		"{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
		" \"includes\": {\"caps\": [\"CAP_AUDIT_WRITE\"]}}]}",
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
		"{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EPERM\"},"
		"{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
		" \"includes\": {\"caps\": [\"CAP_AUDIT_WRITE\"]}}]}",
	};
	static const char *const mine[] = { "CAP_CHOWN", NULL };
	static const bool podman[] = { false, true, true };
	scmpc_diag *d = scmpc_diag_new();

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		for (int from = SCMPC_JSON_CAPS_AUTO; from <= SCMPC_JSON_CAPS_PODMAN; from++) {
			struct scmpc_json_opts o = opts_for(X86_64);
			o.caps_from = (enum scmpc_json_caps)from;
			o.flags = SCMPC_JSON_NO_ENOSYS;	/* runc's stub would answer ENOSYS */
			scmpc_policy *p = parse_ok(texts[i], &o, d);
			bool pod = from == SCMPC_JSON_CAPS_AUTO ? podman[i] : from == SCMPC_JSON_CAPS_PODMAN;
			CALL(p, X86_64, "socket", pod ? EPERM_ : ALLOW);
			scmpc_policy_free(p);
		}
	}

	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p = NULL;
	o.caps_from = (enum scmpc_json_caps)3;
	assert_int_equal(scmpc_policy_from_json(texts[0], strlen(texts[0]), &o, &p, d), -EINVAL);
	o = opts_for(X86_64);
	o.caps = mine;
	o.caps_add = mine;
	assert_int_equal(scmpc_policy_from_json(texts[0], strlen(texts[0]), &o, &p, d), -EINVAL);
	assert_non_null(strstr(scmpc_diag_message(d), "set caps alone"));
	o.caps_add = NULL;
	o.caps_from = SCMPC_JSON_CAPS_PODMAN;
	assert_int_equal(scmpc_policy_from_json(texts[0], strlen(texts[0]), &o, &p, d), -EINVAL);
	assert_null(p);
	scmpc_diag_free(d);
}

/* containers.conf's default_capabilities as containers/common reads them:
 * the [containers] table's key only, past comments, other tables, nested
 * arrays and strings of every form; the packaged file's list is Podman's
 * documented one. */
static void containers_conf(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	char **caps = NULL;

	static const char text[] =
		"# default_capabilities = [\"SYS_ADMIN\"]\n"
		"default_capabilities = [\"NOT_THIS_TABLE\"]\n"
		"[engine]\n"
		"default_capabilities = [\"NOR_THIS\"]\n"
		"x = [[1, 2], [\"]\"], {a = \"[containers]\"}]\n"
		"y = \"\"\"\n[containers]\ndefault_capabilities = [\"NOR_IN_A_STRING\"]\n\"\"\"\n"
		"[ containers ]\n"
		"devices = [] # ]\n"
		"default_capabilities = [\n"
		"  \"CHOWN\",   # the first\n"
		"  'KILL',\n"
		"  \"SYS_\\\"CHROOT\",\n"
		"]\n"
		"[[containers.more]]\n"
		"default_capabilities = [\"NOR_IN_AN_ARRAY_OF_TABLES\"]\n";
	assert_int_equal(scmpc_containers_conf_caps(text, strlen(text), &caps, d), 3);
	assert_string_equal(caps[0], "CHOWN");
	assert_string_equal(caps[1], "KILL");
	assert_string_equal(caps[2], "SYS_\"CHROOT");
	assert_null(caps[3]);
	free(caps);

	/* unset, or empty: Podman's built-in default */
	static const char empty[] = "[containers]\ndefault_capabilities = [ ]\n";
	caps = (char **)1;
	assert_int_equal(scmpc_containers_conf_caps(empty, strlen(empty), &caps, d), 0);
	assert_null(caps);
	assert_int_equal(scmpc_containers_conf_caps("", 0, &caps, d), 0);
	assert_null(caps);

	static const char *const bad[] = {
		"[containers]\ndefault_capabilities = [\"CHOWN\", 3]\n",
		"[containers]\ndefault_capabilities = \"CHOWN\"\n",
		"[containers]\n\ndefault_capabilities = [\"CHOWN\"\n",
		"[containers\n",
		"[containers]\nx = \"open\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(scmpc_containers_conf_caps(bad[i], strlen(bad[i]), &caps, d), -EINVAL);
		assert_null(caps);
		assert_non_null(strstr(scmpc_diag_where(d), "line "));
	}
	assert_string_equal(scmpc_diag_where(d), "line 2");
	assert_int_equal(scmpc_containers_conf_caps(NULL, 1, &caps, d), -EINVAL);

	/* the packaged file (golang-github-containers-common) against the
	 * built-in list */
	char *pkg = NULL;
	size_t len = 0;
	if (testutil_load_file("/usr/share/containers/containers.conf", &pkg, &len) == 0) {
		const char *const *builtin = scmpc_json_podman_caps();
		int n = scmpc_containers_conf_caps(pkg, len, &caps, d);
		assert_int_equal(n, 11);
		for (int i = 0; i < n; i++) {
			assert_non_null(builtin[i]);
			assert_string_equal(caps[i], builtin[i] + 4);
		}
		assert_null(builtin[n]);
		free(caps);
		free(pkg);
	}
	scmpc_diag_free(d);
}

/* Warnings carry their kind: alike ones share it whatever their names
 * and paths, others do not; NULL past the last. */
static void warning_kinds(void **state)
{
	(void)state;
	static const char text[] =
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"bogus\": 1, \"syscalls\": ["
		"{\"action\": \"SCMP_ACT_ALLOW\", \"names\": [\"no_such_a\", \"read\"]},"
		"{\"action\": \"SCMP_ACT_ALLOW\", \"names\": [\"no_such_b\"]}]}";
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = parse_ok(text, &o, d);
	const char *k[3];

	assert_int_equal(scmpc_diag_warning_count(d), 3);
	for (size_t i = 0; i < 3; i++)
		assert_non_null(k[i] = scmpc_diag_warning_kind(d, i));
	assert_null(scmpc_diag_warning_kind(d, 3));
	assert_null(scmpc_diag_warning_kind(NULL, 0));
	assert_non_null(strstr(scmpc_diag_warning(d, 1), "no_such_a"));
	assert_string_equal(k[1], "unknown syscall \"%s\" skipped");
	assert_string_equal(k[1], k[2]);
	assert_string_not_equal(k[0], k[1]);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void default_caps(void **state)
{
	(void)state;
	const char *const *caps = scmpc_json_default_caps();
	size_t n = 0;
	bool chown = false, admin = false;

	for (; caps[n]; n++) {
		chown |= !strcmp(caps[n], "CAP_CHOWN");
		admin |= !strcmp(caps[n], "CAP_SYS_ADMIN");
	}
	assert_int_equal(n, 14);
	assert_true(chown && !admin);

	/* a profile's includes.caps: CAP_CHOWN selects, CAP_SYS_ADMIN does not */
	static const char profile[] =
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
		"{\"names\": [\"chown\"], \"action\": \"SCMP_ACT_ALLOW\","
		" \"includes\": {\"caps\": [\"CAP_CHOWN\"]}},"
		"{\"names\": [\"mount\"], \"action\": \"SCMP_ACT_ALLOW\","
		" \"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}}]}";
	struct scmpc_json_opts with = opts_for(X86_64), without = opts_for(X86_64);
	scmpc_policy *a = NULL, *b = NULL;

	with.caps = caps;
	without.caps = NULL;
	assert_int_equal(scmpc_policy_from_json(profile, strlen(profile), &with, &a, NULL), 0);
	assert_int_equal(scmpc_policy_from_json(profile, strlen(profile), &without, &b, NULL), 0);
	assert_int_equal(scmpc_policy_rule_count(a), 1);
	assert_int_equal(scmpc_policy_rule_count(b), 1);
	scmpc_policy_free(a);
	scmpc_policy_free(b);
}

static void comments_and_commas(void **state)
{
	(void)state;

	/* comments, wherever they stand */
	EXPECT_ERR("{\n  // deny by default\n  \"defaultAction\": \"SCMP_ACT_ERRNO\"\n}", "line 2, column 3",
		   "invalid JSON: comments are not allowed");
	EXPECT_ERR("/* profile */ {\"defaultAction\": \"SCMP_ACT_ALLOW\"}", "line 1, column 1",
		   "invalid JSON: comments are not allowed");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\" /* why */}", "line 1, column 36",
		   "invalid JSON: comments are not allowed");
	EXPECT_ERR("{\"defaultAction\": /* why */ \"SCMP_ACT_ALLOW\"}", "line 1, column 19",
		   "invalid JSON: comments are not allowed");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [ // none\n]}",
		   "line 1, column 56", "invalid JSON: comments are not allowed");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}\n// end\n", "line 2, column 1",
		   "invalid JSON: comments are not allowed");
	/* a slash alone is no comment */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\" / }", "line 1, column 36",
		   "invalid JSON: object value separator ',' expected");

	/* trailing commas, in arrays and objects, across lines */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\",]}",
		   "line 1, column 74", "invalid JSON: unexpected ']' after ','");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\",}", "line 1, column 36",
		   "invalid JSON: unexpected '}' after ','");
	EXPECT_ERR("{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n}", "line 3, column 1",
		   "invalid JSON: unexpected '}' after ','");
	EXPECT_ERR("{\r\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\r\n  \"syscalls\": [\r\n  ],\r\n}\r\n",
		   "line 5, column 1", "invalid JSON: unexpected '}' after ','");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", ], "
		   "\"action\": \"SCMP_ACT_ERRNO\"}]}",
		   "line 1, column 69", "invalid JSON: unexpected ']' after ','");
	/* a comma with nothing before it is another mistake */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [,]}", "line 1, column 55",
		   "invalid JSON: unexpected ','");
}

/* "unexpected character" names the character, and invisible ones by
 * number. */
static void unexpected_characters(void **state)
{
	(void)state;

	EXPECT_ERR("hello", "line 1, column 1", "invalid JSON: unexpected 'h'");
	EXPECT_ERR("{\"defaultAction\": \xe2\x80\x9cSCMP_ACT_ALLOW\xe2\x80\x9d}", "line 1, column 19",
		   "invalid JSON: unexpected '\xe2\x80\x9c' (U+201C)");
	EXPECT_ERR("{\"defaultAction\":\xc2\xa0\"SCMP_ACT_ALLOW\"}", "line 1, column 18",
		   "invalid JSON: unexpected U+00A0");
	/* anywhere but at the start (see byte_order_mark()) */
	EXPECT_ERR("{\"defaultAction\":\xef\xbb\xbf\"SCMP_ACT_ALLOW\"}", "line 1, column 18",
		   "invalid JSON: unexpected byte order mark (U+FEFF)");
	EXPECT_ERR("{\"defaultAction\": \xff}", "line 1, column 19", "invalid JSON: unexpected byte 0xff");
	EXPECT_ERR("{\"defaultAction\": \x01}", "line 1, column 19", "invalid JSON: unexpected byte 0x01");
	EXPECT_ERR("{\"defaultAction\": 'SCMP_ACT_ALLOW'}", "line 1, column 19",
		   "invalid JSON: unexpected \"'\"");
	/* json-c takes Infinity; Go does not */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": Infinity}",
		   "line 1, column 56", "invalid JSON: unexpected 'I'");
}

/* A UTF-8 byte order mark at the start is invisible in an editor: taken
 * off, by the library as by scmp-compile (which used to take one off
 * itself while the library refused it), however many there are, and
 * positions count from past it. */
static void byte_order_mark(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	static const char *const texts[] = {
		"\xef\xbb\xbf{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
		"[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
		"\xef\xbb\xbf\xef\xbb\xbf {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
		"[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = NULL;
		assert_int_equal(scmpc_policy_from_json(texts[i], strlen(texts[i]), &o, &p, d), 0);
		assert_int_equal(scmpc_diag_warning_count(d), 0);
		CALL(p, X86_64, "read", SCMPC_ACT_ALLOW);
		CALL(p, X86_64, "write", EPERM_);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
	/* the quote is the 19th character after the mark, as without it */
	EXPECT_ERR("\xef\xbb\xbf{\"defaultAction\": 'SCMP_ACT_ALLOW'}", "line 1, column 19",
		   "invalid JSON: unexpected \"'\"");
	EXPECT_ERR("\xef\xbb\xbf", "line 1, column 1", "invalid JSON: unexpected end of input");
}

/* ENTRIES rules of three conditions each, one entry a line from line 2 on:
 * {"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [...]} */
static char *many_entries(size_t entries, size_t *len)
{
	size_t cap = entries * 240 + 256, n = 0;
	char *json = malloc(cap);

	assert_non_null(json);
	n += (size_t)snprintf(json, cap, "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n");
	for (size_t i = 0; i < entries; i++)
		n += (size_t)snprintf(json + n, cap - n,
				      "%s{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": ["
				      "{\"index\": 0, \"value\": %zu, \"op\": \"SCMP_CMP_EQ\"}, "
				      "{\"index\": 1, \"value\": %zu, \"op\": \"SCMP_CMP_NE\"}, "
				      "{\"index\": 2, \"value\": 4096, \"op\": \"SCMP_CMP_LE\"}]}",
				      i ? ",\n" : "", i * 7919, i);
	n += (size_t)snprintf(json + n, cap - n, "\n]}\n");
	*len = n;
	return json;
}

/* kB in the line "FIELD: N kB" of /proc/self/status, or -1. */
static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)) && line[strlen(field)] == ':')
			kb = strtol(line + strlen(field) + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* The peak can be measured: no sanitizer or valgrind holding freed memory,
 * and a kernel that resets the peak (Linux 4.0, /proc/PID/clear_refs). */
static bool peak_measurable(void)
{
	const char *pre = getenv("LD_PRELOAD");
	FILE *f;
	bool ok;

#if defined(__SANITIZE_ADDRESS__)
	return false;
#endif
	if (pre && strstr(pre, "vgpreload"))
		return false;
	if (!(f = fopen("/proc/self/clear_refs", "w")))
		return false;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok;
}

/* 100 000 entries (27 MB): accepted whole, in memory within ten times the
 * text (issue #16's bound; json-c's tree of the whole document took 19
 * times), since json-c reads one entry at a time. */
static void large_profile_in_pieces(void **state)
{
	(void)state;
	enum { ENTRIES = 100000 };
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	size_t len;
	char *json = many_entries(ENTRIES, &len);
	bool measure = peak_measurable();
	long before = status_kb("VmRSS");

	assert_int_equal(scmpc_policy_from_json(json, len, &o, &p, d), 0);
	long peak = status_kb("VmHWM");
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	/* one rule an entry: three conditions on three arguments */
	assert_int_equal(scmpc_policy_rule_count(p), ENTRIES);
	CALL3(p, X86_64, "read", 7919 * 4242, 4242 + 1, 4096, SCMPC_ACT_ALLOW);
	CALL3(p, X86_64, "read", 7919 * 4242, 4242, 4096, EPERM_);
	CALL3(p, X86_64, "read", 7919 * 4242 + 1, 0, 0, EPERM_);
	if (measure && before > 0 && peak > 0) {
		long grew = peak - before, bound = (long)(len / 1024) * 10 + 32 * 1024;
		print_message("input %zu kB, peak grew by %ld kB (%.1fx the input)\n", len / 1024, grew,
			      (double)grew * 1024 / (double)len);
		assert_true(grew <= bound);
	}
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	free(json);
}

/* Mistakes deep in a large document are named as in a small one, by line
 * and column (entry I is on line I + 2): json-c's own words where json-c
 * refuses the text, the Go rules' where only they do. */
static void large_profile_errors(void **state)
{
	(void)state;
	enum { ENTRIES = 100000, BAD = 60000 };
	struct scmpc_json_opts o = opts_for(X86_64);
	size_t len;
	char *json = many_entries(ENTRIES, &len), *at, *bad;
	char where[64];

	/* entry BAD: {"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, ... */
	at = strstr(json, "{\"index\": 0, \"value\": 475140000,");
	assert_non_null(at);
	/* the ':' after "index" (column 66) left out: json-c stops at the 0 */
	bad = at + strlen("{\"index\"");
	*bad = ' ';
	snprintf(where, sizeof(where), "line %d, column 68", BAD + 2);
	expect_err_opts(json, len, &o, where, "invalid JSON: object property name separator ':' expected",
			__LINE__);
	*bad = ':';
	/* NaN is json-c's, not Go's: column 80, the value of "value" */
	memcpy(at + strlen("{\"index\": 0, \"value\": "), "NaN      ", 9);
	snprintf(where, sizeof(where), "line %d, column 80", BAD + 2);
	expect_err_opts(json, len, &o, where, "invalid JSON: unexpected 'N'", __LINE__);
	memcpy(at + strlen("{\"index\": 0, \"value\": "), "475140000", 9);
	/* a comma after the last entry: the ']' starts the line after it */
	memcpy(json + len - 4, ",\n]}", 4);
	snprintf(where, sizeof(where), "line %d, column 1", ENTRIES + 2);
	expect_err_opts(json, len, &o, where, "invalid JSON: unexpected ']' after ','", __LINE__);
	free(json);
}

/* Through the whole front end: warned, and the last value counts. */
static void duplicate_keys_in_profiles(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p;

	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_KILL\", \"syscalls\": [{\"names\": [\"read\"], "
		     "\"action\": \"SCMP_ACT_ALLOW\", \"names\": [\"write\"]}], \"defaultAction\": "
		     "\"SCMP_ACT_ERRNO\"}",
		     &o, d);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "write", ALLOW);
	CALL(p, X86_64, "read", EPERM_);
	assert_int_equal(scmpc_diag_warning_count(d), 2);
	assert_string_equal(scmpc_diag_warning(d, 0), DUP("syscalls[0].names"));
	assert_string_equal(scmpc_diag_warning(d, 1), DUP("defaultAction"));
	scmpc_policy_free(p);

	/* a config.json: the path is the document's */
	scmpc_diag_clear(d);
	p = parse_ok("{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": {\"defaultAction\": "
		     "\"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_LOG\"}}, \"process\": {\"env\": [], "
		     "\"env\": []}}",
		     &o, d);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_LOG);
	assert_int_equal(scmpc_diag_warning_count(d), 2);
	assert_string_equal(scmpc_diag_warning(d, 0), DUP("linux.seccomp.defaultAction"));
	assert_string_equal(scmpc_diag_warning(d, 1), DUP("process.env"));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------ keys as runc and Docker match them */

/*
 * The expectations follow Go's encoding/json, which runc and Docker decode
 * profiles with: a key sets the field whose name it equals, or else equals
 * under bytes.EqualFold (ASCII case; U+017F folds to 's', U+212A to 'k', and
 * nothing else to an ASCII letter); the keys of an object are applied in
 * text order, so of several keys for one field the last counts; null leaves
 * a string or number field as it was and unsets a pointer or slice; a value
 * of the wrong type fails the profile even where a later key replaces it;
 * and a second object, or array of objects, is decoded into the first.
 */

#define CASE_NOTE "runc and Docker match keys without regard to case"
#define READ_AS(path, field) path ": read as \"" field "\" (" CASE_NOTE ")"
#define SAME_FIELD(path, a, b, field)                                                           \
	path ": duplicate key: \"" a "\" and \"" b "\" are both \"" field "\" to runc and Docker, " \
	     "which match keys without regard to case; the last value counts"
#define MERGED "duplicate key: runc and Docker would merge the two values, not keep the last, and " \
	       "scmpc does not mirror that; give the key once"
#define MERGED_AS(a, b, field)                                                                      \
	"duplicate key: \"" a "\" and \"" b "\" are both \"" field "\" to runc and Docker, which would " \
	"merge the two values, not keep the last, and scmpc does not mirror that; give the key once"
#define LONG_S "\xc5\xbf"	/* U+017F, UTF-8 */
#define KELVIN "\xe2\x84\xaa"	/* U+212A, UTF-8 */

/* Parses JSON with O, requires exactly the warnings WANT (NULL-ended), in
 * that order, and returns the policy. */
static scmpc_policy *parse_warned(const char *json, const struct scmpc_json_opts *o,
				  const char *const *want, int line)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	size_t n = 0;
	int r = scmpc_policy_from_json(json, strlen(json), o, &p, d);

	while (want[n])
		n++;
	if (r || scmpc_diag_warning_count(d) != n) {
		print_error("line %d: returned %d (%s at \"%s\"), %zu warnings, want 0 and %zu:\n", line, r,
			    scmpc_diag_message(d), scmpc_diag_where(d), scmpc_diag_warning_count(d), n);
		for (size_t i = 0; i < scmpc_diag_warning_count(d); i++)
			print_error("    %s\n", scmpc_diag_warning(d, i));
		fail();
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(scmpc_diag_warning(d, i), want[i])) {
			print_error("line %d: warning %zu is \"%s\"\n          want \"%s\"\n", line, i,
				    scmpc_diag_warning(d, i), want[i]);
			fail();
		}
	}
	scmpc_diag_free(d);
	return p;
}

#define PARSE_WARNS(json, o, ...) \
	parse_warned(json, o, (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)
#define PARSE_QUIET(json, o) parse_warned(json, o, (const char *const[]){ NULL }, __LINE__)

/* The default action JSON gives, and nothing to warn of but WARNING. */
static void expect_default(const char *json, uint32_t want, const char *warning, int line)
{
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p = warning ? parse_warned(json, &o, (const char *const[]){ warning, NULL }, line)
				  : parse_warned(json, &o, (const char *const[]){ NULL }, line);

	if (scmpc_policy_default_action(p) != want) {
		print_error("line %d: default action 0x%x, want 0x%x\n", line,
			    scmpc_policy_default_action(p), want);
		fail();
	}
	scmpc_policy_free(p);
}

#define DEFAULT_IS(json, want, warning) expect_default(json, want, warning, __LINE__)

static void keys_folded(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p;

	/* alone: read as the field, with a word about it */
	DEFAULT_IS("{\"DefaultAction\": \"SCMP_ACT_ERRNO\"}", EPERM_,
		   READ_AS("DefaultAction", "defaultAction"));
	DEFAULT_IS("{\"DEFAULTACTION\": \"SCMP_ACT_LOG\"}", SCMPC_ACT_LOG,
		   READ_AS("DEFAULTACTION", "defaultAction"));
	/* escapes are decoded before matching, as Go does */
	DEFAULT_IS("{\"\\u0044efaultAction\": \"SCMP_ACT_LOG\"}", SCMPC_ACT_LOG,
		   READ_AS("DefaultAction", "defaultAction"));

	/* with the exact key, in either order: the later one counts */
	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"DefaultAction\": \"SCMP_ACT_ERRNO\"}", EPERM_,
		   SAME_FIELD("DefaultAction", "defaultAction", "DefaultAction", "defaultAction"));
	DEFAULT_IS("{\"DefaultAction\": \"SCMP_ACT_ERRNO\", \"defaultAction\": \"SCMP_ACT_ALLOW\"}", ALLOW,
		   SAME_FIELD("defaultAction", "DefaultAction", "defaultAction", "defaultAction"));
	DEFAULT_IS("{\"DefaultAction\": \"SCMP_ACT_ERRNO\", \"DEFAULTACTION\": \"SCMP_ACT_LOG\"}",
		   SCMPC_ACT_LOG,
		   SAME_FIELD("DEFAULTACTION", "DefaultAction", "DEFAULTACTION", "defaultAction"));

	/* json-c keeps a repeated key's last value at its first place, after
	 * which "DefaultAction" would look last; in the text it is not */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"DefaultAction\": \"SCMP_ACT_ERRNO\", "
			"\"defaultAction\": \"SCMP_ACT_LOG\"}",
			&o, DUP("defaultAction"),
			SAME_FIELD("defaultAction", "DefaultAction", "defaultAction", "defaultAction"));
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_LOG);
	scmpc_policy_free(p);
	p = PARSE_WARNS("{\"DefaultAction\": \"SCMP_ACT_ERRNO\", \"defaultAction\": \"SCMP_ACT_ALLOW\", "
			"\"DefaultAction\": \"SCMP_ACT_LOG\"}",
			&o, DUP("DefaultAction"),
			SAME_FIELD("DefaultAction", "defaultAction", "DefaultAction", "defaultAction"));
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_LOG);
	scmpc_policy_free(p);

	/* every object: entries and their arguments, paths as spelled */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"NAMES\": [\"read\"], "
			"\"Action\": \"SCMP_ACT_ALLOW\", \"Args\": [{\"Index\": 0, \"VALUE\": 1, "
			"\"ValueTwo\": 1, \"OP\": \"SCMP_CMP_MASKED_EQ\"}]}, {\"names\": [\"write\"], "
			"\"action\": \"SCMP_ACT_LOG\", \"ErrnoRet\": 5}]}",
			&o, READ_AS("syscalls[0].NAMES", "names"), READ_AS("syscalls[0].Action", "action"),
			READ_AS("syscalls[0].Args", "args"), READ_AS("syscalls[0].Args[0].Index", "index"),
			READ_AS("syscalls[0].Args[0].VALUE", "value"),
			READ_AS("syscalls[0].Args[0].ValueTwo", "valueTwo"),
			READ_AS("syscalls[0].Args[0].OP", "op"), READ_AS("syscalls[1].ErrnoRet", "errnoRet"),
			"syscalls[1].ErrnoRet: ignored for SCMP_ACT_LOG (runc ignores it)");
	CALL1(p, X86_64, "read", 1, ALLOW);
	CALL1(p, X86_64, "read", 3, ALLOW);	/* (3 & 1) == 1 */
	CALL1(p, X86_64, "read", 2, EPERM_);
	CALL(p, X86_64, "write", SCMPC_ACT_LOG);
	scmpc_policy_free(p);

	/* "names" twice over: the later list */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"Names\": [\"read\"], "
			"\"action\": \"SCMP_ACT_ALLOW\", \"names\": [\"write\"]}]}",
			&o, SAME_FIELD("syscalls[0].names", "Names", "names", "names"));
	CALL(p, X86_64, "write", ALLOW);
	CALL(p, X86_64, "read", EPERM_);
	scmpc_policy_free(p);
}

/* U+017F and U+212A fold to 's' and 'k'; no other character folds to an
 * ASCII letter (not U+0130 or U+0131, whose folds are Turkic only). */
static void keys_folded_unicode(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p;

	/* "ſyscalls", raw UTF-8; "minKernel" with a Kelvin sign, escaped: 6.8
	 * is below 6.9, so the entry goes (read as anything else, it would
	 * stay and allow read) */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"" LONG_S "yscalls\": [{\"names\": "
			"[\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"min\\u212aernel\": "
			"\"6.9\"}}, {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
			&o,
			LONG_S "yscalls: read as \"syscalls\" (" CASE_NOTE
			       ", and take U+017F (long s) for 's')",
			LONG_S "yscalls[0].includes.min" KELVIN "ernel: read as \"minKernel\" (" CASE_NOTE
			       ", and take U+212A (Kelvin sign) for 'k')");
	CALL(p, X86_64, "read", EPERM_);
	CALL(p, X86_64, "write", ALLOW);
	scmpc_policy_free(p);

	/* escaped long s, Kelvin sign raw and as the only key of its field */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
			"\"action\": \"SCMP_ACT_ALLOW\", \"EXCLUDES\": {\"cap\\u017f\": [\"CAP_" KELVIN
			"ILL\"]}}]}",
			&o, READ_AS("syscalls[0].EXCLUDES", "excludes"),
			"syscalls[0].EXCLUDES.cap" LONG_S ": read as \"caps\" (" CASE_NOTE
			", and take U+017F (long s) for 's')");
	/* values are not folded: "CAP_\u212aILL" is no capability Docker has */
	CALL(p, X86_64, "read", ALLOW);
	scmpc_policy_free(p);

	/* dotless i (U+0131) and capital I with dot (U+0130) name nothing */
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"\\u0131ndex\": 0, \"value\": 1, "
		   "\"op\": \"SCMP_CMP_EQ\"}]}]}",
		   "syscalls[0].args[0].index", "missing required \"index\"");
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
			"\"action\": \"SCMP_ACT_ALLOW\", \"\\u0130ncludes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}, "
			"\"comment\": \"\"}]}",
			&o, "syscalls[0]: unknown key \"\xc4\xb0ncludes\" ignored");
	CALL(p, X86_64, "read", ALLOW);
	scmpc_policy_free(p);
	/* nor do Go's v2 extras: '_' and '-' count */
	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"default_action\": \"SCMP_ACT_ALLOW\"}", EPERM_,
		   "unknown key \"default_action\" ignored");
}

/* Keys that fold to no field are ignored, as before; a NUL character makes
 * a key no field's, although json-c cuts the key there. */
static void keys_not_fields(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p;

	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultAction\\u0000\": \"SCMP_ACT_ALLOW\"}",
		   EPERM_, "unknown key \"defaultAction?\" ignored");
	DEFAULT_IS("{\"defaultAction\\u0000x\": \"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_ERRNO\"}",
		   EPERM_, "unknown key \"defaultAction?x\" ignored");
	/* nor does such a key make a config.json */
	DEFAULT_IS("{\"linux\\u0000\": {}, \"defaultAction\": \"SCMP_ACT_LOG\"}", SCMPC_ACT_LOG,
		   "unknown key \"linux?\" ignored");
	/* one warning per key, however often it is repeated */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"bogus\": 1, \"Bogus\": 2, \"bogus\": 3}",
			&o, DUP("bogus"), "unknown key \"bogus\" ignored", "unknown key \"Bogus\" ignored");
	scmpc_policy_free(p);
	/* a Docker field in an OCI profile, in any case */
	o.flavor = SCMPC_JSON_OCI;
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"ArchMap\": [], \"syscalls\": [{\"names\": "
			"[\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"Name\": \"read\"}]}",
			&o, "\"ArchMap\" is a Docker profile field; ignored in an OCI profile",
			"syscalls[0]: \"Name\" is a Docker profile field; ignored in an OCI profile");
	CALL(p, X86_64, "read", EPERM_);
	CALL(p, X86_64, "write", ALLOW);
	scmpc_policy_free(p);
	/* and a Docker field spelled otherwise still makes a Docker profile */
	o.flavor = SCMPC_JSON_AUTO;
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"NAME\": \"write\", "
			"\"action\": \"SCMP_ACT_ALLOW\"}]}",
			&o, READ_AS("syscalls[0].NAME", "name"));
	CALL(p, X86_64, "write", ALLOW);
	scmpc_policy_free(p);
}

/* What Go makes of null and of a wrong value that a later key replaces. */
static void keys_null_and_types(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p;

	/* null leaves a string as it was */
	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_LOG\", \"DefaultAction\": null}", SCMPC_ACT_LOG,
		   "defaultAction: duplicate key: \"DefaultAction\" and \"defaultAction\" are both "
		   "\"defaultAction\" to runc and Docker, which match keys without regard to case; null "
		   "does not unset it, so the last other value counts");
	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_LOG\", \"defaultAction\": null}", SCMPC_ACT_LOG,
		   DUP("defaultAction"));
	/* and unsets a pointer: the ERRNO default's errno is EPERM again */
	DEFAULT_IS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 5, "
		   "\"DefaultErrnoRet\": null}",
		   EPERM_,
		   SAME_FIELD("DefaultErrnoRet", "defaultErrnoRet", "DefaultErrnoRet", "defaultErrnoRet"));
	/* an argument's numbers are not pointers */
	p = PARSE_WARNS("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": "
			"[\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, "
			"\"value\": 7, \"Value\": null, \"op\": \"SCMP_CMP_EQ\"}]}]}",
			&o,
			"syscalls[0].args[0].value: duplicate key: \"Value\" and \"value\" are both "
			"\"value\" to runc and Docker, which match keys without regard to case; null does "
			"not unset it, so the last other value counts");
	CALL1(p, X86_64, "read", 7, ALLOW);
	CALL1(p, X86_64, "read", 0, EPERM_);
	scmpc_policy_free(p);

	/* Go fails on a value of the wrong type even where it is replaced */
	EXPECT_ERR("{\"defaultErrnoRet\": \"x\", \"defaultAction\": \"SCMP_ACT_ERRNO\", "
		   "\"DefaultErrnoRet\": 1}",
		   "defaultErrnoRet", "expected an unsigned integer, got a string");
	EXPECT_ERR("{\"defaultAction\": 1, \"defaultAction\": \"SCMP_ACT_ERRNO\"}", "defaultAction",
		   "expected a string, got a number");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"minKernel\": \"6\", \"MinKernel\": "
		   "\"6.1\"}}]}",
		   "syscalls[0].includes.minKernel",
		   "invalid kernel version \"6\": expected \"<kernel>.<major>\"");
	/* errors name the key as written */
	EXPECT_ERR("{\"DefaultAction\": \"SCMP_ACT_BOGUS\"}", "DefaultAction",
		   "unknown action \"SCMP_ACT_BOGUS\"");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"ACTION\": null}]}",
		   "syscalls[0].ACTION", "missing required \"action\"");
}

/* Go decodes a second object into the first, and a second array into the
 * first one's elements: refused, exact or folded, null or not. */
static void keys_merged(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	/* Go: value 8 survives from the first array into the second's
	 * element; keeping the last array would lose it */
	const char *args = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
			   "[\"personality\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, "
			   "\"value\": 8, \"op\": \"SCMP_CMP_EQ\"}], \"args\": [{\"index\": 0, \"op\": "
			   "\"SCMP_CMP_NE\"}]}]}";

	/* no "the last value counts" for the key refused */
	assert_int_equal(scmpc_policy_from_json(args, strlen(args), &o, &p, d), -EINVAL);
	assert_null(p);
	assert_string_equal(scmpc_diag_where(d), "syscalls[0].args");
	assert_string_equal(scmpc_diag_message(d), MERGED);
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	/* other duplicates still get theirs */
	scmpc_diag_clear(d);
	const char *two = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_LOG\", "
			  "\"syscalls\": [], \"syscalls\": []}";
	assert_int_equal(scmpc_policy_from_json(two, strlen(two), &o, &p, d), -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "syscalls");
	assert_string_equal(scmpc_diag_message(d), MERGED);
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_string_equal(scmpc_diag_warning(d, 0), DUP("defaultAction"));
	scmpc_diag_free(d);

	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ALLOW\", \"Includes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}, "
		   "\"includes\": {\"arches\": [\"amd64\"]}}]}",
		   "syscalls[0].includes", MERGED_AS("Includes", "includes", "includes"));
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [], \"Syscalls\": null}",
		   "Syscalls", MERGED_AS("syscalls", "Syscalls", "syscalls"));
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [], \"ARCHMAP\": [], "
		   "\"syscalls\": []}",
		   "ARCHMAP", MERGED_AS("archMap", "ARCHMAP", "archMap"));
	EXPECT_ERR("{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": {\"defaultAction\": "
		   "\"SCMP_ACT_ERRNO\"}}, \"Linux\": {}}",
		   "Linux", MERGED_AS("linux", "Linux", "linux"));
	EXPECT_ERR("{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": {\"defaultAction\": "
		   "\"SCMP_ACT_ERRNO\"}, \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\"}}}",
		   "linux.seccomp", MERGED);
}

/* config.json: runc decodes the whole file the same way. */
static void keys_folded_config(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_policy *p;

	p = PARSE_WARNS("{\"ociVersion\": \"1.0.2\", \"Linux\": {\"SecComp\": {\"defaultAction\": "
			"\"SCMP_ACT_LOG\", \"DefaultAction\": \"SCMP_ACT_ERRNO\"}}}",
			&o, READ_AS("Linux", "linux"), READ_AS("Linux.SecComp", "seccomp"),
			SAME_FIELD("Linux.SecComp.DefaultAction", "defaultAction", "DefaultAction",
				   "defaultAction"));
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	scmpc_policy_free(p);
	/* a key folding to "ociVersion" or "linux" makes a config.json */
	EXPECT_ERR("{\"OCIVERSION\": \"1.0.2\", \"defaultAction\": \"SCMP_ACT_ERRNO\"}", "linux.seccomp",
		   "config.json has no linux.seccomp");
	EXPECT_ERR("{\"LINUX\": {}}", "LINUX.seccomp", "config.json has no linux.seccomp");
	EXPECT_ERR("{\"linux\": {\"Seccomp\": {\"defaultAction\": \"SCMP_ACT_BOGUS\"}}}",
		   "linux.Seccomp.defaultAction", "unknown action \"SCMP_ACT_BOGUS\"");
	/* integers past 64 bits matter below linux.seccomp however spelled */
	EXPECT_ERR("{\"Linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": "
		   "18446744073709551616}}}",
		   "Linux.seccomp.defaultErrnoRet", "18446744073709551616 does not fit in 64 bits");
	p = PARSE_QUIET("{\"process\": {\"rlimits\": [{\"hard\": 18446744073709551616}]}, \"linux\": "
			"{\"seccomp\": {\"defaultAction\": \"SCMP_ACT_LOG\"}}}",
			&o);
	scmpc_policy_free(p);

	/* the text check's prefix: keys matched as Go does, whole keys only */
	scmpc_diag *d = scmpc_diag_new();
	const char *folded = "{\"LINUX\": {\"\\u017feccomp\": {\"x\": 18446744073709551616}}}";
	const char *longer = "{\"linuxx\": {\"seccomp\": 18446744073709551616}}";
	assert_int_equal(json_scan_check(folded, strlen(folded), "linux.seccomp", d), -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "LINUX." LONG_S "eccomp.x");
	scmpc_diag_clear(d);
	assert_int_equal(json_scan_check(longer, strlen(longer), "linux.seccomp", d), 0);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docker_x86_64),
		cmocka_unit_test(docker_old_kernel),
		cmocka_unit_test(docker_caps),
		cmocka_unit_test(docker_aarch64),
		cmocka_unit_test(docker_no_enosys),
		cmocka_unit_test(docker_fixtures),
		cmocka_unit_test(podman_x86_64),
		cmocka_unit_test(podman_restrictive_merge),
		cmocka_unit_test(podman_no_audit_write),
		cmocka_unit_test(runc_test1),
		cmocka_unit_test(runc_test2),
		cmocka_unit_test(example_container),
		cmocka_unit_test(config_json),
		cmocka_unit_test(runc_rule_semantics),
		cmocka_unit_test(unknown_names),
		cmocka_unit_test(arches_and_flags),
		cmocka_unit_test(docker_features),
		cmocka_unit_test(docker_errors),
		cmocka_unit_test(malformed_json),
		cmocka_unit_test(field_errors),
		cmocka_unit_test(api_edges),
		cmocka_unit_test(hostile_input),
		cmocka_unit_test(duplicate_keys),
		cmocka_unit_test(duplicate_keys_bounded),
		cmocka_unit_test(duplicate_keys_large_object),
		cmocka_unit_test(duplicate_keys_in_profiles),
		cmocka_unit_test(keys_folded),
		cmocka_unit_test(keys_folded_unicode),
		cmocka_unit_test(keys_not_fields),
		cmocka_unit_test(keys_null_and_types),
		cmocka_unit_test(keys_merged),
		cmocka_unit_test(keys_folded_config),
		cmocka_unit_test(encodings),
		cmocka_unit_test(comments_and_commas),
		cmocka_unit_test(unexpected_characters),
		cmocka_unit_test(byte_order_mark),
		cmocka_unit_test(large_profile_in_pieces),
		cmocka_unit_test(large_profile_errors),
		cmocka_unit_test(input_kinds),
		cmocka_unit_test(default_caps),
		cmocka_unit_test(caps_detection),
		cmocka_unit_test(warning_kinds),
		cmocka_unit_test(containers_conf),
		cmocka_unit_test(podman_with_docker_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
