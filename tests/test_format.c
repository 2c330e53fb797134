/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc_format() in its three formats, scmpc_format_insn() for one line,
 * and the scmpc_prog wrappers.  The expected text is written out by hand
 * from the documented layout; syscall numbers are the well-known ones of
 * each ABI.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW SCMPC_ACT_ALLOW
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))
#define LD(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))

/* 0 arch check, 2 nr, 3 x32 guard, 4-5 read/write, 6-8 returns */
static const struct sock_filter allow01[] = {
	LD(4),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
	LD(0),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 4, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
	RET(SCMPC_ACT_ERRNO(1)),
	RET(ALLOW),
	RET(SCMPC_ACT_KILL_PROCESS),
};

static char *render(const struct sock_filter *p, size_t n, enum scmpc_format f, enum scmpc_arch a,
		    const char *c_name)
{
	struct scmpc_format_opts o = { .sz = sizeof(o), .arch = a, .c_name = c_name };
	char *out = NULL;
	size_t len = 0;
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_format(p, n, f, &o, &out, &len, d);
	if (r != 0)
		fail_msg("scmpc_format: %s", scmpc_diag_message(d));
	scmpc_diag_free(d);
	assert_non_null(out);
	if (f != SCMPC_FORMAT_BPF)
		assert_int_equal(strlen(out), len);
	return out;
}

static char *text(const struct sock_filter *p, size_t n, enum scmpc_arch a)
{
	return render(p, n, SCMPC_FORMAT_TEXT, a, NULL);
}

/* Line LINE (0-based) of S, without its newline, in a static buffer. */
static const char *line_of(const char *s, unsigned line)
{
	static char buf[512];
	while (line--) {
		s = strchr(s, '\n');
		assert_non_null(s);
		s++;
	}
	size_t n = strcspn(s, "\n");
	assert_true(n < sizeof(buf));
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* The text line of instruction PC (two header lines come first). */
static const char *insn_line(const char *s, unsigned pc)
{
	return line_of(s, pc + 2);
}

static void contains(const char *hay, const char *needle)
{
	assert_non_null(hay);
	if (!strstr(hay, needle))
		fail_msg("\"%s\" lacks \"%s\"", hay ? hay : "", needle ? needle : "");
}

/* ------------------------------------------------------------- bpf */

static void test_bpf_bytes(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(scmpc_format(allow01, N(allow01), SCMPC_FORMAT_BPF, NULL, &out, &len, NULL), 0);
	assert_int_equal(len, N(allow01) * 8);
	assert_memory_equal(out, allow01, len);
	/* spot-check the layout {u16 code; u8 jt; u8 jf; u32 k} */
	struct sock_filter second;
	memcpy(&second, out + 8, 8);
	assert_int_equal(second.code, 0x15);
	assert_int_equal(second.jf, 6);
	assert_int_equal(second.k, 0xc000003e);
	free(out);
}

/* ------------------------------------------------------------ text */

static void test_text_dispatch(void **state)
{
	(void)state;
	char *s = text(allow01, N(allow01), SCMPC_ARCH_X86_64);
	const char *want =
		" line  CODE  JT   JF      K\n"
		"=================================\n"
		" 0000: 0x20 0x00 0x00 0x00000004  A = arch\n"
		" 0001: 0x15 0x00 0x06 0xc000003e  if (A != 0xc000003e) goto 0008        # AUDIT_ARCH_X86_64\n"
		" 0002: 0x20 0x00 0x00 0x00000000  A = nr\n"
		" 0003: 0x35 0x04 0x00 0x40000000  if (A >= 0x40000000) goto 0008        # >= __X32_SYSCALL_BIT\n"
		" 0004: 0x15 0x02 0x00 0x00000000  if (A == 0) goto 0007                 # read\n"
		" 0005: 0x15 0x01 0x00 0x00000001  if (A == 1) goto 0007                 # write\n"
		" 0006: 0x06 0x00 0x00 0x00050001  return ERRNO(1)\n"
		" 0007: 0x06 0x00 0x00 0x7fff0000  return ALLOW\n"
		" 0008: 0x06 0x00 0x00 0x80000000  return KILL_PROCESS\n";
	assert_string_equal(s, want);
	free(s);

	/* The section proved X86_64, so the names do not follow opts->arch. */
	s = text(allow01, N(allow01), SCMPC_ARCH_AARCH64);
	assert_string_equal(insn_line(s, 4),
			    " 0004: 0x15 0x02 0x00 0x00000000  if (A == 0) goto 0007                 # read");
	free(s);
}

static void test_text_jump_forms(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		/* 0 */ LD(0),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 257, 1, 0),	/* openat */
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 257, 0, 1),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 59, 0, 1),	/* execve */
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 1, 2),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 3, 0, 1),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 1, 1),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 0, 0),
		/* 8 */ BPF_STMT(BPF_JMP | BPF_JA, 1),
		/* 9 */ RET(ALLOW),
		/* 10 */ RET(SCMPC_ACT_TRAP),
	};
	char *s = text(p, N(p), SCMPC_ARCH_X86_64);

	contains(insn_line(s, 1), "if (A > 257) goto 0003");
	contains(insn_line(s, 1), "# > openat");
	contains(insn_line(s, 2), "if (A < 257) goto 0004");
	contains(insn_line(s, 2), "# >= openat");
	contains(insn_line(s, 3), "if (A <= 59) goto 0005");
	contains(insn_line(s, 3), "# > execve");
	contains(insn_line(s, 4), "if (A & 0x40000000) goto 0006 else goto 0007");
	contains(insn_line(s, 4), "# __X32_SYSCALL_BIT");
	contains(insn_line(s, 5), "if (!(A & 3)) goto 0007");
	/* A & 3 has no syscall meaning */
	assert_null(strchr(insn_line(s, 5), '#'));
	contains(insn_line(s, 6), "if (A == X) goto 0008 else goto 0008");
	contains(insn_line(s, 7), "if (A == 0xffffffff) goto 0008");
	contains(insn_line(s, 7), "# -1");
	contains(insn_line(s, 8), "goto 0010");
	contains(insn_line(s, 10), "return TRAP");
	free(s);
}

