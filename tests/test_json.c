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
#include <cmocka.h>
#include "scmpc.h"

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

/* Parses a profile from shared/policies and fails on any error. */
static scmpc_policy *load_policy(const char *name, const struct scmpc_json_opts *o, scmpc_diag *d)
{
	size_t len;
	char *text = slurp("SCMPC_POLICIES", name, &len);
	scmpc_policy *p = NULL;
	if (!text) {
		print_message("SCMPC_POLICIES/%s not readable\n", name);
		fail();
	}
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

/* Parses JSON and requires the exact error. */
static void expect_err_opts(const char *json, size_t len, const struct scmpc_json_opts *o,
			    const char *where, const char *msg, int line)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = (scmpc_policy *)&p;	/* must be reset to NULL */
	int r = scmpc_policy_from_json(json, len, o, &p, d);
	if (r != -EINVAL || strcmp(scmpc_diag_where(d), where) || strcmp(scmpc_diag_message(d), msg)) {
		print_error("line %d: got %d \"%s\" at \"%s\"\n          want %d \"%s\" at \"%s\"\n",
			    line, r, scmpc_diag_message(d), scmpc_diag_where(d), -EINVAL, msg, where);
		scmpc_policy_free(r ? NULL : p);
		scmpc_diag_free(d);
		fail();
	}
	assert_null(p);
	assert_int_equal(scmpc_diag_errno(d), -EINVAL);
	scmpc_diag_free(d);
}

static void expect_err_at(const char *json, const char *where, const char *msg, int line)
{
	struct scmpc_json_opts o = opts_for(X86_64);
	expect_err_opts(json, strlen(json), &o, where, msg, line);
}

#define EXPECT_ERR(json, where, msg) expect_err_at(json, where, msg, __LINE__)

/* ------------------------------------------------- Docker default profile */

