/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Program export: raw bytes, a C array, and a disassembly in the layout of
 * seccomp-tools (the de facto human format) with syscall, arch and action
 * names.  All three accept unverified programs: `inspect` must be able to
 * show exactly what is wrong with a file.
 */
#include <ctype.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"
#include "bpf/insn.h"

#define COMMENT_COLUMN 36	/* disassembly width before a "# ..." note */

/* ---------------------------------------------- what A holds, per pc */

enum a_holds { A_OTHER = 0, A_NR, A_ARCH };

/* Forward facts for annotation only: which seccomp_data field A holds and,
 * once an arch test has been passed, which AUDIT_ARCH the path is in (so a
 * multi-ABI program gets each section's names). */
struct flow {
	bool reached;
	bool arch_known;
	enum a_holds a;
	uint32_t arch;
};

static void flow_join(struct flow *dst, const struct flow *src)
{
	if (!dst->reached) {
		*dst = *src;
		return;
	}
	if (dst->a != src->a)
		dst->a = A_OTHER;
	if (!src->arch_known || !dst->arch_known || dst->arch != src->arch)
		dst->arch_known = false;
}

static void flow_to(struct flow *fl, size_t len, uint64_t target, const struct flow *s)
{
	if (target < len)
		flow_join(&fl[target], s);
}

/* All jumps go forward, so by the time pc is reached every predecessor has
 * contributed; a target past the end of a broken program is dropped. */
static void flow_compute(const struct sock_filter *insns, size_t len, struct flow *fl)
{
	memset(fl, 0, len * sizeof(*fl));
	fl[0].reached = true;	/* A = 0: nothing known */

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		struct flow s = fl[pc];
		uint16_t cls = BPF_CLASS(f->code);

		if (!s.reached)
			continue;
		if (f->code == (BPF_LD | BPF_W | BPF_ABS) && f->k == offsetof(struct seccomp_data, nr))
			s.a = A_NR;
		else if (f->code == (BPF_LD | BPF_W | BPF_ABS) &&
			 f->k == offsetof(struct seccomp_data, arch))
			s.a = A_ARCH;
		else if (cls == BPF_LD || cls == BPF_ALU || f->code == (BPF_MISC | BPF_TXA))
			s.a = A_OTHER;

		if (cls == BPF_RET)
			continue;
		if (f->code == (BPF_JMP | BPF_JA)) {
			flow_to(fl, len, insn_jump_target(f, pc, true), &s);
		} else if (cls == BPF_JMP) {
			struct flow t = s;
			if (s.a == A_ARCH && f->code == (BPF_JMP | BPF_JEQ | BPF_K)) {
				t.arch_known = true;
				t.arch = f->k;
			}
			flow_to(fl, len, insn_jump_target(f, pc, true), &t);
			flow_to(fl, len, insn_jump_target(f, pc, false), &s);
		} else {
			flow_to(fl, len, pc + 1, &s);
		}
	}
}

/* --------------------------------------------------------- names */

/* AUDIT_ARCH values of ABIs scmpc does not compile for, named anyway so
 * that a foreign program reads well. */
static const struct {
	uint32_t audit;
	const char *name;
} other_audit_names[] = {
	{ AUDIT_ARCH_ARMEB, "AUDIT_ARCH_ARMEB" },
	{ AUDIT_ARCH_RISCV32, "AUDIT_ARCH_RISCV32" },
	{ AUDIT_ARCH_SPARC, "AUDIT_ARCH_SPARC" },
	{ AUDIT_ARCH_SPARC64, "AUDIT_ARCH_SPARC64" },
	{ AUDIT_ARCH_IA64, "AUDIT_ARCH_IA64" },
	{ AUDIT_ARCH_ALPHA, "AUDIT_ARCH_ALPHA" },
};

/* "AUDIT_ARCH_X86_64" (x86_64 and x32 share it), or NULL. */
static const char *audit_name(uint32_t audit, char *buf, size_t n)
{
	enum scmpc_arch a = arch_of_call(audit, 0);
	if (a != SCMPC_ARCH_NONE) {
		size_t k = (size_t)snprintf(buf, n, "AUDIT_ARCH_");
		for (const char *c = scmpc_arch_name(a); *c && k + 1 < n; c++)
			buf[k++] = (char)toupper((unsigned char)*c);
		buf[k] = '\0';
		/* The kernel's names where they differ from scmpc's. */
		if (a == SCMPC_ARCH_SH)
			snprintf(buf, n, "AUDIT_ARCH_SHEL");
		else if (a == SCMPC_ARCH_SHEB)
			snprintf(buf, n, "AUDIT_ARCH_SH");
		return buf;
	}
	for (size_t i = 0; i < ARRAY_SIZE(other_audit_names); i++)
		if (other_audit_names[i].audit == audit)
			return other_audit_names[i].name;
	return NULL;
}

