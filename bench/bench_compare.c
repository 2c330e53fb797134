/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc against libseccomp 2.5.4 (levels 1 and 2, built by tests/lsc_ref.c
 * with the same semantics) on real profiles and synthetic policies, in one
 * run: program size, executed path, cacheability, compile time, growth.
 *
 *   bench_compare [--csv FILE] [--quick]
 *
 * Profiles: Docker's and Podman's defaults from their Debian packages
 * (tests/testutil.h lists the paths) and examples/container.json, resolved for x86_64 with Docker's
 * default capabilities on kernel 6.8.  Every figure is measured here with
 * scmpc_emulate() and scmpc_cache_bitmap() on both compilers' programs, so
 * neither compiler reports on itself.
 */
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "families.h"
#include "implied.h"
#include "internal.h"
#include "lsc_ref.h"
#include "paths.h"
#include "testutil.h"

enum { C_SCMPC, C_L1, C_L2, NCOMP, C_SCMPC_NOVERIFY = NCOMP };
static const char *const comp_name[NCOMP] = { "scmpc", "libseccomp-L1", "libseccomp-L2" };

#define CACHE_NRS 470U		/* bitmap size of Linux 6.18 */
#define PROBE_NRS 1024U

static FILE *csv;
static bool quick;
static bool families_only;	/* --families: the families section and its targets */

static void csv_field(const char *s)
{
	/* RFC 4180: quote every text field, double embedded quotes. */
	fputc('"', csv);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', csv);
		fputc(*s, csv);
	}
	fputs("\",", csv);
}

static void csv_row(const char *section, const char *policy, const char *metric, const char *abi,
		    const char *comp, double v)
{
	if (!csv)
		return;
	csv_field(section);
	csv_field(policy);
	csv_field(metric);
	csv_field(abi);
	csv_field(comp);
	fprintf(csv, "%.6g\n", v);
}

/* ------------------------------------------------------------ compiling */

struct prog {
	bool ok;
	struct sock_filter *insns;
	size_t len;
	char err[256];
};

static void prog_free(struct prog *g)
{
	free(g->insns);
	memset(g, 0, sizeof(*g));
}