static void test_text_join_points(void **state)
{
	(void)state;
	/* insn 3 is reached from 1 (A = nr) and from 2 (A = args[0]) */
	struct sock_filter p[] = {
		/* 0 */ LD(0),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1),
		/* 2 */ LD(16),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 0, 1),
		/* 4 */ RET(ALLOW),
		/* 5 */ RET(SCMPC_ACT_KILL_THREAD),
	};
	char *s = text(p, N(p), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 1), "if (A != 2) goto 0003");
	contains(insn_line(s, 1), "# open");
	contains(insn_line(s, 2), "A = args[0]");
	assert_string_equal(insn_line(s, 3), " 0003: 0x15 0x00 0x01 0x00000003  if (A != 3) goto 0005");
	contains(insn_line(s, 5), "return KILL_THREAD");
	free(s);

	/* when both predecessors load nr, the name comes back */
	p[2] = (struct sock_filter)LD(0);
	s = text(p, N(p), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 3), "# close");
	free(s);

	/* an ALU op ends the nr tracking */
	p[2] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff);
	s = text(p, N(p), SCMPC_ARCH_X86_64);
	assert_null(strchr(insn_line(s, 3), '#'));
	free(s);
}

static void test_text_multi_abi(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		/* 0 */ LD(4),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 0, 3),
		/* 2 */ LD(0),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 63, 0, 6),	/* aarch64 read */
		/* 4 */ RET(ALLOW),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		/* 6 */ LD(0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),	/* x86_64 read */
		/* 8 */ RET(ALLOW),
		/* 9 */ RET(SCMPC_ACT_KILL_PROCESS),
		/* 10 */ RET(SCMPC_ACT_ERRNO(1)),
	};
	char *s = text(p, N(p), SCMPC_ARCH_X86_64);

	contains(insn_line(s, 1), "# AUDIT_ARCH_AARCH64");
	contains(insn_line(s, 3), "if (A != 63) goto 0010");
	contains(insn_line(s, 3), "# read");
	contains(insn_line(s, 5), "# AUDIT_ARCH_X86_64");
	contains(insn_line(s, 7), "# read");
	free(s);

	/* i386: 11 is execve (x86_64's 11 is munmap) */
	static const struct sock_filter i386[] = {
		LD(4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 3),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 11, 0, 1),
		RET(ALLOW),
		RET(SCMPC_ACT_KILL_PROCESS),
	};
	s = text(i386, N(i386), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 1), "# AUDIT_ARCH_I386");
	contains(insn_line(s, 3), "# execve");
	free(s);

	/* no arch test: the names come from opts->arch */
	static const struct sock_filter bare[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 11, 0, 1),
		RET(ALLOW),
		RET(SCMPC_ACT_KILL_PROCESS),
	};
	s = text(bare, N(bare), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 1), "# munmap");
	free(s);
	s = text(bare, N(bare), SCMPC_ARCH_I386);
	contains(insn_line(s, 1), "# execve");
	free(s);
}

