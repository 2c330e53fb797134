/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the programs scmpc and libseccomp 2.5.4 build for the same policy
 * cost in the running kernel: ns per system call with the filter installed,
 * next to the instructions the call executes (scmpc_emulate), which is the
 * whole cost on a kernel without a BPF JIT.
 *
 *   bench_kernel [--csv FILE] [--quick] [--rounds N] [--samples N]
 *                [--calls N] [--cpu N] [--no-rt]
 *
 * Policies: Docker's and Podman's default profiles from their Debian
 * packages (tests/testutil.h) and examples/container.json, resolved for the native ABI with
 * Docker's default capabilities on kernel 6.8 (testutil_policy_file).
 * Compilers: none (no filter), scmpc, libseccomp levels 1 and 2 (through
 * tests/lsc_ref.c) and a "floor": a 2-4 instruction filter written here
 * that decides the probed call as the policy does and allows everything
 * else, i.e. the least any filter can cost for that decision.
 *
 * A filter can never be removed, so every configuration runs in a child of
 * its own: it pins itself to one CPU, installs its program with scmpc_load
 * (the same loader and options for every program, so only the program
 * differs), warms up, then times SAMPLES loops of raw syscall().  The
 * machine is shared and noisy, so configurations are interleaved: each
 * round runs every configuration of a (policy, call) group back to back,
 * with the start rotated per round, and the group's own no-filter run is
 * the baseline its overheads are taken against in that round.  A round's
 * figure is the median of its samples; the table gives the median over
 * rounds and, as the spread, the lowest and highest round figure.
 *
 * The denied and unknown calls never run in the kernel: every program is
 * checked with scmpc_emulate to return ERRNO for them before it is loaded,
 * and the child checks the errno it got.  Their no-filter baseline is
 * therefore the bare round trip of an unimplemented number (ENOSYS), which
 * is what the kernel does in place of the call when the filter says ERRNO.
 *
 * CSV (--csv): one row per measured configuration,
 *   section,policy,probe,call,compiler,filters,ns_median,ns_min,ns_max,
 *   overhead_ns,overhead_min,overhead_max,steps,cached,prog_insns,
 *   policy_rules,ns_q1,ns_q3,overhead_q1,overhead_q3,note
 * section "probe" (one filter), "stack" (FILTERS identical filters) or
 * "stack32" (policy systemd-like: compiler "32 filters", libseccomp's one
 * per setting, or "merged", scmpc's merge of them; steps summed over the
 * filters); steps are per filter elsewhere; -1 marks a figure that does not apply.  Section
 * "target" rows hold a target check: compiler is what scmpc is held
 * against, ns_median/min/max/q1/q3 the per-round ratios of the overheads
 * (median, lowest, highest, quartiles), overhead_ns the limit, note PASS
 * or MISS (and NOISY).
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lsc_ref.h"
#include "pipe_io.h"
#include "testutil.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum { C_NONE, C_SCMPC, C_L1, C_L2, C_FLOOR, NCOMP };
/* The stacked-filter section's own: 32 filters, and their merge. */
enum { C_STACK = NCOMP, C_MERGED, NCOMP_ALL };
static const char *const comp_name[NCOMP_ALL] = { "none", "scmpc", "libseccomp-L1",
						   "libseccomp-L2", "floor", "32 filters",
						   "merged" };

enum { P_CACHED, P_PERS, P_SOCKET, P_DENY, P_UNKNOWN, NPROBE };
static const char *const probe_key[NPROBE] = { "getpid", "personality", "socket", "deny",
					       "unknown" };

#define MAX_ROUNDS 64
#define MAX_SAMPLES 32
#define MAX_JOBS 256
#define MAX_GROUPS 64
#define UNKNOWN_NR 1000U
#define CACHE_NRS 470U		/* the 6.18 bitmap: higher numbers are never cached */
/* Short samples and many rounds: on a shared machine, drift over seconds
 * then hits every configuration of a round alike. */
#define SAMPLE_NS 5000000.0	/* aim for 5 ms per sample */

static const unsigned stack_ks[] = { 1, 4, 16, 32 };
#define MAX_K 32

struct prog {
	bool ok;
	struct sock_filter *insns;
	size_t len;
	scmpc_prog *h;		/* for the loader's exact chain budget */
	char err[192];
};

struct probe {
	bool ok;
	char call[64];		/* "kexec_load(0, 0xffff, 0, 0x8000)" */
	char why[160];		/* why it is not measured */
	uint32_t nr;
	uint64_t args[6];
	uint32_t act;		/* the policy's decision */
	int rule;		/* deciding rule, -1 for the default/unknown action */
	bool argfree;		/* an argument probe scmpc allows without reading them */
	struct prog floor;
};

struct pol {
	const char *label;
	scmpc_policy *p;
	size_t rules;
	struct prog g[NCOMP_ALL];	/* C_NONE and C_FLOOR unused; C_STACK: the first */
	struct probe q[NPROBE];
};

struct job {
	struct pol *pol;
	int probe, comp;
	unsigned k;		/* filters installed; 0 for none */
	const struct prog *g;
	uint32_t nr;		/* what the child calls */
	const uint64_t *args;
	int want_err;		/* errno the call must fail with; 0: must succeed */
	int steps;		/* per filter; -1 for none */
	int cached;		/* -1 for none */
	double vals[MAX_ROUNDS];
	unsigned nvals;
	bool failed;
	char note[256];
	struct job *base;	/* the group's no-filter run */
	const struct prog *set;	/* C_STACK: the filters, oldest first (k of them) */
	unsigned dirty_rounds;	/* rounds with only switched-out samples */
};

struct group {
	unsigned first, n;
};

static struct job jobs[MAX_JOBS];
static unsigned njobs;
static struct group groups[MAX_GROUPS];
static unsigned ngroups;

static unsigned rounds = 15, samples = 5, max_calls = 200000;
static int cpu = -1;
static bool use_rt = true;
static unsigned long stat_samples, stat_switched, stat_dirty, stat_rt, stat_runs;
static enum scmpc_arch native;
static FILE *csv;

/* ------------------------------------------------------------ programs */

static void prog_free(struct prog *g)
{
	free(g->insns);
	scmpc_prog_free(g->h);
	memset(g, 0, sizeof(*g));
}

static int prog_wrap(struct prog *g)
{
	int rc = scmpc_prog_new(g->insns, g->len, &g->h, NULL);
	if (rc < 0) {
		snprintf(g->err, sizeof(g->err), "scmpc_prog_new: %s", strerror(-rc));
		return rc;
	}
	g->ok = true;
	return 0;
}

static int compile_one(const scmpc_policy *p, int comp, struct prog *g)
{
	memset(g, 0, sizeof(*g));
	if (comp == C_SCMPC) {
		int rc = testutil_compile_copy(p, &g->insns, &g->len, &g->h, g->err,
					       sizeof(g->err));
		if (rc < 0)
			return rc;
		g->ok = true;
		return 0;
	}
	int rc = lsc_compile(p, comp == C_L1 ? 1 : 2, &g->insns, &g->len, g->err,
			     sizeof(g->err));
	return rc < 0 ? rc : prog_wrap(g);
}

/* The floor: the probed call decided as the policy decides it, everything
 * else allowed (and cacheable) so the child can still report and exit.  An
 * argument-checked call loads its argument, which is what makes it
 * uncacheable in any correct filter; the value is not compared, so this
 * stays a lower bound.  (A denied argument-checked call would take a fifth
 * instruction; the shipped policies allow both.) */