/* The ABI whose table names the numbers of a section. */
static enum scmpc_arch names_abi(const struct flow *s, enum scmpc_arch fallback)
{
	if (!s->arch_known)
		return fallback;
	enum scmpc_arch a = arch_of_call(s->arch, 0);
	if (a == SCMPC_ARCH_X86_64 && fallback == SCMPC_ARCH_X32)
		return SCMPC_ARCH_X32;
	return a;
}

/* Name syscall NR of ABI; x86_64 and x32 share a section, and numbers from
 * 0x40000000 up belong to x32 (arch_of_call()). */
static bool nr_name(enum scmpc_arch abi, uint32_t nr, char *buf, size_t n)
{
	bool x86 = abi == SCMPC_ARCH_X86_64 || abi == SCMPC_ARCH_X32;
	const char *prefix = "";
	char name[64];

	if (x86 && nr == X32_SYSCALL_BIT) {
		snprintf(buf, n, "__X32_SYSCALL_BIT");
		return true;
	}
	if (nr == 0xffffffffU) {
		snprintf(buf, n, "-1 (skipped by a tracer)");
		return true;
	}
	if (x86) {
		enum scmpc_arch want = nr >= X32_SYSCALL_BIT ? SCMPC_ARCH_X32 : SCMPC_ARCH_X86_64;
		if (want != abi)
			prefix = want == SCMPC_ARCH_X32 ? "x32 " : "x86_64 ";
		abi = want;
	}
	if (abi == SCMPC_ARCH_NONE || !scmpc_syscall_name(abi, nr, name, sizeof(name)))
		return false;
	snprintf(buf, n, "%s%s", prefix, name);
	return true;
}

/* -------------------------------------------------- disassembly */

static void fmt_k(char *buf, size_t n, uint32_t k)
{
	/* Small numbers read best in decimal (syscall numbers, errnos,
	 * shifts); anything larger is usually a mask or an arch. */
	if (k < 0x1000)
		snprintf(buf, n, "%u", k);
	else
		snprintf(buf, n, "0x%x", k);
}

/* The C compound-assignment operator of an ALU instruction, for the listing. */
static const char *alu_op(uint16_t code)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_MOD: return "%=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_XOR: return "^=";
	default: return "?=";
	}
}

static void fmt_cond(char *buf, size_t n, uint16_t code, bool negate, const char *operand)
{
	static const char *const rel[][2] = {
		[BPF_JEQ >> 4] = { "==", "!=" },
		[BPF_JGT >> 4] = { ">", "<=" },
		[BPF_JGE >> 4] = { ">=", "<" },
	};

	if (BPF_OP(code) == BPF_JSET)
		snprintf(buf, n, negate ? "!(A & %s)" : "A & %s", operand);
	else
		snprintf(buf, n, "A %s %s", rel[BPF_OP(code) >> 4][negate], operand);
}

/* The text of a load of word K of seccomp_data into REG, named as a field; a note when seccomp
 * would refuse K. */
static void fmt_load(char *text, size_t tn, char *note, size_t nn, char reg, uint32_t k, bool be)
{
	/* The filter reads seccomp_data in the ABI's byte order: on a
	 * big-endian ABI the high half of a 64-bit field comes first. */
	const unsigned hi_off = be ? 0 : 4;
	if (k >= sizeof(struct seccomp_data) || k % 4 != 0) {
		snprintf(text, tn, "%c = data[%u]", reg, k);
		snprintf(note, nn, "invalid: seccomp needs k < 64 and k %% 4 == 0");
	} else if (k == offsetof(struct seccomp_data, nr)) {
		snprintf(text, tn, "%c = nr", reg);
	} else if (k == offsetof(struct seccomp_data, arch)) {
		snprintf(text, tn, "%c = arch", reg);
	} else if (k < offsetof(struct seccomp_data, args)) {
		snprintf(text, tn, "%c = instruction_pointer%s", reg,
			 (k - 8) == hi_off ? " >> 32" : "");
	} else {
		unsigned i = (k - 16) / 8, off = (k - 16) % 8;
		snprintf(text, tn, "%c = args[%u]%s", reg, i, off == hi_off ? " >> 32" : "");
	}
}