static int compile_one(const scmpc_policy *p, int comp, struct prog *g)
{
	memset(g, 0, sizeof(*g));
	if (comp == C_SCMPC) {
		int rc = testutil_compile_copy(p, &g->insns, &g->len, NULL, g->err, sizeof(g->err));
		if (rc < 0)
			return rc;
	} else {
		int rc = lsc_compile(p, comp == C_L1 ? 1 : 2, &g->insns, &g->len, g->err,
				     sizeof(g->err));
		if (rc < 0)
			return rc;
	}
	g->ok = true;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* One compile, output discarded: scmpc_compile() as a caller would run it
 * (name resolution and its own checks included), or only libseccomp's part
 * of the reference (PL prepared beforehand). */
static int compile_discard(const scmpc_policy *p, const lsc_plan *pl, int comp)
{
	if (comp == C_SCMPC || comp == C_SCMPC_NOVERIFY) {
		struct scmpc_compile_opts o = {
			.sz = sizeof(o),
			.flags = comp == C_SCMPC_NOVERIFY ? SCMPC_COMPILE_NO_VERIFY : 0,
		};
		scmpc_prog *sp = NULL;
		int rc = scmpc_compile(p, &o, &sp, NULL);
		scmpc_prog_free(sp);
		return rc;
	}
	struct sock_filter *insns;
	size_t len;
	int rc = lsc_plan_compile(pl, comp == C_L1 ? 1 : 2, &insns, &len, NULL, 0);
	free(insns);
	return rc;
}

/* Median wall time of RUNS compiles (fewer once BUDGET_NS is spent, but at
 * least one), in nanoseconds; 0 when a compile fails. */
static uint64_t time_compile(const scmpc_policy *p, int comp, unsigned runs, uint64_t budget_ns)
{
	uint64_t *t = calloc(runs, sizeof(*t)), spent = 0, med = 0;
	lsc_plan *pl = NULL;
	unsigned n = 0;

	if (!t || ((comp == C_L1 || comp == C_L2) && lsc_plan_new(p, &pl, NULL, 0) < 0))
		goto out;
	while (n < runs && (n == 0 || spent < budget_ns)) {
		uint64_t t0 = testutil_now_ns();
		int rc = compile_discard(p, pl, comp);
		uint64_t dt = testutil_now_ns() - t0;
		if (rc < 0)
			goto out;
		t[n++] = dt;
		spent += dt;
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
out:
	lsc_plan_free(pl);
	free(t);
	return med;
}

/* Compile and time in a child so that a libseccomp run past CAP_S seconds
 * can be abandoned.  Returns false on timeout or failure. */
static bool time_compile_capped(const scmpc_policy *p, int comp, unsigned runs,
				uint64_t budget_ns, unsigned cap_s, size_t *len, uint64_t *med)
{
	int fd[2];
	if (pipe(fd) < 0)
		return false;
	fflush(stdout);
	if (csv)
		fflush(csv);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return false;
	}
	if (pid == 0) {
		close(fd[0]);
		/* The cap is on one compile; a first run within it says the
		 * timed runs (bounded by BUDGET_NS) will finish too. */
		alarm(cap_s);
		struct prog g;
		uint64_t res[2] = { 0, 0 };
		uint64_t t0 = testutil_now_ns();
		if (compile_one(p, comp, &g) == 0) {
			uint64_t first = testutil_now_ns() - t0;
			alarm(0);
			res[0] = g.len;
			prog_free(&g);
			res[1] = first > budget_ns / 4 ? first : time_compile(p, comp, runs, budget_ns);
		}
		ssize_t w = write(fd[1], res, sizeof(res));
		_exit(w == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(fd[1]);
	uint64_t res[2] = { 0, 0 };
	ssize_t r = read(fd[0], res, sizeof(res));
	close(fd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (r != (ssize_t)sizeof(res) || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !res[0])
		return false;
	*len = (size_t)res[0];
	*med = res[1];
	return true;
}

/* ------------------------------------------------------------- measuring */

struct abi_stats {
	enum scmpc_arch arch;
	unsigned worst;
	double mean;
	unsigned counted;	/* argument-free numbers measured */
	int cacheable;		/* -1: the ABI has no bitmap */
	unsigned cached_allowed;	/* cached and allowed unconditionally */
	unsigned uncond;	/* numbers < CACHE_NRS allowed whatever the arguments */
};

struct argsys {
	uint32_t nr;
	char name[32];
	unsigned worst[NCOMP];
};

struct result {
	const char *label;
	struct prog g[NCOMP];
	struct abi_stats abi[NCOMP][SCMPC_ARCH_COUNT];
	size_t nabi;
	struct argsys as[64];
	size_t nas;
	uint64_t ns[NCOMP];
	uint64_t ns_noverify;
	unsigned runs;
};

static unsigned steps_of(const struct prog *g, const struct seccomp_data *sd)
{
	return bench_steps(g->insns, g->len, sd);
}

/* Numbers the kernel caches whatever the filter says (the uretprobe
 * exception): those of a program that allows nothing. */
static unsigned kernel_exceptions(enum scmpc_arch a, uint8_t *bits)
{
	static const struct sock_filter deny[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter *progs[] = { deny };
	size_t lens[] = { 1 };
	struct scmpc_cache_opts o = { .sz = sizeof(o), .nr_count = CACHE_NRS };
	int n = scmpc_cache_bitmap(progs, lens, 1, a, &o, bits);
	return n < 0 ? 0 : (unsigned)n;
}

static void measure_abi(const scmpc_policy *p, const struct arch_view *views,
			const struct arch_view *v, const struct prog *g, struct abi_stats *s)
{
	uint64_t sum = 0;

	memset(s, 0, sizeof(*s));
	s->arch = v->arch;
	for (uint32_t i = 0; i < PROBE_NRS; i++) {
		uint32_t nr = v->info->nr_base + i;
		if (arch_view_has_conds(p, v, nr))
			continue;
		struct seccomp_data sd = testutil_sd(v->arch, nr, NULL);
		unsigned st = steps_of(g, &sd);
		if (st > s->worst)
			s->worst = st;
		sum += st;
		s->counted++;
	}
	s->mean = s->counted ? (double)sum / s->counted : 0;

	uint8_t bits[(CACHE_NRS + 7) / 8], exc[(CACHE_NRS + 7) / 8];
	const struct sock_filter *progs[] = { g->insns };
	size_t lens[] = { g->len };
	struct scmpc_cache_opts o = { .sz = sizeof(o), .nr_count = CACHE_NRS };
	int n = scmpc_cache_bitmap(progs, lens, 1, v->arch, &o, bits);
	s->cacheable = n;
	if (n < 0)
		return;
	kernel_exceptions(v->arch, exc);
	s->cacheable = 0;
	for (uint32_t nr = 0; nr < CACHE_NRS; nr++) {
		bool cached = bits[nr / 8] & (1U << (nr % 8));
		bool excepted = exc[nr / 8] & (1U << (nr % 8));
		struct seccomp_data sd = testutil_sd(v->arch, nr, NULL);
		bool uncond = !arch_view_has_conds(p, v, nr) &&
			      policy_decide(p, views, &sd, NULL) == SCMPC_ACT_ALLOW;
		if (cached && !excepted)
			s->cacheable++;
		s->uncond += uncond;
		s->cached_allowed += cached && !excepted && uncond;
	}
}

static void measure(struct result *res, const scmpc_policy *p)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct testutil_vecs vs = { 0 };

	if (policy_views_init(p, views, NULL) < 0)
		return;
	res->nabi = p->narches;
	for (int c = 0; c < NCOMP; c++) {
		if (!res->g[c].ok)
			continue;
		for (size_t i = 0; i < p->narches; i++)
			measure_abi(p, views, &views[i], &res->g[c], &res->abi[c][i]);
	}
	/* Argument-checked calls of the first (native) ABI. */
	const struct arch_view *v = &views[0];
	for (size_t i = 0; i < v->nrs && res->nas < ARRAY_SIZE(res->as); i++) {
		uint32_t nr = v->rs[i].nr;
		if ((res->nas && res->as[res->nas - 1].nr == nr) || !arch_view_has_conds(p, v, nr))
			continue;
		struct argsys *a = &res->as[res->nas++];
		memset(a, 0, sizeof(*a));
		a->nr = nr;
		if (!scmpc_syscall_name(v->arch, nr, a->name, sizeof(a->name)))
			snprintf(a->name, sizeof(a->name), "#%u", nr);
		if (testutil_arg_vectors(p, v, nr, &vs) < 0)
			continue;
		for (int c = 0; c < NCOMP; c++) {
			if (!res->g[c].ok)
				continue;
			for (size_t j = 0; j < vs.n; j++) {
				struct seccomp_data sd = testutil_sd(v->arch, nr, vs.v[j]);
				unsigned st = steps_of(&res->g[c], &sd);
				if (st > a->worst[c])
					a->worst[c] = st;
			}
		}
	}
	testutil_vecs_free(&vs);
	policy_views_fini(p, views, p->narches);
}

/* -------------------------------------------------------------- printing */

static void ratio_cols(double s, double l1, double l2, bool ok1, bool ok2)
{
	if (ok1 && l1 > 0)
		printf(" %9.2f", s / l1);
	else
		printf(" %9s", "-");
	if (ok2 && l2 > 0)
		printf(" %9.2f", s / l2);
	else
		printf(" %9s", "-");
	printf("\n");
}

static void row_u(const struct result *r, const char *metric, const char *abi, const unsigned *v)
{
	char label[64];
	snprintf(label, sizeof(label), "%s%s%s", abi ? abi : "", abi ? " " : "", metric);
	printf("  %-34s", label);
	for (int c = 0; c < NCOMP; c++) {
		if (r->g[c].ok)
			printf(" %13u", v[c]);
		else
			printf(" %13s", "-");
		csv_row("profile", r->label, metric, abi, comp_name[c], r->g[c].ok ? (double)v[c] : -1.0);
	}
	ratio_cols(v[0], v[1], v[2], r->g[C_L1].ok, r->g[C_L2].ok);
}

static void row_d(const struct result *r, const char *metric, const char *abi, const double *v,
		  const char *fmt)
{
	char label[64];
	snprintf(label, sizeof(label), "%s%s%s", abi ? abi : "", abi ? " " : "", metric);
	printf("  %-34s", label);
	for (int c = 0; c < NCOMP; c++) {
		if (r->g[c].ok)
			printf(fmt, v[c]);
		else
			printf(" %13s", "-");
		csv_row("profile", r->label, metric, abi, comp_name[c], r->g[c].ok ? v[c] : -1);
	}
	ratio_cols(v[0], v[1], v[2], r->g[C_L1].ok, r->g[C_L2].ok);
}

static void print_result(const struct result *r)
{
	printf("\n== %s (x86_64 host: the engine's default caps (Podman's for its profile), kernel 6.8)\n", r->label);
	printf("  %-34s %13s %13s %13s %9s %9s\n", "", comp_name[0], comp_name[1], comp_name[2],
	       "scmpc/L1", "scmpc/L2");
	for (int c = 1; c < NCOMP; c++)
		if (!r->g[c].ok)
			printf("  (%s: %s)\n", comp_name[c], r->g[c].err);

	unsigned u[NCOMP];
	double d[NCOMP];
	for (int c = 0; c < NCOMP; c++)
		u[c] = (unsigned)r->g[c].len;
	row_u(r, "instructions", NULL, u);
	for (size_t i = 0; i < r->nabi; i++) {
		const char *an = scmpc_arch_name(r->abi[0][i].arch);
		for (int c = 0; c < NCOMP; c++)
			u[c] = r->abi[c][i].worst;
		row_u(r, "worst path (arg-free)", an, u);
		for (int c = 0; c < NCOMP; c++)
			d[c] = r->abi[c][i].mean;
		row_d(r, "mean path (arg-free)", an, d, " %13.2f");
	}
	for (size_t i = 0; i < r->nas; i++) {
		char m[64];
		snprintf(m, sizeof(m), "%s worst path (args)", r->as[i].name);
		row_u(r, m, NULL, r->as[i].worst);
	}
	for (size_t i = 0; i < r->nabi; i++) {
		const char *an = scmpc_arch_name(r->abi[0][i].arch);
		char label[64];
		snprintf(label, sizeof(label), "%s cacheable/uncond. allowed", an);
		printf("  %-34s", label);
		for (int c = 0; c < NCOMP; c++) {
			const struct abi_stats *s = &r->abi[c][i];
			char cell[32];
			if (!r->g[c].ok)
				snprintf(cell, sizeof(cell), "-");
			else if (s->cacheable < 0)
				snprintf(cell, sizeof(cell), "no bitmap");
			else
				snprintf(cell, sizeof(cell), "%d/%u", s->cacheable, s->uncond);
			printf(" %13s", cell);
			if (r->g[c].ok && s->cacheable >= 0) {
				csv_row("profile", r->label, "cacheable", an, comp_name[c], s->cacheable);
				csv_row("profile", r->label, "uncond_allowed", an, comp_name[c],
					s->uncond);
			}
		}
		printf("\n");
	}
	for (int c = 0; c < NCOMP; c++)
		d[c] = r->ns[c] / 1e6;
	char m[64];
	snprintf(m, sizeof(m), "compile ms (median of %u)", r->runs);
	row_d(r, m, NULL, d, " %13.3f");
	printf("  %-34s %13.3f   (scmpc with SCMPC_COMPILE_NO_VERIFY, for reference)\n",
	       "compile ms, no semantic check", r->ns_noverify / 1e6);
	csv_row("profile", r->label, "compile_ms_no_verify", NULL, "scmpc", r->ns_noverify / 1e6);
}

/* ------------------------------------------------------------- synthetic */

/* ------------------------------------------------------- symbolic check */

/* How the semantic check settles the argument-checked calls of programs:
 * proven over every argument value by classes (verify_args_symbolic()), or
 * handed to the probes (the walk gave up: a libseccomp-ordered tree, or a
 * program shape the classes cannot follow). */
struct sym_tally {
	unsigned programs, calls, proven, probed, refuted;
};

static struct sym_tally sym_families, sym_corpus;

static void sym_tally_add(struct sym_tally *t, const scmpc_policy *p)
{
	scmpc_prog *prog = NULL;
	struct arch_view views[SCMPC_ARCH_COUNT];
	if (scmpc_compile(p, NULL, &prog, NULL) < 0)
		return;
	if (policy_views_init(p, views, NULL) < 0) {
		scmpc_prog_free(prog);
		return;
	}
	t->programs++;
	for (size_t a = 0; a < p->narches; a++) {
		const struct arch_view *v = &views[a];
		for (size_t i = 0; i < v->nrs; i++) {
			uint32_t nr = v->rs[i].nr;
			if ((i && v->rs[i - 1].nr == nr) || !arch_view_has_conds(p, v, nr))
				continue;
			struct seccomp_data w;
			int rc = verify_args_symbolic(p, v, scmpc_prog_insns(prog), scmpc_prog_len(prog),
						      v->info->audit, nr, &w);
			t->calls++;
			t->proven += rc == 1;
			t->probed += rc == 0;
			t->refuted += rc == -EPROTO;
		}
	}
	policy_views_fini(p, views, p->narches);
	scmpc_prog_free(prog);
}

static void sym_tally_print(const char *what, const struct sym_tally *t)
{
	printf("  %-44s %3u programs, %4u argument-checked calls: %4u proven by classes, "
	       "%u by probes, %u refuted\n", what, t->programs, t->calls, t->proven, t->probed,
	       t->refuted);
	csv_row("symbolic", what, "calls", NULL, "scmpc", t->calls);
	csv_row("symbolic", what, "proven", NULL, "scmpc", t->proven);
}

/* Every packaged profile (and SCMPC_EXTRA_POLICIES) for the ABIs runtimes
 * ship on, 64- and 32-bit, both byte orders. */
static void sym_corpus_run(void)
{
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64,
						SCMPC_ARCH_I386, SCMPC_ARCH_S390X };
	for (size_t i = 0; testutil_profile_names[i]; i++)
		for (size_t a = 0; a < ARRAY_SIZE(abis); a++) {
			scmpc_policy *p = testutil_policy(testutil_profile_names[i], abis[a]);
			if (p)
				sym_tally_add(&sym_corpus, p);
			scmpc_policy_free(p);
		}
}

/* ------------------------------------------------------------- families */

/* scmpc_policy_from_json() for libseccomp's semantics: the rules alone. */
static int from_json_rules(const char *json, size_t len, const struct scmpc_json_opts *o,
			   scmpc_policy **out, scmpc_diag *d)
{
	struct scmpc_json_opts r = *o;
	r.runtime = SCMPC_RUNTIME_LIBSECCOMP;
	return scmpc_policy_from_json(json, len, &r, out, d);
}

struct fam_row {
	const char *label;
	bool ok[NCOMP];
	size_t len[NCOMP];
	size_t ebpf[NCOMP];	/* the kernel's converted length (bpf_ebpf_len) */
	unsigned worst[NCOMP];
	unsigned afworst[NCOMP];	/* worst over argument-free numbers only */
	double argmean[NCOMP];	/* mean over argument-checked rules, -1: none */
	uint64_t ns[NCOMP];
	long implied;		/* scmpc's tests whose outcome is implied, -1: not walked */
	long chain;		/* a plain jeq chain's instructions, or -1 */
};

/* paths.h's figures for one of this driver's programs. */
static unsigned worst_path_af(const scmpc_policy *p, const struct prog *g, unsigned *af)
{
	return bench_worst_path(p, g->insns, g->len, af);
}

static unsigned worst_path(const scmpc_policy *p, const struct prog *g)
{
	return worst_path_af(p, g, NULL);
}

static double arg_rule_mean(const scmpc_policy *p, const struct prog *g)
{
	return bench_arg_rule_mean(p, g->insns, g->len);
}

static void family(struct fam_row *row, const char *label, scmpc_policy *p, long chain)
{
	memset(row, 0, sizeof(*row));
	row->label = label;
	row->chain = chain;
	row->implied = -1;
	if (!p) {
		printf("  %-30s (could not build)\n", label);
		return;
	}
	for (int c = 0; c < NCOMP; c++) {
		struct prog g;
		uint64_t med;
		size_t len;
		if (compile_one(p, c, &g) < 0)
			continue;
		row->worst[c] = worst_path_af(p, &g, &row->afworst[c]);
		row->argmean[c] = arg_rule_mean(p, &g);
		row->ebpf[c] = bpf_ebpf_len(g.insns, g.len);
		if (c == C_SCMPC) {
			struct implied im;
			if (implied_tests(g.insns, g.len, 1000000, &im) == 0)
				row->implied = (long)im.implied;
		}
		len = g.len;
		prog_free(&g);
		if (c == C_SCMPC) {
			row->ok[c] = true;
			row->len[c] = len;
			row->ns[c] = time_compile(p, c, quick ? 5 : 50, 2ULL * 1000000000ULL);
		} else if (time_compile_capped(p, c, quick ? 5 : 50, 2ULL * 1000000000ULL,
					       quick ? 2 : 5, &len, &med)) {
			row->ok[c] = true;
			row->len[c] = len;
			row->ns[c] = med;
		}
	}
	printf("  %-30s", label);
	for (int c = 0; c < NCOMP; c++)
		row->ok[c] ? printf(" %5zu", row->len[c]) : printf(" %5s", "-");
	for (int c = 0; c < NCOMP; c++)
		row->ok[c] ? printf(" %4u", row->worst[c]) : printf(" %4s", "-");
	for (int c = 0; c < NCOMP; c++)
		row->ok[c] ? printf(" %4u", row->afworst[c]) : printf(" %4s", "-");
	for (int c = 0; c < NCOMP; c++)
		row->ok[c] ? printf(" %7.3f", row->ns[c] / 1e6) : printf(" %7s", "-");
	for (int c = 0; c < NCOMP; c++)
		row->ok[c] ? printf(" %5zu", row->ebpf[c]) : printf(" %5s", "-");
	row->argmean[0] >= 0 ? printf(" %5.2f", row->argmean[0]) : printf(" %5s", "-");
	printf(" %4ld", row->implied);
	chain >= 0 ? printf(" %5ld\n", chain) : printf(" %5s\n", "-");
	sym_tally_add(&sym_families, p);
	for (int c = 0; c < NCOMP; c++) {
		if (!row->ok[c])
			continue;
		csv_row("family", label, "instructions", "x86_64", comp_name[c], (double)row->len[c]);
		csv_row("family", label, "worst_path", "x86_64", comp_name[c], row->worst[c]);
		csv_row("family", label, "worst_path_argfree", "x86_64", comp_name[c],
			row->afworst[c]);
		csv_row("family", label, "compile_ms", "x86_64", comp_name[c], row->ns[c] / 1e6);
		csv_row("family", label, "ebpf", "x86_64", comp_name[c], (double)row->ebpf[c]);
		if (row->argmean[c] >= 0)
			csv_row("family", label, "arg_rule_mean_path", "x86_64", comp_name[c],
				row->argmean[c]);
	}
	csv_row("family", label, "implied_tests", "x86_64", "scmpc", (double)row->implied);
	scmpc_policy_free(p);
}

/* Per compiler: [0] scmpc, [1] libseccomp level 2, [2] level 1. */
struct growth {
	unsigned r;
	size_t len[3];
	uint64_t ns[3];
	bool ok[3];
	unsigned worst[3];	/* 0: not measured */
};

/* --------------------------------------------------------------- targets */

static unsigned passed, missed;

static void target(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void target(bool ok, const char *fmt, ...)
{
	va_list ap;
	char buf[256];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("  %-4s %s\n", ok ? "PASS" : "MISS", buf);
	csv_row("target", "", buf, NULL, NULL, ok);
	ok ? passed++ : missed++;
}

static const struct argsys *find_argsys(const struct result *r, const char *name)
{
	for (size_t i = 0; i < r->nas; i++)
		if (!strcmp(r->as[i].name, name))
			return &r->as[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *csv_path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv_path = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--families")) {
			families_only = true;
		} else {
			fprintf(stderr, "usage: %s [--csv FILE] [--quick] [--families]\n", argv[0]);
			return 2;
		}
	}
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			fprintf(stderr, "%s: %s\n", csv_path, strerror(errno));
			return 1;
		}
		fprintf(csv, "section,policy,metric,abi,compiler,value\n");
	}
	const unsigned runs = quick ? 5 : 50;

	printf("scmpc %s vs libseccomp %u.%u.%u (tests/lsc_ref.c: same semantics, levels 1 and 2)\n",
	       scmpc_version(), seccomp_version()->major, seccomp_version()->minor,
	       seccomp_version()->micro);
	printf("paths: instructions executed (scmpc_emulate) for numbers 0..%u of each ABI\n"
	       "  (x32: 0x40000000 + 0..%u) whose decision does not depend on arguments;\n"
	       "  argument-checked calls: worst over probe vectors from the rules' constants.\n"
	       "cacheable: scmpc_cache_bitmap, %u-number bitmap, kernel-forced entries excluded;\n"
	       "  uncond. allowed: numbers below %u that the policy allows whatever the arguments.\n"
	       "compile: scmpc_compile() whole (semantic check included); libseccomp: init, rules,\n"
	       "  merge, export (the reference's own name lookups are done beforehand).\n",
	       PROBE_NRS - 1, PROBE_NRS - 1, CACHE_NRS, CACHE_NRS);

	static const char *const files[] = { "docker-default.json", "podman-default.json",
					      "container.json" };
	struct result res[3];
	size_t nres = 0;
	memset(res, 0, sizeof(res));
	for (size_t f = 0; f < ARRAY_SIZE(files) && !families_only; f++) {
		char path[4096];
		if (f < 2)
			testutil_profile_path(files[f], path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s/%s", testutil_examples_dir(), files[f]);
		if (f == 2 && access(path, R_OK) != 0) {
			printf("\n(%s not present; skipped)\n", path);
			continue;
		}
		scmpc_policy *p = testutil_policy_file(scmpc_policy_from_json, path,
						       SCMPC_ARCH_X86_64);
		if (!p) {
			printf("\n%s: %s\n", files[f], testutil_last_error());
			continue;
		}
		struct result *r = &res[nres++];
		r->label = files[f];
		for (int c = 0; c < NCOMP; c++) {
			if (compile_one(p, c, &r->g[c]) < 0 && c == C_SCMPC)
				printf("\n%s: scmpc failed: %s\n", files[f], r->g[c].err);
			if (r->g[c].ok)
				r->ns[c] = time_compile(p, c, runs, 10ULL * 1000000000ULL);
		}
		r->runs = runs;
		if (r->g[C_SCMPC].ok)
			r->ns_noverify = time_compile(p, C_SCMPC_NOVERIFY, runs,
						      10ULL * 1000000000ULL);
		measure(r, p);
		print_result(r);
		scmpc_policy_free(p);
	}

	/* Growth: N = 300 calls x R arg0 values. */
	const unsigned n = 300, cap_s = quick ? 2 : 5;
	static const unsigned rs[] = { 0, 1, 2, 4, 8, 16 };
	struct growth g[ARRAY_SIZE(rs)];
	static const int gcomp[3] = { C_SCMPC, C_L2, C_L1 };
	static const char *const gname[3] = { "scmpc", "libseccomp-L2", "libseccomp-L1" };
	bool lsc_capped[3] = { false };
	printf("\n== growth: %u x86_64 calls x R distinct `arg0 ==` values each (default ERRNO(1))\n",
	       n);
	printf("  libseccomp runs in a child capped at %u s; times are medians (up to %u runs, 3 s each);\n"
	       "  worst: the worst executed path (numbers 0..1023 and every probe vector)\n",
	       cap_s, runs);
	printf("  %4s %7s %6s %9s   %7s %6s %9s   %7s %6s %9s\n", "R", "scmpc", "worst", "ms", "L1",
	       "worst", "ms", "L2", "worst", "ms");
	memset(g, 0, sizeof(g));
	for (size_t i = 0; i < ARRAY_SIZE(rs) && !families_only; i++) {
		g[i].r = rs[i];
		scmpc_policy *p = family_synthetic(n, rs[i]);
		if (!p)
			continue;
		struct prog sp = { 0 };
		char why[sizeof(sp.err)] = "";
		if (compile_one(p, C_SCMPC, &sp) == 0) {
			g[i].ok[0] = true;
			g[i].len[0] = sp.len;
			if (rs[i] && rs[i] <= 8)
				g[i].worst[0] = worst_path(p, &sp);
			g[i].ns[0] = time_compile(p, C_SCMPC, runs, 3ULL * 1000000000ULL);
		} else {
			snprintf(why, sizeof(why), "%s", sp.err);
		}
		prog_free(&sp);
		bool capped_now[3] = { false };
		for (int c = 1; c < 3; c++) {
			if (lsc_capped[c])
				continue;
			g[i].ok[c] = time_compile_capped(p, gcomp[c], runs, 3ULL * 1000000000ULL, cap_s,
							 &g[i].len[c], &g[i].ns[c]);
			/* Export time grows superlinearly: once one run is over
			 * the cap the larger ones are not tried. */
			capped_now[c] = !g[i].ok[c];
			if (g[i].ok[c] && rs[i] && rs[i] <= 8) {
				struct prog lp;
				if (compile_one(p, gcomp[c], &lp) == 0)
					g[i].worst[c] = worst_path(p, &lp);
				prog_free(&lp);
			}
		}
		printf("  %4u", rs[i]);
		for (int c = 0; c < 3; c++) {
			int k = c == 0 ? 0 : c == 1 ? 2 : 1;	/* columns: scmpc, L1, L2 */
			if (g[i].ok[k] && g[i].worst[k])
				printf(" %7zu %6u %9.3f  ", g[i].len[k], g[i].worst[k], g[i].ns[k] / 1e6);
			else if (g[i].ok[k])
				printf(" %7zu %6s %9.3f  ", g[i].len[k], "-", g[i].ns[k] / 1e6);
			else if (k == 0)
				printf(" %7s %6s %9s  ", "fail", "-", "-");
			else
				printf(" %7s %6s %9s  ", lsc_capped[k] ? "not run" : "-", "-",
				       capped_now[k] ? "> cap" : "-");
		}
		if (g[i].ok[1] && g[i].len[1] > 4096)
			printf("  (L2 > 4096: the kernel refuses it)");
		if (!g[i].ok[0])
			printf("  (scmpc: %s)", why);
		printf("\n");
		char pol[32];
		snprintf(pol, sizeof(pol), "N%u_R%u", n, rs[i]);
		for (int c = 0; c < 3; c++) {
			if (!g[i].ok[c])
				continue;
			csv_row("growth", pol, "instructions", "x86_64", gname[c], (double)g[i].len[c]);
			csv_row("growth", pol, "compile_ms", "x86_64", gname[c], g[i].ns[c] / 1e6);
			if (g[i].worst[c])
				csv_row("growth", pol, "worst_path", "x86_64", gname[c], g[i].worst[c]);
		}
		for (int c = 1; c < 3; c++)
			lsc_capped[c] |= capped_now[c];
		scmpc_policy_free(p);
	}

	/* The synthetic policy nearest 4000 scmpc instructions (at most the
	 * kernel's 4096): grow R at N = 300, then trim N. */
	unsigned best_r = 0, best_n = 0;
	size_t best_len = 0;
	for (unsigned r = 1; r <= 256 && !families_only; r *= 2) {
		scmpc_policy *p = family_synthetic(n, r);
		struct prog sp = { 0 };
		bool ok = p && compile_one(p, C_SCMPC, &sp) == 0;
		size_t len = ok ? sp.len : 0;
		prog_free(&sp);
		scmpc_policy_free(p);
		if (!ok || len > 4096)
			break;
		best_r = r;
		best_len = len;
	}
	if (best_r) {
		/* Between best_r and 2 * best_r, the largest R that fits. */
		unsigned lo = best_r, hi = 2 * best_r;
		while (hi - lo > 1) {
			unsigned mid = (lo + hi) / 2;
			scmpc_policy *p = family_synthetic(n, mid);
			struct prog sp = { 0 };
			bool ok = p && compile_one(p, C_SCMPC, &sp) == 0 && sp.len <= 4096;
			if (ok) {
				lo = mid;
				best_len = sp.len;
			} else {
				hi = mid;
			}
			prog_free(&sp);
			scmpc_policy_free(p);
		}
		best_r = lo;
		best_n = n;
		/* Then fewer calls until the size is at most 4000. */
		while (best_len > 4000 && best_n > 1) {
			scmpc_policy *p = family_synthetic(best_n - 1, best_r);
			struct prog sp = { 0 };
			if (p && compile_one(p, C_SCMPC, &sp) == 0) {
				best_len = sp.len;
				prog_free(&sp);
			}
			scmpc_policy_free(p);
			best_n--;
		}
	}
	uint64_t big_ns = 0;
	if (best_n) {
		scmpc_policy *p = family_synthetic(best_n, best_r);
		big_ns = time_compile(p, C_SCMPC, quick ? 3 : 21, 10ULL * 1000000000ULL);
		printf("\n== large synthetic: %u calls x %u arg0 values: scmpc %zu instructions, "
		       "compile %.3f ms (median of %u)\n",
		       best_n, best_r, best_len, big_ns / 1e6, quick ? 3 : 21);
		char pol[32];
		snprintf(pol, sizeof(pol), "N%u_R%u", best_n, best_r);
		csv_row("large", pol, "instructions", "x86_64", "scmpc", (double)best_len);
		csv_row("large", pol, "compile_ms", "x86_64", "scmpc", big_ns / 1e6);
		scmpc_policy_free(p);
	} else {
		printf("\n== large synthetic: scmpc could not build a ~4000-instruction program\n");
	}

	/* Generated families: what each compiler makes of small, value-set,
	 * argument-heavy and 64-bit policies. */
	printf("\n== families (x86_64; worst: the worst path over numbers 0..1023 and every probe\n"
	       "   vector; arg-free: over the numbers whose decision needs no argument; eBPF: the\n"
	       "   kernel's converted length; argmean: scmpc's mean path over argument-checked\n"
	       "   rules, each on arguments that meet it; impl.: scmpc's tests whose outcome is\n"
	       "   implied (tests/implied.c); chain: ld arch + jeq + ld nr + x32 test + one jeq\n"
	       "   per call + returns)\n");
	printf("  %-30s %5s %5s %5s %4s %4s %4s %4s %4s %4s %7s %7s %7s %5s %5s %5s %5s %4s %5s\n",
	       "", "insns", "L1", "L2", "worst", "L1", "L2", "free", "L1", "L2", "ms", "L1 ms",
	       "L2 ms", "eBPF", "L1", "L2", "argmn", "impl", "chain");
	static struct fam_row fams[64];
	static char labels[64][48];
	size_t nfam = 0;
	for (unsigned r = 1; r <= 3; r++) {
		static const char *const tl[] = { "tiny: 1 allow", "tiny: 2 allows", "tiny: 3 allows" };
		/* 3 returns: ALLOW, ERRNO(1), KILL for another ABI */
		family(&fams[nfam++], tl[r - 1], family_tiny(r), 4 + r + 3);
	}
	family(&fams[nfam++], "2000 arg0 == values, 1 call", family_value_set("ioctl", 2000, false), -1);
	family(&fams[nfam++], "3 calls x 19 64-bit values", family_wide_sets(false), -1);
	family(&fams[nfam++], "same, values of its own each", family_wide_sets(true), -1);
	family(&fams[nfam++], "VMM-like, 76 rules", family_vmm(), -1);
	family(&fams[nfam++], "two rules, 64-bit conditions", family_two_rule_64(), -1);
	/* Small allowlists scattered over the table: where a chain of jeq is
	 * small and a tree must not be larger. */
	static const unsigned scat[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };
	for (size_t i = 0; i < ARRAY_SIZE(scat); i++) {
		snprintf(labels[nfam], sizeof(labels[nfam]), "scattered allowlist, %u calls", scat[i]);
		family(&fams[nfam], labels[nfam], family_scattered(scat[i]), -1);
		nfam++;
	}
	family(&fams[nfam++], "91-name allowlist", family_allowlist(91), -1);
	/* Firecracker's three filters in shape, as its JSON writes them
	 * ("dword": the low word) and with 64-bit values, and two variants
	 * of each. */
	static const char *const fck[] = { "vmm", "api", "vcpu" };
	for (unsigned k = 0; k < 3; k++)
		for (unsigned seed = 0; seed < 4; seed++) {
			bool qword = seed == 3;
			snprintf(labels[nfam], sizeof(labels[nfam]), "Firecracker-shaped %s%s%s", fck[k],
				 qword ? ", 64-bit" : "", seed && !qword ? (seed == 1 ? " v1" : " v2") : "");
			family(&fams[nfam], labels[nfam], family_firecracker(k, qword ? 0 : seed, qword),
			       -1);
			nfam++;
		}
	/* The rest of the packaged corpus (Docker's and Podman's defaults
	 * are above), on this host's ABI, as libseccomp compiles it: its
	 * rules alone, without runc's ENOSYS stub, which libseccomp cannot
	 * express and which costs a small profile a few instructions. */
	for (size_t i = 0; testutil_profile_names[i]; i++) {
		const char *name = testutil_profile_names[i];
		char path[4096];
		if (!strcmp(name, "docker-default.json") || !strcmp(name, "podman-default.json") ||
		    !testutil_profile_path(name, path, sizeof(path)))
			continue;
		family(&fams[nfam++], name,
		       testutil_policy_file(from_json_rules, path, SCMPC_ARCH_X86_64), -1);
	}

	printf("\n== the semantic check of argument-checked calls\n");
	sym_corpus_run();
	sym_tally_print("packaged profiles x x86_64/aarch64/i386/s390x", &sym_corpus);
	sym_tally_print("the families above", &sym_families);

	/* Targets, for scmpc on docker-default. */
	printf("\n== targets (scmpc, docker-default.json for x86_64)\n");
	const struct result *dk = nres && !strcmp(res[0].label, "docker-default.json") ? &res[0]
										   : NULL;
	if (families_only) {
		printf("  n/a  --families: docker-default.json and the synthetic policies not run\n");
	} else if (!dk || !dk->g[C_SCMPC].ok) {
		target(false, "docker-default.json compiled by scmpc");
	} else {
		target(dk->g[C_SCMPC].len <= 300, "instructions %zu <= 300", dk->g[C_SCMPC].len);
		const struct abi_stats *x = &dk->abi[C_SCMPC][0];
		target(x->worst <= 11, "x86_64 worst path %u <= 11 (0..1023, arg-free)", x->worst);
		target(x->mean <= 10.5, "x86_64 mean path %.2f <= 10.5 (0..1023, arg-free)", x->mean);
		/* socket has argument rules in Docker's profiles from 25.0 on
		 * (AF_ALG, AF_VSOCK); the packaged 20.10 allows every family. */
		static const char *const argcalls[] = { "socket", "clone", "personality" };
		for (size_t i = 0; i < ARRAY_SIZE(argcalls); i++) {
			const struct argsys *a = find_argsys(dk, argcalls[i]);
			if (!a)
				printf("  n/a  %s has no argument rules in this profile\n", argcalls[i]);
			else
				target(a->worst[C_SCMPC] <= 16, "%s worst path %u <= 16 at any argument",
				       argcalls[i], a->worst[C_SCMPC]);
		}
		for (size_t i = 0; i < dk->nabi; i++) {
			const struct abi_stats *s = &dk->abi[C_SCMPC][i];
			if (s->cacheable < 0)
				continue;	/* x32 numbers are never in a bitmap */
			target(s->cacheable == (int)s->uncond && s->cached_allowed == s->uncond,
			       "%s cacheable %d == unconditionally allowed %u",
			       scmpc_arch_name(s->arch), s->cacheable, s->uncond);
		}
		target(dk->ns[C_SCMPC] < 5000000ULL, "compile %.3f ms < 5 ms",
		       dk->ns[C_SCMPC] / 1e6);
	}
	if (families_only)
		;	/* said above */
	else if (best_n)
		target(big_ns < 100000000ULL, "%zu-instruction synthetic compiles in %.3f ms < 100 ms",
		       best_len, big_ns / 1e6);
	else
		target(false, "~4000-instruction synthetic policy compiles");

	/* Targets on every profile and family: compile with the check no
	 * slower than libseccomp compiles without one; never more instructions
	 * than either level, with a worst path no longer than level 2's. */
	printf("\n== targets (every profile and family)\n");
	for (size_t i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (!r->g[C_SCMPC].ok || !r->g[C_L1].ok || !r->g[C_L2].ok)
			continue;
		uint64_t lns = r->ns[C_L1] < r->ns[C_L2] ? r->ns[C_L1] : r->ns[C_L2];
		target(r->ns[C_SCMPC] <= lns, "%s: compile %.3f ms with the check <= libseccomp's %.3f ms",
		       r->label, r->ns[C_SCMPC] / 1e6, lns / 1e6);
		unsigned w[NCOMP] = { 0 };
		for (int c = 0; c < NCOMP; c++) {
			for (size_t a = 0; a < r->nabi; a++)
				w[c] = r->abi[c][a].worst > w[c] ? r->abi[c][a].worst : w[c];
			for (size_t a = 0; a < r->nas; a++)
				w[c] = r->as[a].worst[c] > w[c] ? r->as[a].worst[c] : w[c];
		}
		size_t lmin = r->g[C_L1].len < r->g[C_L2].len ? r->g[C_L1].len : r->g[C_L2].len;
		target(r->g[C_SCMPC].len <= lmin && w[C_SCMPC] <= w[C_L2],
		       "%s: %zu instructions <= min(L1, L2) %zu, worst path %u <= L2's %u", r->label,
		       r->g[C_SCMPC].len, lmin, w[C_SCMPC], w[C_L2]);
	}
	for (size_t i = 0; i < nfam; i++) {
		const struct fam_row *f = &fams[i];
		if (!f->ok[C_SCMPC] || !f->ok[C_L1] || !f->ok[C_L2]) {
			target(false, "%s: all three compilers built it", f->label);
			continue;
		}
		uint64_t lns = f->ns[C_L1] < f->ns[C_L2] ? f->ns[C_L1] : f->ns[C_L2];
		target(f->ns[C_SCMPC] <= lns, "%s: compile %.3f ms with the check <= libseccomp's %.3f ms",
		       f->label, f->ns[C_SCMPC] / 1e6, lns / 1e6);
		size_t lmin = f->len[C_L1] < f->len[C_L2] ? f->len[C_L1] : f->len[C_L2];
		target(f->len[C_SCMPC] <= lmin && f->worst[C_SCMPC] <= f->worst[C_L2],
		       "%s: %zu instructions <= min(L1, L2) %zu, worst path %u <= L2's %u", f->label,
		       f->len[C_SCMPC], lmin, f->worst[C_SCMPC], f->worst[C_L2]);
		target(f->implied == 0, "%s: %ld tests whose outcome is implied", f->label,
		       f->implied);
		/* Where the classic program is smaller, the converted one must
		 * be too: the kernel charges the eBPF length to the chain. */
		for (int c = C_L1; c <= C_L2; c++)
			if (f->len[C_SCMPC] < f->len[c])
				target(f->ebpf[C_SCMPC] <= f->ebpf[c], "%s: eBPF %zu <= %s's %zu",
				       f->label, f->ebpf[C_SCMPC], comp_name[c], f->ebpf[c]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(rs) && !families_only; i++) {
		if (!rs[i] || rs[i] > 8)
			continue;
		if (!g[i].ok[0] || !g[i].ok[1] || !g[i].ok[2] || !g[i].worst[0] || !g[i].worst[1]) {
			target(false, "growth R=%u: every compiler built it", rs[i]);
			continue;
		}
		size_t lmin = g[i].len[1] < g[i].len[2] ? g[i].len[1] : g[i].len[2];
		target(g[i].len[0] <= lmin && g[i].worst[0] <= g[i].worst[1],
		       "growth R=%u: %zu instructions <= min(L1, L2) %zu, worst path %u <= L2's %u",
		       rs[i], g[i].len[0], lmin, g[i].worst[0], g[i].worst[1]);
	}
	printf("  %u passed, %u missed\n", passed, missed);

	for (size_t i = 0; i < nres; i++)
		for (int c = 0; c < NCOMP; c++)
			prog_free(&res[i].g[c]);
	if (csv && fclose(csv) != 0) {
		fprintf(stderr, "%s: write failed\n", csv_path);
		return 1;
	}
	return 0;
}