static void test_text_x32(void **state)
{
	(void)state;
	/* x32 numbers carry bit 30; x32 read is 0x40000000 */
	static const struct sock_filter p[] = {
		LD(4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40000001, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		RET(ALLOW),
		RET(SCMPC_ACT_KILL_PROCESS),
	};
	char *s = text(p, N(p), SCMPC_ARCH_X32);
	contains(insn_line(s, 3), "# write");
	contains(insn_line(s, 4), "# x86_64 write");
	free(s);
	s = text(p, N(p), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 3), "# x32 write");
	contains(insn_line(s, 4), "# write");
	assert_null(strstr(insn_line(s, 4), "x86_64"));
	free(s);
}

static void test_text_statements(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		/* 0 */ LD(8),
		/* 1 */ LD(12),
		/* 2 */ LD(16),
		/* 3 */ LD(20),
		/* 4 */ LD(56),
		/* 5 */ LD(60),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		/* 7 */ BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		/* 8 */ BPF_STMT(BPF_LD | BPF_IMM, 5),
		/* 9 */ BPF_STMT(BPF_LDX | BPF_IMM, 0xdead0000),
		/* 10 */ BPF_STMT(BPF_ST, 3),
		/* 11 */ BPF_STMT(BPF_STX, 4),
		/* 12 */ BPF_STMT(BPF_LD | BPF_MEM, 3),
		/* 13 */ BPF_STMT(BPF_LDX | BPF_MEM, 4),
		/* 14 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
		/* 15 */ BPF_STMT(BPF_MISC | BPF_TXA, 0),
		/* 16 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 5),
		/* 17 */ BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
		/* 18 */ BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
		/* 19 */ BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		/* 20 */ BPF_STMT(BPF_ALU | BPF_OR | BPF_K, 0x10000),
		/* 21 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		/* 22 */ BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 2),
		/* 23 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_X, 0),
		/* 24 */ BPF_STMT(BPF_ALU | BPF_XOR | BPF_K, 1),
		/* 25 */ BPF_STMT(BPF_ALU | BPF_NEG, 0),
		/* 26 */ BPF_STMT(BPF_RET | BPF_A, 0),
	};
	static const char *const want[] = {
		"A = len", "X = len", "A = 5", "X = 0xdead0000", "mem[3] = A", "mem[4] = X",
		"A = mem[3]", "X = mem[4]", "X = A", "A = X", "A += 5", "A -= X", "A *= 3",
		"A /= X", "A |= 0x10000", "A &= 255", "A <<= 2", "A >>= X", "A ^= 1", "A = -A",
		"return A",
	};
	/* The 64-bit fields' halves are named in the byte order of the ABI the
	 * text is for (its kernel lays seccomp_data out so), whatever the
	 * host's: x86_64 little-endian, s390x big-endian. */
	static const struct {
		enum scmpc_arch arch;
		const char *loads[6];
	} cases[] = {
		{ SCMPC_ARCH_X86_64, {
			"A = instruction_pointer\n", "A = instruction_pointer >> 32",
			"A = args[0]\n", "A = args[0] >> 32", "A = args[5]\n", "A = args[5] >> 32",
		} },
		{ SCMPC_ARCH_S390X, {
			"A = instruction_pointer >> 32", "A = instruction_pointer\n",
			"A = args[0] >> 32", "A = args[0]\n", "A = args[5] >> 32", "A = args[5]\n",
		} },
	};
	for (size_t c = 0; c < N(cases); c++) {
		char *s = text(p, N(p), cases[c].arch);
		for (unsigned i = 0; i < 6 + N(want); i++) {
			/* "\n"-terminated needles pin the end of the line */
			char buf[600];
			snprintf(buf, sizeof(buf), "%s\n", insn_line(s, i));
			contains(buf, i < 6 ? cases[c].loads[i] : want[i - 6]);
		}
		contains(insn_line(s, 6), "# 64");
		free(s);
	}
}

