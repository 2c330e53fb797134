/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile explain: what decides one call: which rule of a policy and
 * why (scmpc_policy_explain(): libseccomp's order included), the truth of
 * each of its conditions, the instructions the program runs for it and
 * whether the kernel caches it; or, for a .bpf file or a live process's
 * stack (--pid), each filter's decision and the kernel's result.  The call
 * may come from a kernel audit record (--audit). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

/* The call being explained, and where it came from. */
struct call {
	enum scmpc_arch arch;
	uint32_t nr;
	uint64_t args[6];
	int nargs;			/* given on the command line */
	/* --audit: what the record says the kernel did */
	bool from_audit, has_code;
	uint32_t code;
	long sig;
	char comm[64], exe[256], pid[24];
};

/* ---- audit records */

/* The value of KEY= in the record REC (a field starts the record or
 * follows a space), unquoted, into BUF; false when absent. */
static bool audit_field(const char *rec, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);

	for (const char *p = rec; (p = strstr(p, key)); p += n) {
		if ((p != rec && p[-1] != ' ') || p[n] != '=')
			continue;
		const char *v = p + n + 1, *e;
		if (*v == '"') {
			e = strchr(++v, '"');
			if (!e)
				e = v + strlen(v);
		} else {
			e = v + strcspn(v, " \t\n");
		}
		snprintf(buf, len, "%.*s", (int)(e - v), v);
		return true;
	}
	return false;
}

static bool parse_hex32(const char *s, uint32_t *out)
{
	char *e;

	if (!strncasecmp(s, "0x", 2))
		s += 2;
	if (!*s || strspn(s, "0123456789abcdefABCDEF") != strlen(s) || strlen(s) > 8)
		return false;
	*out = (uint32_t)strtoul(s, &e, 16);
	return !*e;
}

/* The ABI whose calls reach the filter with AUDIT and NR: x86_64's
 * AUDIT_ARCH carries x32's calls, bit 30 set. */
static enum scmpc_arch abi_of_audit(uint32_t audit, uint32_t nr)
{
	if (audit == scmpc_arch_audit(SCMPC_ARCH_X86_64))
		return nr & 0x40000000U ? SCMPC_ARCH_X32 : SCMPC_ARCH_X86_64;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if (a != SCMPC_ARCH_X32 && scmpc_arch_audit((enum scmpc_arch)a) == audit)
			return (enum scmpc_arch)a;
	return SCMPC_ARCH_NONE;
}

/* A kernel audit record of a seccomp event, as auditd logs it
 * ("type=SECCOMP msg=audit(...): auid=... pid=... comm=... exe=... sig=31
 * arch=c000003e syscall=41 compat=0 ip=0x... code=0x80000000") or as the
 * kernel's printk puts it in syslog ("audit: type=1326 audit(...): ...").
 * The kernel's audit_seccomp() writes arch in hex without 0x, syscall in
 * decimal, code in hex with it. */
static int parse_audit(const char *rec, struct call *k)
{
	char v[256];
	uint32_t audit, nr;
	char *e;

	if (audit_field(rec, "type", v, sizeof(v)) && strcmp(v, "SECCOMP") && strcmp(v, "1326"))
		return usage_error("--audit: a type=%s record, not a seccomp one (type=SECCOMP, "
				   "1326)", v);
	if (!audit_field(rec, "arch", v, sizeof(v)))
		return usage_error("--audit: the record has no arch= field");
	if (!parse_hex32(v, &audit))
		return usage_error("--audit: arch=%s is not an AUDIT_ARCH value (hex)", v);
	char arch_text[sizeof(v)];
	snprintf(arch_text, sizeof(arch_text), "%s", v);
	if (!audit_field(rec, "syscall", v, sizeof(v)))
		return usage_error("--audit: the record has no syscall= field");
	errno = 0;
	unsigned long long n = strtoull(v, &e, 10);
	if (!*v || *e || errno || n > UINT32_MAX)
		return usage_error("--audit: syscall=%s is not a syscall number", v);
	nr = (uint32_t)n;
	k->arch = abi_of_audit(audit, nr);
	if (k->arch == SCMPC_ARCH_NONE)
		return usage_error("--audit: arch=%s is no ABI scmpc knows", arch_text);
	k->nr = nr;
	k->from_audit = true;
	if (audit_field(rec, "code", v, sizeof(v)))
		k->has_code = parse_hex32(v, &k->code);
	k->sig = -1;
	if (audit_field(rec, "sig", v, sizeof(v)))
		k->sig = strtol(v, NULL, 10);
	audit_field(rec, "comm", k->comm, sizeof(k->comm));
	audit_field(rec, "exe", k->exe, sizeof(k->exe));
	audit_field(rec, "pid", k->pid, sizeof(k->pid));
	return EXIT_OK;
}

