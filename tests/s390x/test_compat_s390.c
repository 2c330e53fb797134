/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The s390 (31-bit) compat ABI at a real s390x kernel (CONFIG_COMPAT): a
 * filter loaded by a 64-bit process stays in force across execve of a
 * 31-bit program, whose calls reach it with AUDIT_ARCH_S390 (0x16) and
 * their arguments as 64-bit seccomp_data fields in big-endian order: the
 * kernel masks each to its low word, which sits at the field's higher
 * offset (args[0] at 20, not 16), where scmpc's s390 code must read it.
 * s390 and s390x number most calls alike (getppid is 64 on both), so a
 * rule must stay on its ABI.  The program is a few ESA/390 instructions
 * that this suite writes out as an ELF file itself: no 31-bit libc is
 * needed.
 *
 * Complements test_load.c, whose compat tests are x86_64's; a filter is
 * loaded only in a fork()ed child, and cmocka asserts only in the parent.
 * Skips where the native ABI is not s390x, or where the kernel cannot run
 * 31-bit programs.
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

/* ------------------------------------------------------- the 31-bit program */

struct s390_code {
	uint8_t code[1024];
	size_t n;
};

static void emit(struct s390_code *p, const uint8_t *bytes, size_t n)
{
	assert_true(p->n + n <= sizeof(p->code));
	memcpy(p->code + p->n, bytes, n);
	p->n += n;
}

/* IILF r, imm32 (RIL-a, C0r9): the low word of R; the kernel masks a
 * 31-bit task's arguments to it. */
