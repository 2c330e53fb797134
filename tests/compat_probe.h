/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the compat-ABI suites share (tests/aarch64/test_compat_arm.c,
 * tests/s390x/test_compat_s390.c): a 32-bit probe program, written by the
 * suite in its ISA, saved as an ELF file; a filter with deny rules on the
 * compat ABI and one on the native ABI; a child that loads the filter,
 * checks the native side and execs the probe, whose results come back as
 * 32-bit words on a pipe.  A filter is loaded only in a fork()ed child, and
 * cmocka asserts only in the parent.  Included by one file of each suite.
 */
#ifndef SCMPC_TESTS_COMPAT_PROBE_H
#define SCMPC_TESTS_COMPAT_PROBE_H

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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scmpc.h"

#define SKIPPED 77
#define LOAD_ADDR 0x400000U

/* The ABI pair a suite tests. */
struct compat_abi {
	enum scmpc_arch native, compat;
	Elf32_Half machine;	/* EM_ARM, EM_S390 */
	unsigned char data;	/* ELFDATA2LSB or ELFDATA2MSB: the native byte order */
	Elf32_Word flags;	/* e_flags the kernel wants (ARM's EABI version) */
	const char *noexec;	/* why execve may fail with ENOEXEC */
};

/* ------------------------------------------------------------ probe files */

/* Each program gets a file of its own, all kept until the end: under
 * qemu-system-s390x (TCG, QEMU 7.2) a program rewritten in place (or
 * written to page-cache pages just freed by the previous one) was seen
 * executing its previous code. */
static char compat_dir[256], probe[300];
static unsigned nprobes;

static void next_probe(void)
{
	snprintf(probe, sizeof(probe), "%s/probe%u", compat_dir, nprobes++);
}

static int compat_setup(const struct compat_abi *abi)
{
	const char *base = getenv("TMPDIR");

	snprintf(compat_dir, sizeof(compat_dir), "%s/scmpc-%s-XXXXXX", base && *base ? base : "/tmp",
		 scmpc_arch_name(abi->compat));
	return mkdtemp(compat_dir) ? 0 : -1;
}

static int compat_teardown(void)
{
	for (unsigned i = 0; i < nprobes; i++) {
		snprintf(probe, sizeof(probe), "%s/probe%u", compat_dir, i);
		unlink(probe);
	}
	return rmdir(compat_dir);
}

/* An ELF32 EXEC file at the next probe path with one R+X segment holding
 * CODE; the 64-bit kernel runs it as a compat task (compat_elf_check_arch).
 * The headers are in the native byte order, which is the compat ABI's. */
static void write_probe(const struct compat_abi *abi, const void *code, size_t n)
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph;
	size_t total = sizeof(eh) + sizeof(ph) + n;

	next_probe();
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = abi->data;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = abi->machine;
	eh.e_version = EV_CURRENT;
	eh.e_entry = LOAD_ADDR + (Elf32_Addr)(sizeof(eh) + sizeof(ph));
	eh.e_phoff = sizeof(eh);
	eh.e_flags = abi->flags;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;

	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_vaddr = ph.p_paddr = LOAD_ADDR;
	ph.p_filesz = ph.p_memsz = (Elf32_Word)total;
	ph.p_flags = PF_R | PF_X;
	ph.p_align = 0x1000;

	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &eh, sizeof(eh)), (ssize_t)sizeof(eh));
	assert_int_equal(write(fd, &ph, sizeof(ph)), (ssize_t)sizeof(ph));
	assert_int_equal(write(fd, code, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

/* ------------------------------------------------------------- the filter */

static void compat_require(const struct compat_abi *abi)
{
	if (scmpc_arch_native() != abi->native) {
		print_message("skipped: the %s compat ABI is tested on %s only\n",
			      scmpc_arch_name(abi->compat), scmpc_arch_name(abi->native));
		skip();
	}
	if (scmpc_probe_flags(0, NULL) != 1) {
		print_message("skipped: seccomp(2) is not available (qemu-user?)\n");
		skip();
	}
}

static uint32_t compat_nr(const struct compat_abi *abi, const char *name)
{
	int64_t nr = scmpc_syscall_resolve(abi->compat, name);

	if (nr < 0)
		fail_msg("%s has no %s", scmpc_arch_name(abi->compat), name);
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

/* Deny rules on the compat ABI only, getppid(arg0 == 5) -> EDOM and
 * getpgrp(arg0 > 7) -> ERANGE (when WITH_COMPAT; without, the compat ABI
 * is foreign and gets KILL_PROCESS), and readv -> ENOTBLK on the native
 * ABI only.  The suite may add rules before compat_compile(). */
static scmpc_policy *compat_policy(const struct compat_abi *abi, bool with_compat)
{
	static const struct scmpc_cond eq5 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	static const struct scmpc_cond gt7 = { .arg = 0, .op = SCMPC_OP_GT, .value = 7 };
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);

	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, abi->native, NULL), 0);
	if (with_compat) {
		assert_int_equal(scmpc_policy_add_arch(p, abi->compat, NULL), 0);
		add_rule(p, "getppid", abi->compat, SCMPC_ACT_ERRNO(EDOM), &eq5);
		add_rule(p, "getpgrp", abi->compat, SCMPC_ACT_ERRNO(ERANGE), &gt7);
	}
	add_rule(p, "readv", abi->native, SCMPC_ACT_ERRNO(ENOTBLK), NULL);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, NULL), 0);
	return p;
}

/* P compiled; P is freed. */
static scmpc_prog *compat_compile(scmpc_policy *p)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o) };
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();

	if (scmpc_compile(p, &o, &prog, d) < 0)
		fail_msg("compile: %s", scmpc_diag_message(d));
	scmpc_diag_free(d);
	scmpc_policy_free(p);
	return prog;
}

/* ------------------------------------------------------------ the child */

struct run {
	pid_t pid;		/* the probe's */
	int status;
	int32_t out[16];
	size_t nout;		/* words read */
	char err[1024];
};

/* In a child: load PROG (none: unfiltered), check that the native ABI keeps
 * its own rule and its own numbers, and exec the probe with its stdout on a
 * pipe; its failures go to stderr, also a pipe.  Skips the test when the
 * kernel cannot run the probe. */
static void run_probe(const struct compat_abi *abi, const scmpc_prog *prog, struct run *r)
{
	int out[2], err[2];

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	fflush(stdout);
	pid_t pid = r->pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		char *argv[] = { probe, NULL }, *envp[] = { NULL };

		signal(SIGSYS, SIG_DFL);
		setrlimit(RLIMIT_CORE, &rl);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (prog) {
			scmpc_diag *d = scmpc_diag_new();
			int rc = scmpc_load_prog(prog, NULL, NULL, NULL, d);
			if (rc < 0) {
				fprintf(stderr, "load: %d %s\n", rc, scmpc_diag_message(d));
				_exit(1);
			}
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
		}
		execve(probe, argv, envp);
		if (errno == ENOEXEC) {
			fprintf(stderr, "%s\n", abi->noexec);
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

#endif
