/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The loader: seccomp(2) SECCOMP_SET_MODE_FILTER, or prctl(PR_SET_SECCOMP)
 * where seccomp(2) is missing.  The kernel (kernel/seccomp.c
 * `seccomp_set_mode_filter`) checks the flags, the length (1..4096), the
 * privilege (no_new_privs or CAP_SYS_ADMIN, else EACCES), the program, then
 * the chain's instruction budget, and the first failure decides the errno.
 * A filter is permanent, and the kernel explains a refusal with a bare
 * errno, so everything the kernel would check, and everything it would
 * silently get wrong (an action or flag it does not know), is checked here
 * first with a message that says what to change.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include "runtime/runtime.h"

#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39
#endif

#define KV(a, b) SCMPC_KERNEL_VERSION(a, b, 0)

/* Every SECCOMP_FILTER_FLAG_*: the kernel that brought it, and whether an
 * OCI profile's "flags" may name it (runc passes these four on; the others
 * belong to whoever loads the filter, not to the profile). */
static const struct {
	unsigned bit;
	const char *name;	/* without SECCOMP_FILTER_FLAG_ */
	unsigned since;
	bool oci;
} flag_table[] = {
	{ SECCOMP_FILTER_FLAG_TSYNC, "TSYNC", KV(3, 17), true },
	{ SECCOMP_FILTER_FLAG_LOG, "LOG", KV(4, 14), true },
	{ SECCOMP_FILTER_FLAG_SPEC_ALLOW, "SPEC_ALLOW", KV(4, 17), true },
	{ SECCOMP_FILTER_FLAG_NEW_LISTENER, "NEW_LISTENER", KV(5, 0), false },
	{ SECCOMP_FILTER_FLAG_TSYNC_ESRCH, "TSYNC_ESRCH", KV(5, 7), false },
	{ SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, "WAIT_KILLABLE_RECV", KV(5, 19), true },
};

static const struct {
	uint32_t act;
	const char *name;	/* as kernel/seccomp/actions_avail lists it */
	unsigned since;
} action_table[] = {
	{ SCMPC_ACT_KILL_PROCESS, "kill_process", KV(4, 14) },
	{ SCMPC_ACT_KILL_THREAD, "kill_thread", KV(3, 5) },
	{ SCMPC_ACT_TRAP, "trap", KV(3, 5) },
	{ SCMPC_ACT_ERRNO(0), "errno", KV(3, 5) },
	{ SCMPC_ACT_USER_NOTIF, "user_notif", KV(5, 0) },
	{ SCMPC_ACT_TRACE(0), "trace", KV(3, 5) },
	{ SCMPC_ACT_LOG, "log", KV(4, 14) },
	{ SCMPC_ACT_ALLOW, "allow", KV(3, 5) },
};

SCMPC_API unsigned scmpc_filter_flag(const char *name, bool *oci)
{
	static const char prefix[] = "SECCOMP_FILTER_FLAG_";
	if (!name)
		return 0;
	if (!strncasecmp(name, prefix, sizeof(prefix) - 1))
		name += sizeof(prefix) - 1;
	for (size_t i = 0; i < ARRAY_SIZE(flag_table); i++) {
		const char *a = flag_table[i].name, *b = name;
		while (*a && (*b == '-' ? '_' : toupper((unsigned char)*b)) == *a)
			a++, b++;
		if (!*a && !*b) {
			if (oci)
				*oci = flag_table[i].oci;
			return flag_table[i].bit;
		}
	}
	return 0;
}

SCMPC_API const char *scmpc_filter_flag_name(unsigned bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(flag_table); i++)
		if (flag_table[i].bit == bit)
			return flag_table[i].name;
	return NULL;
}

static const char *flag_name(unsigned bit, char *buf, size_t len)
{
	const char *n = scmpc_filter_flag_name(bit);
	if (n)
		return n;
	snprintf(buf, len, "0x%x", bit);
	return buf;
}

SCMPC_API unsigned scmpc_kernel_running(void)
{
	struct utsname u;
	unsigned a, b;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &a, &b) != 2)
		return 0;
	return KV(a, b);
}

/* ------------------------------------------------------------- probing */

/* seccomp(SET_MODE_FILTER, FLAGS, NULL) is checked for flags before the
 * NULL program is touched: EFAULT says the flags passed.  Returns 1, 0, or
 * the negative errno of a probe that could not be made. */