static int floor_build(struct probe *q, int kind)
{
	struct sock_filter f[5];
	size_t n;
	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					    offsetof(struct seccomp_data, nr));
	if (kind == P_CACHED) {
		f[1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
		n = 2;
	} else if ((kind == P_PERS || kind == P_SOCKET) && q->argfree && q->act == SCMPC_ACT_ALLOW) {
		/* Allowed whatever the arguments: the floor is a cached allow. */
		f[1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
		n = 2;
	} else if ((kind == P_PERS || kind == P_SOCKET) && !q->argfree) {
		bool allow = q->act == SCMPC_ACT_ALLOW;
		f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, q->nr, 0, allow ? 1 : 2);
		f[2] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						    offsetof(struct seccomp_data, args[0]));
		f[3] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, q->act);
		f[4] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
		n = allow ? 4 : 5;
	} else {
		f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, q->nr, 0, 1);
		f[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, q->act);
		f[3] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
		n = 4;
	}
	q->floor.insns = malloc(sizeof(f));
	if (!q->floor.insns)
		return -ENOMEM;
	memcpy(q->floor.insns, f, sizeof(f));
	q->floor.len = n;
	return prog_wrap(&q->floor);
}

static bool is_errno_act(uint32_t act)
{
	return (act & 0xffff0000U) == SCMPC_ACT_ERRNO(0);
}

static uint32_t emulate(const struct prog *g, const struct probe *q, int *steps)
{
	struct seccomp_data sd = testutil_sd(native, q->nr, q->args);
	uint32_t ret = 0;
	unsigned st = 0;
	if (scmpc_emulate(g->insns, g->len, &sd, &ret, &st) < 0)
		return SCMPC_ACT_KILL_PROCESS;
	if (steps)
		*steps = (int)st;
	return ret;
}

/* ---------------------------------------------------------------- probes */

static void probe_set(struct probe *q, const char *name, const uint64_t args[6], const char *shown)
{
	int64_t nr = name ? scmpc_syscall_resolve(native, name) : UNKNOWN_NR;
	memset(q, 0, sizeof(*q));
	if (nr < 0) {
		snprintf(q->why, sizeof(q->why), "%s: no such call on %s", name,
			 scmpc_arch_name(native));
		return;
	}
	q->nr = (uint32_t)nr;
	if (args)
		memcpy(q->args, args, sizeof(q->args));
	snprintf(q->call, sizeof(q->call), "%s", shown);
	q->ok = true;
}

/* Calls that cannot do harm should a program ever let them through. */
static const struct {
	const char *name;
	uint64_t args[6];
	const char *shown;
} deny_cands[] = {
	/* Too many segments and an unknown flag: EINVAL before anything. */
	{ "kexec_load", { 0, 0xffff, 0, 0x8000, 0, 0 }, "kexec_load(0, 0xffff, 0, 0x8000)" },
	/* Wrong magic: EINVAL. */
	{ "reboot", { 0, 0, 0, 0, 0, 0 }, "reboot(0, 0, 0, 0)" },
	/* SYSLOG_ACTION_SIZE_BUFFER only reads. */
	{ "syslog", { 10, 0, 0, 0, 0, 0 }, "syslog(10, 0, 0)" },
};

/* Whether scmpc's program allows Q's call without looking at its
 * arguments: the kernel's own test (seccomp_is_const_allow), on the program
 * the semantic check has proven equal to the policy. */
static bool allowed_whatever_args(const struct pol *P, const struct probe *q)
{
	const struct prog *g = &P->g[C_SCMPC];
	return g->ok && scmpc_cache_const_allow(g->insns, g->len, scmpc_arch_audit(native), q->nr,
						 NULL) == 1;
}

static void probes_init(struct pol *P)
{
	/* 0xffffffff zero-extended, as the rule's 64-bit constant expects:
	 * -1 would fail the high-word compare. */
	static const uint64_t pers[6] = { 0xffffffffU };
	/* AF_UNIX with a type flag the kernel rejects (0x100) before it
	 * allocates anything: a fast EINVAL, nothing to close. */
	static const uint64_t sock[6] = { 1, 0x101, 0 };

	probe_set(&P->q[P_CACHED], "getpid", NULL, "getpid()");
	probe_set(&P->q[P_PERS], "personality", pers, "personality(0xffffffff)");
	probe_set(&P->q[P_SOCKET], "socket", sock, "socket(AF_UNIX, 0x101, 0)");
	probe_set(&P->q[P_UNKNOWN], NULL, NULL, "syscall(1000)");
	P->q[P_DENY].ok = false;
	snprintf(P->q[P_DENY].why, sizeof(P->q[P_DENY].why),
		 "no candidate call (kexec_load, reboot, syslog) is denied with ERRNO by every program");
	for (size_t i = 0; i < NELEM(deny_cands); i++) {
		struct probe q;
		probe_set(&q, deny_cands[i].name, deny_cands[i].args, deny_cands[i].shown);
		if (!q.ok)
			continue;
		struct seccomp_data sd = testutil_sd(native, q.nr, q.args);
		if (!is_errno_act(scmpc_policy_eval(P->p, &sd, NULL)))
			continue;
		bool all = true;
		for (int c = C_SCMPC; c <= C_L2; c++)
			if (P->g[c].ok && !is_errno_act(emulate(&P->g[c], &q, NULL)))
				all = false;
		if (all) {
			P->q[P_DENY] = q;
			break;
		}
	}

	for (int k = 0; k < NPROBE; k++) {
		struct probe *q = &P->q[k];
		if (!q->ok)
			continue;
		struct seccomp_data sd = testutil_sd(native, q->nr, q->args);
		q->act = scmpc_policy_eval(P->p, &sd, &q->rule);
		if (q->act != SCMPC_ACT_ALLOW && !is_errno_act(q->act)) {
			char a[32];
			scmpc_action_str(q->act, a, sizeof(a));
			snprintf(q->why, sizeof(q->why), "the policy gives it %s", a);
			q->ok = false;
			continue;
		}
		if (k == P_CACHED && q->act != SCMPC_ACT_ALLOW) {
			snprintf(q->why, sizeof(q->why), "the policy denies it");
			q->ok = false;
			continue;
		}
		/* Docker 20.10 and Podman 0.50 allow every socket family: the
		 * probe is then not argument-checked, and is reported so. */
		if (k == P_PERS || k == P_SOCKET)
			q->argfree = allowed_whatever_args(P, q);
		/* From the error code, not floor.err: a failed malloc leaves
		 * floor.err empty. */
		int rc = floor_build(q, k);
		if (rc < 0) {
			snprintf(q->why, sizeof(q->why), "floor: %s", strerror(-rc));
			q->ok = false;
		}
	}
}

