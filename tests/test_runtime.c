/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What runc, crun and libseccomp install, call for call: the runtime modes
 * of the JSON front end (runc's ENOSYS stub, the bad-arch action, default
 * flags), socket and IPC rules on socketcall(2)/ipc(2), libseccomp's
 * truncation of wide constants on 32-bit ABIs and its masked datum.  Every
 * expectation is derived by hand from the sources the comments name:
 * runc's libcontainer/seccomp/patchbpf/enosys_linux.go (the stub: per ABI
 * the largest number any entry names, a 0 meaning none; bit 30 choosing
 * between x86_64's and x32's bound; s390's setup(0)), libseccomp 2.5's
 * src/syscalls.c abi_rule_add (multiplexed copies with argument 0 replaced)
 * and src/db.c _db_rule_gen_32 (high words dropped), crun's
 * src/libcrun/seccomp.c (no stub, SPEC_ALLOW by default).
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
#define ALLOW SCMPC_ACT_ALLOW
#define EPERM_ SCMPC_ACT_ERRNO(1)
#define ENOSYS_ SCMPC_ACT_ERRNO(38)
#define KILL_THREAD SCMPC_ACT_KILL_THREAD
#define X32_BIT 0x40000000U

/* ------------------------------------------------------------ helpers */

static scmpc_policy *parse(const char *json, enum scmpc_arch target, enum scmpc_runtime rt,
			   unsigned flags, scmpc_diag *d)
{
	struct scmpc_json_opts o = { .sz = sizeof(o), .arch = target, .runtime = rt,
				     .flags = flags, .kernel_major = 6, .kernel_minor = 8 };
	scmpc_policy *p = NULL;
	int r = scmpc_policy_from_json(json, strlen(json), &o, &p, d);
	if (r)
		fail_msg("unexpected error %d: %s at \"%s\"", r, scmpc_diag_message(d),
			 scmpc_diag_where(d));
	return p;
}

/* The action for (ABI A, NR, ARG0..1) by the policy's own meaning and by
 * the compiled program: both must be WANT. */
static void check_nr(const scmpc_policy *p, const scmpc_prog *prog, enum scmpc_arch a, uint32_t nr,
		     uint64_t a0, uint64_t a1, uint32_t want, int line)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
	sd.args[0] = a0;
	sd.args[1] = a1;
	uint32_t ir = scmpc_policy_eval(p, &sd, NULL), got = 0;
	assert_int_equal(scmpc_emulate(scmpc_prog_insns(prog), scmpc_prog_len(prog), &sd, &got, NULL),
			 0);
	if (ir != want || got != want) {
		char w[32], i[32], g[32];
		scmpc_action_str(want, w, sizeof(w));
		scmpc_action_str(ir, i, sizeof(i));
		scmpc_action_str(got, g, sizeof(g));
		fail_msg("line %d: %s nr %#x (%#llx, %#llx): policy %s, program %s, want %s", line,
			 scmpc_arch_name(a), nr, (unsigned long long)a0, (unsigned long long)a1, i, g,
			 w);
	}
}

#define NR(p, g, a, nr, want) check_nr(p, g, a, nr, 0, 0, want, __LINE__)
#define NR1(p, g, a, nr, x, want) check_nr(p, g, a, nr, x, 0, want, __LINE__)
#define NR2(p, g, a, nr, x, y, want) check_nr(p, g, a, nr, x, y, want, __LINE__)

static scmpc_prog *compile(const scmpc_policy *p, scmpc_diag *d)
{
	scmpc_prog *prog = NULL;
	if (scmpc_compile(p, NULL, &prog, d) < 0)
		fail_msg("compile: %s", scmpc_diag_message(d));
	return prog;
}

static uint32_t nr_of(enum scmpc_arch a, const char *name)
{
	int64_t n = scmpc_syscall_resolve(a, name);
	assert_true(n >= 0);
	return (uint32_t)n;
}

/* ------------------------------------------------------- runc's stub */

/* read, write and close are allowed; mseal (462 on every ABI here) repeats
 * the default, so runc drops the rule but its stub counts the name. */
#define X86_PROFILE(arches)                                                              \
	"{\"defaultAction\": \"SCMP_ACT_ERRNO\"" arches ", \"syscalls\": ["              \
	"{\"names\": [\"read\", \"write\", \"close\"], \"action\": \"SCMP_ACT_ALLOW\"}," \
	"{\"names\": [\"mseal\"], \"action\": \"SCMP_ACT_ERRNO\"}]}"