static int probe_flags_raw(unsigned flags)
{
	if (sys_seccomp(SECCOMP_SET_MODE_FILTER, flags, NULL) == 0)
		return -EPROTO;	/* a NULL program cannot load */
	if (errno == EFAULT)
		return 1;
	if (errno == EINVAL)
		return 0;
	return -errno;
}

SCMPC_API int scmpc_probe_flags(unsigned flags, scmpc_diag *d)
{
	int r = probe_flags_raw(flags);
	if (r == -ENOSYS)
		return diag_err(d, r, NULL, "seccomp(2) is not available (ENOSYS): a kernel "
				"before 3.17, an emulator, or a filter that denies it");
	if (r < 0)
		return diag_err(d, r, NULL, "seccomp(2) could not be probed: %s (a filter "
				"already loaded may deny it)", strerror(-r));
	return r;
}

/* Second opinion when GET_ACTION_AVAIL cannot be asked: the sysctl lists
 * the same names (4.14+), else the release tells what existed.  Returns 1,
 * 0, or -ENOENT when neither source says anything. */
static int action_avail_fallback(size_t idx)
{
	char buf[256];
	FILE *f = fopen("/proc/sys/kernel/seccomp/actions_avail", "re");

	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		for (char *save, *tok = strtok_r(buf, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, action_table[idx].name))
				return 1;
		if (n > 0)
			return 0;
	}
	unsigned kv = scmpc_kernel_running();
	if (kv)
		return kv >= action_table[idx].since;
	return -ENOENT;
}

static int action_index(uint32_t act)
{
	for (size_t i = 0; i < ARRAY_SIZE(action_table); i++)
		if (action_table[i].act == (act & 0xffff0000U))
			return (int)i;
	return -1;
}

/* 1 available, 0 not; *HOW says how we know when the kernel was not asked. */
static int action_avail(uint32_t act, const char **how)
{
	uint32_t a = act & 0xffff0000U;	/* the probe takes bare actions only */
	int idx = action_index(act);

	*how = NULL;
	if (sys_seccomp(SECCOMP_GET_ACTION_AVAIL, 0, &a) == 0)
		return 1;
	if (errno == EOPNOTSUPP)
		return 0;
	if (idx < 0)
		return 0;	/* unknown to us and the kernel could not vouch for it */
	int r = action_avail_fallback((size_t)idx);
	if (r >= 0) {
		*how = "from kernel/seccomp/actions_avail or the kernel release";
		return r;
	}
	/* Nothing to go on: assume the oldest filter-capable kernel. */
	*how = "assuming Linux 3.5";
	return action_table[idx].since <= KV(3, 5);
}

SCMPC_API int scmpc_probe_action(uint32_t act, scmpc_diag *d)
{
	const char *how;
	int r = action_avail(act, &how);
	if (how)
		diag_warn(d, "GET_ACTION_AVAIL could not be asked; answer taken %s", how);
	return r;
}

/* Refuse FLAGS the kernel would refuse or does not know, before anything is loaded; *NO_SECCOMP
 * says seccomp(2) answered ENOSYS. */