/* ---- printing */

static const char *op_text(enum scmpc_op op)
{
	switch (op) {
	case SCMPC_OP_EQ: return "==";
	case SCMPC_OP_NE: return "!=";
	case SCMPC_OP_LT: return "<";
	case SCMPC_OP_LE: return "<=";
	case SCMPC_OP_GT: return ">";
	case SCMPC_OP_GE: return ">=";
	default: return "?";
	}
}

/* "a0 >= 4096", "a1.lo & 0x8 == 0x8". */
static void cond_text(const struct scmpc_cond *c, char *buf, size_t len)
{
	char v1[24], v2[24];
	const char *w = c->flags & SCMPC_COND_32BIT ? ".lo" : "";

	if (c->op == SCMPC_OP_MASKED_EQ)
		snprintf(buf, len, "a%u%s & 0x%" PRIx64 " == %s", c->arg, w, c->value,
			 fmt_u64(c->value2, v2, sizeof(v2)));
	else
		snprintf(buf, len, "a%u%s %s %s", c->arg, w, op_text(c->op),
			 fmt_u64(c->value, v1, sizeof(v1)));
}

/* Rule R's origin and index: "syscalls[3].names[0] (rule 3)". */
static const char *rule_name(const scmpc_policy *p, int r, char *buf, size_t len)
{
	const char *origin = scmpc_policy_rule_origin(p, (size_t)r);

	snprintf(buf, len, "%s (rule %d)", origin ? origin : "a rule without origin", r);
	return buf;
}

/* Each condition of rule R with its truth for SD and the value it
 * compares: "  a0 >= 4096: false (a0 = 0x10)". */
static void print_conds(const scmpc_policy *p, int r, const struct seccomp_data *sd,
			const char *indent)
{
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };
	uint64_t mask = 0;
	bool narrow = abi_info(abi_of_audit(sd->arch, (uint32_t)sd->nr)).args32;

	if (scmpc_policy_rule(p, (size_t)r, &ri) < 0 ||
	    scmpc_policy_rule_holds(p, (size_t)r, sd, &mask) < 0)
		return;
	if (!ri.nconds)
		printf("%s(no conditions: it holds for every argument)\n", indent);
	for (size_t i = 0; i < ri.nconds; i++) {
		const struct scmpc_cond *c = &ri.conds[i];
		char text[96];
		uint64_t x = sd->args[c->arg];

		if (narrow || (c->flags & SCMPC_COND_32BIT))
			x &= 0xffffffffULL;
		cond_text(c, text, sizeof(text));
		printf("%s%s: %s (a%u%s = 0x%" PRIx64 ")\n", indent, text,
		       (mask >> i) & 1 ? "true" : "false", c->arg,
		       narrow || (c->flags & SCMPC_COND_32BIT) ? ".lo" : "", x);
	}
}

/* What decides SD in policy P, and why. */
static int print_policy_decision(const scmpc_policy *p, const struct seccomp_data *sd,
				 enum scmpc_arch a, uint32_t *want)
{
	struct scmpc_explanation e = { .sz = sizeof(e) };
	char act[32], name[160], other[32];
	int rc = scmpc_policy_explain(p, sd, &e, NULL);

