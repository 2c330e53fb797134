/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The AArch32 compat ABI at a real arm64 kernel (CONFIG_COMPAT): a filter
 * loaded by a 64-bit process stays in force across execve of a 32-bit ARM
 * program, whose calls reach it with AUDIT_ARCH_ARM (0x40000028) and arm
 * EABI numbers (arch/arm/tools/syscall.tbl).  The numbers overlap the
 * native table (arm getppid and getpgrp are 64 and 65, aarch64 write and
 * readv), so a rule must stay on its ABI.  The program is a few A32 instructions that this suite writes
 * out as an ELF file itself: no arm compiler is needed.
 *
 * Complements test_load.c, whose compat tests are x86_64's; a filter is
 * loaded only in a fork()ed child, and cmocka asserts only in the parent.
 * Skips where the native ABI is not aarch64, or where the kernel or CPU
 * cannot run AArch32 programs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scmpc.h"

#define SKIPPED 77
#define LOAD_ADDR 0x400000U

/* ------------------------------------------------------- the A32 program */

/* A32 encodings, condition "always". */
#define A32_MOV_IMM(rd, imm12) (0xe3a00000U | (rd) << 12 | (imm12))
#define A32_ORR_IMM(rd, rn, imm12) (0xe3800000U | (rn) << 16 | (rd) << 12 | (imm12))
#define A32_MOV_REG(rd, rm) (0xe1a00000U | (rd) << 12 | (rm))
#define A32_SUB_IMM(rd, rn, imm8) (0xe2400000U | (rn) << 16 | (rd) << 12 | (imm8))
#define A32_STR_IMM(rt, rn, off) (0xe5800000U | (rn) << 16 | (rt) << 12 | (off))
#define A32_SVC0 0xef000000U
#define A32_B_SELF 0xeafffffeU
#define SP 13

struct a32 {
	uint32_t code[256];
	size_t n;
};

static void emit(struct a32 *p, uint32_t insn)
{
	assert_true(p->n < sizeof(p->code) / sizeof(p->code[0]));
	p->code[p->n++] = insn;
}

/* RD = V: a MOV of its lowest non-zero byte and an ORR per further byte,
 * each an 8-bit immediate rotated right by an even amount. */
static void load_const(struct a32 *p, unsigned rd, uint32_t v)
{
	bool first = true;

	for (unsigned shift = 0; shift < 32; shift += 8) {
		uint32_t byte = (v >> shift) & 0xff;
		uint32_t imm12 = ((32 - shift) % 32 / 2) << 8 | byte;

		if (!byte)
			continue;
		emit(p, first ? A32_MOV_IMM(rd, imm12) : A32_ORR_IMM(rd, rd, imm12));
		first = false;
	}
	if (first)
		emit(p, A32_MOV_IMM(rd, 0));
}

struct call {
	uint32_t nr;
	uint32_t arg0;
};

/* Issue each call, keep its r0 on the stack, write the results to stdout
 * as 32-bit words and exit_group(0). */
static void a32_program(struct a32 *p, const struct call *calls, size_t n)
{
	int64_t write_nr = scmpc_syscall_resolve(SCMPC_ARCH_ARM, "write");
	int64_t exit_nr = scmpc_syscall_resolve(SCMPC_ARCH_ARM, "exit_group");

	assert_true(write_nr > 0 && exit_nr > 0 && n <= 16);
	p->n = 0;
	emit(p, A32_SUB_IMM(SP, SP, 64));
	emit(p, A32_MOV_REG(4, SP));
	for (size_t i = 0; i < n; i++) {
		load_const(p, 7, calls[i].nr);
		load_const(p, 0, calls[i].arg0);
		load_const(p, 1, 0);
		load_const(p, 2, 0);
		emit(p, A32_SVC0);
		emit(p, A32_STR_IMM(0, 4, (uint32_t)(4 * i)));
	}
	load_const(p, 7, (uint32_t)write_nr);
	load_const(p, 0, 1);
	emit(p, A32_MOV_REG(1, 4));
	load_const(p, 2, (uint32_t)(4 * n));
	emit(p, A32_SVC0);
	load_const(p, 7, (uint32_t)exit_nr);
	load_const(p, 0, 0);
	emit(p, A32_SVC0);
	emit(p, A32_B_SELF);
}

/* An ELF32 EXEC file with one R+X segment holding the code.  The arm64
 * kernel runs it in AArch32 state when the EABI version is set
 * (compat_elf_check_arch). */