static void test_text_actions(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		RET(SCMPC_ACT_KILL_PROCESS), RET(SCMPC_ACT_KILL_THREAD), RET(SCMPC_ACT_TRAP),
		RET(SCMPC_ACT_ERRNO(13)), RET(SCMPC_ACT_USER_NOTIF), RET(SCMPC_ACT_TRACE(5)),
		RET(SCMPC_ACT_LOG), RET(SCMPC_ACT_ALLOW), RET(0x00040000),
	};
	static const char *const want[] = {
		"return KILL_PROCESS", "return KILL_THREAD", "return TRAP", "return ERRNO(13)",
		"return USER_NOTIF", "return TRACE(5)", "return LOG", "return ALLOW",
		"return 0x00040000",
	};
	char *s = text(p, N(p), SCMPC_ARCH_AARCH64);
	for (unsigned i = 0; i < N(want); i++) {
		const char *l = insn_line(s, i);
		size_t n = strlen(l), w = strlen(want[i]);
		assert_true(n >= w);
		assert_string_equal(l + n - w, want[i]);
	}
	free(s);
}

static void test_text_broken_programs(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
		/* 1 */ { 0x0e, 0, 0, 0 },
		/* 2 */ LD(2),
		/* 3 */ LD(64),
		/* 4 */ BPF_STMT(BPF_JMP | BPF_JA, 100),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 200, 0),
		/* 6 */ BPF_STMT(BPF_LD | BPF_IMM, 0),
	};
	char *s = text(p, N(p), SCMPC_ARCH_X86_64);
	contains(insn_line(s, 0), "ld h abs");
	contains(insn_line(s, 0), "# not allowed in seccomp filters");
	contains(insn_line(s, 1), "???");
	contains(insn_line(s, 1), "# opcode 0x0e is not classic BPF");
	contains(insn_line(s, 2), "A = data[2]");
	contains(insn_line(s, 2), "# invalid");
	contains(insn_line(s, 3), "A = data[64]");
	contains(insn_line(s, 4), "goto 0105");
	contains(insn_line(s, 5), "if (A == 0) goto 0206");
	contains(insn_line(s, 6), "A = 0");
	free(s);
}

/* --------------------------------------------------------------- C */

static void test_c_array(void **state)
{
	(void)state;
	char *s = render(allow01, N(allow01), SCMPC_FORMAT_C, SCMPC_ARCH_X86_64, NULL);

	contains(s, "#include <linux/filter.h>\n");
	contains(s, "#define SCMPC_FILTER_LEN 9U\n");
	contains(s, "static const struct sock_filter scmpc_filter[SCMPC_FILTER_LEN] = {\n");
	contains(s, "\t{ 0x20,   0,   0, 0x00000004 }, /* 0000: A = arch */\n");
	contains(s, "\t{ 0x15,   0,   6, 0xc000003e }, /* 0001: if (A != 0xc000003e) goto 0008  "
		    "# AUDIT_ARCH_X86_64 */\n");
	contains(s, "\t{ 0x15,   2,   0, 0x00000000 }, /* 0004: if (A == 0) goto 0007  # read */\n");
	contains(s, "\t{ 0x06,   0,   0, 0x80000000 }, /* 0008: return KILL_PROCESS */\n};\n");
	free(s);

	s = render(allow01, 1, SCMPC_FORMAT_C, SCMPC_ARCH_X86_64, "my_filter2");
	contains(s, "#define MY_FILTER2_LEN 1U\n");
	contains(s, "static const struct sock_filter my_filter2[MY_FILTER2_LEN] = {\n");
	free(s);
}