static void runc_stub_x86_with_x32(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = parse(X86_PROFILE(", \"architectures\": [\"SCMP_ARCH_X86_64\", "
					    "\"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"]"),
				X86_64, SCMPC_RUNTIME_RUNC, 0, d);
	scmpc_prog *g = compile(p, d);

	NR(p, g, X86_64, 0, ALLOW);
	NR(p, g, X86_64, 462, EPERM_);		/* named, dropped: the default */
	NR(p, g, X86_64, 461, EPERM_);
	NR(p, g, X86_64, 463, ENOSYS_);		/* above x86_64's 462 */
	NR(p, g, X86_64, 0x3fffffff, ENOSYS_);
	/* bit 30 clear: x86_64's bound, whatever libseccomp's range says */
	NR(p, g, X86_64, 0x80000000, ENOSYS_);
	NR(p, g, X86_64, 0xbfffffff, ENOSYS_);
	/* bit 30 set: x32's bound, 0x40000000 + 462; -1 among them */
	NR(p, g, X32, X32_BIT + 0, ALLOW);
	NR(p, g, X32, X32_BIT + 462, EPERM_);
	NR(p, g, X32, X32_BIT + 463, ENOSYS_);
	NR(p, g, X32, 0xc0000000, ENOSYS_);
	NR(p, g, X32, 0xffffffff, ENOSYS_);
	NR(p, g, I386, 3, ALLOW);
	NR(p, g, I386, 462, EPERM_);
	NR(p, g, I386, 463, ENOSYS_);
	NR(p, g, I386, 0xffffffff, ENOSYS_);
	/* an ABI outside the filter: libseccomp's bad-arch action, which runc
	 * never changes */
	NR(p, g, SCMPC_ARCH_AARCH64, 63, KILL_THREAD);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void runc_stub_x86_64_alone(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = parse(X86_PROFILE(", \"architectures\": [\"SCMP_ARCH_X86_64\"]"), X86_64,
				SCMPC_RUNTIME_RUNC, 0, d);
	scmpc_prog *g = compile(p, d);

	NR(p, g, X86_64, 463, ENOSYS_);
	NR(p, g, X86_64, 0x80000000, ENOSYS_);	/* bit 30 clear */
	/* bit 30 set skips the stub: libseccomp's x86_64 filter has no x32,
	 * so x32 numbers get the bad-arch action and -1 the default */
	NR(p, g, X86_64, X32_BIT + 0, KILL_THREAD);
	NR(p, g, X86_64, 0xc0000000, KILL_THREAD);
	NR(p, g, X86_64, 0xffffffff, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* No "architectures": later runc covers the host's ABI anyway ... */
	p = parse(X86_PROFILE(""), X86_64, SCMPC_RUNTIME_RUNC, 0, d);
	g = compile(p, d);
	NR(p, g, X86_64, 463, ENOSYS_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	/* ... runc 1.1.5 builds no stub at all */
	p = parse(X86_PROFILE(""), X86_64, SCMPC_RUNTIME_RUNC_1_1, 0, d);
	g = compile(p, d);
	NR(p, g, X86_64, 463, EPERM_);
	NR(p, g, X86_64, 1000, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	/* ... and 1.1.5 covers only what the profile lists: here i386, not
	 * the host's x86_64 */
	p = parse(X86_PROFILE(", \"architectures\": [\"SCMP_ARCH_X86\"]"), X86_64,
		  SCMPC_RUNTIME_RUNC_1_1, 0, d);
	g = compile(p, d);
	NR(p, g, X86_64, 1000, EPERM_);
	NR(p, g, I386, 1000, ENOSYS_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void runc_stub_when(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	/* permissive defaults get none */
	static const char *const permissive[] = { "SCMP_ACT_ALLOW", "SCMP_ACT_LOG",
						  "SCMP_ACT_TRACE" };
	for (size_t i = 0; i < 3; i++) {
		char json[256];
		snprintf(json, sizeof(json),
			 "{\"defaultAction\": \"%s\", \"syscalls\": [{\"names\": [\"mseal\"], "
			 "\"action\": \"SCMP_ACT_KILL\"}]}",
			 permissive[i]);
		scmpc_policy *p = parse(json, X86_64, SCMPC_RUNTIME_RUNC, 0, d);
		scmpc_prog *g = compile(p, d);
		NR(p, g, X86_64, 1000, scmpc_policy_default_action(p));
		NR(p, g, X86_64, 462, KILL_THREAD);
		scmpc_prog_free(g);
		scmpc_policy_free(p);
	}
	/* a largest number of 0 means "no syscalls" to runc: no stub */
	scmpc_policy *p = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": "
				"[\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
				X86_64, SCMPC_RUNTIME_RUNC, 0, d);
	scmpc_prog *g = compile(p, d);
	NR(p, g, X86_64, 0, ALLOW);
	NR(p, g, X86_64, 1000, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	/* --no-enosys, crun and libseccomp: none */
	const struct {
		enum scmpc_runtime rt;
		unsigned flags;
	} none[] = { { SCMPC_RUNTIME_RUNC, SCMPC_JSON_NO_ENOSYS },
		     { SCMPC_RUNTIME_CRUN, 0 },
		     { SCMPC_RUNTIME_LIBSECCOMP, 0 } };
	for (size_t i = 0; i < 3; i++) {
		p = parse(X86_PROFILE(", \"architectures\": [\"SCMP_ARCH_X86_64\"]"), X86_64,
			  none[i].rt, none[i].flags, d);
		g = compile(p, d);
		NR(p, g, X86_64, 463, EPERM_);
		NR(p, g, X86_64, 0xffffffff, EPERM_);
		NR(p, g, X86_64, 0, ALLOW);
		scmpc_prog_free(g);
		scmpc_policy_free(p);
	}
	scmpc_diag_free(d);
}

/* What the stub counts: every name on its own ABI's numbers, but not the
 * socket and IPC calls where libseccomp names them by pseudo numbers (the
 * ABIs with socketcall/ipc), and ARM's private calls like any other. */
static void runc_stub_counting(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	/* i386: socket (359) and semget (393) are socketcall/ipc sub-calls
	 * there, so the bound is read's 3 and both get ENOSYS directly */
	scmpc_policy *p = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": "
				"[\"SCMP_ARCH_X86\"], \"syscalls\": [{\"names\": [\"read\", \"socket\", "
				"\"semget\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
				X86_64, SCMPC_RUNTIME_RUNC, 0, d);
	scmpc_prog *g = compile(p, d);
	NR(p, g, I386, 3, ALLOW);
	NR(p, g, I386, 4, ENOSYS_);
	NR(p, g, I386, 359, ENOSYS_);
	NR(p, g, I386, 393, ENOSYS_);
	NR1(p, g, I386, 102, 1, ENOSYS_);	/* socketcall itself is above 3 */
	/* x86_64 has socket (41) and semget (64) as plain calls: bound 64 */
	NR(p, g, X86_64, 41, ALLOW);
	NR(p, g, X86_64, 64, ALLOW);
	NR(p, g, X86_64, 65, ENOSYS_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* arm: set_tls (0x0f0005) sets the bound; numbers between the table's
	 * end and it get the default, not ENOSYS */
	p = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_AARCH64\", "
		  "\"SCMP_ARCH_ARM\"], \"syscalls\": [{\"names\": [\"read\", \"set_tls\"], \"action\": "
		  "\"SCMP_ACT_ALLOW\"}]}",
		  SCMPC_ARCH_AARCH64, SCMPC_RUNTIME_RUNC, 0, d);
	g = compile(p, d);
	NR(p, g, SCMPC_ARCH_ARM, 0x0f0005, ALLOW);
	NR(p, g, SCMPC_ARCH_ARM, 500, EPERM_);
	NR(p, g, SCMPC_ARCH_ARM, 0x0f0006, ENOSYS_);
	NR(p, g, SCMPC_ARCH_AARCH64, 63, ALLOW);
	NR(p, g, SCMPC_ARCH_AARCH64, 64, ENOSYS_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* s390x and s390: setup(0), the multiplexer of calls the stub cannot
	 * see, gets ENOSYS too */
	p = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_S390X\", "
		  "\"SCMP_ARCH_S390\"], \"syscalls\": [{\"names\": [\"read\", \"write\"], \"action\": "
		  "\"SCMP_ACT_ALLOW\"}]}",
		  SCMPC_ARCH_S390X, SCMPC_RUNTIME_RUNC, 0, d);
	g = compile(p, d);
	NR(p, g, SCMPC_ARCH_S390X, 0, ENOSYS_);
	NR(p, g, SCMPC_ARCH_S390X, 3, ALLOW);
	NR(p, g, SCMPC_ARCH_S390X, 2, EPERM_);
	NR(p, g, SCMPC_ARCH_S390X, 5, ENOSYS_);
	NR(p, g, SCMPC_ARCH_S390, 0, ENOSYS_);
	NR(p, g, SCMPC_ARCH_S390, 5, ENOSYS_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------ flags and bad arch */

static void runtime_flags_and_bad_arch(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	static const char none[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\"}";
	static const char empty[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": []}";
	static const char logf[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": "
				   "[\"SECCOMP_FILTER_FLAG_LOG\"]}";
	const struct {
		enum scmpc_runtime rt;
		const char *json;
		unsigned want;
	} cases[] = {
		/* no "flags": SPEC_ALLOW (4) for runc and crun */
		{ SCMPC_RUNTIME_RUNC, none, 0x4 },
		{ SCMPC_RUNTIME_CRUN, none, 0x4 },
		{ SCMPC_RUNTIME_RUNC_1_1, none, 0 },
		{ SCMPC_RUNTIME_LIBSECCOMP, none, 0 },
		/* an explicit list, even empty, is taken as it is */
		{ SCMPC_RUNTIME_RUNC, empty, 0 },
		{ SCMPC_RUNTIME_CRUN, logf, 0x2 },
		{ SCMPC_RUNTIME_RUNC_1_1, empty, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		scmpc_policy *p = parse(cases[i].json, X86_64, cases[i].rt, 0, d);
		if (scmpc_policy_flags(p) != cases[i].want)
			fail_msg("case %zu (%s): flags 0x%x, want 0x%x", i,
				 scmpc_runtime_name(cases[i].rt), scmpc_policy_flags(p), cases[i].want);
		struct seccomp_data sd = { .nr = 0, .arch = scmpc_arch_audit(SCMPC_ARCH_AARCH64) };
		assert_int_equal(scmpc_policy_eval(p, &sd, NULL), KILL_THREAD);
		scmpc_policy_free(p);
	}
	/* runc 1.1 refuses flags */
	struct scmpc_json_opts o = { .sz = sizeof(o), .arch = X86_64,
				     .runtime = SCMPC_RUNTIME_RUNC_1_1 };
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_policy_from_json(logf, strlen(logf), &o, &p, d), -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "flags");
	assert_null(p);
	/* crun refuses errnoRet on an action without data; runc ignores it */
	static const char ret_on_allow[] = "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
					   "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", "
					   "\"errnoRet\": 5}]}";
	o.runtime = SCMPC_RUNTIME_CRUN;
	assert_int_equal(scmpc_policy_from_json(ret_on_allow, strlen(ret_on_allow), &o, &p, d),
			 -EINVAL);
	assert_string_equal(scmpc_diag_where(d), "syscalls[0].errnoRet");
	p = parse(ret_on_allow, X86_64, SCMPC_RUNTIME_RUNC, 0, d);
	scmpc_policy_free(p);
	/* the bad-arch action, chosen */
	o = (struct scmpc_json_opts){ .sz = sizeof(o), .arch = X86_64, .flags = SCMPC_JSON_BAD_ARCH,
				      .bad_arch_action = SCMPC_ACT_ERRNO(EPERM) };
	assert_int_equal(scmpc_policy_from_json(none, strlen(none), &o, &p, d), 0);
	struct seccomp_data sd = { .nr = 0, .arch = scmpc_arch_audit(SCMPC_ARCH_AARCH64) };
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), EPERM_);
	scmpc_policy_free(p);
	o.bad_arch_action = 0x12345678;
	assert_int_equal(scmpc_policy_from_json(none, strlen(none), &o, &p, d), -EINVAL);
	o.flags = 0;
	o.runtime = (enum scmpc_runtime)9;
	assert_int_equal(scmpc_policy_from_json(none, strlen(none), &o, &p, d), -EINVAL);
	scmpc_diag_free(d);
}

static void names_of_runtimes_and_actions(void **state)
{
	(void)state;
	static const char *const names[] = { "runc", "runc-1.1", "crun", "libseccomp" };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(scmpc_runtime_name((enum scmpc_runtime)i), names[i]);
		assert_int_equal(scmpc_runtime_from_name(names[i]), i);
	}
	assert_null(scmpc_runtime_name((enum scmpc_runtime)4));
	assert_int_equal(scmpc_runtime_from_name("docker"), -1);

	const struct {
		const char *s;
		int r;
		uint32_t act;
	} acts[] = {
		{ "KILL_PROCESS", 0, SCMPC_ACT_KILL_PROCESS }, { "kill_thread", 0, KILL_THREAD },
		{ "SCMP_ACT_KILL", 0, KILL_THREAD },	    { "ERRNO(38)", 0, ENOSYS_ },
		{ "SCMP_ACT_ERRNO(0x5)", 0, SCMPC_ACT_ERRNO(5) }, { "TRACE(7)", 0, SCMPC_ACT_TRACE(7) },
		{ "notify", 0, SCMPC_ACT_USER_NOTIF },	    { "ALLOW", 0, ALLOW },
		{ "ERRNO(5000)", -ERANGE, 0 },		    { "ERRNO", 0, SCMPC_ACT_ERRNO(0) },
		{ "ERRNO(1", -EINVAL, 0 },		    { "ALLOWED", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		/* out of range, not cut to 16 bits (65549 & 0xffff is 13) */
		{ "ERRNO(4095)", 0, SCMPC_ACT_ERRNO(4095) }, { "ERRNO(70000)", -ERANGE, 0 },
		{ "ERRNO(65549)", -ERANGE, 0 },		     { "ERRNO(-1)", -ERANGE, 0 },
		{ "ERRNO(99999999999999999999999)", -ERANGE, 0 },
		{ "TRACE(65535)", 0, SCMPC_ACT_TRACE(65535) }, { "TRACE(65536)", -ERANGE, 0 },
		{ "ERRNO(-0)", -EINVAL, 0 },		     { "ERRNO(x)", -EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		uint32_t a = 0xdead;
		int r = scmpc_action_parse(acts[i].s, &a);
		if (r != acts[i].r || (r == 0 && a != acts[i].act))
			fail_msg("'%s': %d 0x%x, want %d 0x%x", acts[i].s, r, a, acts[i].r, acts[i].act);
	}
}

/* ------------------------------------------- socketcall(2) and ipc(2) */

#define SOCKETCALL 102U
#define IPC 117U
#define SYS_SOCKET 1U
#define SYS_BIND 2U
#define SYS_ACCEPT 5U
#define SEMOP 1U
#define SEMGET 2U
#define MSGRCV 12U

static scmpc_policy *api_policy(uint32_t def, enum scmpc_merge m, enum scmpc_arch a)
{
	scmpc_policy *p = scmpc_policy_new(def);
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, a, NULL), 0);
	assert_int_equal(scmpc_policy_set_merge(p, m, NULL), 0);
	return p;
}

static void api_rule(scmpc_policy *p, const char *name, uint32_t act, const struct scmpc_cond *c,
		     size_t n, scmpc_diag *d)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .action = act, .conds = c,
				.nconds = n, .origin = name };
	assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
}

static bool has_warning(const scmpc_diag *d, const char *part)
{
	for (size_t i = 0; i < scmpc_diag_warning_count(d); i++)
		if (strstr(scmpc_diag_warning(d, i), part))
			return true;
	return false;
}

/* The restrictive merge (the C API's default): a deny on socket denies
 * socketcall(SYS_SOCKET, ...) too, or an i386 process walks past it. */
static void multiplexed_restrictive(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, I386);
	api_rule(p, "socket", EPERM_, NULL, 0, d);
	api_rule(p, "semop", SCMPC_ACT_ERRNO(15), NULL, 0, d);
	scmpc_prog *g = compile(p, d);
	NR(p, g, I386, nr_of(I386, "socket"), EPERM_);
	NR1(p, g, I386, SOCKETCALL, SYS_SOCKET, EPERM_);
	NR1(p, g, I386, SOCKETCALL, SYS_BIND, ALLOW);
	/* the kernel reads an int: high words do not matter (a compat ABI's
	 * filter never sees them anyway) */
	NR1(p, g, I386, SOCKETCALL, 0xffffffff00000001ULL, EPERM_);
	/* ipc(2) reads the call from the low 16 bits, a version above */
	NR1(p, g, I386, IPC, SEMOP, SCMPC_ACT_ERRNO(15));
	NR1(p, g, I386, IPC, SEMOP | 1U << 16, SCMPC_ACT_ERRNO(15));
	NR1(p, g, I386, IPC, SEMGET, ALLOW);
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* An allow-list: accept has no direct number on i386, only its
	 * socketcall. */
	p = api_policy(EPERM_, SCMPC_MERGE_RESTRICTIVE, I386);
	api_rule(p, "accept", ALLOW, NULL, 0, d);
	g = compile(p, d);
	NR1(p, g, I386, SOCKETCALL, SYS_ACCEPT, ALLOW);
	NR1(p, g, I386, SOCKETCALL, SYS_SOCKET, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* A condition on the call's own arguments cannot be checked behind
	 * socketcall's pointer: the multiplexed call gets the most restrictive
	 * action the direct call can get, with a warning naming the rule. */
	p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, I386);
	struct scmpc_cond inet = { .arg = 0, .op = SCMPC_OP_EQ, .value = 2 };
	api_rule(p, "socket", EPERM_, &inet, 1, d);
	g = compile(p, d);
	NR1(p, g, I386, nr_of(I386, "socket"), 2, EPERM_);
	NR1(p, g, I386, nr_of(I386, "socket"), 1, ALLOW);
	NR1(p, g, I386, SOCKETCALL, SYS_SOCKET, EPERM_);
	NR1(p, g, I386, SOCKETCALL, SYS_BIND, ALLOW);
	assert_true(has_warning(d, "socket: socket's argument conditions cannot be checked through "
				   "socketcall(2) on i386"));
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* x86_64 has no multiplexer: socketcall is not a call there */
	p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, X86_64);
	api_rule(p, "socket", EPERM_, NULL, 0, d);
	g = compile(p, d);
	NR(p, g, X86_64, 41, EPERM_);
	NR1(p, g, X86_64, SOCKETCALL, SYS_SOCKET, ALLOW);	/* 102 is getuid */
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* The LIBSECCOMP merge copies each rule onto the multiplexer as libseccomp
 * does: argument 0 becomes the call test (a condition on it is lost) and the
 * other conditions stay.  The call test reads what the kernel reads (ipc:
 * the low 16 bits, socketcall: the low 32), where libseccomp compares the
 * whole argument: the one deliberate difference, both ways (a denied call
 * stays denied with version bits, an allowed one stays allowed). */
static void multiplexed_libseccomp(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, I386);
	struct scmpc_cond inet = { .arg = 0, .op = SCMPC_OP_EQ, .value = 2 };
	struct scmpc_cond type = { .arg = 1, .op = SCMPC_OP_EQ, .value = 1 };
	api_rule(p, "socket", EPERM_, &inet, 1, d);
	api_rule(p, "bind", SCMPC_ACT_ERRNO(13), &type, 1, d);
	api_rule(p, "semop", SCMPC_ACT_ERRNO(15), NULL, 0, d);
	scmpc_prog *g = compile(p, d);
	NR1(p, g, I386, SOCKETCALL, SYS_SOCKET, EPERM_);	/* any family */
	NR1(p, g, I386, nr_of(I386, "socket"), 10, ALLOW);
	NR2(p, g, I386, SOCKETCALL, SYS_BIND, 1, SCMPC_ACT_ERRNO(13));
	NR2(p, g, I386, SOCKETCALL, SYS_BIND, 0, ALLOW);
	NR1(p, g, I386, IPC, SEMOP, SCMPC_ACT_ERRNO(15));
	NR1(p, g, I386, IPC, SEMOP | 1U << 16, SCMPC_ACT_ERRNO(15));	/* libseccomp: ALLOW */
	NR1(p, g, I386, IPC, SEMOP | 0xffffU << 16, SCMPC_ACT_ERRNO(15));
	NR1(p, g, I386, IPC, SEMOP + 1, ALLOW);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* an allowed sub-call stays allowed with glibc's version bits */
	p = api_policy(EPERM_, SCMPC_MERGE_LIBSECCOMP, I386);
	api_rule(p, "msgrcv", ALLOW, NULL, 0, d);
	g = compile(p, d);
	NR1(p, g, I386, IPC, MSGRCV, ALLOW);
	NR1(p, g, I386, IPC, MSGRCV | 1U << 16, ALLOW);	/* libseccomp: EPERM */
	NR1(p, g, I386, IPC, MSGRCV | 1U << 17, ALLOW);
	NR1(p, g, I386, IPC, SEMOP, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);

	/* 64-bit ABIs: socketcall's int is the low word, the high one is not read */
	p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, SCMPC_ARCH_S390X);
	api_rule(p, "socket", EPERM_, NULL, 0, d);
	g = compile(p, d);
	NR1(p, g, SCMPC_ARCH_S390X, SOCKETCALL, SYS_SOCKET, EPERM_);
	NR1(p, g, SCMPC_ARCH_S390X, SOCKETCALL, 0x100000000ULL | SYS_SOCKET, EPERM_);	/* libseccomp: ALLOW */
	NR1(p, g, SCMPC_ARCH_S390X, SOCKETCALL, 0xffffffff00000000ULL | SYS_SOCKET, EPERM_);
	NR1(p, g, SCMPC_ARCH_S390X, SOCKETCALL, 0x100000000ULL | SYS_BIND, ALLOW);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, SCMPC_ARCH_S390X);
	api_rule(p, "socket", EPERM_, NULL, 0, d);
	g = compile(p, d);
	NR1(p, g, SCMPC_ARCH_S390X, SOCKETCALL, 0x100000000ULL | SYS_SOCKET, EPERM_);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------ wide constants, masks */

/* On 32-bit ABIs libseccomp drops a constant's high word; the restrictive
 * merge folds such a condition (no 32-bit value meets it). */
static void wide_constants_on_32bit_abis(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	for (int m = 0; m < 2; m++) {
		bool lsc = m == 1;
		scmpc_policy *p = api_policy(ALLOW, lsc ? SCMPC_MERGE_LIBSECCOMP
							: SCMPC_MERGE_RESTRICTIVE, I386);
		struct scmpc_cond eq = { .arg = 0, .op = SCMPC_OP_EQ, .value = 0x100000005ULL };
		struct scmpc_cond gt = { .arg = 0, .op = SCMPC_OP_GT, .value = 0x100000000ULL };
		struct scmpc_cond hi = { .arg = 0, .op = SCMPC_OP_MASKED_EQ,
					 .value = 0xffffffff00000000ULL, .value2 = 0x100000000ULL };
		api_rule(p, "read", EPERM_, &eq, 1, d);
		api_rule(p, "write", EPERM_, &gt, 1, d);
		api_rule(p, "close", EPERM_, &hi, 1, d);
		scmpc_prog *g = compile(p, d);
		NR1(p, g, I386, nr_of(I386, "read"), 5, lsc ? EPERM_ : ALLOW);
		NR1(p, g, I386, nr_of(I386, "read"), 6, ALLOW);
		NR1(p, g, I386, nr_of(I386, "write"), 1, lsc ? EPERM_ : ALLOW);	/* > 0 */
		NR1(p, g, I386, nr_of(I386, "write"), 0, ALLOW);
		/* a mask with no low bits tests nothing: unconditional */
		NR1(p, g, I386, nr_of(I386, "close"), 7, lsc ? EPERM_ : ALLOW);
		scmpc_prog_free(g);
		scmpc_policy_free(p);
	}
	scmpc_diag_free(d);
}

/* MASKED_EQ compares arg & mask with datum & mask, as libseccomp does. */
static void masked_datum(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, X86_64);
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0xff00, .value2 = 1000 };
	api_rule(p, "read", EPERM_, &c, 1, d);
	assert_true(has_warning(d, "datum 0x3e8 has bits outside the mask 0xff00; compared as 0x300"));
	scmpc_prog *g = compile(p, d);
	NR1(p, g, X86_64, 0, 0x300, EPERM_);
	NR1(p, g, X86_64, 0, 0x3ff, EPERM_);
	NR1(p, g, X86_64, 0, 1000, EPERM_);	/* 0x3e8 & 0xff00 = 0x300 */
	NR1(p, g, X86_64, 0, 0x400, ALLOW);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------- libseccomp's precedence */

/* The action for (ABI A, NR, ARGS) by the policy and by the program, and
 * the rule the policy names: all must be as wanted. */
static void check_args(const scmpc_policy *p, const scmpc_prog *prog, enum scmpc_arch a,
		       uint32_t nr, const uint64_t args[6], uint32_t want, int want_rule, int line)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
	for (int i = 0; i < 6; i++)
		sd.args[i] = args[i];
	int rule = -2;
	uint32_t ir = scmpc_policy_eval(p, &sd, &rule), got = 0;
	assert_int_equal(scmpc_emulate(scmpc_prog_insns(prog), scmpc_prog_len(prog), &sd, &got, NULL),
			 0);
	if (ir != want || got != want || rule != want_rule) {
		char w[32], i[32], g[32];
		scmpc_action_str(want, w, sizeof(w));
		scmpc_action_str(ir, i, sizeof(i));
		scmpc_action_str(got, g, sizeof(g));
		fail_msg("line %d: %s nr %u args %#llx %#llx %#llx: policy %s (rule %d), program %s, "
			 "want %s (rule %d)", line, scmpc_arch_name(a), nr,
			 (unsigned long long)args[0], (unsigned long long)args[1],
			 (unsigned long long)args[2], i, rule, g, w, want_rule);
	}
}
#define ARGS(...) ((const uint64_t[6]){ __VA_ARGS__ })
#define AT(p, g, a, nr, args, want, rule) check_args(p, g, a, nr, args, want, rule, __LINE__)