static void write_elf(const char *path, const struct a32 *p)
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph;
	size_t code = p->n * sizeof(p->code[0]);
	size_t total = sizeof(eh) + sizeof(ph) + code;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_ARM;
	eh.e_version = EV_CURRENT;
	eh.e_entry = LOAD_ADDR + (Elf32_Addr)(sizeof(eh) + sizeof(ph));
	eh.e_phoff = sizeof(eh);
	eh.e_flags = EF_ARM_EABI_VER5;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;

	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_vaddr = ph.p_paddr = LOAD_ADDR;
	ph.p_filesz = ph.p_memsz = (Elf32_Word)total;
	ph.p_flags = PF_R | PF_X;
	ph.p_align = 0x1000;

	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &eh, sizeof(eh)), (ssize_t)sizeof(eh));
	assert_int_equal(write(fd, &ph, sizeof(ph)), (ssize_t)sizeof(ph));
	assert_int_equal(write(fd, p->code, code), (ssize_t)code);
	assert_int_equal(close(fd), 0);
}

/* ------------------------------------------------------------- harness */

static char dir[256], probe[300];

static int setup(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/scmpc-arm-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(probe, sizeof(probe), "%s/probe", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(probe);
	return rmdir(dir);
}

static void require_aarch64(void)
{
	if (scmpc_arch_native() != SCMPC_ARCH_AARCH64) {
		print_message("skipped: the AArch32 compat ABI is tested on aarch64 only\n");
		skip();
	}
	if (scmpc_probe_flags(0, NULL) != 1) {
		print_message("skipped: seccomp(2) is not available (qemu-user?)\n");
		skip();
	}
}

static uint32_t arm_nr(const char *name)
{
	int64_t nr = scmpc_syscall_resolve(SCMPC_ARCH_ARM, name);

	if (nr < 0)
		fail_msg("arm has no %s", name);
	return (uint32_t)nr;
}

static void add_rule(scmpc_policy *p, const char *name, enum scmpc_arch a, uint32_t act,
		     const struct scmpc_cond *c)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .arch = a, .action = act,
				.conds = c, .nconds = c ? 1 : 0 };
	scmpc_diag *d = scmpc_diag_new();
	int rc = scmpc_policy_add_rule(p, &r, d);

	if (rc < 0)
		fail_msg("rule %s: %s", name, scmpc_diag_message(d));
	scmpc_diag_free(d);
}

/* Deny rules on arm only: getppid(arg0 == 5), getpgrp(arg0 > 7) and the
 * ARM-private cacheflush.  readv, aarch64's 65 and arm's getpgrp, is denied
 * on aarch64, which must not leak to arm. */
static scmpc_prog *compat_prog(bool with_arm)
{
	struct scmpc_cond eq5 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_cond gt7 = { .arg = 0, .op = SCMPC_OP_GT, .value = 7 };
	struct scmpc_compile_opts o = { .sz = sizeof(o) };
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();

	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_AARCH64, NULL), 0);
	if (with_arm) {
		assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_ARM, NULL), 0);
		add_rule(p, "getppid", SCMPC_ARCH_ARM, SCMPC_ACT_ERRNO(EDOM), &eq5);
		add_rule(p, "getpgrp", SCMPC_ARCH_ARM, SCMPC_ACT_ERRNO(ERANGE), &gt7);
		add_rule(p, "cacheflush", SCMPC_ARCH_ARM, SCMPC_ACT_ERRNO(EXDEV), NULL);
	}
	add_rule(p, "readv", SCMPC_ARCH_AARCH64, SCMPC_ACT_ERRNO(ENOTBLK), NULL);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, NULL), 0);
	if (scmpc_compile(p, &o, &prog, d) < 0)
		fail_msg("compile: %s", scmpc_diag_message(d));
	scmpc_diag_free(d);
	scmpc_policy_free(p);
	return prog;
}

struct run {
	int status;
	int32_t out[16];
	size_t nout;		/* words read */
	char err[1024];
};

/* In a child: load PROG, check the native side, and execve the probe with
 * its stdout on a pipe.  Its failures go to stderr, also a pipe. */
static void run_probe(const scmpc_prog *prog, struct run *r)
{
	int out[2], err[2];

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		scmpc_diag *d = scmpc_diag_new();
		char *argv[] = { probe, NULL }, *envp[] = { NULL };

		signal(SIGSYS, SIG_DFL);
		setrlimit(RLIMIT_CORE, &rl);
		dup2(out[1], 1);
		dup2(err[1], 2);
		int rc = scmpc_load_prog(prog, NULL, NULL, NULL, d);
		if (rc < 0) {
			fprintf(stderr, "load: %d %s\n", rc, scmpc_diag_message(d));
			_exit(1);
		}
		/* aarch64 keeps its own rule and its own numbers. */
		struct iovec iov = { 0 };
		errno = 0;
		if (syscall(SYS_readv, -1, &iov, 1) != -1 || errno != ENOTBLK) {
			fprintf(stderr, "native readv: errno %d, expected ENOTBLK\n", errno);
			_exit(1);
		}
		if (syscall(SYS_getppid) != getppid()) {
			fprintf(stderr, "native getppid\n");
			_exit(1);
		}
		execve(probe, argv, envp);
		if (errno == ENOEXEC) {
			fprintf(stderr, "the kernel or the CPU cannot run AArch32 programs\n");
			_exit(SKIPPED);
		}
		fprintf(stderr, "execve %s: %s\n", probe, strerror(errno));
		_exit(1);
	}
	close(out[1]);
	close(err[1]);
	size_t got = 0, egot = 0;
	ssize_t n;
	while ((n = read(out[0], (char *)r->out + got, sizeof(r->out) - got)) > 0)
		got += (size_t)n;
	while ((n = read(err[0], r->err + egot, sizeof(r->err) - 1 - egot)) > 0)
		egot += (size_t)n;
	r->err[egot] = '\0';
	r->nout = got / sizeof(r->out[0]);
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &r->status, 0), pid);
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == SKIPPED) {
		print_message("skipped: %s", r->err);
		skip();
	}
}