/* The C output must compile; skipped where no C compiler is installed. */
static void test_c_array_compiles(void **state)
{
	(void)state;
	if (system("command -v cc >/dev/null 2>&1") != 0) {
		skip();
		return;
	}
	char dir[] = "/tmp/scmpc-format-XXXXXX";
	if (!mkdtemp(dir)) {
		skip();
		return;
	}
	char hdr[128], src[128], cmd[512];
	snprintf(hdr, sizeof(hdr), "%s/filter.h", dir);
	snprintf(src, sizeof(src), "%s/main.c", dir);

	char *s = render(allow01, N(allow01), SCMPC_FORMAT_C, SCMPC_ARCH_X86_64, "f");
	FILE *fp = fopen(hdr, "w");
	assert_non_null(fp);
	fputs(s, fp);
	fclose(fp);
	free(s);
	fp = fopen(src, "w");
	assert_non_null(fp);
	fputs("#include \"filter.h\"\n"
	      "_Static_assert(sizeof(f) / sizeof(f[0]) == 9, \"length\");\n"
	      "int main(void) { return f[1].jf == 6 && F_LEN == 9 ? 0 : 1; }\n",
	      fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "cc -std=c11 -Wall -Wextra -Werror -o %s/a.out %s && %s/a.out", dir,
		 src, dir);
	int r = system(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(r, 0);
}

/* ---------------------------------------------------------- errors */

static void test_format_errors(void **state)
{
	(void)state;
	char *out = (char *)"junk";
	size_t len = 77;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_format_opts bad_name = { .sz = sizeof(bad_name), .c_name = "1abc" };
	struct scmpc_format_opts spaces = { .sz = sizeof(spaces), .c_name = "a b" };
	struct scmpc_format_opts bad_arch = { .sz = sizeof(bad_arch), .arch = (enum scmpc_arch)99 };

	assert_int_equal(scmpc_format(allow01, 0, SCMPC_FORMAT_TEXT, NULL, &out, &len, d), -EINVAL);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(scmpc_format(NULL, 3, SCMPC_FORMAT_TEXT, NULL, &out, &len, d), -EINVAL);
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_TEXT, NULL, NULL, &len, d), -EINVAL);
	assert_int_equal(scmpc_format(allow01, 3, (enum scmpc_format)7, NULL, &out, &len, d), -EINVAL);
	contains(scmpc_diag_message(d), "format");
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_C, &bad_name, &out, &len, d), -EINVAL);
	contains(scmpc_diag_message(d), "1abc");
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_C, &spaces, &out, &len, d), -EINVAL);
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_TEXT, &bad_arch, &out, &len, d), -EINVAL);
	/* the name matters to the C format only */
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_TEXT, &bad_name, &out, &len, d), 0);
	free(out);
	/* out_len is optional */
	assert_int_equal(scmpc_format(allow01, 3, SCMPC_FORMAT_TEXT, NULL, &out, NULL, d), 0);
	free(out);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------------ prog */

static void test_prog_new(void **state)
{
	(void)state;
	struct sock_filter p[] = { LD(0), RET(ALLOW) };
	scmpc_prog *prog = (scmpc_prog *)1;
	scmpc_diag *d = scmpc_diag_new();

	assert_int_equal(scmpc_prog_new(p, N(p), &prog, d), 0);
	p[1].k = 0;	/* the handle owns a copy */
	assert_int_equal(scmpc_prog_len(prog), 2);
	assert_int_equal(scmpc_prog_insns(prog)[1].k, ALLOW);
	/* 3 + ld (1) + ret #k (2) */
	assert_int_equal(scmpc_prog_ebpf_len(prog), 6);
	assert_int_equal(scmpc_prog_compile_ns(prog), 0);
	scmpc_prog_free(prog);

	/* wrapping does not verify: a broken program is kept as it is */
	struct sock_filter broken[] = { BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 3) };
	assert_int_equal(scmpc_prog_new(broken, 1, &prog, d), 0);
	assert_int_equal(scmpc_prog_insns(prog)[0].code, 0x28);
	scmpc_prog_free(prog);

	prog = (scmpc_prog *)1;
	assert_int_equal(scmpc_prog_new(p, 0, &prog, d), -EINVAL);
	assert_null(prog);
	contains(scmpc_diag_message(d), "empty");
	assert_int_equal(scmpc_prog_new(NULL, 2, &prog, d), -EINVAL);
	assert_int_equal(scmpc_prog_new(p, 2, NULL, d), -EINVAL);

	/* NULL handles are harmless */
	scmpc_prog_free(NULL);
	assert_null(scmpc_prog_insns(NULL));
	assert_int_equal(scmpc_prog_len(NULL), 0);
	assert_int_equal(scmpc_prog_ebpf_len(NULL), 0);
	assert_int_equal(scmpc_prog_compile_ns(NULL), 0);
	scmpc_diag_free(d);
}