/* The text of conditional jump F at PC, seccomp-tools style, with the note the flow state S gives
 * its constant. */
static void fmt_jump(char *text, size_t tn, char *note, size_t nn, const struct sock_filter *f,
		     size_t pc, const struct flow *s, enum scmpc_arch abi)
{
	char operand[32], cond[64], name[80];
	size_t t = pc + 1 + f->jt, e = pc + 1 + f->jf;
	bool by_k = BPF_SRC(f->code) == BPF_K;

	if (by_k)
		fmt_k(operand, sizeof(operand), f->k);
	else
		snprintf(operand, sizeof(operand), "X");

	/* seccomp-tools' convention: say only the branch that leaves the
	 * straight line, negating the test when that is the false one. */
	if (f->jf == 0) {
		fmt_cond(cond, sizeof(cond), f->code, false, operand);
		snprintf(text, tn, "if (%s) goto %04zu", cond, t);
	} else if (f->jt == 0) {
		fmt_cond(cond, sizeof(cond), f->code, true, operand);
		snprintf(text, tn, "if (%s) goto %04zu", cond, e);
	} else {
		fmt_cond(cond, sizeof(cond), f->code, false, operand);
		snprintf(text, tn, "if (%s) goto %04zu else goto %04zu", cond, t, e);
	}

	if (!by_k)
		return;
	if (s->a == A_ARCH) {
		char buf[40];
		const char *an = audit_name(f->k, buf, sizeof(buf));
		if (an)
			snprintf(note, nn, "%s", an);
	} else if (s->a == A_NR && BPF_OP(f->code) != BPF_JSET) {
		if (!nr_name(abi, f->k, name, sizeof(name)))
			return;
		if (BPF_OP(f->code) == BPF_JGE)
			snprintf(note, nn, ">= %s", name);
		else if (BPF_OP(f->code) == BPF_JGT)
			snprintf(note, nn, "> %s", name);
		else
			snprintf(note, nn, "%s", name);
	} else if (s->a == A_NR && f->k == X32_SYSCALL_BIT &&
		   (abi == SCMPC_ARCH_X86_64 || abi == SCMPC_ARCH_X32)) {
		snprintf(note, nn, "__X32_SYSCALL_BIT");
	}
}

/* One instruction as text plus an optional note (without the "# "). */
static void disasm(const struct sock_filter *f, size_t pc, const struct flow *s,
		   enum scmpc_arch fallback, char *text, size_t tn, char *note, size_t nn)
{
	const char *name = bpf_code_name(f->code);
	char k[32];
	uint16_t code = f->code;

	text[0] = note[0] = '\0';
	fmt_k(k, sizeof(k), f->k);
	if (!name) {
		snprintf(text, tn, "???");
		snprintf(note, nn, "opcode 0x%02x is not classic BPF", code);
		return;
	}
	if (!bpf_code_seccomp(code)) {
		snprintf(text, tn, "%s, k = %s", name, k);
		snprintf(note, nn, "not allowed in seccomp filters");
		return;
	}

	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
		fmt_load(text, tn, note, nn, 'A', f->k,
			 s->arch_known ? audit_big_endian(s->arch) : scmpc_arch_big_endian(fallback));
		return;
	case BPF_LD | BPF_W | BPF_LEN: snprintf(text, tn, "A = len"); snprintf(note, nn, "64"); return;
	case BPF_LDX | BPF_W | BPF_LEN: snprintf(text, tn, "X = len"); snprintf(note, nn, "64"); return;
	case BPF_LD | BPF_IMM: snprintf(text, tn, "A = %s", k); return;
	case BPF_LDX | BPF_IMM: snprintf(text, tn, "X = %s", k); return;
	case BPF_LD | BPF_MEM: snprintf(text, tn, "A = mem[%u]", f->k); return;
	case BPF_LDX | BPF_MEM: snprintf(text, tn, "X = mem[%u]", f->k); return;
	case BPF_ST: snprintf(text, tn, "mem[%u] = A", f->k); return;
	case BPF_STX: snprintf(text, tn, "mem[%u] = X", f->k); return;
	case BPF_MISC | BPF_TAX: snprintf(text, tn, "X = A"); return;
	case BPF_MISC | BPF_TXA: snprintf(text, tn, "A = X"); return;
	case BPF_ALU | BPF_NEG: snprintf(text, tn, "A = -A"); return;
	case BPF_JMP | BPF_JA:
		snprintf(text, tn, "goto %04llu", (unsigned long long)pc + 1 + f->k);
		return;
	case BPF_RET | BPF_A: snprintf(text, tn, "return A"); return;
	case BPF_RET | BPF_K: {
		char act[48];
		scmpc_action_str(f->k, act, sizeof(act));
		snprintf(text, tn, "return %s", act);
		return;
	}
	default:
		break;
	}
	if (BPF_CLASS(code) == BPF_ALU) {
		snprintf(text, tn, "A %s %s", alu_op(code), BPF_SRC(code) == BPF_X ? "X" : k);
		return;
	}
	/* Only the conditional jumps are left. */
	fmt_jump(text, tn, note, nn, f, pc, s, names_abi(s, fallback));
}