static void lsc_rule(scmpc_policy *p, const char *name, uint32_t act, unsigned arg,
		     enum scmpc_op op, uint64_t v, scmpc_diag *d)
{
	struct scmpc_cond c = { .arg = arg, .op = op, .value = v };
	api_rule(p, name, act, &c, 1, d);
}

/*
 * Rules for one call whose conditions can hold together, with different
 * actions: libseccomp 2.5.4 does not take the most restrictive but tries
 * its comparisons in a fixed order (src/db.c _db_chain_lt: higher argument
 * first, the high word before the low, "==" before "<" before ">", larger
 * constants first for ">" and smaller for "<") and the first that leads to
 * an action wins, in whatever order the rules came.  Expectations from
 * that order by hand; read's a2 > 256 / > 128 case was also run under the
 * kernel with libseccomp's own filter (errno 6 at 200, 5 at 300 and 2^32).
 */
static void libseccomp_precedence(void **state)
{
	(void)state;
	uint32_t rd = nr_of(X86_64, "read");
	for (int order = 0; order < 2; order++) {
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
		/* a2 > 256 -> ERRNO(5), a2 > 128 -> ERRNO(6): severity would say
		 * ERRNO(5) wherever both hold; libseccomp's "> 256" comes first
		 * on the low word, and its shared "high word > 0" takes the
		 * larger constant's action. */
		lsc_rule(p, "read", SCMPC_ACT_ERRNO(order ? 6 : 5), 2, SCMPC_OP_GT, order ? 128 : 256, d);
		lsc_rule(p, "read", SCMPC_ACT_ERRNO(order ? 5 : 6), 2, SCMPC_OP_GT, order ? 256 : 128, d);
		int r256 = order ? 1 : 0, r128 = order ? 0 : 1;
		scmpc_prog *g = compile(p, d);
		AT(p, g, X86_64, rd, ARGS(0, 0, 200), SCMPC_ACT_ERRNO(6), r128);
		AT(p, g, X86_64, rd, ARGS(0, 0, 300), SCMPC_ACT_ERRNO(5), r256);
		AT(p, g, X86_64, rd, ARGS(0, 0, 1ULL << 32), SCMPC_ACT_ERRNO(5), r256);
		AT(p, g, X86_64, rd, ARGS(0, 0, 100), ALLOW, -1);
		scmpc_prog_free(g);
		scmpc_policy_free(p);

		/* "==" before ">": 5 -> LOG (severity: ERRNO(2)), 4 -> ERRNO(2) */
		p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
		lsc_rule(p, "read", order ? SCMPC_ACT_ERRNO(2) : SCMPC_ACT_LOG, 0,
			 order ? SCMPC_OP_GT : SCMPC_OP_EQ, order ? 3 : 5, d);
		lsc_rule(p, "read", order ? SCMPC_ACT_LOG : SCMPC_ACT_ERRNO(2), 0,
			 order ? SCMPC_OP_EQ : SCMPC_OP_GT, order ? 5 : 3, d);
		g = compile(p, d);
		AT(p, g, X86_64, rd, ARGS(5), SCMPC_ACT_LOG, order ? 1 : 0);
		AT(p, g, X86_64, rd, ARGS(4), SCMPC_ACT_ERRNO(2), order ? 0 : 1);
		scmpc_prog_free(g);
		scmpc_policy_free(p);

		/* "<" before ">": a2 < 10 -> ERRNO(1) and a2 > 5 -> TRAP give
		 * ERRNO(1) at 7 (severity: TRAP) */
		p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
		lsc_rule(p, "read", order ? SCMPC_ACT_TRAP : EPERM_, 2, order ? SCMPC_OP_GT : SCMPC_OP_LT,
			 order ? 5 : 10, d);
		lsc_rule(p, "read", order ? EPERM_ : SCMPC_ACT_TRAP, 2, order ? SCMPC_OP_LT : SCMPC_OP_GT,
			 order ? 10 : 5, d);
		g = compile(p, d);
		AT(p, g, X86_64, rd, ARGS(0, 0, 7), EPERM_, order ? 1 : 0);
		AT(p, g, X86_64, rd, ARGS(0, 0, 3), EPERM_, order ? 1 : 0);
		AT(p, g, X86_64, rd, ARGS(0, 0, 12), SCMPC_ACT_TRAP, order ? 0 : 1);
		scmpc_prog_free(g);
		scmpc_policy_free(p);

		/* the higher argument first: a0 == 1 -> KILL_PROCESS and
		 * a1 == 2 -> ERRNO(2) give ERRNO(2) at (1, 2) */
		p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
		lsc_rule(p, "read", order ? SCMPC_ACT_ERRNO(2) : SCMPC_ACT_KILL_PROCESS, order, SCMPC_OP_EQ,
			 order ? 2 : 1, d);
		lsc_rule(p, "read", order ? SCMPC_ACT_KILL_PROCESS : SCMPC_ACT_ERRNO(2), !order,
			 SCMPC_OP_EQ, order ? 1 : 2, d);
		g = compile(p, d);
		AT(p, g, X86_64, rd, ARGS(1, 2), SCMPC_ACT_ERRNO(2), order ? 0 : 1);
		AT(p, g, X86_64, rd, ARGS(1, 3), SCMPC_ACT_KILL_PROCESS, order ? 1 : 0);
		assert_int_equal(scmpc_diag_warning_count(d), 0);
		scmpc_prog_free(g);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}

	/* i386 compares one word: both "> 256" and "> 128" sit on one level,
	 * the larger constant first. */
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, I386);
	uint32_t rd32 = nr_of(I386, "read");
	lsc_rule(p, "read", SCMPC_ACT_ERRNO(6), 2, SCMPC_OP_GT, 128, d);
	lsc_rule(p, "read", SCMPC_ACT_ERRNO(5), 2, SCMPC_OP_GT, 256, d);
	scmpc_prog *g = compile(p, d);
	AT(p, g, I386, rd32, ARGS(0, 0, 200), SCMPC_ACT_ERRNO(6), 0);
	AT(p, g, I386, rd32, ARGS(0, 0, 300), SCMPC_ACT_ERRNO(5), 1);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	/* the restrictive merge keeps severity: ERRNO(5) wherever both hold */
	p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, X86_64);
	lsc_rule(p, "read", SCMPC_ACT_ERRNO(5), 2, SCMPC_OP_GT, 256, d);
	lsc_rule(p, "read", SCMPC_ACT_ERRNO(6), 2, SCMPC_OP_GT, 128, d);
	g = compile(p, d);
	AT(p, g, X86_64, nr_of(X86_64, "read"), ARGS(0, 0, 200), SCMPC_ACT_ERRNO(6), 1);
	AT(p, g, X86_64, nr_of(X86_64, "read"), ARGS(0, 0, 300), SCMPC_ACT_ERRNO(5), 0);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Where libseccomp refuses a rule (EEXIST), runc and crun fail to start the
 * container; scmpc says so and decides the call by severity.  A chain that
 * ends where an existing one goes on with another action is refused
 * (db.c _db_tree_add via _db_tree_act_check), the reverse is taken and the
 * longer rule dropped; the same comparisons with another action are
 * refused. */