/* The errno the call must fail with when the kernel runs it (0: succeeds). */
static int native_errno(int probe)
{
	switch (probe) {
	case P_SOCKET:
		return EINVAL;
	case P_DENY:
	case P_UNKNOWN:
		return ENOSYS;	/* the bare round trip */
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ jobs */

static struct job *job_add(struct pol *P, int probe, int comp, unsigned k)
{
	if (njobs == MAX_JOBS)
		return NULL;
	struct job *j = &jobs[njobs++];
	struct probe *q = &P->q[probe];
	memset(j, 0, sizeof(*j));
	j->pol = P;
	j->probe = probe;
	j->comp = comp;
	j->k = comp == C_NONE ? 0 : k;
	j->nr = q->nr;
	j->args = q->args;
	j->steps = j->cached = -1;
	if (comp == C_NONE) {
		if (probe == P_DENY || probe == P_UNKNOWN) {
			static const uint64_t zero[6];
			j->nr = UNKNOWN_NR;
			j->args = zero;
		}
		j->want_err = native_errno(probe);
		return j;
	}
	j->g = comp == C_FLOOR ? &q->floor : &P->g[comp];
	if (!j->g->ok) {
		j->failed = true;
		snprintf(j->note, sizeof(j->note), "not built: %s", j->g->err);
		return j;
	}
	uint32_t ret = emulate(j->g, q, &j->steps);
	j->cached = q->nr < CACHE_NRS &&
		    scmpc_cache_const_allow(j->g->insns, j->g->len, scmpc_arch_audit(native), q->nr,
					    NULL) == 1;
	if (ret == SCMPC_ACT_ALLOW && probe != P_DENY) {
		j->want_err = native_errno(probe);
	} else if (is_errno_act(ret)) {
		j->want_err = (int)(ret & 0xffffU);
	} else {
		char a[32];
		scmpc_action_str(ret, a, sizeof(a));
		j->failed = true;
		snprintf(j->note, sizeof(j->note), "program returns %s: not run", a);
	}
	return j;
}

static void group_begin(void)
{
	groups[ngroups].first = njobs;
	groups[ngroups].n = 0;
}

static void group_end(void)
{
	struct group *g = &groups[ngroups];
	g->n = njobs - g->first;
	for (unsigned i = 0; i < g->n; i++)
		jobs[g->first + i].base = &jobs[g->first];
	if (g->n > 1)
		ngroups++;
	else
		njobs = g->first;
}

/* ----------------------------------------------------------------- child */

struct child_out {
	int rc;			/* 0, or the negative errno of the setup */
	unsigned n, calls;
	unsigned switched;	/* samples dropped: the child was switched out */
	bool dirty;		/* no clean sample: ns[] holds switched ones */
	bool rt;		/* ran SCHED_FIFO */
	double ns[MAX_SAMPLES];
	long ret;
	int err;
	char msg[160];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, unsigned n)
{
	double t[MAX_ROUNDS > MAX_SAMPLES ? MAX_ROUNDS : MAX_SAMPLES];
	if (!n)
		return -1;
	memcpy(t, v, n * sizeof(*v));
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static double time_calls(uint32_t nr, const uint64_t *a, unsigned n)
{
	uint64_t t0 = testutil_now_ns();
	for (unsigned i = 0; i < n; i++)
		syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	return (double)(testutil_now_ns() - t0) / n;
}

/* Voluntary plus involuntary context switches of this thread so far. */
static long switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void child(const struct job *j, struct child_out *out)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		out->rc = -errno;
		snprintf(out->msg, sizeof(out->msg), "sched_setaffinity: %s", strerror(errno));
		return;
	}
	/* Other builds share this machine: a SCHED_FIFO child is not
	 * time-sliced with them, and a sample that was switched out anyway
	 * (RT throttling, a higher-priority thread) is dropped below.  The
	 * scheduling class does not change the syscall path measured. */
	if (use_rt) {
		struct sched_param sp = { .sched_priority = 1 };
		out->rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	}
	/* The loader sets it for filtered runs; the baseline gets it too. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		out->rc = -errno;
		snprintf(out->msg, sizeof(out->msg), "no_new_privs: %s", strerror(errno));
		return;
	}
	const scmpc_prog *chain[MAX_K];
	for (unsigned i = 0; i < j->k; i++) {
		struct scmpc_load_opts o = { .sz = sizeof(o), .chain = chain, .nchain = i };
		scmpc_diag *d = scmpc_diag_new();
		const struct prog *g = j->set ? &j->set[i] : j->g;
		int rc = scmpc_load(g->insns, g->len, &o, NULL, d);
		if (rc < 0) {
			out->rc = rc;
			snprintf(out->msg, sizeof(out->msg), "filter %u of %u: %s", i + 1, j->k,
				 d ? scmpc_diag_message(d) : strerror(-rc));
			scmpc_diag_free(d);
			return;
		}
		scmpc_diag_free(d);
		chain[i] = g->h;
	}
	/* Warm caches and branch predictors, and size the samples so each
	 * lasts about SAMPLE_NS whatever the call costs. */
	(void)time_calls(j->nr, j->args, 2000);
	double est = time_calls(j->nr, j->args, 20000);
	unsigned n = max_calls;
	if (est > 0 && SAMPLE_NS / est < n)
		n = (unsigned)(SAMPLE_NS / est);
	if (n < 2000)
		n = 2000;
	out->calls = n;
	double dirty[MAX_SAMPLES];
	unsigned ndirty = 0;
	for (unsigned t = 0; t < 4 * samples && out->n < samples; t++) {
		long s0 = switches();
		double v = time_calls(j->nr, j->args, n);
		long s1 = switches();
		if (s0 < 0 || s1 == s0) {
			out->ns[out->n++] = v;
		} else {
			out->switched++;
			if (ndirty < MAX_SAMPLES)
				dirty[ndirty++] = v;
		}
	}
	if (!out->n) {
		memcpy(out->ns, dirty, ndirty * sizeof(*dirty));
		out->n = ndirty;
		out->dirty = true;
	}
	errno = 0;
	out->ret = syscall(j->nr, j->args[0], j->args[1], j->args[2], j->args[3], j->args[4],
			   j->args[5]);
	out->err = errno;
}

static void run_job(struct job *j, unsigned round)
{
	if (j->failed)
		return;
	int fd[2];
	if (pipe(fd) < 0) {
		j->failed = true;
		snprintf(j->note, sizeof(j->note), "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if (csv)
		fflush(csv);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		j->failed = true;
		snprintf(j->note, sizeof(j->note), "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		struct child_out out;
		memset(&out, 0, sizeof(out));
		child(j, &out);
		_exit(pipe_write_all(fd[1], &out, sizeof(out)) ? 0 : 1);
	}
	close(fd[1]);
	struct child_out out;
	int got = pipe_read_all(fd[0], &out, sizeof(out), UINT64_MAX);
	close(fd[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		j->failed = true;
		if (WIFSIGNALED(st))
			snprintf(j->note, sizeof(j->note), "child killed by signal %d",
				 WTERMSIG(st));
		else
			snprintf(j->note, sizeof(j->note), "child failed");
		return;
	}
	if (out.rc < 0) {
		j->failed = true;
		snprintf(j->note, sizeof(j->note), "%s%s", out.rc == -ENOMEM ? "refused: " : "",
			 out.msg);
		return;
	}
	bool as_wanted = j->want_err ? out.ret == -1 && out.err == j->want_err : out.ret >= 0;
	if (!as_wanted) {
		j->failed = true;
		snprintf(j->note, sizeof(j->note),
			 "decision not as emulated: ret %ld errno %d, wanted %s%d", out.ret,
			 out.err, j->want_err ? "errno " : "ret >= ", j->want_err);
		return;
	}
	j->vals[round] = median(out.ns, out.n);
	j->nvals = round + 1;
	j->dirty_rounds += out.dirty;
	stat_samples += out.n + (out.dirty ? 0 : out.switched);
	stat_switched += out.switched;
	stat_dirty += out.dirty;
	stat_rt += out.rt;
	stat_runs++;
}

/* ----------------------------------------------------------- statistics */

struct figure {
	double med, lo, hi;	/* median, lowest and highest round */
	double q1, q3;		/* quartiles */
	unsigned n;
};

static double quantile(const double *sorted, unsigned n, double q)
{
	double pos = q * (n - 1);
	unsigned i = (unsigned)pos;
	return i + 1 < n ? sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]) : sorted[i];
}

static struct figure figure_of(const double *v, unsigned n)
{
	struct figure f = { -1, -1, -1, -1, -1, 0 };
	double t[MAX_ROUNDS];
	if (!n)
		return f;
	memcpy(t, v, n * sizeof(*v));
	qsort(t, n, sizeof(*t), cmp_double);
	f.n = n;
	f.med = median(t, n);
	f.lo = t[0];
	f.hi = t[n - 1];
	f.q1 = quantile(t, n, 0.25);
	f.q3 = quantile(t, n, 0.75);
	return f;
}

static bool usable(const struct job *j)
{
	return j && !j->failed && j->nvals == rounds;
}

static struct figure ns_of(const struct job *j)
{
	return usable(j) ? figure_of(j->vals, j->nvals) : figure_of(NULL, 0);
}

/* Per round, the run minus its group's no-filter run of the same round. */
static struct figure overhead_of(const struct job *j)
{
	double d[MAX_ROUNDS];
	if (!usable(j) || !usable(j->base) || j->comp == C_NONE)
		return figure_of(NULL, 0);
	for (unsigned r = 0; r < rounds; r++)
		d[r] = j->vals[r] - j->base->vals[r];
	return figure_of(d, rounds);
}

/* Ratio of A's overhead to B's, per round (the pair shares the round's
 * conditions), as a median with its spread; rounds where B shows no
 * overhead at all are left out. */
static struct figure ratio_of(const struct job *a, const struct job *b)
{
	struct figure oa = overhead_of(a), ob = overhead_of(b);
	if (!oa.n || !ob.n || ob.med <= 0)
		return figure_of(NULL, 0);
	double v[MAX_ROUNDS];
	unsigned n = 0;
	for (unsigned r = 0; r < rounds; r++) {
		double x = a->vals[r] - a->base->vals[r], y = b->vals[r] - b->base->vals[r];
		if (y > 0)
			v[n++] = x / y;
	}
	return figure_of(v, n);
}

/* ---------------------------------------------------------------- output */

static void csv_job(const char *section, const struct job *j)
{
	if (!csv)
		return;
	struct figure t = ns_of(j), o = overhead_of(j);
	const struct probe *q = &j->pol->q[j->probe];
	fprintf(csv, "%s,%s,%s,\"%s\",%s,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%ld,%zu,"
		     "%.3f,%.3f,%.3f,%.3f,\"%s\"\n",
		section, j->pol->label, probe_key[j->probe], q->call, comp_name[j->comp], j->k,
		t.med, t.lo, t.hi, o.med, o.lo, o.hi, j->steps, j->cached,
		j->g ? (long)j->g->len : -1L, j->pol->rules, t.q1, t.q3, o.q1, o.q3, j->note);
}

static void print_ns(const struct job *j)
{
	struct figure t = ns_of(j), o = overhead_of(j);
	if (!t.n) {
		printf("  %s\n", j->note[0] ? j->note : "no data");
		return;
	}
	printf(" %8.1f [%6.1f ..%6.1f]", t.med, t.lo, t.hi);
	if (o.n)
		printf(" %+8.1f [%+6.1f ..%+6.1f]", o.med, o.lo, o.hi);
	if (j->dirty_rounds)
		printf("  (%u round%s switched out)", j->dirty_rounds,
		       j->dirty_rounds == 1 ? "" : "s");
	printf("\n");
}

static struct job *find_job(const struct group *g, int comp)
{
	for (unsigned i = 0; i < g->n; i++)
		if (jobs[g->first + i].comp == comp)
			return &jobs[g->first + i];
	return NULL;
}

static void print_ratio(const char *what, const struct figure *f)
{
	if (f->n)
		printf("%s %.2f [%.2f .. %.2f]", what, f->med, f->lo, f->hi);
	else
		printf("%s -", what);
}

/* A result row's first columns: compiler, steps and cached ("-" unknown). */
static void print_job_head(const struct job *j)
{
	char steps[16] = "-", cached[8] = "-";
	if (j->steps >= 0)
		snprintf(steps, sizeof(steps), "%d", j->steps);
	if (j->cached >= 0)
		snprintf(cached, sizeof(cached), "%s", j->cached ? "yes" : "no");
	printf("     %-15s %6s %6s", comp_name[j->comp], steps, cached);
}

static void print_group(const struct group *g, bool stack)
{
	const struct job *j0 = &jobs[g->first];
	const struct probe *q = &j0->pol->q[j0->probe];
	if (stack)
		printf("  -- %u filter%s, %s\n", jobs[g->first + 1].k,
		       jobs[g->first + 1].k == 1 ? "" : "s", q->call);
	else
		printf("  -- %s: %s%s\n", q->call,
		       j0->probe == P_CACHED ? "cached allow" :
		       (j0->probe == P_PERS || j0->probe == P_SOCKET) && q->argfree
			       ? "decided without its arguments" :
		       j0->probe == P_PERS || j0->probe == P_SOCKET ? "argument-checked" :
		       j0->probe == P_DENY ? "denied" : "unknown number",
		       j0->probe == P_DENY ? (q->rule < 0 ? " (default action)" : " (by a rule)")
					   : "");
	for (unsigned i = 0; i < g->n; i++) {
		const struct job *j = &jobs[g->first + i];
		print_job_head(j);
		if (j->comp == C_NONE && (j->probe == P_DENY || j->probe == P_UNKNOWN))
			printf(" (bare ENOSYS)");
		else
			printf("              ");
		print_ns(j);
		csv_job(stack ? "stack" : "probe", j);
	}
	struct figure rf = ratio_of(find_job(g, C_SCMPC), find_job(g, C_FLOOR));
	struct figure rl = ratio_of(find_job(g, C_SCMPC), find_job(g, C_L1));
	printf("    scmpc's overhead / ");
	print_ratio("floor's", &rf);
	print_ratio("; / libseccomp-L1's", &rl);
	printf("\n");
}

/* How much a configuration's per-round figure moves, relative to its
 * median: half the IQR and half the full range, as +-%. */
static void noise_summary(void)
{
	double iqr[MAX_JOBS], rng[MAX_JOBS];
	unsigned n = 0;
	for (unsigned i = 0; i < njobs; i++) {
		struct figure f = ns_of(&jobs[i]);
		if (!f.n || f.med <= 0)
			continue;
		iqr[n] = 50 * (f.q3 - f.q1) / f.med;
		rng[n] = 50 * (f.hi - f.lo) / f.med;
		n++;
	}
	if (!n)
		return;
	qsort(iqr, n, sizeof(*iqr), cmp_double);
	qsort(rng, n, sizeof(*rng), cmp_double);
	printf("noise of ns/call between rounds, over %u configurations: interquartile +-%.1f%% "
	       "(median), +-%.1f%% (worst);\n  min..max +-%.1f%% (median), +-%.1f%% (worst)%s\n",
	       n, iqr[n / 2], iqr[n - 1], rng[n / 2], rng[n - 1],
	       rng[n - 1] > 10 ? ": single rounds move by more than 10%, so medians are reported" : "");
}

static unsigned passed, missed, noisy;

static void target(const struct group *g, int against, double limit)
{
	const struct job *s = find_job(g, C_SCMPC), *o = find_job(g, against);
	const struct job *j0 = &jobs[g->first];
	struct figure r = ratio_of(s, o);
	struct figure os = overhead_of(s), oo = overhead_of(o);
	const char *pname = j0->pol->label, *call = j0->pol->q[j0->probe].call;
	if (!r.n) {
		printf("  MISS %-19s %-33s scmpc vs %s: not measured\n", pname, call,
		       comp_name[against]);
		missed++;
		return;
	}
	bool ok = r.med <= limit;
	/* The ratio's interquartile range over rounds wider than +-10% of it
	 * means the 10% question cannot be settled by this run; so does an
	 * overhead that is not above the no-filter run at all.  (The full
	 * min..max range is printed too; single disturbed rounds widen it on
	 * a shared machine without moving the median.) */
	bool noise = os.med <= 0 || r.n < rounds || r.q3 - r.q1 > 0.2 * r.med;
	printf("  %s %-19s %-33s %+.1f %s %.2f x %s %+.1f: ratio %.2f IQR %.2f..%.2f range %.2f..%.2f",
	       ok ? "PASS" : "MISS", pname, call, os.med, ok ? "<=" : ">", limit,
	       against == C_FLOOR ? "floor" : "L1", oo.med, r.med, r.q1, r.q3, r.lo, r.hi);
	/* What no filter could beat: the floor's own ratio to the same
	 * compiler. */
	struct figure fl = ratio_of(find_job(g, C_FLOOR), o);
	if (against != C_FLOOR && fl.n)
		printf(" [floor: %.2f]", fl.med);
	printf("%s\n", noise ? "  NOISY" : "");
	ok ? passed++ : missed++;
	noisy += noise;
	if (csv)
		fprintf(csv, "target,%s,%s,\"%s\",%s,1,%.4f,%.4f,%.4f,%.3f,-1,-1,-1,-1,-1,%zu,"
			     "%.4f,%.4f,-1,-1,\"%s%s\"\n",
			pname, probe_key[j0->probe], call, comp_name[against], r.med, r.lo, r.hi,
			limit, j0->pol->rules, r.q1, r.q3, ok ? "PASS" : "MISS",
			noise ? " NOISY" : "");
}

/* ------------------------------------------------------ 32 stacked filters */

/*
 * A systemd-like service: one filter per sandboxing setting, each built by
 * libseccomp at level 1 the way systemd builds them (default ALLOW, the
 * setting's calls denied with an errno, the native ABI), installed one
 * after the other: 32 filters, every one run on every call.  Against it,
 * the one program scmpc_merge_stack() lifts from the 32 and scmpc_compile()
 * emits.  Before anything is timed, every probe is run in a child under
 * each and must return alike (value and errno), and as the emulation of
 * both says; the emulations are compared on numbers 0-499 too.
 */
#define NSYSD 32

struct srule {
	const char *name;
	int err;
	int arg;		/* -1: unconditional */
	enum scmpc_op op;
	uint64_t v, v2;
};

#define U(n) { n, EPERM, -1, 0, 0, 0 }
#define C(n, e, a, op, v, v2) { n, e, a, op, v, v2 }
#define M(n, a, m) { n, EPERM, a, SCMPC_OP_MASKED_EQ, m, m }
#define END { NULL, 0, 0, 0, 0, 0 }

static const struct srule s_clock[] = { U("adjtimex"), U("clock_adjtime"), U("clock_settime"),
					U("settimeofday"), END };
static const struct srule s_cpuemu[] = { U("modify_ldt"), U("vm86"), U("vm86old"), END };
static const struct srule s_debug[] = { U("ptrace"), U("process_vm_readv"), U("process_vm_writev"),
					U("perf_event_open"), U("lookup_dcookie"), END };
static const struct srule s_module[] = { U("init_module"), U("finit_module"), U("delete_module"),
					 END };
static const struct srule s_mount[] = { U("mount"), U("umount2"), U("pivot_root"), U("fsopen"),
					U("fsmount"), U("fsconfig"), U("fspick"), U("move_mount"),
					U("open_tree"), U("mount_setattr"), END };
static const struct srule s_obsolete[] = { U("uselib"), U("sysfs"), U("ustat"), U("_sysctl"),
					   U("create_module"), U("get_kernel_syms"),
					   U("query_module"), U("nfsservctl"), U("afs_syscall"),
					   U("tuxcall"), U("security"), U("vserver"), U("putpmsg"),
					   U("getpmsg"), END };
static const struct srule s_rawio[] = { U("ioperm"), U("iopl"), U("pciconfig_iobase"),
					U("pciconfig_read"), U("pciconfig_write"), END };
static const struct srule s_reboot[] = { U("kexec_load"), U("kexec_file_load"), U("reboot"), END };
static const struct srule s_swap[] = { U("swapon"), U("swapoff"), END };
static const struct srule s_keyring[] = { U("add_key"), U("keyctl"), U("request_key"), END };
static const struct srule s_memlock[] = { U("mlock"), U("mlock2"), U("mlockall"), U("munlock"),
					  U("munlockall"), END };
static const struct srule s_pkey[] = { U("pkey_alloc"), U("pkey_free"), U("pkey_mprotect"), END };
static const struct srule s_sync[] = { U("sync"), U("syncfs"), U("sync_file_range"), END };
static const struct srule s_aio[] = { U("io_setup"), U("io_destroy"), U("io_submit"),
				      U("io_cancel"), U("io_getevents"), U("io_uring_setup"),
				      U("io_uring_enter"), U("io_uring_register"), END };
static const struct srule s_bpf[] = { U("bpf"), END };
static const struct srule s_priv[] = { U("acct"), U("chroot"), U("vhangup"), U("quotactl"),
				       U("quotactl_fd"), END };
static const struct srule s_hostname[] = { U("sethostname"), U("setdomainname"), END };
static const struct srule s_klogs[] = { U("syslog"), END };
/* AF_UNIX, AF_INET and AF_INET6 only: the families around them denied */
static const struct srule s_af[] = {
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 0, 0),
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 3, 0), C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 4, 0),
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 5, 0), C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 6, 0),
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 7, 0), C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 8, 0),
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_EQ, 9, 0),
	C("socket", EAFNOSUPPORT, 0, SCMPC_OP_GT, 10, 0), END };