static int check_flags(unsigned flags, bool *no_seccomp, scmpc_diag *d)
{
	char nb[16];
	int r;

	*no_seccomp = false;
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    !(flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
		return diag_err(d, -EINVAL, NULL,
				"TSYNC with NEW_LISTENER needs TSYNC_ESRCH: otherwise a TSYNC "
				"failure (a thread id) could not be told from the listener fd");
	if ((flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) &&
	    !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return diag_err(d, -EINVAL, NULL, "WAIT_KILLABLE_RECV applies only with NEW_LISTENER");

	r = probe_flags_raw(flags);
	if (r == 1)
		return 0;
	if (r == -ENOSYS) {
		*no_seccomp = true;
		if (flags)
			return diag_err(d, -ENOSYS, NULL,
					"seccomp(2) is not available (ENOSYS: a kernel before 3.17, "
					"or a filter already loaded answers ENOSYS for it), and "
					"prctl(PR_SET_SECCOMP) cannot pass flags 0x%x", flags);
		return 0;
	}
	if (r < 0)
		return diag_err(d, r, NULL, "seccomp(2) could not be probed: %s (a filter "
				"already loaded may deny it)", strerror(-r));

	/* Rejected: name the first flag this kernel lacks.  A flag that needs
	 * a companion is probed with it. */
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(flags & bit))
			continue;
		unsigned alone = bit;
		if (bit == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
			alone |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		if (probe_flags_raw(alone) != 1) {
			for (size_t i = 0; i < ARRAY_SIZE(flag_table); i++)
				if (flag_table[i].bit == bit)
					return diag_err(d, -EOPNOTSUPP, NULL,
							"this kernel does not support "
							"SECCOMP_FILTER_FLAG_%s (Linux %u.%u+); "
							"refusing to load without it",
							flag_table[i].name, flag_table[i].since >> 16,
							flag_table[i].since >> 8 & 0xff);
			return diag_err(d, -EOPNOTSUPP, NULL,
					"this kernel does not support seccomp filter flag %s",
					flag_name(bit, nb, sizeof(nb)));
		}
	}
	return diag_err(d, -EINVAL, NULL, "this kernel knows each of the flags 0x%x but "
			"rejects their combination", flags);
}

/* Refuse a program returning an action the running kernel lacks; warn about RET A, which cannot
 * be probed. */
static int check_actions(const struct sock_filter *insns, size_t len, unsigned flags,
			 scmpc_diag *d)
{
	uint32_t seen[16];
	size_t nseen = 0;
	bool warned_a = false, warned_notif = false, warned_how = false;

	for (size_t pc = 0; pc < len; pc++) {
		if (insns[pc].code == (BPF_RET | BPF_A)) {
			if (!warned_a)
				diag_warn(d, "insn %zu returns A, whose action is known only at "
					  "run time and was not probed", pc);
			warned_a = true;
			continue;
		}
		if (insns[pc].code != (BPF_RET | BPF_K))
			continue;
		uint32_t act = insns[pc].k & 0xffff0000U;
		bool dup = false;
		for (size_t i = 0; i < nseen; i++)
			dup |= seen[i] == act;
		if (dup)
			continue;
		if (nseen < ARRAY_SIZE(seen))
			seen[nseen++] = act;

		const char *how;
		char name[32];
		int idx = action_index(act);
		if (!action_avail(act, &how)) {
			if (idx < 0)
				return diag_err_insn(d, -EOPNOTSUPP, (long)pc,
						     "insn %zu returns 0x%08x, an action this "
						     "kernel does not know: every call reaching "
						     "it would kill the process", pc, insns[pc].k);
			scmpc_action_str(act, name, sizeof(name));
			return diag_err_insn(d, -EOPNOTSUPP, (long)pc,
					     "insn %zu returns %s, which this kernel does not "
					     "support (Linux %u.%u+)%s%s; refusing rather than "
					     "loading a filter that behaves differently", pc, name,
					     action_table[idx].since >> 16,
					     action_table[idx].since >> 8 & 0xff, how ? ", judged " : "",
					     how ? how : "");
		}
		if (how && !warned_how) {
			diag_warn(d, "GET_ACTION_AVAIL could not be asked; action support judged "
				  "%s", how);
			warned_how = true;
		}
		if (act == SCMPC_ACT_USER_NOTIF && !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
		    !warned_notif) {
			diag_warn(d, "insn %zu returns USER_NOTIF but no listener is requested: "
				  "those calls fail with ENOSYS unless an older filter in the "
				  "chain has one", pc);
			warned_notif = true;
		}
	}
	return 0;
}

/* -------------------------------------------------------------- budget */

static void budget_from(struct scmpc_budget *b, unsigned long filters, unsigned long used,
			bool exact)
{
	b->filters = filters > UINT32_MAX ? UINT32_MAX : (unsigned)filters;
	b->used = used > UINT32_MAX ? UINT32_MAX : (unsigned)used;
	b->left = used >= SCMPC_CHAIN_BUDGET ? 0 : SCMPC_CHAIN_BUDGET - (unsigned)used;
	b->exact = exact;
}

/* The smallest filter (`ret #k`) converts to 5 instructions and costs 4
 * more in the chain: the least each unreadable filter can take. */
#define MIN_FILTER_COST 9UL

/* The calling thread's chain budget into B: exact from CHAIN when given and /proc agrees, else a
 * bound with a warning. */
static int budget_self(const scmpc_prog *const *chain, size_t nchain, struct scmpc_budget *b,
		       scmpc_diag *d)
{
	struct seccomp_status st;
	unsigned long used = 0;

	if (chain)
		for (size_t i = 0; i < nchain; i++) {
			if (!chain[i])
				return diag_err(d, -EINVAL, NULL, "chain[%zu] is NULL", i);
			used += scmpc_prog_ebpf_len(chain[i]) + 4;
		}

	int r = proc_seccomp_status(0, &st);
	if (r < 0 || st.mode < 0) {
		diag_warn(d, "cannot read /proc/thread-self/status (%s): the filters already "
			  "loaded are unknown, so the chain budget was not checked exactly",
			  r < 0 ? strerror(-r) : "no Seccomp line");
		budget_from(b, chain ? nchain : 0, used, false);
		return 0;
	}
	if (st.mode == 0) {
		budget_from(b, 0, 0, true);
		return 0;
	}
	if (st.mode == 1)
		return diag_err(d, -EINVAL, NULL, "this thread is in strict seccomp mode, which "
				"cannot take filters");
	if (st.filters < 0) {
		/* Seccomp_filters arrived in 5.9: at least one filter. */
		diag_warn(d, "this kernel does not report how many filters are loaded; the "
			  "chain budget was not checked exactly");
		budget_from(b, chain ? nchain : 1, chain ? used : MIN_FILTER_COST, false);
		return 0;
	}
	if (chain && (size_t)st.filters == nchain) {
		budget_from(b, nchain, used, true);
		return 0;
	}
	if (chain)
		diag_warn(d, "%zu filters were given as the chain but the thread has %ld; "
			  "ignored", nchain, st.filters);
	diag_warn(d, "this thread already has %ld filter%s, which it cannot read back (the "
		  "kernel refuses PTRACE_SECCOMP_GET_FILTER to a filtered caller): the chain "
		  "budget (%u eBPF instructions) could not be checked exactly", st.filters,
		  st.filters == 1 ? "" : "s", SCMPC_CHAIN_BUDGET);
	budget_from(b, (unsigned long)st.filters, (unsigned long)st.filters * MIN_FILTER_COST,
		    false);
	return 0;
}

static bool same_thread_group(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%ld", (long)tid);
	return access(path, F_OK) == 0;
}

SCMPC_API int scmpc_chain_budget(pid_t tid, struct scmpc_budget *out, scmpc_diag *d)
{
	struct seccomp_status st;
	scmpc_prog **progs;
	int r, n;

	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the budget");
	memset(out, 0, sizeof(*out));
	if (tid < 0)
		return diag_err(d, -EINVAL, NULL, "%ld is not a thread id", (long)tid);
	if (tid == 0 || tid == (pid_t)syscall(SYS_gettid))
		return budget_self(NULL, 0, out, d);

	r = proc_seccomp_status(tid, &st);
	if (r == -ENOENT)
		return diag_err(d, -ESRCH, NULL, "no thread %ld", (long)tid);
	if (r == 0 && st.mode == 0) {
		budget_from(out, 0, 0, true);
		return 0;
	}
	if (r == 0 && st.mode == 1)
		return diag_err(d, -EINVAL, NULL, "thread %ld is in strict seccomp mode, which "
				"cannot take filters", (long)tid);

	scmpc_diag *why = scmpc_diag_new();
	if (same_thread_group(tid)) {
		n = -EPERM;
		if (why)
			diag_err(why, n, NULL, "a thread cannot ptrace its own process");
	} else {
		n = scmpc_introspect(tid, NULL, &progs, why);
	}
	if (n >= 0) {
		unsigned long used = 0;
		for (int i = 0; i < n; i++)
			used += scmpc_prog_ebpf_len(progs[i]) + 4;
		scmpc_prog_array_free(progs, (size_t)n);
		scmpc_diag_free(why);
		budget_from(out, (unsigned long)n, used, true);
		return 0;
	}
	if (r < 0 || st.filters < 0) {
		r = diag_err(d, n, NULL, "cannot read the filters of thread %ld (%s) nor count "
			     "them", (long)tid, why ? scmpc_diag_message(why) : strerror(-n));
		scmpc_diag_free(why);
		return r;
	}
	diag_warn(d, "thread %ld has %ld filters that could not be read (%s): the chain "
		  "budget is a bound", (long)tid, st.filters,
		  why ? scmpc_diag_message(why) : strerror(-n));
	scmpc_diag_free(why);
	budget_from(out, (unsigned long)st.filters, (unsigned long)st.filters * MIN_FILTER_COST,
		    false);
	return 0;
}

/* ------------------------------------------------------------- loading */

static bool has_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	memset(c, 0, sizeof(c));
	if (syscall(SYS_capget, &h, c) < 0)
		return false;
	return c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

static const char eacces_msg[] =
	"neither no_new_privs nor CAP_SYS_ADMIN holds for this thread, and the kernel "
	"refuses filters then (EACCES), because a filter could subvert a set-uid program "
	"it execs; let scmpc set no_new_privs (drop SCMPC_LOAD_KEEP_NNP) or keep "
	"CAP_SYS_ADMIN";

static void thread_comm(pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)tid);
	buf[0] = '\0';
	if ((f = fopen(path, "re"))) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* The kernel's refusal E of a load, said with what it most likely means here. */