static void libseccomp_refusals(void **state)
{
	(void)state;
	uint32_t rd = nr_of(X86_64, "read");
	struct scmpc_cond both[2] = { { .arg = 0, .op = SCMPC_OP_EQ, .value = 1 },
				      { .arg = 1, .op = SCMPC_OP_EQ, .value = 2 } };
	/* shorter first: the longer one is dropped, (1, 2) -> ERRNO(1) */
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
	lsc_rule(p, "read", EPERM_, 0, SCMPC_OP_EQ, 1, d);
	api_rule(p, "read", SCMPC_ACT_KILL_PROCESS, both, 2, d);
	scmpc_prog *g = compile(p, d);
	assert_int_equal(scmpc_diag_warning_count(d), 0);
	AT(p, g, X86_64, rd, ARGS(1, 2), EPERM_, 0);
	AT(p, g, X86_64, rd, ARGS(1, 3), EPERM_, 0);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	/* longer first: libseccomp refuses the shorter one */
	d = scmpc_diag_new();
	p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
	api_rule(p, "read", SCMPC_ACT_KILL_PROCESS, both, 2, d);
	lsc_rule(p, "read", EPERM_, 0, SCMPC_OP_EQ, 1, d);
	g = compile(p, d);
	assert_true(has_warning(d, "read: libseccomp 2.5.4 refuses this rule for read on x86_64 "
				   "(EEXIST"));
	AT(p, g, X86_64, rd, ARGS(1, 2), SCMPC_ACT_KILL_PROCESS, 0);	/* by severity */
	AT(p, g, X86_64, rd, ARGS(1, 3), EPERM_, 1);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	/* the same comparison, another action */
	d = scmpc_diag_new();
	p = api_policy(ALLOW, SCMPC_MERGE_LIBSECCOMP, X86_64);
	lsc_rule(p, "read", EPERM_, 0, SCMPC_OP_EQ, 1, d);
	lsc_rule(p, "read", SCMPC_ACT_ERRNO(2), 0, SCMPC_OP_EQ, 1, d);
	g = compile(p, d);
	assert_true(has_warning(d, "(EEXIST"));
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------------- limits */

static void limits_api(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = api_policy(ALLOW, SCMPC_MERGE_RESTRICTIVE, X86_64);
	assert_int_equal(scmpc_policy_set_limit(p, X86_64, 10, ENOSYS_, 0x80, d), -EINVAL);
	assert_int_equal(scmpc_policy_set_limit(p, X86_64, 10, 0x12345678, 0, d), -EINVAL);
	assert_int_equal(scmpc_policy_set_limit(p, (enum scmpc_arch)99, 10, ENOSYS_, 0, d), -EINVAL);
	/* a limit below a named number wins: the stub runs first */
	api_rule(p, "getpid", EPERM_, NULL, 0, d);	/* 39 */
	assert_int_equal(scmpc_policy_set_limit(p, X86_64, 30, ENOSYS_, SCMPC_LIMIT_ZERO, d), 0);
	scmpc_prog *g = compile(p, d);
	NR(p, g, X86_64, 39, ENOSYS_);
	NR(p, g, X86_64, 30, ALLOW);
	NR(p, g, X86_64, 0, ENOSYS_);
	NR(p, g, X86_64, 1, ALLOW);
	scmpc_prog_free(g);
	/* UINT32_MAX clears it */
	assert_int_equal(scmpc_policy_set_limit(p, X86_64, UINT32_MAX, ENOSYS_, 0, d), 0);
	g = compile(p, d);
	NR(p, g, X86_64, 39, EPERM_);
	NR(p, g, X86_64, 0, ALLOW);
	scmpc_prog_free(g);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runc_stub_x86_with_x32),
		cmocka_unit_test(runc_stub_x86_64_alone),
		cmocka_unit_test(runc_stub_when),
		cmocka_unit_test(runc_stub_counting),
		cmocka_unit_test(runtime_flags_and_bad_arch),
		cmocka_unit_test(names_of_runtimes_and_actions),
		cmocka_unit_test(multiplexed_restrictive),
		cmocka_unit_test(multiplexed_libseccomp),
		cmocka_unit_test(wide_constants_on_32bit_abis),
		cmocka_unit_test(masked_datum),
		cmocka_unit_test(libseccomp_precedence),
		cmocka_unit_test(libseccomp_refusals),
		cmocka_unit_test(limits_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
