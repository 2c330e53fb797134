/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Bytes decoded into a policy through the C API: ABIs in any order,
 * default, bad-arch and unknown-syscall actions, both merge modes, up to
 * MAX_RULES rules by name (from a list chosen for multiplexed calls, names
 * missing on some ABIs and ARM's private calls) or by raw number, with every
 * action, operator and 32/64-bit condition on boundary constants, and
 * optionally a bulk of up to 1023 rules on one syscall (programs near the
 * kernel's 4096 instructions).
 *
 * Oracles:
 *  - scmpc_compile() succeeds or says the policy is too big; its own
 *    semantic check failing ("internal error") is a compiler bug, and so is
 *    "too big" when the naive program fits;
 *  - the optimized and the naive program, a reference evaluator written
 *    here from include/scmpc.h, and (sampled) scmpc_policy_eval() give the
 *    same action on probe points chosen here, independently of the
 *    library's own probe set and evaluator (the base vectors come from
 *    rule_witness(), which the library's semantic check does not use).
 */
#include <linux/audit.h>
#include <linux/ipc.h>
#include <linux/net.h>
#include <stdbool.h>
#include <stdint.h>
#include "fuzz_common.h"
#include "internal.h"	/* arch_table_max(), rule_witness() */
#include "oracle.h"

#define MAX_RULES 24
#define MAX_CONDS 6
#define MAX_PROBES 6000

struct reader {
	const uint8_t *p;
	size_t n;
};

/* Past the end every read is 0: a short input is a small policy. */
static uint8_t rd8(struct reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t rd32(struct reader *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | rd8(r);
	return v;
}

static uint64_t rd64(struct reader *r)
{
	return (uint64_t)rd32(r) << 32 | rd32(r);
}

static const uint32_t actions[] = {
	SCMPC_ACT_ALLOW, SCMPC_ACT_ERRNO(1), SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD,
	SCMPC_ACT_TRAP, SCMPC_ACT_ERRNO(0), SCMPC_ACT_ERRNO(38), SCMPC_ACT_ERRNO(4095),
	SCMPC_ACT_USER_NOTIF, SCMPC_ACT_TRACE(0), SCMPC_ACT_TRACE(0xffff), SCMPC_ACT_LOG,
	SCMPC_ACT_ERRNO(13), SCMPC_ACT_TRACE(7),
	/* refused by the API; they test that refusals stay clean */
	SCMPC_ACT_ERRNO(4096), 0x00010000U, 0x7ffe0000U,
};

static uint32_t rd_action(struct reader *r)
{
	uint8_t b = rd8(r);

	/* Mostly the valid ones: a refused action ends the input's use. */
	if (b >= 0xf8)
		return actions[14 + b % 3];
	return actions[b % 14];
}

static const char *const names[] = {
	"read", "write", "open", "openat", "close", "socket", "connect", "clone", "clone3",
	"execve", "ioctl", "mmap", "mmap2", "mprotect", "personality", "socketcall", "ipc",
	"shmget", "arm_fadvise64_64", "cacheflush", "set_tls", "breakpoint", "uretprobe",
	"uprobe", "getpid", "kill", "futex", "_sysctl", "fstat", "stat64", "recvmsg", "sendmsg",
	"accept", "accept4", "arch_prctl", "modify_ldt", "no_such_syscall", "io_uring_setup",
	"process_vm_writev", "ptrace", "fadvise64_64", "sync_file_range2", "fanotify_mark",
};

static const uint32_t raw_nrs[] = {
	0, 1, 2, 41, 59, 102, 231, 335, 336, 435, 469, 470, 1000, 0xffff, 0x3fffffffU,
	0x40000000U, 0x40000001U, 0x40000200U, 0x7fffffffU, 0x80000000U, 0x0f0000U, 0x0f0002U,
	0x0f0005U, 0x0f07ffU, 0x0f0800U, 0xfffffffeU, 0xffffffffU, 0xbfffffffU, 0xc0000000U,
};

static const uint64_t consts64[] = {
	0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000ULL,
	0xfffffffeULL, 0xffffffffULL, 0x100000000ULL, 0x100000001ULL, 0x1ffffffffULL,
	0x7fffffffffffffffULL, 0x8000000000000000ULL, 0xffffffff00000000ULL,
	0xffffffff80000000ULL, 0xffffffff7fffffffULL, 0xfffffffffffffffeULL, UINT64_MAX,
	(uint64_t)-100, 0x10000000, 0x40000000, 0x7e020000, 0x00000000ffff0000ULL, 0x8000000080000000ULL,
};

static uint64_t rd_value(struct reader *r)
{
	uint8_t b = rd8(r);

	if (b < 0xc0)
		return consts64[b % (sizeof(consts64) / sizeof(consts64[0]))];
	if (b < 0xe0)
		return rd64(r);
	/* a small value placed in one byte lane, for masks */
	return (uint64_t)rd8(r) << (8 * (b & 7));
}

struct decoded {
	scmpc_policy *p;
	enum scmpc_arch arches[SCMPC_ARCH_COUNT];
	size_t narches;
};

static bool decode(struct reader *r, struct decoded *out, scmpc_diag *d)
{
	/* Five little-endian ABIs: one filter holds one byte order, and the
	 * reference below states the argument width of these five only. */
	static const enum scmpc_arch all[] = {
		SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32, SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM,
	};
	const size_t nall = sizeof(all) / sizeof(all[0]);
	uint8_t mask = rd8(r), rot = rd8(r), misc = rd8(r);
	scmpc_policy *p = scmpc_policy_new(rd_action(r));

	memset(out, 0, sizeof(*out));
	if (!p)
		return false;
	out->p = p;
	if (!(mask & 0x1f))
		mask |= 1;
	for (size_t i = 0; i < nall; i++) {
		size_t k = (i + rot) % nall;

		if (!(mask & (1U << k)))
			continue;
		if (scmpc_policy_add_arch(p, all[k], d) < 0)
			return false;
		out->arches[out->narches++] = all[k];
	}
	if (misc & 1 && scmpc_policy_set_bad_arch_action(p, rd_action(r), d) < 0)
		return false;
	if (misc & 2 && scmpc_policy_set_unknown_action(p, rd_action(r),
							 misc & 4 ? SCMPC_UNKNOWN_POLICY_MAX
								  : SCMPC_UNKNOWN_TABLE_MAX, d) < 0)
		return false;
	if (scmpc_policy_set_merge(p, misc & 8 ? SCMPC_MERGE_LIBSECCOMP : SCMPC_MERGE_RESTRICTIVE,
				   d) < 0)
		return false;

	size_t nrules = rd8(r) % (MAX_RULES + 1);
	for (size_t i = 0; i < nrules && r->n; i++) {
		struct scmpc_cond conds[MAX_CONDS];
		struct scmpc_rule rule;
		uint8_t kind = rd8(r), shape = rd8(r);

		memset(&rule, 0, sizeof(rule));
		rule.sz = sizeof(rule);
		if (kind < 0xd0) {
			rule.syscall = names[kind % (sizeof(names) / sizeof(names[0]))];
			/* a name limited to one ABI, now and then */
			if (shape & 0x80)
				rule.arch = out->arches[(shape >> 4) % out->narches];
		} else {
			rule.arch = out->arches[kind % out->narches];
			rule.nr = kind < 0xf0 ? raw_nrs[rd8(r) % (sizeof(raw_nrs) / sizeof(raw_nrs[0]))]
					      : rd32(r);
		}
		rule.action = rd_action(r);
		rule.nconds = shape % (MAX_CONDS + 1);
		for (size_t c = 0; c < rule.nconds; c++) {
			uint8_t b = rd8(r);

			conds[c].arg = b % 6;
			conds[c].op = (enum scmpc_op)(SCMPC_OP_EQ + (b >> 3) % 7);
			conds[c].flags = b & 0x80 ? SCMPC_COND_32BIT : 0;
			conds[c].value = rd_value(r);
			conds[c].value2 = conds[c].op == SCMPC_OP_MASKED_EQ ? rd_value(r) : 0;
		}
		rule.conds = conds;
		/* A refused rule (a refused action) is skipped: what is left
		 * is still a policy worth compiling. */
		int rc = scmpc_policy_add_rule(p, &rule, d);
		if (rc < 0) {
			fuzz_check_failure("scmpc_policy_add_rule", rc, d);
			scmpc_diag_clear(d);
		}
	}

	/* Bulk: one syscall with up to 1023 rules on one argument, values in
	 * an arithmetic progression.  Only such policies get near the
	 * kernel's 4096 instructions, where the layout falls back to
	 * size-first and jumps need trampolines.  More rules would only slow
	 * the search: the library's semantic check is quadratic in the rules
	 * of one syscall. */
	if (misc & 0x10 && r->n) {
		struct scmpc_cond cond;
		struct scmpc_rule rule;
		uint8_t b = rd8(r);
		unsigned count = (unsigned)rd8(r) << 2;
		count |= rd8(r) & 3U;
		uint64_t v = rd_value(r), stride = rd_value(r) | 1;

		memset(&rule, 0, sizeof(rule));
		rule.sz = sizeof(rule);
		rule.syscall = names[b % ARRAY_SIZE(names)];
		rule.action = rd_action(r);
		rule.conds = &cond;
		rule.nconds = 1;
		memset(&cond, 0, sizeof(cond));
		cond.arg = b % 6;
		cond.op = (enum scmpc_op)(SCMPC_OP_EQ + (b >> 3) % 7);
		cond.flags = b & 0x80 ? SCMPC_COND_32BIT : 0;
		cond.value2 = rd_value(r);
		for (unsigned i = 0; i < count; i++, v += stride) {
			cond.value = v;
			if (scmpc_policy_add_rule(p, &rule, d) < 0)
				return false;
		}
	}
	return true;
}


struct probes {
	uint32_t audit[MAX_PROBES], nr[MAX_PROBES];
	uint64_t args[MAX_PROBES][6];
	size_t n;
};

static void probe_add(struct probes *pr, uint32_t audit, uint32_t nr, const uint64_t *args)
{
	if (pr->n >= MAX_PROBES)
		return;
	pr->audit[pr->n] = audit;
	pr->nr[pr->n] = nr;
	if (args)
		memcpy(pr->args[pr->n], args, sizeof(pr->args[0]));
	else
		memset(pr->args[pr->n], 0, sizeof(pr->args[0]));
	pr->n++;
}

/* The number each rule stands for on each ABI of the policy, resolved once
 * per input: libseccomp's look-ups are linear scans. */
struct resolved_rules {
	uint32_t *nr[SCMPC_ARCH_COUNT];
	bool *ok[SCMPC_ARCH_COUNT];
	struct mux_copy *mux[SCMPC_ARCH_COUNT];
};

/*
 * What a rule becomes on an ABI with socketcall(2)/ipc(2): a rule on that
 * multiplexer for its sub-call.  Sub-call numbers are the kernel's
 * (<linux/net.h>, <linux/ipc.h>); which ABIs multiplex is the syscall
 * table's fact, asked through scmpc_syscall_resolve().  The RESTRICTIVE
 * merge treats the rules of one call together: FIRST marks the one that
 * stands for them, CONDITIONAL whether any of them has conditions, WORST
 * the action the multiplexed call then gets.
 */
struct mux_copy {
	bool ok, ipc, first, conditional;
	uint32_t nr, call, worst;
};

static const struct {
	const char *name;
	bool ipc;
	uint32_t call;
} subcalls[] = {
	{ "socket", false, SYS_SOCKET }, { "bind", false, SYS_BIND },
	{ "connect", false, SYS_CONNECT }, { "listen", false, SYS_LISTEN },
	{ "accept", false, SYS_ACCEPT }, { "getsockname", false, SYS_GETSOCKNAME },
	{ "getpeername", false, SYS_GETPEERNAME }, { "socketpair", false, SYS_SOCKETPAIR },
	{ "send", false, SYS_SEND }, { "recv", false, SYS_RECV },
	{ "sendto", false, SYS_SENDTO }, { "recvfrom", false, SYS_RECVFROM },
	{ "shutdown", false, SYS_SHUTDOWN }, { "setsockopt", false, SYS_SETSOCKOPT },
	{ "getsockopt", false, SYS_GETSOCKOPT }, { "sendmsg", false, SYS_SENDMSG },
	{ "recvmsg", false, SYS_RECVMSG }, { "accept4", false, SYS_ACCEPT4 },
	{ "recvmmsg", false, SYS_RECVMMSG }, { "sendmmsg", false, SYS_SENDMMSG },
	{ "semop", true, SEMOP }, { "semget", true, SEMGET }, { "semctl", true, SEMCTL },
	{ "semtimedop", true, SEMTIMEDOP }, { "msgsnd", true, MSGSND },
	{ "msgrcv", true, MSGRCV }, { "msgget", true, MSGGET }, { "msgctl", true, MSGCTL },
	{ "shmat", true, SHMAT }, { "shmdt", true, SHMDT }, { "shmget", true, SHMGET },
	{ "shmctl", true, SHMCTL },
};

static int ref_cmp(uint32_t a, uint32_t b);

static void resolve_mux(const struct decoded *dc, size_t ai, struct mux_copy *mc)
{
	const scmpc_policy *p = dc->p;
	enum scmpc_arch a = dc->arches[ai];
	int64_t socketcall = scmpc_syscall_resolve(a, "socketcall");
	int64_t ipc = scmpc_syscall_resolve(a, "ipc");

	if (socketcall < 0 && ipc < 0)
		return;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *ru = &p->rules[i];
		char buf[64];
		const char *name = ru->name;

		if (ru->arch != SCMPC_ARCH_NONE && ru->arch != a)
			continue;
		if (!name && scmpc_syscall_name(a, ru->nr, buf, sizeof(buf)))
			name = buf;
		for (size_t k = 0; name && k < ARRAY_SIZE(subcalls); k++) {
			int64_t mux = subcalls[k].ipc ? ipc : socketcall;

			if (strcmp(subcalls[k].name, name) || mux < 0)
				continue;
			mc[i] = (struct mux_copy){ .ok = true, .ipc = subcalls[k].ipc,
						   .nr = (uint32_t)mux, .call = subcalls[k].call };
		}
	}
	for (size_t i = 0; i < p->nrules; i++) {
		bool unconditional = false;

		if (!mc[i].ok)
			continue;
		mc[i].first = true;
		for (size_t j = 0; j < i && mc[i].first; j++)
			if (mc[j].ok && mc[j].ipc == mc[i].ipc && mc[j].call == mc[i].call)
				mc[i].first = false;
		if (!mc[i].first)
			continue;
		mc[i].worst = p->rules[i].action;
		for (size_t j = i; j < p->nrules; j++) {
			if (!mc[j].ok || mc[j].ipc != mc[i].ipc || mc[j].call != mc[i].call)
				continue;
			if (p->rules[j].nconds)
				mc[i].conditional = true;
			else
				unconditional = true;
			if (ref_cmp(p->rules[j].action, mc[i].worst) < 0)
				mc[i].worst = p->rules[j].action;
		}
		if (!unconditional && ref_cmp(p->def_action, mc[i].worst) < 0)
			mc[i].worst = p->def_action;
	}
}

static bool resolve_rules(const struct decoded *dc, struct resolved_rules *rr)
{
	const scmpc_policy *p = dc->p;
	size_t n = p->nrules ? p->nrules : 1;

	memset(rr, 0, sizeof(*rr));
	for (size_t ai = 0; ai < dc->narches; ai++) {
		enum scmpc_arch a = dc->arches[ai];
		const char *last = NULL;
		int64_t last_v = -1;

		rr->nr[ai] = calloc(n, sizeof(*rr->nr[ai]));
		rr->ok[ai] = calloc(n, sizeof(*rr->ok[ai]));
		rr->mux[ai] = calloc(n, sizeof(*rr->mux[ai]));
		if (!rr->nr[ai] || !rr->ok[ai] || !rr->mux[ai])
			return false;
		resolve_mux(dc, ai, rr->mux[ai]);
		for (size_t i = 0; i < p->nrules; i++) {
			const struct rule *ru = &p->rules[i];

			if (!ru->name) {
				rr->nr[ai][i] = ru->nr;
				rr->ok[ai][i] = ru->arch == a;
			} else if (ru->arch == SCMPC_ARCH_NONE || ru->arch == a) {
				/* bulk rules repeat one name */
				if (!last || strcmp(last, ru->name))
					last_v = scmpc_syscall_resolve(a, ru->name);
				last = ru->name;
				rr->nr[ai][i] = (uint32_t)last_v;
				rr->ok[ai][i] = last_v >= 0;
			}
		}
	}
	return true;
}

static void resolved_free(struct resolved_rules *rr)
{
	for (size_t ai = 0; ai < SCMPC_ARCH_COUNT; ai++) {
		free(rr->nr[ai]);
		free(rr->ok[ai]);
		free(rr->mux[ai]);
	}
}

/* ------------------------------------------------- reference semantics */

/* The policy's meaning as include/scmpc.h states it, written apart from
 * src/policy/policy_eval.c (which the library's own verifier trusts), so that a
 * mistake there shows up as a disagreement here instead of being certified
 * by the very check that should catch it. */

/* Condition C as the rule states it; LSC32 (the LIBSECCOMP merge on a
 * 32-bit ABI) keeps the low word of its constants only, and a masked
 * compare left without mask bits is gone (returns false). */
static bool eff_cond(const struct scmpc_cond *c, bool lsc32, struct scmpc_cond *out)
{
	*out = *c;
	if (!lsc32)
		return true;
	out->value &= 0xffffffffU;
	out->value2 &= 0xffffffffU;
	return out->op != SCMPC_OP_MASKED_EQ || out->value;
}

static bool ref_cond(const struct scmpc_cond *cc, bool compat32, bool lsc32, const uint64_t *args)
{
	struct scmpc_cond c;

	if (!eff_cond(cc, lsc32, &c))
		return true;
	return oracle_cond(&c, args[c.arg], compat32);
}

/* Lower is more restrictive: the kernel's signed order of the action
 * field, then the lower data. */
static int ref_cmp(uint32_t a, uint32_t b)
{
	int32_t ka = (int32_t)(a & 0xffff0000U), kb = (int32_t)(b & 0xffff0000U);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return (a & 0xffffU) < (b & 0xffffU) ? -1 : (a & 0xffffU) > (b & 0xffffU);
}

/* LIBSECCOMP merge: a rule made only of zero-mask compares (after LSC32's
 * truncation) is unconditional. */
static bool lsc_unconditional(const struct rule *ru, bool lsc32)
{
	for (size_t c = 0; c < ru->nconds; c++) {
		struct scmpc_cond e;

		if (eff_cond(&ru->conds[c], lsc32, &e) &&
		    (e.op != SCMPC_OP_MASKED_EQ || e.value || e.value2))
			return false;
	}
	return true;
}

static bool has_arch(const struct decoded *dc, enum scmpc_arch a, size_t *ai)
{
	for (size_t i = 0; i < dc->narches; i++)
		if (dc->arches[i] == a) {
			*ai = i;
			return true;
		}
	return false;
}

/* The rules that name one number, folded as include/scmpc.h says. */
struct verdict {
	const scmpc_policy *p;
	bool lsc, named, matched, first_unconditional;
	uint32_t best, decided;
};

static void offer(struct verdict *v, uint32_t action, bool unconditional, bool match)
{
	if (v->lsc && action == v->p->def_action)
		return;		/* refused by libseccomp */
	v->named = true;
	if (v->lsc && unconditional && !v->first_unconditional) {
		/* rules are offered in the order they were added */
		v->first_unconditional = true;
		v->decided = action;
	}
	if (match && (!v->matched || ref_cmp(action, v->best) < 0)) {
		v->best = action;
		v->matched = true;
	}
}

/* The test of the multiplexer's argument 0 that reaches sub-call M: the
 * bits the kernel reads (ipc's low 16, the version above them ignored;
 * socketcall's 32-bit int), in every merge mode, libseccomp's included
 * (README: the one deliberate difference from libseccomp). */
static bool mux_test(const struct mux_copy *m, const uint64_t *args)
{
	if (m->ipc)
		return (args[0] & 0xffffU) == m->call;
	return (uint32_t)args[0] == m->call;
}

static uint32_t ref_decide(const struct decoded *dc, const struct resolved_rules *rr,
			   uint32_t audit, uint32_t nr, const uint64_t *args)
{
	static const enum scmpc_arch by_audit[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
						    SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM };
	const scmpc_policy *p = dc->p;
	enum scmpc_arch a = SCMPC_ARCH_NONE;
	bool audit_known = false;
	size_t ai = 0;

	if (audit == scmpc_arch_audit(SCMPC_ARCH_X86_64)) {
		audit_known = has_arch(dc, SCMPC_ARCH_X86_64, &ai) || has_arch(dc, SCMPC_ARCH_X32, &ai);
		a = nr >= 0x40000000U ? SCMPC_ARCH_X32 : SCMPC_ARCH_X86_64;
	} else {
		for (size_t i = 0; i < sizeof(by_audit) / sizeof(by_audit[0]); i++)
			if (scmpc_arch_audit(by_audit[i]) == audit)
				a = by_audit[i];
		audit_known = a != SCMPC_ARCH_NONE && has_arch(dc, a, &ai);
	}
	/* -1, a tracer's skipped call: decided by the rules of the first ABI
	 * of this AUDIT_ARCH (in the policy's order) that names it, else the
	 * default */
	if (audit_known && nr == 0xffffffffU) {
		bool named = false;
		for (size_t k = 0; k < dc->narches && !named; k++)
			for (size_t i = 0; i < p->nrules && !named; i++)
				if (scmpc_arch_audit(dc->arches[k]) == audit && rr->ok[k][i] &&
				    rr->nr[k][i] == 0xffffffffU) {
					named = true;
					a = dc->arches[k];
				}
		if (!named)
			return scmpc_policy_default_action(p);
	}
	if (a == SCMPC_ARCH_NONE || !has_arch(dc, a, &ai))
		return p->badarch_action;

	/* include/scmpc.h: i386, arm and x32 (ILP32 userland) compare the
	 * low word of an argument only */
	bool compat32 = a == SCMPC_ARCH_I386 || a == SCMPC_ARCH_ARM || a == SCMPC_ARCH_X32;
	bool lsc = p->merge == SCMPC_MERGE_LIBSECCOMP, lsc32 = lsc && compat32;
	uint32_t highest = a == SCMPC_ARCH_X32 ? 0x40000000U : 0;

	for (size_t i = 0; i < p->nrules; i++) {
		if (!rr->ok[ai][i])
			continue;
		uint32_t rn = rr->nr[ai][i];
		bool arm_private = a == SCMPC_ARCH_ARM && rn >= 0x0f0000U && rn <= 0x0f07ffU;

		if (rn > highest && rn != 0xffffffffU && !arm_private)
			highest = rn;
	}

	struct verdict v = { .p = p, .lsc = lsc };
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *ru = &p->rules[i];
		const struct mux_copy *m = &rr->mux[ai][i];

		if (rr->ok[ai][i] && rr->nr[ai][i] == nr) {
			bool all = true;

			for (size_t c = 0; c < ru->nconds && all; c++)
				all = ref_cond(&ru->conds[c], compat32, lsc32, args);
			offer(&v, ru->action, lsc ? lsc_unconditional(ru, lsc32) : !ru->nconds, all);
		}
		if (!m->ok || m->nr != nr)
			continue;
		if (lsc) {
			/* argument 0 is the sub-call now; the rest still count */
			bool all = mux_test(m, args);

			for (size_t c = 0; c < ru->nconds && all; c++)
				if (ru->conds[c].arg != 0)
					all = ref_cond(&ru->conds[c], compat32, lsc32, args);
			offer(&v, ru->action, false, all);
		} else if (m->first && m->conditional) {
			offer(&v, m->worst, false, mux_test(m, args));
		} else if (m->first) {
			for (size_t j = i; j < p->nrules; j++) {
				const struct mux_copy *o = &rr->mux[ai][j];

				if (o->ok && o->ipc == m->ipc && o->call == m->call)
					offer(&v, p->rules[j].action, false, mux_test(m, args));
			}
		}
	}
	if (v.first_unconditional)
		return v.decided;
	if (v.matched)
		return v.best;
	if (v.named || !p->unknown_set)
		return p->def_action;
	uint32_t thr = p->unknown_thr == SCMPC_UNKNOWN_POLICY_MAX ? highest : arch_table_max(a);
	bool arm_private = a == SCMPC_ARCH_ARM && nr >= 0x0f0000U && nr <= 0x0f07ffU;
	/* -1 is no unknown call, whatever its rules */
	if (nr > thr && !arm_private && nr != 0xffffffffU)
		return p->unknown_action;
	return p->def_action;
}

/* ------------------------------------------------------------ probing */

/* Values around condition CD: each side of it, in both words. */
static size_t around(const struct scmpc_cond *cd, uint64_t *out)
{
	uint64_t v = cd->value;
	size_t n = 0;

	out[n++] = v;
	out[n++] = v - 1;
	out[n++] = v + 1;
	out[n++] = v ^ 0xffffffff00000000ULL;
	out[n++] = v ^ 0x0000000100000000ULL;
	out[n++] = (uint32_t)v;
	out[n++] = (uint64_t)(int64_t)(int32_t)v;
	out[n++] = (uint32_t)(v - 1) | (v & 0xffffffff00000000ULL);
	out[n++] = (uint32_t)(v + 1) | (v & 0xffffffff00000000ULL);
	if (cd->op == SCMPC_OP_MASKED_EQ) {
		uint64_t m = cd->value, w = cd->value2, low = m & (~m + 1);

		out[n++] = w;
		out[n++] = w | ~m;
		out[n++] = w ^ low;
		out[n++] = w ^ (m & 0xffffffff00000000ULL);
		out[n++] = w ^ (m & 0xffffffffULL);
	}
	return n;
}

/* Probes for NR on ABI A, at most BUDGET of them. */
static void probes_for_nr(struct probes *pr, const scmpc_policy *p, const struct resolved_rules *rr,
			  size_t ai, enum scmpc_arch a, uint32_t nr, size_t budget)
{
	static const uint64_t ones[6] = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
					  UINT64_MAX, UINT64_MAX, UINT64_MAX };
	uint32_t audit = scmpc_arch_audit(a);
	size_t stop = pr->n + budget;

	probe_add(pr, audit, nr, NULL);
	probe_add(pr, audit, nr, ones);
	for (size_t i = 0; i < p->nrules && pr->n < stop && pr->n < MAX_PROBES; i++) {
		const struct rule *ru = &p->rules[i];
		const struct mux_copy *m = &rr->mux[ai][i];
		uint64_t base[6], vals[16];

		if (m->ok && m->nr == nr) {
			/* the sub-call, its neighbours, an ipc version in the
			 * high half, a high word the ABI does not pass */
			const uint64_t arg0[] = { m->call, m->call - 1, m->call + 1, m->call | 0x10000,
						  m->call | 0x7fff0000, m->call | 0xffffffff00000000ULL };
			rule_witness(ru, base);
			for (size_t k = 0; k < ARRAY_SIZE(arg0); k++) {
				uint64_t args[6] = { arg0[k] };

				probe_add(pr, audit, nr, args);
				memcpy(args + 1, base + 1, sizeof(args) - sizeof(args[0]));
				probe_add(pr, audit, nr, args);
			}
		}
		if (!ru->nconds || !rr->ok[ai][i] || rr->nr[ai][i] != nr)
			continue;
		rule_witness(ru, base);
		probe_add(pr, audit, nr, base);
		for (size_t c = 0; c < ru->nconds; c++) {
			size_t nv = around(&ru->conds[c], vals);

			for (size_t k = 0; k < nv; k++) {
				uint64_t args[6];

				memcpy(args, base, sizeof(args));
				args[ru->conds[c].arg] = vals[k];
				probe_add(pr, audit, nr, args);
				memset(args, 0, sizeof(args));
				args[ru->conds[c].arg] = vals[k];
				probe_add(pr, audit, nr, args);
			}
		}
	}
}