static const struct srule s_ns[] = {
	M("unshare", 0, 0x10000000), M("unshare", 0, 0x40000000), M("unshare", 0, 0x00020000),
	M("unshare", 0, 0x20000000), M("unshare", 0, 0x04000000), M("unshare", 0, 0x08000000),
	M("unshare", 0, 0x02000000), M("setns", 1, 0x10000000), M("setns", 1, 0x40000000),
	M("setns", 1, 0x00020000), M("setns", 1, 0x20000000), END };
static const struct srule s_pers[] = { C("personality", EPERM, 0, SCMPC_OP_NE, 0xffffffffU, 0),
				       END };
static const struct srule s_mdwe[] = { M("mmap", 2, 6), M("mprotect", 2, 4), M("pkey_mprotect", 2, 4),
				       M("shmat", 2, 0100000), END };
static const struct srule s_rt[] = { C("sched_setscheduler", EPERM, 1, SCMPC_OP_EQ, 1, 0),
				     C("sched_setscheduler", EPERM, 1, SCMPC_OP_EQ, 2, 0), END };
static const struct srule s_suid[] = { M("chmod", 1, 04000), M("chmod", 1, 02000),
				       M("fchmod", 1, 04000), M("fchmod", 1, 02000),
				       M("fchmodat", 2, 04000), M("fchmodat", 2, 02000), END };