static void iilf(struct s390_code *p, unsigned r, uint32_t v)
{
	const uint8_t b[] = { 0xc0, (uint8_t)(r << 4 | 0x9), (uint8_t)(v >> 24),
			      (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	emit(p, b, sizeof(b));
}

/* IIHF r, imm32 (RIL-a, C0r8): the high word, which a 31-bit program
 * cannot see and the kernel drops. */
static void iihf(struct s390_code *p, unsigned r, uint32_t v)
{
	const uint8_t b[] = { 0xc0, (uint8_t)(r << 4 | 0x8), (uint8_t)(v >> 24),
			      (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	emit(p, b, sizeof(b));
}

static void lr(struct s390_code *p, unsigned r1, unsigned r2)	/* LR (RR, 18) */
{
	const uint8_t b[] = { 0x18, (uint8_t)(r1 << 4 | r2) };
	emit(p, b, sizeof(b));
}

static void st(struct s390_code *p, unsigned r1, unsigned base, unsigned disp)	/* ST (RX, 50) */
{
	const uint8_t b[] = { 0x50, (uint8_t)(r1 << 4), (uint8_t)(base << 4 | disp >> 8),
			      (uint8_t)disp };
	emit(p, b, sizeof(b));
}

static void svc0(struct s390_code *p)	/* SVC 0: the number is in r1 */
{
	const uint8_t b[] = { 0x0a, 0x00 };
	emit(p, b, sizeof(b));
}

struct call {
	uint32_t nr;
	uint32_t arg0;
	uint32_t arg0_high;	/* put in r2's high word, to be dropped */
};

/* Issue each call, keep its r2 on the stack, write the results to stdout
 * as 32-bit (big-endian) words and exit_group(0). */
static void s390_program(struct s390_code *p, const struct call *calls, size_t n)
{
	int64_t write_nr = scmpc_syscall_resolve(SCMPC_ARCH_S390, "write");
	int64_t exit_nr = scmpc_syscall_resolve(SCMPC_ARCH_S390, "exit_group");
	static const uint8_t ahi_r15_m64[] = { 0xa7, 0xfa, 0xff, 0xc0 };	/* AHI r15,-64 */
	static const uint8_t j_self[] = { 0xa7, 0xf4, 0x00, 0x00 };	/* J . */

	assert_true(write_nr > 0 && exit_nr > 0 && n <= 16);
	p->n = 0;
	emit(p, ahi_r15_m64, sizeof(ahi_r15_m64));
	lr(p, 6, 15);
	for (size_t i = 0; i < n; i++) {
		iilf(p, 1, calls[i].nr);
		iihf(p, 2, calls[i].arg0_high);
		iilf(p, 2, calls[i].arg0);
		iilf(p, 3, 0);
		iilf(p, 4, 0);
		svc0(p);
		st(p, 2, 6, (unsigned)(4 * i));
	}
	iilf(p, 1, (uint32_t)write_nr);
	iilf(p, 2, 1);
	lr(p, 3, 6);
	iilf(p, 4, (uint32_t)(4 * n));
	svc0(p);
	iilf(p, 1, (uint32_t)exit_nr);
	iilf(p, 2, 0);
	svc0(p);
	emit(p, j_self, sizeof(j_self));
}

/* An ELF32 big-endian EXEC file with one R+X segment holding the code; the
 * s390x kernel runs EM_S390 ELFCLASS32 files as 31-bit tasks
 * (compat_elf_check_arch).  This host is s390x, so the headers are written
 * in its (big-endian) byte order. */
static void write_elf(const char *path, const struct s390_code *p)
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph;
	size_t total = sizeof(eh) + sizeof(ph) + p->n;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_S390;
	eh.e_version = EV_CURRENT;
	eh.e_entry = LOAD_ADDR + (Elf32_Addr)(sizeof(eh) + sizeof(ph));
	eh.e_phoff = sizeof(eh);
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
	assert_int_equal(write(fd, p->code, p->n), (ssize_t)p->n);
	assert_int_equal(close(fd), 0);
}

/* ------------------------------------------------------------- harness */

/* Each program gets a file of its own, all kept until the end: under
 * qemu-system-s390x (TCG, QEMU 7.2) a program rewritten in place (or
 * written to page-cache pages just freed by the previous one) was seen
 * executing its previous code: two words from a nine-call program. */
static char dir[256], probe[300];
static unsigned nprobes;

static void next_probe(void)
{
	snprintf(probe, sizeof(probe), "%s/probe%u", dir, nprobes++);
}

static int setup(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/scmpc-s390-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nprobes; i++) {
		snprintf(probe, sizeof(probe), "%s/probe%u", dir, i);
		unlink(probe);
	}
	return rmdir(dir);
}

static void require_s390x(void)
{
	if (scmpc_arch_native() != SCMPC_ARCH_S390X) {
		print_message("skipped: the s390 compat ABI is tested on s390x only\n");
		skip();
	}
	if (scmpc_probe_flags(0, NULL) != 1) {
		print_message("skipped: seccomp(2) is not available (qemu-user?)\n");
		skip();
	}
}

static uint32_t s390_nr(const char *name)
{
	int64_t nr = scmpc_syscall_resolve(SCMPC_ARCH_S390, name);

	if (nr < 0)
		fail_msg("s390 has no %s", name);
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

/* Deny rules on s390 only: getppid(arg0 == 5) and getpgrp(arg0 > 7).  Both
 * ABIs number them alike (64 and 65), so the rules must stay on s390:
 * s390x's getppid(5) is allowed.  readv (145 on both) is denied on s390x
 * only, which must not leak to s390. */
static scmpc_prog *compat_prog(bool with_s390)
{
	struct scmpc_cond eq5 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_cond gt7 = { .arg = 0, .op = SCMPC_OP_GT, .value = 7 };
	struct scmpc_compile_opts o = { .sz = sizeof(o) };
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();

	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_S390X, NULL), 0);
	if (with_s390) {
		assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_S390, NULL), 0);
		add_rule(p, "getppid", SCMPC_ARCH_S390, SCMPC_ACT_ERRNO(EDOM), &eq5);
		add_rule(p, "getpgrp", SCMPC_ARCH_S390, SCMPC_ACT_ERRNO(ERANGE), &gt7);
	}
	add_rule(p, "readv", SCMPC_ARCH_S390X, SCMPC_ACT_ERRNO(ENOTBLK), NULL);
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
		/* s390x keeps its own rule; s390's stay on s390. */
		struct iovec iov = { 0 };
		errno = 0;
		if (syscall(SYS_readv, -1, &iov, 1) != -1 || errno != ENOTBLK) {
			fprintf(stderr, "native readv: errno %d, expected ENOTBLK\n", errno);
			_exit(1);
		}
		if (syscall(SYS_getppid, 5) != getppid()) {
			fprintf(stderr, "native getppid(5): %s\n", strerror(errno));
			_exit(1);
		}
		execve(probe, argv, envp);
		if (errno == ENOEXEC) {
			fprintf(stderr, "the kernel cannot run 31-bit programs (CONFIG_COMPAT)\n");
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

static void test_s390_rules(void **state)
{
	(void)state;
	require_s390x();
	const uint32_t getppid_nr = s390_nr("getppid"), getpgrp_nr = s390_nr("getpgrp");
	const struct call calls[] = {
		{ getppid_nr, 5, 0 },		/* denied: EDOM */
		{ getppid_nr, 6, 0 },		/* the parent, this process */
		{ getppid_nr, 5, 1 },		/* high word dropped: still 5, EDOM */
		{ getpgrp_nr, 3, 0 },		/* allowed */
		{ getpgrp_nr, 8, 0 },		/* denied: ERANGE */
		{ getpgrp_nr, 0xffffffff, 0 },	/* unsigned: above 7, denied */
		{ getpgrp_nr, 3, 0xffffffff },	/* high word dropped: 3, allowed */
		{ s390_nr("readv"), 0xffffffff, 0 },	/* s390x's rule stays there: EBADF */
		{ s390_nr("getpid"), 0, 0 },
	};
	struct s390_code p;
	struct run r;

	/* The overlap the filter must keep apart. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_S390X, "getppid"), getppid_nr);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_S390X, "readv"), s390_nr("readv"));
	s390_program(&p, calls, sizeof(calls) / sizeof(calls[0]));
	next_probe();
	write_elf(probe, &p);
	scmpc_prog *prog = compat_prog(true);
	run_probe(prog, &r);
	scmpc_prog_free(prog);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		fail_msg("probe: status 0x%x: %s", r.status, r.err);
	if (r.nout != sizeof(calls) / sizeof(calls[0])) {
		for (size_t i = 0; i < r.nout; i++)
			print_message("word %zu: %d\n", i, r.out[i]);
		fail_msg("the probe wrote %zu words, not %zu: %s", r.nout,
			 sizeof(calls) / sizeof(calls[0]), r.err);
	}
	assert_int_equal(r.out[0], -EDOM);
	assert_int_equal(r.out[1], getpid());
	assert_int_equal(r.out[2], -EDOM);
	assert_true(r.out[3] >= 0);
	assert_int_equal(r.out[4], -ERANGE);
	assert_int_equal(r.out[5], -ERANGE);
	assert_true(r.out[6] >= 0);
	assert_int_equal(r.out[7], -EBADF);
	assert_true(r.out[8] > 0 && r.out[8] != getpid());
	print_message("31-bit probe under the filter: getppid(5) %d, getppid(6) %d, "
		      "getppid(1:5) %d, getpgrp(3) %d, getpgrp(8) %d, getpgrp(~0) %d, "
		      "getpgrp(~0:3) %d, readv %d, getpid %d\n",
		      r.out[0], r.out[1], r.out[2], r.out[3], r.out[4], r.out[5], r.out[6],
		      r.out[7], r.out[8]);
}

/* A filter without an s390 section: the first 31-bit call gets the
 * bad-arch action. */
static void test_s390_bad_arch(void **state)
{
	(void)state;
	require_s390x();
	const struct call calls[] = { { s390_nr("getpid"), 0, 0 } };
	struct s390_code p;
	struct run r;

	s390_program(&p, calls, 1);
	next_probe();
	write_elf(probe, &p);
	scmpc_prog *prog = compat_prog(false);
	run_probe(prog, &r);
	scmpc_prog_free(prog);
	if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGSYS)
		fail_msg("a 31-bit call under an s390x-only filter: status 0x%x, %zu words: %s",
			 r.status, r.nout, r.err);
	assert_int_equal(r.nout, 0);
}

/* The same program with no filter at all: the probe itself is sound. */
static void test_s390_unfiltered(void **state)
{
	(void)state;
	require_s390x();
	const struct call calls[] = { { s390_nr("getppid"), 5, 0 }, { s390_nr("getpid"), 0, 0 } };
	struct s390_code p;
	int out[2], st;
	int32_t res[2];

	s390_program(&p, calls, 2);
	next_probe();
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
		print_message("skipped: the kernel cannot run 31-bit programs\n");
		skip();
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the unfiltered 31-bit probe: status 0x%x", st);
	assert_int_equal(n, (ssize_t)sizeof(res));
	assert_int_equal(res[0], getpid());
	assert_int_equal(res[1], pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s390_unfiltered),
		cmocka_unit_test(test_s390_rules),
		cmocka_unit_test(test_s390_bad_arch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