	if (rc < 0)
		return rc;
	*want = e.action;
	printf("action: %s\n", action_name(e.action, act, sizeof(act)));
	switch (e.reason) {
	case SCMPC_REASON_RULE:
		printf("decided by: %s\n", rule_name(p, e.rule, name, sizeof(name)));
		print_conds(p, e.rule, sd, "  ");
		break;
	case SCMPC_REASON_DEFAULT:
		printf("decided by: the default action (no rule matches)\n");
		break;
	case SCMPC_REASON_UNKNOWN:
		printf("decided by: the unknown-syscall action (the number is above the policy's "
		       "threshold for syscalls newer than it)\n");
		break;
	case SCMPC_REASON_LIMIT:
		printf("decided by: the runtime's ENOSYS stub (the number is above the highest "
		       "the profile names on %s), before any rule\n", scmpc_arch_name(a));
		break;
	case SCMPC_REASON_BAD_ARCH:
		printf("decided by: the bad-arch action (the policy has no %s section)\n",
		       scmpc_arch_name(a));
		break;
	case SCMPC_REASON_ORDER:
		if (e.order_rule >= 0) {
			printf("decided by: libseccomp's order of comparisons: the action comes from "
			       "the comparisons of %s, whose conditions do not all hold\n",
			       rule_name(p, e.order_rule, name, sizeof(name)));
			print_conds(p, e.order_rule, sd, "  ");
			if (e.rule >= 0) {
				printf("  (%s holds and gives the same action)\n",
				       rule_name(p, e.rule, name, sizeof(name)));
			}
		} else if (e.rule >= 0) {
			printf("decided by: %s, by libseccomp's order of comparisons\n",
			       rule_name(p, e.rule, name, sizeof(name)));
			print_conds(p, e.rule, sd, "  ");
		} else {
			printf("decided by: libseccomp's order of comparisons: none leads to an "
			       "action, so the default action decides although a rule holds\n");
		}
		if (e.overridden >= 0) {
			struct scmpc_rule_info ri = { .sz = sizeof(ri) };
			scmpc_policy_rule(p, (size_t)e.overridden, &ri);
			printf("overridden: %s holds and gives %s, but libseccomp's order overrides "
			       "it (--restrictive: %s)\n", rule_name(p, e.overridden, name, sizeof(name)),
			       action_name(ri.action, other, sizeof(other)),
			       action_name(e.severity_action, act, sizeof(act)));
			print_conds(p, e.overridden, sd, "  ");
		}
		break;
	}
	return 0;
}

/* Run one program on SD, printing its decision and path; *GOT gets it. */
static int print_run(const char *label, const struct sock_filter *insns, size_t len,
		     const struct seccomp_data *sd, enum scmpc_arch a, uint32_t *got)
{
	char act[32], line[320];
	size_t *path = malloc((len ? len : 1) * sizeof(*path)), npath = 0;
	int rc = path ? scmpc_emulate_trace(insns, len, sd, got, path, len, &npath) : -ENOMEM;

	if (rc >= 0)
		printf("%s: %s after %zu of %zu instructions\n", label,
		       action_name(*got, act, sizeof(act)), npath, len);
	for (size_t i = 0; i < npath && rc >= 0; i++)
		if ((rc = insn_text(insns, len, path[i], a, line, sizeof(line))) >= 0)
			printf("  %4zu: %s\n", path[i], line);
	free(path);
	return rc < 0 ? rc : 0;
}

/* The kernel's action cache for call NR of ABI A with INSNS alone. */
static int print_cache(const struct cli *c, const struct sock_filter *insns, size_t len,
		       enum scmpc_arch a, uint32_t nr)
{
	char line[320];
	uint32_t stop = 0;