static const struct srule s_res[] = { U("set_mempolicy"), U("mbind"), U("migrate_pages"),
				      U("move_pages"), U("ioprio_set"), END };
static const struct srule s_ipc[] = { U("msgget"), U("msgsnd"), U("msgrcv"), U("msgctl"),
				      U("semget"), U("semop"), U("semctl"), U("semtimedop"),
				      U("shmget"), U("shmctl"), U("shmat"), U("shmdt"), END };
static const struct srule s_uffd[] = { U("userfaultfd"), END };
static const struct srule s_handles[] = { U("name_to_handle_at"), U("open_by_handle_at"),
					  U("fanotify_init"), U("fanotify_mark"), END };
static const struct srule s_proc[] = { U("process_madvise"), U("process_mrelease"), U("kcmp"),
				       U("pidfd_getfd"), END };
static const struct srule s_caps[] = { U("capset"), U("setfsuid"), U("setfsgid"), END };
static const struct srule s_chown[] = { U("chown"), U("fchown"), U("fchownat"), U("lchown"), END };
static const struct srule s_landlock[] = { U("landlock_create_ruleset"), U("landlock_add_rule"),
					   U("landlock_restrict_self"), END };

static const struct {
	const char *label;
	const struct srule *r;
} features[NSYSD] = {
	{ "~@clock", s_clock }, { "~@cpu-emulation", s_cpuemu }, { "~@debug", s_debug },
	{ "~@module", s_module }, { "~@mount", s_mount }, { "~@obsolete", s_obsolete },
	{ "~@raw-io", s_rawio }, { "~@reboot", s_reboot }, { "~@swap", s_swap },
	{ "~@keyring", s_keyring }, { "~@memlock", s_memlock }, { "~@pkey", s_pkey },
	{ "~@sync", s_sync }, { "~@aio", s_aio }, { "~bpf", s_bpf }, { "~@privileged", s_priv },
	{ "ProtectHostname", s_hostname }, { "ProtectKernelLogs", s_klogs },
	{ "RestrictAddressFamilies", s_af }, { "RestrictNamespaces", s_ns },
	{ "LockPersonality", s_pers }, { "MemoryDenyWriteExecute", s_mdwe },
	{ "RestrictRealtime", s_rt }, { "RestrictSUIDSGID", s_suid }, { "~@resources", s_res },
	{ "~@ipc", s_ipc }, { "~userfaultfd", s_uffd }, { "~@file-handles", s_handles },
	{ "~@process", s_proc }, { "~@capabilities", s_caps }, { "~@chown", s_chown },
	{ "~landlock", s_landlock },
};

static struct pol sysd;
static struct prog sysd_set[NSYSD];
static char sysd_why[256];
static unsigned sysd_first_group, sysd_groups;