static int cmp_nr(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static bool build_probes(struct probes *pr, const struct decoded *dc,
			 const struct resolved_rules *rr)
{
	static const uint32_t fixed[] = {
		0, 1, 0x3fffffffU, 0x40000000U, 0x40000001U, 0x7fffffffU, 0x80000000U,
		0xbfffffffU, 0xc0000000U, 0xfffffffeU, 0xffffffffU, 0x0f0000U, 0x0f0001U,
		0x0f07ffU, 0x0f0800U,
	};
	const scmpc_policy *p = dc->p;
	size_t cap = ARRAY_SIZE(fixed) + 4 + 4 * p->nrules;
	uint32_t *nrs = malloc(cap * sizeof(*nrs));

	if (!nrs)
		return false;
	pr->n = 0;
	for (size_t ai = 0; ai < dc->narches; ai++) {
		enum scmpc_arch a = dc->arches[ai];
		uint32_t top = arch_table_max(a), most = 0;
		size_t n = 0;

		for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
			nrs[n++] = fixed[i];
		for (uint32_t d = 0; d < 3; d++)
			nrs[n++] = top - 1 + d;
		for (size_t i = 0; i < p->nrules; i++) {
			uint32_t nr = rr->nr[ai][i];

			if (rr->mux[ai][i].ok)
				nrs[n++] = rr->mux[ai][i].nr;
			if (!rr->ok[ai][i])
				continue;
			if (nr > most && nr != 0xffffffffU)
				most = nr;
			nrs[n++] = nr;
			nrs[n++] = nr - 1;
			nrs[n++] = nr + 1;
		}
		nrs[n++] = most + 1;
		qsort(nrs, n, sizeof(*nrs), cmp_nr);
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (!k || nrs[k - 1] != nrs[i])
				nrs[k++] = nrs[i];
		/* Each ABI and each number gets its share, so that one syscall
		 * with thousands of rules cannot crowd out the rest. */
		size_t share = (MAX_PROBES - 16) / dc->narches / k;
		for (size_t i = 0; i < k; i++)
			probes_for_nr(pr, p, rr, ai, a, nrs[i], share > 24 ? share : 24);
	}
	free(nrs);
	/* ABIs the policy lacks, and values no ABI has */
	static const enum scmpc_arch every[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
						 SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM };
	for (size_t i = 0; i < ARRAY_SIZE(every); i++)
		probe_add(pr, scmpc_arch_audit(every[i]), 2, NULL);
	probe_add(pr, AUDIT_ARCH_MIPS, 1, NULL);
	probe_add(pr, 0, 0, NULL);
	probe_add(pr, 0xffffffffU, 0xffffffffU, NULL);
	return true;
}

static struct probes probes;
static struct resolved_rules rules_of_input;

static uint32_t emulate(const scmpc_prog *prog, const struct seccomp_data *sd, const char *which)
{
	uint32_t ret = 0;
	int rc = scmpc_emulate(scmpc_prog_insns(prog), scmpc_prog_len(prog), sd, &ret, NULL);

	if (rc != 0)
		fuzz_bug("scmpc_emulate failed (%d) on the %s program", rc, which);
	return ret;
}

static scmpc_prog *compile(const scmpc_policy *p, unsigned flags, const char *which, int *err)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = flags };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	int rc;

	*err = -ENOMEM;
	if (!d)
		return NULL;
	rc = scmpc_compile(p, &o, &prog, d);
	*err = rc;
	if (rc < 0) {
		fuzz_check_failure(which, rc, d);
		if (rc != -E2BIG && rc != -ENOMEM)
			fuzz_bug("%s compile refused the policy: %d %s", which, rc,
				 scmpc_diag_message(d));
		prog = NULL;
	}
	scmpc_diag_free(d);
	return prog;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct decoded dc;
	scmpc_diag *d = scmpc_diag_new();

	if (!d)
		return 0;
	if (!decode(&r, &dc, d)) {
		if (!dc.p) {
			scmpc_diag_free(d);
			return 0;
		}
		fuzz_check_failure("policy setup", scmpc_diag_errno(d), d);
		scmpc_policy_free(dc.p);
		scmpc_diag_free(d);
		return 0;
	}
	scmpc_diag_free(d);

	int opt_err, naive_err;
	scmpc_prog *opt = compile(dc.p, 0, "optimized", &opt_err);
	scmpc_prog *naive = compile(dc.p, SCMPC_COMPILE_NAIVE, "naive", &naive_err);

	/* "Too big" is a claim about every program for the policy; the naive
	 * one fitting disproves it (finding F3, fixed by keeping a call's
	 * plain rule chain when it is the smaller). */
	if (opt_err == -E2BIG && naive)
		fuzz_bug("the optimizer refuses the policy as too big, but the naive program "
			 "fits in %zu instructions", scmpc_prog_len(naive));

	/* Calls the LIBSECCOMP merge leaves to libseccomp's tree of
	 * comparisons (lsc_tree.h): the reference here does not restate that
	 * tree; tests/test_differential.c holds it against libseccomp itself,
	 * and here the programs answer to scmpc_policy_eval(). */
	struct arch_view views[SCMPC_ARCH_COUNT];
	bool have_views = (opt || naive) && dc.p->merge == SCMPC_MERGE_LIBSECCOMP &&
			  policy_views_init(dc.p, views, NULL) == 0;
	if (opt || naive) {
		if (!resolve_rules(&dc, &rules_of_input) || !build_probes(&probes, &dc, &rules_of_input))
			probes.n = 0;
		for (size_t i = 0; i < probes.n; i++) {
			struct seccomp_data sd = fuzz_sd(probes.audit[i], probes.nr[i], probes.args[i],
							 0x00007f0012345678ULL);
			int rule = -1;
			bool by_tree = false;
			for (size_t k = 0; have_views && k < dc.p->narches; k++)
				if (views[k].arch == arch_of_call(probes.audit[i], probes.nr[i]) &&
				    view_tree(&views[k], probes.nr[i]))
					by_tree = true;
			uint32_t want = by_tree ? scmpc_policy_eval(dc.p, &sd, &rule)
						: ref_decide(&dc, &rules_of_input, probes.audit[i],
							     probes.nr[i], probes.args[i]);
			/* The library's evaluator is checked on a sample only: it
			 * rebuilds every ABI's view on each call. */
			bool sampled = i % 16 == 0 || i + 1 == probes.n;
			uint32_t lib = sampled ? scmpc_policy_eval(dc.p, &sd, &rule) : want;
			uint32_t a = opt ? emulate(opt, &sd, "optimized") : want;
			uint32_t b = naive ? emulate(naive, &sd, "naive") : want;
			char ws[32], ls[32], as[32], bs[32];

			if (a == want && b == want && lib == want)
				continue;
			/* Before blaming the compiler, hear the library's own evaluator. */
			if (!sampled)
				lib = scmpc_policy_eval(dc.p, &sd, &rule);
			scmpc_action_str(want, ws, sizeof(ws));
			scmpc_action_str(lib, ls, sizeof(ls));
			scmpc_action_str(a, as, sizeof(as));
			scmpc_action_str(b, bs, sizeof(bs));
			fuzz_bug("disagreement at arch 0x%08x nr 0x%x args %#llx %#llx %#llx %#llx "
				 "%#llx %#llx: reference %s, scmpc_policy_eval %s (rule %d), "
				 "optimized %s, naive %s",
				 probes.audit[i], probes.nr[i], (unsigned long long)probes.args[i][0],
				 (unsigned long long)probes.args[i][1],
				 (unsigned long long)probes.args[i][2],
				 (unsigned long long)probes.args[i][3],
				 (unsigned long long)probes.args[i][4],
				 (unsigned long long)probes.args[i][5], ws, ls, rule, as, bs);
		}
		if (opt)
			fuzz_check_formats(scmpc_prog_insns(opt), scmpc_prog_len(opt), dc.arches[0]);
	}
	if (have_views)
		policy_views_fini(dc.p, views, dc.p->narches);
	resolved_free(&rules_of_input);
	memset(&rules_of_input, 0, sizeof(rules_of_input));
	scmpc_prog_free(opt);
	scmpc_prog_free(naive);
	scmpc_policy_free(dc.p);
	return 0;
}