	if (!kernel_has_cache(c)) {
		printf("cache: never cached (" NO_CACHE_NOTE ")\n");
		return 0;
	}
	if (!abi_info(a).cached) {
		printf("cache: never cached (%s numbers are outside the kernel's bitmaps)\n",
		       scmpc_arch_name(a));
		return 0;
	}
	if (nr >= CACHE_NR) {
		printf("cache: never cached (the number is outside the kernel's bitmap of %u)\n",
		       CACHE_NR);
		return 0;
	}
	uint8_t bits[(CACHE_NR + 7) / 8];
	int rc = cache_bits(c, insns, len, a, bits);
	bool cached = rc >= 0 && (bits[nr / 8] >> (nr % 8)) & 1;
	int const_allow = scmpc_cache_const_allow(insns, len, scmpc_arch_audit(a), nr, &stop);
	int fr = stop < len ? insn_text(insns, len, stop, a, line, sizeof(line)) : 0;

	if (fr < 0)
		return fr;
	if (rc < 0)
		printf("cache: cannot be predicted (%s)\n", strerror(-rc));
	else if (cached && const_allow == 1)
		printf("cache: cached: the kernel allows the call without running the filter\n");
	else if (cached)
		printf("cache: cached although the filter does not allow it: the kernel lets this "
		       "call bypass every filter\n");
	else if (stop < len && BPF_CLASS(insns[stop].code) == BPF_RET)
		printf("cache: not cached: the argument-free path ends in insn %u: %s\n", stop, line);
	else if (stop < len)
		printf("cache: not cached: the kernel's check gives up at insn %u: %s\n", stop, line);
	else
		printf("cache: not cached\n");
	return 0;
}

/* The kernel's precedence over a stack (seccomp_run_filters()): every
 * filter runs, newest first, and a result replaces the one so far only
 * when its action is strictly lower, so ties go to the newest. */
static bool lower_action(uint32_t a, uint32_t b)
{
	return (int32_t)(a & 0xffff0000U) < (int32_t)(b & 0xffff0000U);
}