/* A call to run at the kernel under both: NAME with ARGS. */
struct kprobe {
	uint32_t nr;
	uint64_t args[6];
	char shown[64];
};

static uint32_t stack_emulate(const struct seccomp_data *sd, int *steps)
{
	uint32_t res = SCMPC_ACT_ALLOW;
	int total = 0;
	for (unsigned i = NSYSD; i-- > 0;) {
		uint32_t cur = SCMPC_ACT_KILL_PROCESS;
		unsigned st = 0;
		if (scmpc_emulate(sysd_set[i].insns, sysd_set[i].len, sd, &cur, &st) < 0)
			cur = SCMPC_ACT_KILL_PROCESS;
		total += (int)st;
		if ((int32_t)(cur & 0xffff0000U) < (int32_t)(res & 0xffff0000U))
			res = cur;
	}
	if (steps)
		*steps = total;
	return res;
}

static int sysd_build(void)
{
	char err[192];
	const struct sock_filter *progs[NSYSD];
	size_t lens[NSYSD];
	for (unsigned f = 0; f < NSYSD; f++) {
		scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
		if (!p || scmpc_policy_add_arch(p, native, NULL) < 0)
			return -ENOMEM;
		for (const struct srule *r = features[f].r; r->name; r++) {
			if (scmpc_syscall_resolve(native, r->name) < 0)
				continue;
			struct scmpc_cond c = { .arg = r->arg < 0 ? 0 : (unsigned)r->arg, .op = r->op,
						.value = r->v, .value2 = r->v2 };
			struct scmpc_rule ru = { .sz = sizeof(ru), .syscall = r->name,
						 .action = SCMPC_ACT_ERRNO(r->err), .conds = &c,
						 .nconds = r->arg >= 0 };
			if (scmpc_policy_add_rule(p, &ru, NULL) < 0) {
				scmpc_policy_free(p);
				return -EINVAL;
			}
		}
		struct prog *g = &sysd_set[f];
		int rc = lsc_compile(p, 1, &g->insns, &g->len, err, sizeof(err));
		scmpc_policy_free(p);
		if (rc < 0 || prog_wrap(g) < 0) {
			snprintf(sysd_why, sizeof(sysd_why), "%s: libseccomp: %s", features[f].label,
				 rc < 0 ? err : g->err);
			return -EINVAL;
		}
		progs[f] = g->insns;
		lens[f] = g->len;
	}
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *merged = NULL;
	int rc = d ? scmpc_merge_stack(progs, lens, NSYSD, NULL, &merged, d) : -ENOMEM;
	if (rc == 0)
		rc = testutil_compile_copy(merged, &sysd.g[C_MERGED].insns, &sysd.g[C_MERGED].len,
					   &sysd.g[C_MERGED].h, err, sizeof(err));
	if (rc < 0) {
		snprintf(sysd_why, sizeof(sysd_why), "merge: %s",
			 d && scmpc_diag_message(d)[0] ? scmpc_diag_message(d) : err);
	} else {
		sysd.g[C_MERGED].ok = true;
		sysd.p = merged;
		merged = NULL;
	}
	scmpc_policy_free(merged);
	scmpc_diag_free(d);
	return rc;
}

/* Every rule's call with arguments meeting it (the others 0xffffffff,
 * which no fd, pointer or flag set takes), and calls the set allows that
 * are harmless whatever the filters do. */
static size_t sysd_probes(struct kprobe *out, size_t max)
{
	static const struct {
		const char *name;
		uint64_t args[6];
	} allowed[] = {
		{ "getpid", { 0 } }, { "getppid", { 0 } },
		{ "personality", { 0xffffffffU } },
		{ "socket", { 1, 0x101, 0 } }, { "socket", { 2, 0x101, 0 } },
		{ "socket", { 10, 0x101, 0 } },
		{ "mmap", { 0, 0, 1, 0x22, (uint64_t)-1, 0 } },
		{ "mprotect", { 0, 0, 1 } }, { "unshare", { 0 } },
		{ "sched_setscheduler", { 0, 0, 0 } }, { "chmod", { 0, 0644 } },
		{ "fchmod", { (uint64_t)-1, 0644 } }, { "setns", { (uint64_t)-1, 0 } },
	};
	size_t n = 0;
	for (size_t i = 0; i < NELEM(allowed) && n < max; i++) {
		int64_t nr = scmpc_syscall_resolve(native, allowed[i].name);
		if (nr < 0)
			continue;
		out[n].nr = (uint32_t)nr;
		memcpy(out[n].args, allowed[i].args, sizeof(out[n].args));
		snprintf(out[n].shown, sizeof(out[n].shown), "%s", allowed[i].name);
		n++;
	}
	if (n < max) {
		out[n].nr = UNKNOWN_NR;
		memset(out[n].args, 0, sizeof(out[n].args));
		snprintf(out[n].shown, sizeof(out[n].shown), "syscall(%u)", UNKNOWN_NR);
		n++;
	}
	for (unsigned f = 0; f < NSYSD; f++)
		for (const struct srule *r = features[f].r; r->name && n < max; r++) {
			int64_t nr = scmpc_syscall_resolve(native, r->name);
			/* vhangup takes no argument to make it fail */
			if (nr < 0 || !strcmp(r->name, "vhangup") || !strcmp(r->name, "sync"))
				continue;
			out[n].nr = (uint32_t)nr;
			for (unsigned a = 0; a < 6; a++)
				out[n].args[a] = 0xffffffffU;
			if (r->arg >= 0)
				out[n].args[r->arg] = r->op == SCMPC_OP_MASKED_EQ ? r->v2
						      : r->op == SCMPC_OP_GT ? r->v + 1
						      : r->op == SCMPC_OP_NE ? r->v + 1 : r->v;
			snprintf(out[n].shown, sizeof(out[n].shown), "%s", r->name);
			n++;
		}
	return n;
}

struct kresult {
	long ret;
	int err;
};

/* Run the probes in a child under the set (MERGED false) or the merged
 * program; 0, or -1 with the reason in WHY. */