/* ------------------------------------------------------------------ tests */

static void test_arm_rules(void **state)
{
	(void)state;
	require_aarch64();
	const uint32_t getppid_nr = arm_nr("getppid"), getpgrp_nr = arm_nr("getpgrp");
	const struct call calls[] = {
		{ getppid_nr, 5 },		/* denied: EDOM */
		{ getppid_nr, 6 },		/* the parent, this process */
		{ getpgrp_nr, 3 },		/* allowed: aarch64's readv rule stays there */
		{ getpgrp_nr, 8 },		/* denied: ERANGE */
		{ getpgrp_nr, 0xffffffff },	/* unsigned: above 7, denied */
		{ arm_nr("cacheflush"), 0 },	/* ARM private number: EXDEV */
		{ arm_nr("getpid"), 0 },
	};
	struct a32 p;
	struct run r;

	/* The overlap the filter must keep apart. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "readv"), getpgrp_nr);
	assert_int_equal(arm_nr("cacheflush"), 0x0f0002);
	a32_program(&p, calls, sizeof(calls) / sizeof(calls[0]));
	write_elf(probe, &p);
	scmpc_prog *prog = compat_prog(true);
	run_probe(prog, &r);
	scmpc_prog_free(prog);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		fail_msg("probe: status 0x%x: %s", r.status, r.err);
	assert_int_equal(r.nout, sizeof(calls) / sizeof(calls[0]));
	assert_int_equal(r.out[0], -EDOM);
	assert_int_equal(r.out[1], getpid());
	assert_true(r.out[2] >= 0);
	assert_int_equal(r.out[3], -ERANGE);
	assert_int_equal(r.out[4], -ERANGE);
	assert_int_equal(r.out[5], -EXDEV);
	assert_true(r.out[6] > 0 && r.out[6] != getpid());
	print_message("AArch32 probe under the filter: getppid(5) %d, getppid(6) %d, "
		      "getpgrp(3) %d, getpgrp(8) %d, getpgrp(~0) %d, cacheflush %d, getpid %d\n",
		      r.out[0], r.out[1], r.out[2], r.out[3], r.out[4], r.out[5], r.out[6]);
}

/* A filter without an arm section: the first AArch32 call gets the
 * bad-arch action. */
static void test_arm_bad_arch(void **state)
{
	(void)state;
	require_aarch64();
	const struct call calls[] = { { arm_nr("getpid"), 0 } };
	struct a32 p;
	struct run r;

	a32_program(&p, calls, 1);
	write_elf(probe, &p);
	scmpc_prog *prog = compat_prog(false);
	run_probe(prog, &r);
	scmpc_prog_free(prog);
	if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGSYS)
		fail_msg("an AArch32 call under an aarch64-only filter: status 0x%x, %zu words: %s",
			 r.status, r.nout, r.err);
	assert_int_equal(r.nout, 0);
}

/* The same program with no filter at all: the probe itself is sound. */
static void test_arm_unfiltered(void **state)
{
	(void)state;
	require_aarch64();
	const struct call calls[] = { { arm_nr("getppid"), 5 }, { arm_nr("getpid"), 0 } };
	struct a32 p;
	int out[2], st;
	int32_t res[2];

	a32_program(&p, calls, 2);
	write_elf(probe, &p);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { probe, NULL }, *envp[] = { NULL };

		dup2(out[1], 1);
		execve(probe, argv, envp);
		_exit(errno == ENOEXEC ? SKIPPED : 1);
	}
	close(out[1]);
	ssize_t n = read(out[0], res, sizeof(res));
	close(out[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SKIPPED) {
		print_message("skipped: the kernel or the CPU cannot run AArch32 programs\n");
		skip();
	}
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(n, (ssize_t)sizeof(res));
	assert_int_equal(res[0], getpid());
	assert_int_equal(res[1], pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_unfiltered),
		cmocka_unit_test(test_arm_rules),
		cmocka_unit_test(test_arm_bad_arch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