/* --pid: each filter of the process on the call, and the stack's result. */
static int explain_pid(const struct cli *c, const struct call *k, const struct seccomp_data *sd)
{
	scmpc_prog **progs = NULL;
	char act[32], label[64];
	int n = read_stack(c->pid, &progs), status = EXIT_INPUT;

	if (n < 0)
		return EXIT_INPUT;
	printf("process %u: %d filter%s, oldest first\n", c->pid, n, n == 1 ? "" : "s");
	uint32_t result = SCMPC_ACT_ALLOW;
	int winner = -1;
	for (int i = n - 1; i >= 0; i--) {
		uint32_t got;
		int rc = scmpc_emulate(scmpc_prog_insns(progs[i]), scmpc_prog_len(progs[i]), sd,
				       &got, NULL);
		if (rc < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
		if (winner < 0 || lower_action(got, result)) {
			result = got;
			winner = i;
		}
	}
	if (n == 0)
		printf("action: ALLOW\ndecided by: no filter (the process is not under seccomp)\n");
	else
		printf("action: %s\ndecided by: filter %d (of %d, oldest 0): the kernel runs every "
		       "filter, newest first, and keeps the lowest action, ties to the newest\n",
		       action_name(result, act, sizeof(act)), winner, n);
	for (int i = n - 1; i >= 0; i--) {
		uint32_t got;
		snprintf(label, sizeof(label), "filter %d", i);
		int rc = print_run(label, scmpc_prog_insns(progs[i]), scmpc_prog_len(progs[i]), sd,
				   k->arch, &got);
		if (rc < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
	}
	status = EXIT_OK;
out:
	scmpc_prog_array_free(progs, (size_t)(n > 0 ? n : 0));
	return status;
}

/* The call from the command line: SYSCALL [ARG...] at POS[0..N), or with
 * --audit the record's and ARGs only. */
static int parse_call(const struct cli *c, char **pos, int n, struct call *k)
{
	uint64_t v;
	int first_arg = 0;

	if (c->audit) {
		int rc = parse_audit(c->audit, k);
		if (rc)
			return rc;
		if (c->arch != SCMPC_ARCH_NONE && c->arch != k->arch)
			return usage_error("--audit: the record's call is of %s, not %s",
					   scmpc_arch_name(k->arch), scmpc_arch_name(c->arch));
	} else {
		if (n < 1)
			return usage_error("explain needs a SYSCALL");
		k->arch = c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch();
		int pn = parse_u64(pos[0], &v);
		if (pn) {
			if (pn < 0 || (v > UINT32_MAX && v < 0xffffffff80000000ULL))
				return usage_error("syscall number '%s' out of range", pos[0]);
			k->nr = (uint32_t)v;
			/* Numbers are accepted with or without the ABI's base (the x32
			 * bit, mips' 4000/5000/6000). */
			uint32_t base = abi_info(k->arch).nr_base;
			if (k->nr < base)
				k->nr += base;
		} else {
			int64_t nr = scmpc_syscall_resolve(k->arch, pos[0]);
			if (nr < 0) {
				errorf("unknown syscall '%s' on %s", pos[0], scmpc_arch_name(k->arch));
				return EXIT_INPUT;
			}
			k->nr = (uint32_t)nr;
		}
		first_arg = 1;
	}
	if (n - first_arg > 6)
		return usage_error("a syscall has at most 6 arguments");
	for (int i = first_arg; i < n; i++) {
		int pr = parse_u64(pos[i], &k->args[i - first_arg]);
		if (pr < 0)
			return usage_error("argument value '%s' is out of range (-9223372036854775808 "
					   "to 18446744073709551615)", pos[i]);
		if (!pr)
			return usage_error("invalid argument value '%s'", pos[i]);
	}
	k->nargs = n - first_arg;
	return EXIT_OK;
}

static void print_call(const struct call *k)
{
	char buf[128], num[24], act[32];

	printf("syscall: %s on %s", syscall_label(k->arch, k->nr, buf, sizeof(buf)),
	       scmpc_arch_name(k->arch));
	for (int i = 0; i < k->nargs; i++)
		printf("%s%s", i ? ", " : ", arguments ", fmt_u64(k->args[i], num, sizeof(num)));
	putchar('\n');
	if (!k->from_audit)
		return;
	if (k->pid[0] || k->comm[0] || k->exe[0] || k->has_code)
		printf("audit record:");
	if (k->pid[0])
		printf(" pid %s", k->pid);
	if (k->comm[0])
		printf(" (%s)", k->comm);
	if (k->exe[0])
		printf(" %s", k->exe);
	if (k->has_code)
		printf("; the kernel returned %s", action_name(k->code, act, sizeof(act)));
	if (k->sig > 0)
		printf(", signal %ld", k->sig);
	if (k->pid[0] || k->comm[0] || k->exe[0] || k->has_code)
		putchar('\n');
	if (!k->nargs)
		printf("note: an audit record carries no arguments: explained with arguments 0 "
		       "(give them after the record)\n");
}

static int run_explain(struct cli *c)
{
	struct call k;
	struct filter f;
	struct seccomp_data sd;
	int status = EXIT_INPUT;
	/* Operands: [POLICY] SYSCALL [ARG...]; --pid takes POLICY's place,
	 * --audit SYSCALL's, and then POLICY is optional. */
	bool has_input = !c->pid;

	memset(&k, 0, sizeof(k));
	memset(&f, 0, sizeof(f));
	if (c->pid) {
		uint64_t v;
		/* With --pid the operands are SYSCALL [ARG...] (ARG... with
		 * --audit): a word no number where an ARG goes is a POLICY. */
		int first = c->audit ? 0 : 1;
		for (int i = first; i < c->npos; i++)
			if (!parse_u64(c->pos[i], &v))
				return usage_error("a POLICY or --pid PID, not both");
	}
	if (c->audit && !c->pid) {
		uint64_t v;
		has_input = c->npos >= 1 && !parse_u64(c->pos[0], &v);
	}
	if (has_input && c->npos < 1)
		return usage_error("explain needs a POLICY and a SYSCALL");
	if (!c->audit && has_input && c->npos < 2)
		return usage_error("explain needs a POLICY and a SYSCALL");
	int rc = parse_call(c, c->pos + has_input, c->npos - has_input, &k);
	if (rc)
		return rc;
	make_data(&sd, k.arch, k.nr, k.args);
	print_call(&k);
	if (c->pid)
		return explain_pid(c, &k, &sd);
	if (!has_input) {
		/* --audit alone: what the record says, and no more */
		return EXIT_OK;
	}
	if (load_filter(c, c->pos[0], host_of(k.arch), &f))
		goto out;

	uint32_t want = 0, got = 0;
	char act[32], buf[32];
	if (f.policy) {
		rc = print_policy_decision(f.policy, &sd, k.arch, &want);
		if (rc < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
	}
	if (!f.policy) {
		/* No rules to name: the program's own answer comes first, as a
		 * policy's action does. */
		rc = scmpc_emulate(f.insns, f.len, &sd, &want, NULL);
		if (rc < 0) {
			status = report_failure(rc, EXIT_INPUT);
			goto out;
		}
		printf("action: %s\ndecided by: the filter (a compiled program names no rule)\n",
		       action_name(want, act, sizeof(act)));
	}
	rc = print_run("filter", f.insns, f.len, &sd, k.arch, &got);
	if (rc < 0) {
		status = report_failure(rc, EXIT_INPUT);
		goto out;
	}
	if (got != want) {
		errorf("warning: the compiled filter returns %s where the policy says %s",
		       action_name(got, act, sizeof(act)), action_name(want, buf, sizeof(buf)));
	}
	if (k.from_audit && k.has_code && k.code != want)
		printf("note: the record's call got %s, not %s: its arguments differ from those "
		       "explained, or the process ran under other filters\n",
		       action_name(k.code, act, sizeof(act)), action_name(want, buf, sizeof(buf)));
	rc = print_cache(c, f.insns, f.len, k.arch, k.nr);
	if (rc < 0) {
		status = report_failure(rc, EXIT_INPUT);
		goto out;
	}
	status = EXIT_OK;
out:
	filter_free(&f);
	return status;
}

const struct command explain_command = {
	"explain", run_explain, F_ARCH | F_POLICY | F_PID | F_AUDIT | F_NEGATIVE,
	"Usage: " PROG_NAME " explain POLICY|FILE.bpf SYSCALL [ARG...] [-a ABI]\n"
	"                            [--caps LIST] [--kernel X.Y] [--strict] [--no-enosys]\n"
	"                            [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n"
	"       " PROG_NAME " explain --pid PID SYSCALL [ARG...] [-a ABI]\n"
	"       " PROG_NAME " explain [POLICY|FILE.bpf|--pid PID] --audit RECORD [ARG...]\n",
	"Say what decides one call: the rule of POLICY and why (under the runtimes'\n"
	"merge, libseccomp's order of comparisons may decide instead of the most\n"
	"restrictive rule: then the rule it overrides is named), the truth of each\n"
	"of the rule's conditions, the action, the instructions the compiled\n"
	"filter executes and whether the kernel caches the call.  For a .bpf file,\n"
	"the filter's decision; for --pid, each filter of the process and the\n"
	"kernel's result for the stack.  SYSCALL is a name or a number; up to six\n"
	"ARGs are integers (decimal, 0x hex, or negative: -100), missing ones 0.\n"
	"--audit takes the ABI and number from a type=SECCOMP audit record (its\n"
	"arch= and syscall=); such a record has no arguments.  POLICY may be '-'\n"
	"for standard input.\n",
	EXIT_HELP,
};