static int kernel_error(int e, unsigned flags, bool via_prctl, const struct scmpc_load_result *res,
			scmpc_diag *d)
{
	struct seccomp_status st;

	switch (e) {
	case EACCES:
		return diag_err(d, -EACCES, NULL, "%s", eacces_msg);
	case ENOMEM:
		if (res->budget.exact)
			return diag_err(d, -ENOMEM, NULL,
					"the kernel refused the filter (ENOMEM) although the "
					"chain budget predicted %u of %u eBPF instructions left "
					"and the program needs %u: constant blinding "
					"(net.core.bpf_jit_harden) or memory pressure",
					res->budget.left, SCMPC_CHAIN_BUDGET, res->ebpf_len);
		return diag_err(d, -ENOMEM, NULL,
				"the kernel refused the filter (ENOMEM), most likely for its "
				"chain budget of %u eBPF instructions: this thread already has "
				"%u filters whose lengths could not be read, and the program "
				"needs %u", SCMPC_CHAIN_BUDGET, res->budget.filters, res->ebpf_len);
	case EBUSY:
		return diag_err(d, -EBUSY, NULL, "the chain already has a notification listener "
				"(NEW_LISTENER allows one per chain)");
	case ESRCH:
		if (flags & SECCOMP_FILTER_FLAG_TSYNC)
			return diag_err(d, -ESRCH, NULL,
					"TSYNC failed: another thread runs filters that are not "
					"in this thread's chain, so the kernel cannot synchronize "
					"it; nothing was loaded");
		break;
	case EINVAL:
		if (proc_seccomp_status(0, &st) == 0 && st.mode == 1)
			return diag_err(d, -EINVAL, NULL, "this thread is in strict seccomp mode, "
					"which cannot take filters");
		if (via_prctl)
			return diag_err(d, -EINVAL, NULL,
					"prctl(PR_SET_SECCOMP) was refused (EINVAL): an emulator "
					"such as qemu-user, or a kernel without "
					"CONFIG_SECCOMP_FILTER");
		return diag_err(d, -EINVAL, NULL, "the kernel refused the program (EINVAL) "
				"although it passed scmpc's check of the kernel's rules");
	case ENOSYS:
		return diag_err(d, -ENOSYS, NULL, "neither seccomp(2) nor prctl(PR_SET_SECCOMP) "
				"is available");
	default:
		break;
	}
	return diag_err(d, -e, NULL, "%s failed: %s", via_prctl ? "prctl(PR_SET_SECCOMP)" :
			"seccomp(SECCOMP_SET_MODE_FILTER)", strerror(e));
}