static void test_prog_from_bytes(void **state)
{
	(void)state;
	struct sock_filter p[] = { LD(4), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000, 1, 2), RET(1) };
	unsigned char buf[1 + sizeof(p)];
	scmpc_prog *prog = NULL;
	scmpc_diag *d = scmpc_diag_new();

	/* deliberately misaligned source */
	memcpy(buf + 1, p, sizeof(p));
	assert_int_equal(scmpc_prog_from_bytes(buf + 1, sizeof(p), &prog, d), 0);
	assert_int_equal(scmpc_prog_len(prog), 3);
	assert_memory_equal(scmpc_prog_insns(prog), p, sizeof(p));
	/* 3 + 1 + (jset needing a ja: 2, k >= 2^31: +1) + 2 */
	assert_int_equal(scmpc_prog_ebpf_len(prog), 9);
	scmpc_prog_free(prog);

	prog = (scmpc_prog *)1;
	assert_int_equal(scmpc_prog_from_bytes(buf + 1, 15, &prog, d), -EINVAL);
	assert_null(prog);
	contains(scmpc_diag_message(d), "15 bytes");
	contains(scmpc_diag_message(d), "8");
	assert_int_equal(scmpc_prog_from_bytes(buf + 1, 17, &prog, d), -EINVAL);
	contains(scmpc_diag_message(d), "1 left over");
	assert_int_equal(scmpc_prog_from_bytes(buf, 0, &prog, d), -EINVAL);
	contains(scmpc_diag_message(d), "empty");
	assert_int_equal(scmpc_prog_from_bytes(NULL, 8, &prog, d), -EINVAL);
	assert_int_equal(scmpc_prog_from_bytes(buf, 8, NULL, d), -EINVAL);
	scmpc_diag_free(d);
}

/* scmpc_format_insn(): each line of the listing, alone, as the listing
 * shows it after its raw fields. */
static void test_one_insn(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		LD(4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 0, 3),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 63, 0, 6),
		RET(ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 3),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 11, 0, 2),
		RET(ALLOW),
		RET(SCMPC_ACT_KILL_PROCESS),
		RET(SCMPC_ACT_ERRNO(1)),
	};
	struct scmpc_format_opts o = { .sz = sizeof(o), .arch = SCMPC_ARCH_X86_64 };
	char *s = text(p, N(p), SCMPC_ARCH_X86_64), buf[320];

	for (unsigned pc = 0; pc < N(p); pc++) {
		int n = scmpc_format_insn(p, N(p), pc, &o, buf, sizeof(buf), NULL);

		assert_true(n > 0);
		assert_int_equal((size_t)n, strlen(buf));
		/* " 0003: 0x15 0x00 0x06 0x0000003f  " comes before it */
		assert_string_equal(buf, insn_line(s, pc) + 34);
	}
	contains(buf, "return ERRNO(1)");
	free(s);
	assert_true(scmpc_format_insn(p, N(p), 7, &o, buf, sizeof(buf), NULL) > 0);
	contains(buf, "# execve");

	/* cut as snprintf cuts; the length is the whole line's */
	int whole = scmpc_format_insn(p, N(p), 1, &o, NULL, 0, NULL);
	assert_true(whole > 8);
	assert_int_equal(scmpc_format_insn(p, N(p), 1, &o, buf, 8, NULL), whole);
	assert_int_equal(strlen(buf), 7);

	scmpc_diag *d = scmpc_diag_new();
	assert_int_equal(scmpc_format_insn(p, N(p), N(p), &o, buf, sizeof(buf), d), -EINVAL);
	assert_int_equal(scmpc_format_insn(NULL, N(p), 0, &o, buf, sizeof(buf), d), -EINVAL);
	assert_int_equal(scmpc_format_insn(p, N(p), 0, &o, NULL, 4, d), -EINVAL);
	o.arch = (enum scmpc_arch)99;
	assert_int_equal(scmpc_format_insn(p, N(p), 0, &o, buf, sizeof(buf), d), -EINVAL);
	o.arch = SCMPC_ARCH_X86_64;
	o.sz = 2;
	assert_int_equal(scmpc_format_insn(p, N(p), 0, &o, buf, sizeof(buf), d), -EINVAL);
	assert_int_equal(scmpc_format_insn(p, N(p), 0, NULL, buf, sizeof(buf), d) > 0, 1);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpf_bytes),
		cmocka_unit_test(test_text_dispatch),
		cmocka_unit_test(test_text_jump_forms),
		cmocka_unit_test(test_text_join_points),
		cmocka_unit_test(test_text_multi_abi),
		cmocka_unit_test(test_text_x32),
		cmocka_unit_test(test_text_statements),
		cmocka_unit_test(test_text_actions),
		cmocka_unit_test(test_text_broken_programs),
		cmocka_unit_test(test_c_array),
		cmocka_unit_test(test_c_array_compiles),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_prog_new),
		cmocka_unit_test(test_prog_from_bytes),
		cmocka_unit_test(test_one_insn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