/* An instruction's text and note as the listing shows them, after the raw
 * fields: scmpc_format_insn() writes the same, so that a single line
 * quoted elsewhere reads as in the listing. */
static int fmt_line(char *buf, size_t n, const char *text, const char *note)
{
	if (note[0])
		return snprintf(buf, n, "%-*s  # %s", COMMENT_COLUMN, text, note);
	return snprintf(buf, n, "%s", text);
}

/* The disassembly of INSNS, one numbered line per instruction with its raw fields. */
static void emit_text(struct textbuf *b, const struct sock_filter *insns, size_t len,
		      const struct flow *fl, enum scmpc_arch abi)
{
	char text[160], note[128], line[320];

	textbuf_put(b, " line  CODE  JT   JF      K\n");
	textbuf_put(b, "=================================\n");
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];

		disasm(f, pc, &fl[pc], abi, text, sizeof(text), note, sizeof(note));
		fmt_line(line, sizeof(line), text, note);
		textbuf_put(b, " %04zu: 0x%02x 0x%02x 0x%02x 0x%08x  %s\n", pc, f->code, f->jt, f->jf,
			  f->k, line);
	}
}

static bool c_identifier(const char *s)
{
	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	return true;
}

/* INSNS as a C array named NAME, with its length macro and a comment per instruction. */
static void emit_c(struct textbuf *b, const struct sock_filter *insns, size_t len,
		   const struct flow *fl, enum scmpc_arch abi, const char *name)
{
	char text[160], note[128], upper[256];
	size_t i;

	for (i = 0; name[i] && i < sizeof(upper) - 1; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';

	textbuf_put(b, "/* seccomp filter generated by scmpc: %zu instructions.  Install with\n"
		     " *   struct sock_fprog prog = { %s_LEN, (struct sock_filter *)%s };\n"
		     " */\n"
		     "#include <linux/filter.h>\n\n"
		     "#define %s_LEN %zuU\n\n"
		     "static const struct sock_filter %s[%s_LEN] = {\n",
		  len, upper, name, upper, len, name, upper);
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];

		disasm(f, pc, &fl[pc], abi, text, sizeof(text), note, sizeof(note));
		textbuf_put(b, "\t{ 0x%02x, %3u, %3u, 0x%08x }, /* %04zu: %s%s%s */\n", f->code, f->jt,
			  f->jf, f->k, pc, text, note[0] ? "  # " : "", note);
	}
	textbuf_put(b, "};\n");
}

SCMPC_API int scmpc_prog_abis(const struct sock_filter *insns, size_t len, enum scmpc_arch *out,
			      size_t n)
{
	if (!insns || len == 0 || (!out && n))
		return -EINVAL;
	if (len > SIZE_MAX / sizeof(struct flow))
		return -EOVERFLOW;
	struct flow *fl = malloc(len * sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	flow_compute(insns, len, fl);
	bool seen[SCMPC_ARCH_COUNT + 1] = { false };
	size_t count = 0;
	/* A dispatch is a test of seccomp_data.arch, as loaded, against a
	 * constant: another constant that merely equals an AUDIT_ARCH (an
	 * x32 number compared with 0x40000028, which is arm's) is not one. */
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		if (!fl[pc].reached || fl[pc].a != A_ARCH || f->code != (BPF_JMP | BPF_JEQ | BPF_K))
			continue;
		for (int k = 0; k < 2; k++) {
			enum scmpc_arch a = arch_of_call(f->k, k ? X32_SYSCALL_BIT : 0);
			if (a == SCMPC_ARCH_NONE || seen[a])
				continue;
			seen[a] = true;
			if (count < n)
				out[count] = a;
			count++;
		}
	}
	free(fl);
	return (int)count;
}