/* scmpc_load() after its options are read: every check, then seccomp(2) (or prctl), RES filled as
 * it goes. */
static int do_load(const struct sock_filter *insns, size_t len, const struct scmpc_load_opts *o,
		   struct scmpc_load_result *res, scmpc_diag *d)
{
	const unsigned known = SCMPC_LOAD_KEEP_NNP | SCMPC_LOAD_NO_PRCTL | SCMPC_LOAD_DRY_RUN;
	unsigned flags = o->seccomp_flags;
	bool no_seccomp;
	int r;

	if (o->flags & ~known)
		return diag_err(d, -EINVAL, NULL, "unknown load flags 0x%x", o->flags & ~known);
	if (o->nchain && !o->chain)
		return diag_err(d, -EINVAL, NULL, "nchain is %zu but no chain is given", o->nchain);
	if ((r = scmpc_verify_insns(insns, len, d)) < 0)
		return r;
	res->ebpf_len = (unsigned)bpf_ebpf_len(insns, len);

	if ((r = check_flags(flags, &no_seccomp, d)) < 0)
		return r;
	if (no_seccomp && (o->flags & SCMPC_LOAD_NO_PRCTL))
		return diag_err(d, -ENOSYS, NULL, "seccomp(2) is not available (ENOSYS) and the "
				"prctl(PR_SET_SECCOMP) fallback is disabled");
	if ((r = check_actions(insns, len, flags, d)) < 0)
		return r;