/* moby/profiles v0.2.3 default.json for amd64, default caps, kernel 6.8.
 * Entries by index: 0 allow-list, 1 ptrace & co. (minKernel 4.8), 2-4
 * socket (arg0 < 38, == 39, > 40), 5-9 personality, 12 arch_prctl (amd64,
 * x32), 17 CAP_SYS_ADMIN list, 18 clone masked 0x7E020000 (excludes
 * CAP_SYS_ADMIN), 20 clone3 ERRNO(38) (excludes CAP_SYS_ADMIN), 22 chroot
 * (CAP_SYS_CHROOT, a default cap). */
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
	CALL(p, X86_64, "clone3", ENOSYS_);

	/* AF_ALG = 38 and AF_VSOCK = 40 fall outside < 38, == 39, > 40 */
	CALL1(p, X86_64, "socket", 40, EPERM_);
	CALL1(p, X86_64, "socket", 38, EPERM_);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	CALL1(p, X86_64, "socket", 37, ALLOW);
	CALL1(p, X86_64, "socket", 39, ALLOW);
	CALL1(p, X86_64, "socket", 41, ALLOW);
	assert_string_equal(origin_of(p, X86_64, "socket", 2, 0, 0), "syscalls[2].names[0]");
	assert_string_equal(origin_of(p, X86_64, "socket", 39, 0, 0), "syscalls[3].names[0]");
	assert_string_equal(origin_of(p, X86_64, "socket", 40, 0, 0), "(default)");

	CALL1(p, X86_64, "personality", 0, ALLOW);
	CALL1(p, X86_64, "personality", 8, ALLOW);
	CALL1(p, X86_64, "personality", 0x20000, ALLOW);
	CALL1(p, X86_64, "personality", 0x20008, ALLOW);
	CALL1(p, X86_64, "personality", 0xffffffff, ALLOW);
	CALL1(p, X86_64, "personality", 9, EPERM_);

	CALL(p, X86_64, "ptrace", ALLOW);		/* kernel 6.8 >= 4.8 */
	CALL(p, X86_64, "process_vm_readv", ALLOW);
	CALL(p, X86_64, "arch_prctl", ALLOW);
	CALL(p, X86_64, "chroot", ALLOW);
	CALL(p, X86_64, "mount", EPERM_);
	CALL(p, X86_64, "unshare", EPERM_);
	CALL(p, X86_64, "setns", EPERM_);
	CALL(p, X86_64, "reboot", EPERM_);
	CALL(p, X86_64, "kexec_load", EPERM_);		/* below the ENOSYS threshold */
	CALL(p, X86_64, "open_by_handle_at", EPERM_);	/* CAP_DAC_READ_SEARCH missing */

	/* moby tests arches once against the host: amd64 keeps arch_prctl
	 * for the i386 and x32 sections too. */
	CALL(p, I386, "arch_prctl", ALLOW);
	CALL(p, X32, "arch_prctl", ALLOW);
	CALL(p, I386, "read", ALLOW);
	CALL(p, X32, "read", ALLOW);
	CALL(p, I386, "socketcall", ALLOW);

	/* runc's ENOSYS stub: numbers past every named call */
	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	assert_int_equal(eval_nr(p, X32, 0x40000000U + 1000, 0, 0, 0, NULL), ENOSYS_);
	/* an ABI outside the policy */
	assert_int_equal(eval_nr(p, AARCH64, 63, 0, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
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
	CALL(p, X86_64, "process_vm_writev", EPERM_);
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
	static const char *const none[] = { NULL };
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();

	o.caps = admin;
	scmpc_policy *p = load_policy("docker-default.json", &o, d);
	/* entry 17 allows clone/clone3/mount; 18 and 20 are excluded */
	CALL1(p, X86_64, "clone", CLONE_NEWUSER, ALLOW);
	CALL(p, X86_64, "clone3", ALLOW);
	CALL(p, X86_64, "mount", ALLOW);
	CALL(p, X86_64, "chroot", EPERM_);	/* no CAP_SYS_CHROOT in this set */
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
	CALL1(p, AARCH64, "socket", 40, EPERM_);
	CALL1(p, AARCH64, "socket", 10, ALLOW);
	CALL1(p, AARCH64, "clone", CLONE_NEWUSER, EPERM_);
	CALL(p, ARM, "set_tls", ALLOW);		/* entry 11: arches arm, arm64 */
	CALL(p, ARM, "cacheflush", ALLOW);
	CALL(p, ARM, "read", ALLOW);
	CALL(p, ARM, "mount", EPERM_);
	CALL(p, ARM, "ptrace", ALLOW);
	assert_int_equal(eval_nr(p, X86_64, 0, 0, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
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

/* containers/common seccomp.json: defaultErrno "ENOSYS"; 0 explicit EPERM
 * list; 1 allow-list; 2-6 personality; 15/16 CAP_SYS_ADMIN pair; 17/18
 * chroot pair; 31 socket(40) EPERM; 32 socket(16, *, 9) EINVAL, 33
 * socket(16, *, != 9) and 34 socket(!= 16) ALLOW, all three excluded by
 * CAP_AUDIT_WRITE; 35 socket(!= 40) ALLOW with CAP_AUDIT_WRITE; 36 bpf
 * EPERM unless CAP_SYS_ADMIN or CAP_BPF. */
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
	/* Allowed by entry 1, denied by entry 16 (no CAP_SYS_ADMIN): runc and
	 * crun get libseccomp's answer, the first unconditional rule. */
	CALL(p, X86_64, "setns", ALLOW);

	/* the overlapping socket rules, with CAP_AUDIT_WRITE */
	CALL1(p, X86_64, "socket", 40, EPERM_);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	CALL3(p, X86_64, "socket", 16, 3, 9, ALLOW);
	assert_string_equal(origin_of(p, X86_64, "socket", 40, 0, 0), "syscalls[31].names[0]");
	assert_string_equal(origin_of(p, X86_64, "socket", 2, 0, 0), "syscalls[35].names[0]");

	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	scmpc_policy_free(p);
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
	CALL3(p, X86_64, "socket", 16, 3, 0, ALLOW);
	CALL1(p, X86_64, "socket", 2, ALLOW);
	CALL1(p, X86_64, "socket", 40, EPERM_);	/* entry 31 beats entry 34 */
	CALL(p, X86_64, "chroot", EPERM_);
	CALL(p, X86_64, "vhangup", EPERM_);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------ runc test data */

/* seccomp_syscall_test1.json: 0 allow-list (default ERRNO → EPERM), 1/2
 * dup3 arg0 == 1 or > 2, 3 ftruncate arg0 == 123456789 && arg1 == 1337,
 * 4 process_vm_readv with index 0 twice, 5 process_vm_writev likewise with
 * errnoRet 55, 6 clone masked 0x7E020000 without valueTwo, 7 socket
 * (arg2 & 0xF00) == 0. */
static void runc_test1(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("oci-runc-testdata-1.json", &o, d);
	int r1 = -1, r2 = -1;

	check_arches(p, 1, X86_64);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	CALL(p, X86_64, "chdir", ALLOW);
	CALL1(p, X86_64, "dup3", 1, ALLOW);
	CALL1(p, X86_64, "dup3", 2, EPERM_);
	CALL1(p, X86_64, "dup3", 3, ALLOW);

	/* distinct indices: one AND rule */
	CALL2(p, X86_64, "ftruncate", 123456789, 1337, ALLOW);
	CALL2(p, X86_64, "ftruncate", 123456789, 1, EPERM_);
	CALL2(p, X86_64, "ftruncate", 1, 1337, EPERM_);

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
	CALL3(p, X86_64, "socket", 2, 1, 0, ALLOW);
	CALL3(p, X86_64, "socket", 2, 1, 0x100, EPERM_);
	CALL3(p, X86_64, "socket", 2, 1, 0x1000, ALLOW);

	assert_int_equal(eval_nr(p, X86_64, 1000, 0, 0, 0, NULL), ENOSYS_);
	/* no architectures: the native ABI only */
	assert_int_equal(eval_nr(p, I386, 3, 0, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void runc_test2(void **state)
{
	(void)state;
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = load_policy("oci-runc-testdata-2.json", &o, d);
	assert_int_equal(scmpc_policy_default_action(p), SCMPC_ACT_ERRNO(6));
	CALL(p, X86_64, "read", ALLOW);
	CALL(p, X86_64, "chdir", SCMPC_ACT_ERRNO(6));	/* not in this list */
	CALL(p, X86_64, "dup3", SCMPC_ACT_ERRNO(6));
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

	/* the target comes first and is not repeated; unsupported ABIs are
	 * skipped with a warning */
	p = parse_ok("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_ARM\", "
		     "\"SCMP_ARCH_MIPS\", \"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X32\"], \"flags\": "
		     "[\"SECCOMP_FILTER_FLAG_TSYNC\", \"SECCOMP_FILTER_FLAG_LOG\", "
		     "\"SECCOMP_FILTER_FLAG_SPEC_ALLOW\", \"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"], "
		     "\"listenerPath\": \"/run/agent.sock\", \"listenerMetadata\": \"x\"}",
		     &o, d);
	check_arches(p, 3, X86_64, ARM, X32);
	assert_int_equal(scmpc_policy_flags(p), 0x1 | 0x2 | 0x4 | 0x20);
	assert_true(has_warning(d, "architectures[1]: SCMP_ARCH_MIPS is not supported by scmpc; skipped"));
	scmpc_policy_free(p);

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
		"{\"architecture\": \"SCMP_ARCH_AARCH64\", \"subArchitectures\": [\"SCMP_ARCH_ARM\", \"SCMP_ARCH_MIPS\"]},"
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
	check_arches(p, 2, AARCH64, ARM);
	assert_true(has_warning(d, "archMap[1].subArchitectures[1]: SCMP_ARCH_MIPS is not supported by "
				   "scmpc; skipped"));
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
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrno\": \"5000\"}", "defaultErrno",
		   "defaultErrno 5000 is above 4095");
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
		   "invalid JSON: unexpected character");
	/* what json-c lets through and Go's decoder does not */
	EXPECT_ERR("{'defaultAction': \"SCMP_ACT_ALLOW\"}", "line 1, column 2",
		   "invalid JSON: expected a double-quoted key");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": NaN}", "line 1, column 56",
		   "invalid JSON: unexpected character");
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
	EXPECT_ERR(RULE("{\"value\": 1, \"op\": \"SCMP_CMP_EQ\"}"), "syscalls[0].args[0].index",
		   "missing required \"index\"");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1}"), "syscalls[0].args[0].op", "missing required \"op\"");
	EXPECT_ERR(RULE("{\"index\": 0, \"op\": \"SCMP_CMP_EQ\"}"), "syscalls[0].args[0].value",
		   "missing required \"value\"");
	EXPECT_ERR(RULE("1"), "syscalls[0].args[0]", "expected an object, got a number");
	EXPECT_ERR(RULE("{\"index\": 0, \"value\": 1, \"op\": 1}"), "syscalls[0].args[0].op",
		   "expected a string, got a number");
#undef RULE

	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 5000}]}",
		   "syscalls[0].errnoRet", "errnoRet 5000 is above 4095");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		   "\"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 65536}]}",
		   "syscalls[0].errnoRet", "errnoRet 65536 is above 65535");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 4096}", "defaultErrnoRet",
		   "defaultErrnoRet 4096 is above 4095");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": 1}", "defaultErrnoRet",
		   "defaultErrnoRet needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not SCMP_ACT_ALLOW");
	EXPECT_ERR("{\"defaultAction\": \"SCMP_ACT_KILL\", \"defaultErrnoRet\": 0}", "defaultErrnoRet",
		   "defaultErrnoRet needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not SCMP_ACT_KILL");
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
	char *text = slurp("SCMPC_POLICIES", "podman-default.json", &len);
	struct scmpc_json_opts o = opts_for(X86_64);
	scmpc_diag *d = scmpc_diag_new();
	static const char junk[] = { '{', '}', '[', ']', '"', ':', ',', '0', '-', 'x', '\\', '\n' };

	if (!text)
		skip();
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docker_x86_64),
		cmocka_unit_test(docker_old_kernel),
		cmocka_unit_test(docker_caps),
		cmocka_unit_test(docker_aarch64),
		cmocka_unit_test(docker_no_enosys),
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