SCMPC_API int scmpc_format(const struct sock_filter *insns, size_t len, enum scmpc_format f,
			   const struct scmpc_format_opts *o, char **out, size_t *out_len,
			   scmpc_diag *d)
{
	struct scmpc_format_opts opts;
	struct textbuf b = { 0 };
	struct flow *fl = NULL;

	if (OPTS_VALID(o, scmpc_format_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(opts, o);
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the output");
	*out = NULL;
	if (out_len)
		*out_len = 0;
	if (len == 0)
		return diag_err(d, -EINVAL, NULL, "empty program");
	if (!insns)
		return diag_err(d, -EINVAL, NULL, "no instructions given");
	if (len > SIZE_MAX / sizeof(struct flow) - 1)
		return diag_err(d, -EOVERFLOW, NULL, "program of %zu instructions is too large", len);

	enum scmpc_arch abi = opts.arch ? opts.arch : scmpc_arch_native();
	if (opts.arch && !arch_info(opts.arch))
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)opts.arch);
	const char *name = opts.c_name ? opts.c_name : "scmpc_filter";

	switch (f) {
	case SCMPC_FORMAT_BPF:
		textbuf_reserve(&b, len * sizeof(*insns) + 1);
		if (b.oom)
			break;
		memcpy(b.s, insns, len * sizeof(*insns));
		/* In the target's byte order, as the kernel there reads it
		 * (and as libseccomp's export writes it). */
		if (abi != SCMPC_ARCH_NONE && scmpc_arch_big_endian(abi) != host_big_endian())
			bpf_swap((struct sock_filter *)(void *)b.s, len);
		b.len = len * sizeof(*insns);
		b.s[b.len] = '\0';
		break;
	case SCMPC_FORMAT_C:
		if (!c_identifier(name) || strlen(name) > 200)
			return diag_err(d, -EINVAL, NULL, "\"%.64s\" is not a usable C identifier",
					name);
		/* fall through */
	case SCMPC_FORMAT_TEXT:
		fl = malloc(len * sizeof(*fl));
		if (!fl)
			return diag_err(d, -ENOMEM, NULL, "out of memory");
		flow_compute(insns, len, fl);
		if (f == SCMPC_FORMAT_C)
			emit_c(&b, insns, len, fl, abi, name);
		else
			emit_text(&b, insns, len, fl, abi);
		free(fl);
		break;
	default:
		return diag_err(d, -EINVAL, NULL, "unknown output format %d", (int)f);
	}

	if (b.oom) {
		free(b.s);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	*out = b.s;
	if (out_len)
		*out_len = b.len;
	return 0;
}

SCMPC_API int scmpc_format_insn(const struct sock_filter *insns, size_t len, size_t pc,
				const struct scmpc_format_opts *o, char *buf, size_t size,
				scmpc_diag *d)
{
	struct scmpc_format_opts opts;
	char text[160], note[128];

	if (OPTS_VALID(o, scmpc_format_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(opts, o);
	if (!insns || pc >= len)
		return diag_err(d, -EINVAL, NULL, "no instruction %zu in a program of %zu", pc,
				insns ? len : 0);
	if (!buf && size)
		return diag_err(d, -EINVAL, NULL, "no place to store the output");
	if (opts.arch && !arch_info(opts.arch))
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)opts.arch);
	if (len > SIZE_MAX / sizeof(struct flow))
		return diag_err(d, -EOVERFLOW, NULL, "program of %zu instructions is too large", len);
	/* The names in the note depend on the paths into PC: the whole
	 * program's flow is needed, as for the listing. */
	struct flow *fl = malloc(len * sizeof(*fl));
	if (!fl)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	flow_compute(insns, len, fl);
	disasm(&insns[pc], pc, &fl[pc], opts.arch ? opts.arch : scmpc_arch_native(), text,
	       sizeof(text), note, sizeof(note));
	free(fl);
	return fmt_line(buf, size, text, note);
}