static int sysd_run_probes(bool merged, const struct kprobe *ps, size_t n, struct kresult *res,
			   char *why, size_t whylen)
{
	int fd[2];
	if (pipe(fd) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		const scmpc_prog *chain[NSYSD];
		unsigned k = merged ? 1 : NSYSD;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(3);
		for (unsigned i = 0; i < k; i++) {
			const struct prog *g = merged ? &sysd.g[C_MERGED] : &sysd_set[i];
			struct scmpc_load_opts o = { .sz = sizeof(o), .chain = chain, .nchain = i };
			if (scmpc_load(g->insns, g->len, &o, NULL, NULL) < 0)
				_exit(4);
			chain[i] = g->h;
		}
		for (size_t i = 0; i < n; i++) {
			struct kresult r;
			errno = 0;
			r.ret = syscall(ps[i].nr, ps[i].args[0], ps[i].args[1], ps[i].args[2],
					ps[i].args[3], ps[i].args[4], ps[i].args[5]);
			r.err = r.ret == -1 ? errno : 0;
			if (write(fd[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
				_exit(5);
		}
		_exit(0);
	}
	close(fd[1]);
	int got = pipe_read_all(fd[0], res, n * sizeof(*res), UINT64_MAX);
	close(fd[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whylen, "the %s child failed (status 0x%x)", merged ? "merged" : "stack",
			 st);
		return -1;
	}
	return 0;
}

static unsigned long sysd_alike, sysd_emulated;

/* The check before the timing: both at the kernel, and both emulated. */
static int sysd_check(void)
{
	static struct kprobe ps[512];
	static struct kresult a[512], b[512];
	size_t n = sysd_probes(ps, NELEM(ps));
	const struct prog *m = &sysd.g[C_MERGED];
	for (uint32_t nr = 0; nr < 500; nr++)
		for (int ones = 0; ones < 2; ones++) {
			uint64_t args[6];
			memset(args, ones ? 0xff : 0, sizeof(args));
			struct seccomp_data sd = testutil_sd(native, nr, args);
			uint32_t ms = 0;
			if (scmpc_emulate(m->insns, m->len, &sd, &ms, NULL) < 0 ||
			    ms != stack_emulate(&sd, NULL)) {
				snprintf(sysd_why, sizeof(sysd_why), "emulated: nr %u differs", nr);
				return -1;
			}
			sysd_emulated++;
		}
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd = testutil_sd(native, ps[i].nr, ps[i].args);
		uint32_t ms = 0, ss = stack_emulate(&sd, NULL);
		if (scmpc_emulate(m->insns, m->len, &sd, &ms, NULL) < 0 || ms != ss) {
			snprintf(sysd_why, sizeof(sysd_why), "emulated: %s differs", ps[i].shown);
			return -1;
		}
		/* only calls the filters deny, or harmless ones, reach the kernel */
		if (ss != SCMPC_ACT_ALLOW && !is_errno_act(ss)) {
			snprintf(sysd_why, sizeof(sysd_why), "%s: the set returns %x", ps[i].shown, ss);
			return -1;
		}
		sysd_emulated++;
	}
	if (sysd_run_probes(false, ps, n, a, sysd_why, sizeof(sysd_why)) < 0 ||
	    sysd_run_probes(true, ps, n, b, sysd_why, sizeof(sysd_why)) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd = testutil_sd(native, ps[i].nr, ps[i].args);
		uint32_t ss = stack_emulate(&sd, NULL);
		bool as_emulated = !is_errno_act(ss) || (a[i].ret == -1 && a[i].err == (int)(ss & 0xffff));
		/* a pid is the child's own: compared as success, not as value */
		bool own = !strcmp(ps[i].shown, "getpid") || !strcmp(ps[i].shown, "getppid");
		bool same_ret = own ? (a[i].ret >= 0) == (b[i].ret >= 0) : a[i].ret == b[i].ret;
		if (!same_ret || a[i].err != b[i].err || !as_emulated) {
			snprintf(sysd_why, sizeof(sysd_why),
				 "%s: stack %ld errno %d, merged %ld errno %d, emulated %x", ps[i].shown,
				 a[i].ret, a[i].err, b[i].ret, b[i].err, ss);
			return -1;
		}
		sysd_alike++;
	}
	return 0;
}

static void sysd_jobs(void)
{
	static const uint64_t pers[6] = { 0xffffffffU };
	static const uint64_t sock[6] = { 1, 0x101, 0 };
	static const uint64_t bad[6] = { 0xffffffffU, 0xffffffffU, 0xffffffffU, 0xffffffffU,
					 0xffffffffU, 0xffffffffU };
	sysd.label = "systemd-like";
	if (sysd_build() < 0 || sysd_check() < 0)
		return;
	probe_set(&sysd.q[P_CACHED], "getpid", NULL, "getpid()");
	probe_set(&sysd.q[P_PERS], "personality", pers, "personality(0xffffffff)");
	probe_set(&sysd.q[P_SOCKET], "socket", sock, "socket(AF_UNIX, 0x101, 0)");
	probe_set(&sysd.q[P_DENY], "kexec_load", bad, "kexec_load(-1, ...)");
	probe_set(&sysd.q[P_UNKNOWN], NULL, NULL, "syscall(1000)");
	sysd.g[C_STACK] = sysd_set[0];
	sysd_first_group = ngroups;
	for (int k = 0; k < NPROBE; k++) {
		struct probe *q = &sysd.q[k];
		if (!q->ok)
			continue;
		struct seccomp_data sd = testutil_sd(native, q->nr, q->args);
		int steps = 0;
		q->act = stack_emulate(&sd, &steps);
		group_begin();
		job_add(&sysd, k, C_NONE, 0);
		struct job *s = job_add(&sysd, k, C_STACK, NSYSD);
		/* job_add() judged the first filter alone: the set is judged here */
		if (s && s->g->ok) {
			s->failed = false;
			s->note[0] = '\0';
			s->set = sysd_set;
			s->steps = steps;
			uint8_t bits[(CACHE_NRS + 7) / 8];
			const struct sock_filter *ps[NSYSD];
			size_t ls[NSYSD];
			for (unsigned i = 0; i < NSYSD; i++) {
				ps[i] = sysd_set[i].insns;
				ls[i] = sysd_set[i].len;
			}
			int nb = scmpc_cache_bitmap(ps, ls, NSYSD, native, NULL, bits);
			s->cached = nb >= 0 && q->nr < CACHE_NRS && (bits[q->nr / 8] >> (q->nr % 8)) & 1;
			s->want_err = q->act == SCMPC_ACT_ALLOW && k != P_DENY ? native_errno(k)
				      : (int)(q->act & 0xffffU);
		}
		job_add(&sysd, k, C_MERGED, 1);
		group_end();
	}
	sysd_groups = ngroups - sysd_first_group;
}

static void sysd_print(void)
{
	size_t total = 0;
	for (unsigned i = 0; i < NSYSD; i++)
		total += sysd_set[i].len;
	printf("\n== %u stacked filters, one per setting of a systemd-like service (libseccomp L1 "
	       "each, %zu instructions in all),\n   against their merge (scmpc_merge_stack + "
	       "scmpc_compile: %zu instructions); steps: summed over the filters\n", NSYSD, total,
	       sysd.g[C_MERGED].ok ? sysd.g[C_MERGED].len : 0);
	if (!sysd_groups) {
		printf("  not measured: %s\n", sysd_why);
		return;
	}
	printf("  decisions alike: %lu probes at the kernel (return value and errno, as emulated), "
	       "%lu emulated\n", sysd_alike, sysd_emulated);
	printf("     %-15s %6s %6s %14s %8s %16s %8s %16s\n", "", "steps", "cached", "", "ns/call",
	       "[rounds]", "overhead", "[rounds]");
	for (unsigned gi = sysd_first_group; gi < sysd_first_group + sysd_groups; gi++) {
		const struct group *g = &groups[gi];
		const struct job *j0 = &jobs[g->first];
		printf("  -- %s\n", sysd.q[j0->probe].call);
		for (unsigned i = 0; i < g->n; i++) {
			const struct job *j = &jobs[g->first + i];
			print_job_head(j);
			printf("              ");
			print_ns(j);
			csv_job("stack32", j);
		}
		struct figure r = ratio_of(find_job(g, C_MERGED), find_job(g, C_STACK));
		struct figure os = overhead_of(find_job(g, C_STACK)), om = overhead_of(find_job(g, C_MERGED));
		printf("    merged's overhead / 32 filters': ");
		print_ratio("", &r);
		if (os.n && om.n)
			printf("  (%+.1f vs %+.1f ns/call)", om.med, os.med);
		printf("\n");
	}
}

/* ------------------------------------------------------------------ main */

static int pick_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	/* The highest allowed CPU: CPU 0 tends to take more interrupts. */
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return 0;
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

int main(int argc, char **argv)
{
	const char *csv_path = NULL;
	for (int i = 1; i < argc; i++) {
		unsigned v;
		if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv_path = argv[++i];
		} else if (!strcmp(argv[i], "--no-rt")) {
			use_rt = false;
		} else if (!strcmp(argv[i], "--quick")) {
			rounds = 5;
			samples = 3;
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc &&
			   parse_uint(argv[i + 1], 1, MAX_ROUNDS, &v)) {
			rounds = v;
			i++;
		} else if (!strcmp(argv[i], "--samples") && i + 1 < argc &&
			   parse_uint(argv[i + 1], 1, MAX_SAMPLES, &v)) {
			samples = v;
			i++;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc &&
			   parse_uint(argv[i + 1], 2000, 100000000, &v)) {
			max_calls = v;
			i++;
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc &&
			   parse_uint(argv[i + 1], 0, CPU_SETSIZE - 1, &v)) {
			cpu = (int)v;
			i++;
		} else {
			fprintf(stderr,
				"usage: %s [--csv FILE] [--quick] [--rounds N] [--samples N] [--calls N] [--cpu N] [--no-rt]\n",
				argv[0]);
			return 2;
		}
	}
	native = scmpc_arch_native();
	if (native == SCMPC_ARCH_NONE) {
		printf("bench_kernel: no native ABI on this build; nothing measured\n");
		return 0;
	}
	if (cpu < 0)
		cpu = pick_cpu();
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			fprintf(stderr, "%s: %s\n", csv_path, strerror(errno));
			return 1;
		}
		fprintf(csv, "section,policy,probe,call,compiler,filters,ns_median,ns_min,ns_max,"
			     "overhead_ns,overhead_min,overhead_max,steps,cached,prog_insns,"
			     "policy_rules,ns_q1,ns_q3,overhead_q1,overhead_q3,note\n");
	}

	FILE *jit = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	int jit_on = -1;
	if (jit) {
		if (fscanf(jit, "%d", &jit_on) != 1)
			jit_on = -1;
		fclose(jit);
	}
	printf("scmpc %s vs libseccomp %u.%u.%u: ns per raw syscall() under each program\n",
	       scmpc_version(), seccomp_version()->major, seccomp_version()->minor,
	       seccomp_version()->micro);
	printf("%s, bpf_jit_enable=%d, pinned to CPU %d; %u rounds x %u samples of up to %u calls "
	       "(~%.0f ms each)\n",
	       scmpc_arch_name(native), jit_on, cpu, rounds, samples, max_calls, SAMPLE_NS / 1e6);
	printf("ns/call: median over rounds of each round's median sample, [lowest .. highest round];\n"
	       "overhead: ns/call minus the no-filter run of the same group and round (median [range]);\n"
	       "steps: instructions the call executes in one filter (scmpc_emulate): the cost\n"
	       "  without a JIT; cached: the kernel's action cache skips the filter (6.18 rules).\n");

	static const char *const files[] = { "docker-default.json", "podman-default.json",
					      "container.json" };
	static struct pol pols[NELEM(files)];
	size_t npol = 0;
	for (size_t f = 0; f < NELEM(files); f++) {
		char path[4096];
		if (f < 2)
			testutil_profile_path(files[f], path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s/%s", testutil_examples_dir(), files[f]);
		scmpc_policy *p = testutil_policy_file(scmpc_policy_from_json, path, native);
		if (!p) {
			printf("\n%s: %s (skipped)\n", files[f], testutil_last_error());
			continue;
		}
		struct pol *P = &pols[npol++];
		P->label = files[f];
		P->p = p;
		P->rules = scmpc_policy_rule_count(p);
		for (int c = C_SCMPC; c <= C_L2; c++)
			compile_one(p, c, &P->g[c]);
		probes_init(P);

		for (int k = 0; k < NPROBE; k++) {
			if (!P->q[k].ok)
				continue;
			group_begin();
			for (int c = 0; c < NCOMP; c++)
				job_add(P, k, c, 1);
			group_end();
		}
	}
	/* The per-filter cost: stacks of identical filters (systemd stacks
	 * one per unit setting) on the first policy's denied call. */
	unsigned stack_first = ngroups;
	if (npol && pols[0].q[P_DENY].ok) {
		for (size_t i = 0; i < NELEM(stack_ks); i++) {
			group_begin();
			job_add(&pols[0], P_DENY, C_NONE, 0);
			job_add(&pols[0], P_DENY, C_SCMPC, stack_ks[i]);
			job_add(&pols[0], P_DENY, C_L1, stack_ks[i]);
			job_add(&pols[0], P_DENY, C_FLOOR, stack_ks[i]);
			group_end();
		}
	}

	/* 32 stacked filters against their merge (section "stack32"). */
	sysd_jobs();

	uint64_t t0 = testutil_now_ns();
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned gi = 0; gi < ngroups; gi++) {
			const struct group *g = &groups[gi];
			for (unsigned i = 0; i < g->n; i++)
				run_job(&jobs[g->first + (i + r) % g->n], r);
		}
		fprintf(stderr, "bench_kernel: round %u/%u done (%.0f s)\n", r + 1, rounds,
			(double)(testutil_now_ns() - t0) / 1e9);
	}
	printf("children: %lu, %lu of them SCHED_FIFO; samples: %lu timed, %lu dropped as switched "
	       "out; %lu child%s had no clean sample\n",
	       stat_runs, stat_rt, stat_samples, stat_switched, stat_dirty,
	       stat_dirty == 1 ? "" : "ren");

	noise_summary();

	for (size_t i = 0; i < npol; i++) {
		const struct pol *P = &pols[i];
		printf("\n== %s (%s, default caps of its engine, kernel 6.8): %zu rules; instructions:",
		       P->label, scmpc_arch_name(native), P->rules);
		for (int c = C_SCMPC; c <= C_L2; c++) {
			if (P->g[c].ok)
				printf(" %s %zu", comp_name[c], P->g[c].len);
			else
				printf(" %s - (%s)", comp_name[c], P->g[c].err);
		}
		printf("\n     %-15s %6s %6s %14s %8s %16s %8s %16s\n", "compiler", "steps", "cached",
		       "", "ns/call", "[rounds]", "overhead", "[rounds]");
		for (int k = 0; k < NPROBE; k++)
			if (!P->q[k].ok)
				printf("  -- %s: not measured: %s\n", probe_key[k], P->q[k].why);
		for (unsigned gi = 0; gi < stack_first; gi++)
			if (jobs[groups[gi].first].pol == P)
				print_group(&groups[gi], false);
	}

	unsigned stack_end = sysd_groups ? sysd_first_group : ngroups;
	if (stack_first < stack_end) {
		const struct pol *P = jobs[groups[stack_first].first].pol;
		printf("\n== stacks of K identical filters, %s, denied call (steps are per filter; "
		       "every filter runs)\n", P->label);
		for (unsigned gi = stack_first; gi < stack_end; gi++)
			print_group(&groups[gi], true);
		/* The slope between the smallest and the largest stack that
		 * loaded: what each further filter costs. */
		for (int c = C_SCMPC; c < NCOMP; c++) {
			const struct job *a = NULL, *b = NULL;
			for (unsigned gi = stack_first; gi < stack_end; gi++) {
				const struct job *j = find_job(&groups[gi], c);
				if (!overhead_of(j).n)
					continue;
				if (!a)
					a = j;
				b = j;
			}
			if (a && b && b->k > a->k)
				printf("    %s: %.1f ns per added filter (K = %u .. %u)\n", comp_name[c],
				       (overhead_of(b).med - overhead_of(a).med) / (b->k - a->k), a->k,
				       b->k);
		}
	}

	sysd_print();

	printf("\n== targets: scmpc's overhead above no filter (ns) <= 1.10 x the floor's and <= 0.30 x "
	       "libseccomp-L1's\n   denied, unknown and argument-checked calls; overheads: medians over %u "
	       "rounds;\n   ratio: median of the per-round ratios, with their interquartile range and "
	       "full range;\n   NOISY: that IQR is wider than +-10%%;\n   [floor: r]: the floor's "
	       "own ratio to L1, the best any filter can reach on this machine\n", rounds);
	for (unsigned gi = 0; gi < stack_first; gi++) {
		const struct job *j0 = &jobs[groups[gi].first];
		if (j0->probe == P_CACHED || j0->pol->q[j0->probe].argfree)
			continue;
		target(&groups[gi], C_FLOOR, 1.10);
		target(&groups[gi], C_L1, 0.30);
	}
	printf("  %u passed, %u missed; %u of them NOISY\n", passed, missed, noisy);

	for (unsigned i = 0; i < NSYSD; i++)
		prog_free(&sysd_set[i]);
	prog_free(&sysd.g[C_MERGED]);
	scmpc_policy_free(sysd.p);
	for (size_t i = 0; i < npol; i++) {
		for (int c = 0; c < NCOMP; c++)
			prog_free(&pols[i].g[c]);
		for (int k = 0; k < NPROBE; k++)
			prog_free(&pols[i].q[k].floor);
		scmpc_policy_free(pols[i].p);
	}
	if (csv && fclose(csv) != 0) {
		fprintf(stderr, "%s: write failed\n", csv_path);
		return 1;
	}
	return 0;
}