	if ((r = budget_self(o->chain, o->nchain, &res->budget, d)) < 0)
		return r;
	if (res->ebpf_len > res->budget.left) {
		if (res->budget.exact)
			return diag_err(d, -ENOMEM, NULL,
					"the program converts to %u eBPF instructions but the "
					"chain has %u left: its %u filter%s already use %u of %u "
					"(each counts its length + 4)", res->ebpf_len,
					res->budget.left, res->budget.filters,
					res->budget.filters == 1 ? "" : "s", res->budget.used,
					SCMPC_CHAIN_BUDGET);
		return diag_err(d, -ENOMEM, NULL,
				"the program converts to %u eBPF instructions but at most %u are "
				"left: even if each of this thread's %u filters were the smallest "
				"possible, the chain budget of %u would be exceeded",
				res->ebpf_len, res->budget.left, res->budget.filters,
				SCMPC_CHAIN_BUDGET);
	}

	if ((o->flags & SCMPC_LOAD_KEEP_NNP) && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 &&
	    !has_cap_sys_admin())
		return diag_err(d, -EACCES, NULL, "%s", eacces_msg);
	if (o->flags & SCMPC_LOAD_DRY_RUN)
		return 0;
	if (!(o->flags & SCMPC_LOAD_KEEP_NNP) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return diag_err(d, -errno, NULL, "setting no_new_privs failed: %s",
				strerror(errno));

	struct sock_fprog fprog = {
		.len = (unsigned short)len,
		.filter = (struct sock_filter *)insns,	/* the kernel only reads it */
	};
	long ret = -1;
	int e = ENOSYS;
	if (!no_seccomp) {
		ret = sys_seccomp(SECCOMP_SET_MODE_FILTER, flags, &fprog);
		e = errno;
		/* seccomp(2) is missing before Linux 3.17, and a parent filter
		 * may answer ENOSYS for it alone; prctl(PR_SET_SECCOMP) reaches
		 * the same kernel code with no flags. */
		no_seccomp = ret < 0 && e == ENOSYS && !flags && !(o->flags & SCMPC_LOAD_NO_PRCTL);
	}
	if (no_seccomp) {
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
		e = errno;
		res->via_prctl = true;
	}
	if (ret < 0)
		return kernel_error(e, flags, res->via_prctl, res, d);
	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) {
		res->listener_fd = (int)ret;
		return (int)ret;
	}
	if (ret > 0) {
		/* Only TSYNC answers with a positive value: the blocking thread. */
		char comm[32];
		res->tsync_tid = (pid_t)ret;
		thread_comm(res->tsync_tid, comm, sizeof(comm));
		return diag_err(d, -ESRCH, NULL,
				"TSYNC failed: thread %ld%s%s%s runs filters that are not in this "
				"thread's chain, so the kernel cannot synchronize it; nothing was "
				"loaded", (long)ret, comm[0] ? " (\"" : "", comm,
				comm[0] ? "\")" : "");
	}
	return 0;
}

SCMPC_API int scmpc_load(const struct sock_filter *insns, size_t len,
			 const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			 scmpc_diag *d)
{
	struct scmpc_load_opts opts;
	struct scmpc_load_result out;

	if (OPTS_VALID(o, scmpc_load_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(opts, o);
	memset(&out, 0, sizeof(out));
	out.listener_fd = -1;
	int r = do_load(insns, len, &opts, &out, d);
	if (res && res->sz >= sizeof(res->sz))
		OUT_FILL(res, out);
	return r;
}

/* O as this version reads it, with P's flags (P may be NULL) added. */
static int policy_load_opts(const struct scmpc_load_opts *o, const scmpc_policy *p,
			    struct scmpc_load_opts *opts, scmpc_diag *d)
{
	if (OPTS_VALID(o, scmpc_load_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(*opts, o);
	opts->sz = sizeof(*opts);
	if (p)
		opts->seccomp_flags |= scmpc_policy_flags(p);
	return 0;
}

SCMPC_API int scmpc_load_prog(const scmpc_prog *prog, const scmpc_policy *p,
			      const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			      scmpc_diag *d)
{
	struct scmpc_load_opts opts;

	if (!prog)
		return diag_err(d, -EINVAL, NULL, "no program given");
	if (policy_load_opts(o, p, &opts, d) < 0)
		return -EINVAL;
	return scmpc_load(scmpc_prog_insns(prog), scmpc_prog_len(prog), &opts, res, d);
}

/* ------------------------------------------------------------ sets */

static bool returns_notif(const scmpc_prog *prog)
{
	const struct sock_filter *f = scmpc_prog_insns(prog);
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		if (f[i].code == (BPF_RET | BPF_K) && (f[i].k & 0xffff0000U) == SCMPC_ACT_USER_NOTIF)
			return true;
	return false;
}

/* D's message with a prefix and a suffix: the message is copied first,
 * since it lives in D. */
static int set_err(scmpc_diag *d, int err, const char *pre, const char *post)
{
	char msg[512], where[128];
	snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
	snprintf(where, sizeof(where), "%s", scmpc_diag_where(d));
	return diag_err(d, err, where[0] ? where : NULL, "%s%s%s", pre, msg, post);
}

/* The error for a set no order installs: WHY's program denies the call
 * SD that installs another. */
static int blocked_err(scmpc_diag *d, const scmpc_policy *p, size_t n,
		       const struct seccomp_data *sd, const struct install_block *why)
{
	char act[32], cause[160];
	scmpc_action_str(why->action, act, sizeof(act));
	install_cause(p, sd, why->action, cause, sizeof(cause));
	return diag_err(d, -EPERM, NULL,
			"program %zu of %zu denies seccomp(2)%s, returning %s for the call "
			"seccomp(SECCOMP_SET_MODE_FILTER, 0x%llx, ...) that installs program %zu, "
			"and every order puts such a program first: no order installs the set; "
			"nothing was installed", why->blocker + 1, n, cause, act,
			(unsigned long long)sd->args[1], why->blocked + 1);
}

/* The filters O says are already in place must let each of CALLS through. */
static int chain_allows(const struct scmpc_load_opts *o, const struct seccomp_data *calls,
			size_t n, scmpc_diag *d)
{
	for (size_t c = 0; c < o->nchain && o->chain; c++)
		for (size_t i = 0; i < n; i++) {
			uint32_t act;
			char name[32];
			const scmpc_prog *f = o->chain[c];
			if (!f || scmpc_emulate(f->insns, f->len, &calls[i], &act, NULL) < 0 ||
			    install_allows(act))
				continue;
			scmpc_action_str(act, name, sizeof(name));
			return diag_err(d, -EPERM, NULL, "filter %zu of the chain already installed "
					"returns %s for seccomp(2), the call that installs program "
					"%zu: the set cannot be installed here; nothing was installed",
					c + 1, name, i + 1);
		}
	return 0;
}

SCMPC_API int scmpc_load_set(const scmpc_prog *const *progs, size_t n, const scmpc_policy *p,
			     const struct scmpc_load_opts *o, struct scmpc_load_result *res,
			     scmpc_diag *d)
{
	struct scmpc_load_opts opts;
	struct scmpc_load_result out;
	const unsigned nl = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	size_t listener = SIZE_MAX;
	char pre[64], post[256];
	int r = 0, fd = 0;

	if (!progs || !n)
		return diag_err(d, -EINVAL, NULL, "no programs given");
	for (size_t i = 0; i < n; i++)
		if (!progs[i])
			return diag_err(d, -EINVAL, NULL, "program %zu of %zu is NULL", i + 1, n);
	if (policy_load_opts(o, p, &opts, d) < 0)
		return -EINVAL;
	/* The listener belongs to the filter whose USER_NOTIF answers, and a
	 * chain takes one. */
	for (size_t i = 0; i < n && (opts.seccomp_flags & nl); i++) {
		if (!returns_notif(progs[i]))
			continue;
		if (listener != SIZE_MAX)
			return diag_err(d, -EINVAL, NULL, "programs %zu and %zu both return "
					"USER_NOTIF, but a chain takes one listener", listener + 1,
					i + 1);
		listener = i;
	}
	/* Everything is checked before anything is installed: once the first
	 * filter is in, the calls those checks make (reading /proc, probing
	 * the kernel) are the filter's to deny, and a set refused halfway
	 * would leave part of the stack in place. */
	unsigned long need = 0;
	for (size_t i = 0; i < n; i++) {
		struct scmpc_load_opts one = opts;
		one.flags |= SCMPC_LOAD_DRY_RUN | (n > 1 ? SCMPC_LOAD_NO_PRCTL : 0);
		if (i != listener)
			one.seccomp_flags &= ~nl;
		memset(&out, 0, sizeof(out));
		out.listener_fd = -1;
		if ((r = do_load(progs[i]->insns, progs[i]->len, &one, &out, d)) < 0) {
			snprintf(pre, sizeof(pre), "program %zu of %zu: ", i + 1, n);
			return set_err(d, r, pre, "");
		}
		need += out.ebpf_len + 4;
	}
	struct scmpc_budget b = out.budget;
	/* The newest filter counts its length, each one under it 4 more. */
	if (b.exact && need - 4 > b.left)
		return diag_err(d, -ENOMEM, NULL, "the %zu programs convert to %lu eBPF "
				"instructions with the chain's 4 per filter, but the chain has %u "
				"left: its %u filter%s already use %u of %u", n, need - 4, b.left,
				b.filters, b.filters == 1 ? "" : "s", b.used, SCMPC_CHAIN_BUDGET);
	/* The order: each program's seccomp(2) call, with the flags and the
	 * very sock_fprog it is made with, must pass every program installed
	 * before it (and the chain already in place), or installing stops
	 * halfway under a filter that may deny even the error's write(2). */
	struct sock_fprog *fprogs = calloc(n, sizeof(*fprogs));
	struct seccomp_data *calls = calloc(n, sizeof(*calls));
	const struct sock_filter **ins = calloc(n, sizeof(*ins));
	size_t *lens = calloc(n, sizeof(*lens)), *order = calloc(n, sizeof(*order));
	if (!fprogs || !calls || !ins || !lens || !order) {
		r = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned flags = opts.seccomp_flags & (i == listener ? ~0U : ~nl);
		fprogs[i] = (struct sock_fprog){ .len = (unsigned short)progs[i]->len,
						 .filter = progs[i]->insns };
		calls[i] = (struct seccomp_data){
			.nr = NR_SECCOMP, .arch = scmpc_arch_audit(scmpc_arch_native()),
			.args = { SECCOMP_SET_MODE_FILTER, flags, (uintptr_t)&fprogs[i] },
		};
		ins[i] = progs[i]->insns;
		lens[i] = progs[i]->len;
	}
	if ((r = chain_allows(&opts, calls, n, d)) < 0)
		goto done;
	struct install_block why;
	r = install_order(ins, lens, n, calls, order, &why);
	if (r == -EPERM) {
		r = blocked_err(d, p, n, &calls[why.blocked], &why);
		goto done;
	}
	if (r < 0) {
		r = diag_err(d, r, NULL, r == -ENOMEM ? "out of memory"
			     : "a program could not be run on its install call");
		goto done;
	}
	if (!(opts.flags & SCMPC_LOAD_KEEP_NNP) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		r = diag_err(d, -errno, NULL, "setting no_new_privs failed: %s", strerror(errno));
		goto done;
	}
	if (opts.flags & SCMPC_LOAD_DRY_RUN)
		goto done;
	/* From here on only seccomp(2) itself, made exactly as judged. */
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		unsigned flags = (unsigned)calls[i].args[1];
		memset(&out, 0, sizeof(out));
		out.listener_fd = -1;
		out.ebpf_len = (unsigned)bpf_ebpf_len(progs[i]->insns, progs[i]->len);
		out.budget = b;
		long ret = sys_seccomp_exact(SECCOMP_SET_MODE_FILTER, flags, &fprogs[i]);
		int e = errno;
		if (ret >= 0 && (flags & nl)) {
			fd = (int)ret;
			out.listener_fd = fd;
		} else if (ret > 0) {
			out.tsync_tid = (pid_t)ret;
			r = diag_err(d, -ESRCH, NULL, "TSYNC failed: thread %ld runs filters that are "
				     "not in this thread's chain", ret);
		} else if (ret < 0) {
			r = kernel_error(e, flags, false, &out, d);
		}
		if (r < 0) {
			snprintf(pre, sizeof(pre), "program %zu of %zu: ", i + 1, n);
			snprintf(post, sizeof(post), "; the %zu before it are installed, so this "
				 "thread holds part of the stack, which allows what the others "
				 "deny: do not run what it was meant to confine", k);
			r = set_err(d, r, pre, k ? post : "");
			if (fd > 0)
				close(fd);
			fd = 0;
			break;
		}
		unsigned long used = (unsigned long)b.used + out.ebpf_len + 4;
		budget_from(&b, b.filters + 1UL, used, b.exact);
	}
done:
	free(fprogs);
	free(calls);
	free(ins);
	free(lens);
	free(order);
	if (opts.flags & SCMPC_LOAD_DRY_RUN)
		return r;
	if (res && res->sz >= sizeof(res->sz)) {
		size_t sz = res->sz;
		out.sz = sz;
		memcpy(res, &out, sz < sizeof(out) ? sz : sizeof(out));
	}
	return r < 0 ? r : fd;
}
