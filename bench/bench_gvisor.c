/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc, libseccomp (levels 1 and 2) and gVisor's seccomp compiler on the
 * benchmark's policies, measured by one piece of code (paths.h), with
 * gVisor's programs proven against the policies they were built from.
 *
 *   bench_gvisor export DIR
 *   bench_gvisor measure DIR [--csv FILE]
 *
 * export writes each policy as DIR/NN-NAME.rules, one ABI per file,
 * rules by number and most restrictive first within a call (what the
 * policy decides when several hold; gVisor takes the first that holds),
 * or DIR/NN-NAME.skip saying what gVisor cannot express.  bench/gvisor's
 * Go driver compiles the .rules into DIR/NN-NAME.gvisor.bpf.  measure
 * builds the same policies again, compiles them with scmpc and libseccomp,
 * and measures the four programs alike; scmpc's programs are left in DIR
 * as NN-NAME.scmpc.bpf to be read beside gVisor's.
 *
 * gVisor serves one ABI per program and has no number ranges, so every
 * policy here is on one ABI (x86_64 or aarch64), on x86_64 with the
 * default as its bad-arch action (one_abi()), and the packaged profiles
 * are their rules alone (runtime libseccomp: no runc ENOSYS stub, which
 * gVisor cannot say).  scmpc and libseccomp compile the same one-ABI
 * policies, so all columns answer the same question.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"
#include "internal.h"
#include "lsc_ref.h"
#include "paths.h"
#include "testutil.h"

enum { C_SCMPC, C_L1, C_L2, C_GV, NCOMP };
static const char *const comp_name[NCOMP] = { "scmpc", "libseccomp-L1", "libseccomp-L2",
					      "gvisor" };

#define MAX_ITEMS 96

struct item {
	char label[64];
	scmpc_policy *p;
};

/* P, or a copy of it, on ABI A alone: the ABI gVisor's program serves.
 * On x86_64 the bad-arch action becomes the default: gVisor's program
 * tests AUDIT_ARCH only, so x32 numbers (bit 30, same AUDIT_ARCH) reach its
 * number search and get the default, where the policy gives them the
 * bad-arch action; no program of gVisor's is exact for that policy, and
 * for this one scmpc and libseccomp may drop their x32 test as well. */
static scmpc_policy *one_abi(scmpc_policy *p, enum scmpc_arch a)
{
	scmpc_policy *q = NULL;
	if (!p || scmpc_policy_copy(p, NULL, &q, NULL) < 0)
		q = NULL;
	scmpc_policy_free(p);
	if (q) {
		q->arches[0] = a;
		q->narches = 1;
		if (a == SCMPC_ARCH_X86_64)
			q->badarch_action = q->def_action;
	}
	return q;
}

static void add(struct item *it, size_t *n, enum scmpc_arch a, const char *label, scmpc_policy *p)
{
	if (*n >= MAX_ITEMS) {
		scmpc_policy_free(p);
		return;
	}
	snprintf(it[*n].label, sizeof(it[*n].label), "%s %s", scmpc_arch_name(a), label);
	it[*n].p = one_abi(p, a);
	(*n)++;
}

/* A packaged profile's rules alone, for ABI A. */
static scmpc_policy *profile_rules(const char *name, enum scmpc_arch a)
{
	char path[4096];
	if (!testutil_profile_path(name, path, sizeof(path)))
		return NULL;
	char *json;
	size_t len;
	if (testutil_load_file(path, &json, &len) < 0)
		return NULL;
	struct scmpc_json_opts o = { .sz = sizeof(o), .arch = a, .kernel_major = 6,
				     .kernel_minor = 8, .runtime = SCMPC_RUNTIME_LIBSECCOMP };
	scmpc_policy *p = NULL;
	if (scmpc_policy_from_json(json, len, &o, &p, NULL) < 0)
		p = NULL;
	free(json);
	return p;
}

/* The families of bench_compare, in its order, then the packaged profiles;
 * the Firecracker shapes and Docker's and Podman's defaults again on
 * aarch64, where Firecracker also ships. */
static size_t build(struct item *it)
{
	size_t n = 0;
	const enum scmpc_arch x = SCMPC_ARCH_X86_64;
	char l[64];

	for (unsigned r = 1; r <= 3; r++) {
		snprintf(l, sizeof(l), "tiny: %u allow%s", r, r > 1 ? "s" : "");
		add(it, &n, x, l, family_tiny(r));
	}
	add(it, &n, x, "2000 arg0 == values, 1 call", family_value_set("ioctl", 2000, false));
	add(it, &n, x, "3 calls x 19 64-bit values", family_wide_sets(false));
	add(it, &n, x, "same, values of its own each", family_wide_sets(true));
	add(it, &n, x, "VMM-like, 76 rules", family_vmm());
	add(it, &n, x, "two rules, 64-bit conditions", family_two_rule_64());
	static const unsigned scat[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };
	for (size_t i = 0; i < ARRAY_SIZE(scat); i++) {
		snprintf(l, sizeof(l), "scattered allowlist, %u calls", scat[i]);
		add(it, &n, x, l, family_scattered(scat[i]));
	}
	add(it, &n, x, "91-name allowlist", family_allowlist(91));
	static const char *const fck[] = { "vmm", "api", "vcpu" };
	static const enum scmpc_arch fabi[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64 };
	for (size_t a = 0; a < ARRAY_SIZE(fabi); a++)
		for (unsigned k = 0; k < 3; k++)
			for (unsigned seed = 0; seed < 4; seed++) {
				bool qword = seed == 3;
				snprintf(l, sizeof(l), "Firecracker-shaped %s%s%s", fck[k],
					 qword ? ", 64-bit" : "",
					 seed && !qword ? (seed == 1 ? " v1" : " v2") : "");
				/* Built by name, so another ABI resolves them its way. */
				add(it, &n, fabi[a], l, family_firecracker(k, qword ? 0 : seed, qword));
			}
	for (size_t i = 0; testutil_profile_names[i]; i++)
		add(it, &n, x, testutil_profile_names[i], profile_rules(testutil_profile_names[i], x));
	static const char *const both[] = { "docker-default.json", "podman-default.json" };
	for (size_t i = 0; i < ARRAY_SIZE(both); i++)
		add(it, &n, SCMPC_ARCH_AARCH64, both[i],
		    profile_rules(both[i], SCMPC_ARCH_AARCH64));
	return n;
}

static void items_free(struct item *it, size_t n)
{
	for (size_t i = 0; i < n; i++)
		scmpc_policy_free(it[i].p);
}

/* DIR/NN-label with the label's spaces and punctuation folded to '-'. */
static void item_path(char *buf, size_t len, const char *dir, size_t i, const struct item *it,
		      const char *ext)
{
	char slug[64];
	size_t k = 0;
	for (const char *s = it->label; *s && k + 1 < sizeof(slug); s++) {
		bool keep = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			    (*s >= '0' && *s <= '9') || *s == '.' || *s == '_';
		if (keep)
			slug[k++] = *s;
		else if (k && slug[k - 1] != '-')
			slug[k++] = '-';
	}
	slug[k] = '\0';
	snprintf(buf, len, "%s/%02zu-%s%s", dir, i, slug, ext);
}

/* ----------------------------------------------------------------- export */

/* One condition as the Go driver reads it (ARG:OP:VALUE[:DATUM], 64-bit);
 * false when gVisor has no matcher for it: an order or `!=` comparison
 * of the low word alone. */
static bool put_cond(FILE *f, const struct scmpc_cond *c, bool compat32)
{
	static const char *const op[] = {
		[SCMPC_OP_EQ] = "eq", [SCMPC_OP_NE] = "ne", [SCMPC_OP_LT] = "lt",
		[SCMPC_OP_LE] = "le", [SCMPC_OP_GT] = "gt", [SCMPC_OP_GE] = "ge",
	};
	bool low = compat32 || (c->flags & SCMPC_COND_32BIT);
	if (c->op == SCMPC_OP_MASKED_EQ || (low && c->op == SCMPC_OP_EQ)) {
		uint64_t m = c->op == SCMPC_OP_EQ ? ~0ULL : c->value;
		uint64_t d = c->op == SCMPC_OP_EQ ? c->value : c->value2;
		if (low) {
			m &= 0xffffffffULL;
			d &= 0xffffffffULL;
		}
		fprintf(f, " %u:meq:%#llx:%#llx", c->arg, (unsigned long long)m,
			(unsigned long long)d);
		return true;
	}
	if (low)
		return false;
	fprintf(f, " %u:%s:%#llx", c->arg, op[c->op], (unsigned long long)c->value);
	return true;
}

/* Writes P's one ABI as rules by number, each call's rules most
 * restrictive action first and then in the policy's order: the rule
 * eval_on_view() lets decide is then the first that holds.  Returns NULL,
 * or what gVisor cannot express. */
static const char *put_rules(FILE *f, const scmpc_policy *p, const struct arch_view *v)
{
	for (size_t i = 0; i <= SCMPC_ARCH_COUNT; i++)
		if (p->limits[i].set)
			return "runc's ENOSYS stub: gVisor has no test of a number range";
	if (p->unknown_set)
		return "an action for unknown numbers: gVisor has no test of a number range";
	if (scmpc_action_cmp(p->def_action, SCMPC_ACT_LOG) == 0)
		return "LOG: gVisor has no such action";
	fprintf(f, "arch %#x\ndefault %#x\nbadarch %#x\n", v->info->audit, p->def_action,
		p->badarch_action);
	size_t *ord = calloc(v->nrs ? v->nrs : 1, sizeof(*ord));
	if (!ord)
		return "out of memory";
	const char *why = NULL;
	for (size_t lo = 0, hi; lo < v->nrs && !why; lo = hi) {
		for (hi = lo; hi < v->nrs && v->rs[hi].nr == v->rs[lo].nr; hi++)
			ord[hi - lo] = hi;
		/* Insertion sort: a call has few rules, and ties keep order. */
		for (size_t a = 1; a < hi - lo; a++)
			for (size_t b = a; b > 0; b--) {
				uint32_t x = view_rule(p, v, ord[b])->action;
				uint32_t y = view_rule(p, v, ord[b - 1])->action;
				if (scmpc_action_cmp(x, y) >= 0)
					break;
				size_t t = ord[b];
				ord[b] = ord[b - 1];
				ord[b - 1] = t;
			}
		if (view_tree(v, v->rs[lo].nr))
			fprintf(f, "# %u: libseccomp's tree of comparisons decides it\n",
				v->rs[lo].nr);
		for (size_t a = 0; a < hi - lo && !why; a++) {
			const struct rule *r = view_rule(p, v, ord[a]);
			fprintf(f, "rule %u %#x", v->rs[lo].nr, r->action);
			for (size_t c = 0; c < r->nconds && !why; c++)
				if (!put_cond(f, &r->conds[c], v->info->compat32))
					why = "a 32-bit order or != comparison: gVisor compares "
					      "64-bit values or masks";
			if (scmpc_action_cmp(r->action, SCMPC_ACT_LOG) == 0)
				why = "LOG: gVisor has no such action";
			fputc('\n', f);
		}
	}
	free(ord);
	return why;
}

static int export(const char *dir, struct item *it, size_t n)
{
	char path[4096];
	unsigned written = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		struct arch_view views[SCMPC_ARCH_COUNT];
		const char *why = "the policy could not be built";
		if (it[i].p && policy_views_init(it[i].p, views, NULL) == 0) {
			item_path(path, sizeof(path), dir, i, &it[i], ".rules");
			FILE *f = fopen(path, "w");
			if (!f) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				policy_views_fini(it[i].p, views, it[i].p->narches);
				return 1;
			}
			fprintf(f, "# %s\n", it[i].label);
			why = put_rules(f, it[i].p, &views[0]);
			policy_views_fini(it[i].p, views, it[i].p->narches);
			if (fclose(f) != 0 || why)
				remove(path);
		}
		if (why) {
			item_path(path, sizeof(path), dir, i, &it[i], ".skip");
			FILE *f = fopen(path, "w");
			if (f) {
				fprintf(f, "%s\n", why);
				fclose(f);
			}
			skipped++;
		} else {
			written++;
		}
	}
	printf("bench_gvisor: %u policies written to %s, %u gVisor cannot express\n", written, dir,
	       skipped);
	return 0;
}

/* ---------------------------------------------------------------- measure */

struct row {
	bool ok[NCOMP];
	size_t len[NCOMP];
	unsigned worst[NCOMP], afworst[NCOMP];
	double argmean[NCOMP];
	size_t ebpf[NCOMP];
	char note[160];		/* why there is no gVisor column, or its check */
	bool proven;
};

static FILE *csv;

static void csv_row(const char *policy, const char *metric, const char *comp, double v)
{
	/* Labels are this file's own: no quote to double. */
	if (csv)
		fprintf(csv, "\"gvisor\",\"%s\",\"%s\",\"\",\"%s\",%.6g\n", policy, metric, comp, v);
}

/* DIR/NN-NAME.EXT's first line into BUF; false when there is no such file. */
static bool read_note(const char *dir, size_t i, const struct item *it, const char *ext, char *buf,
		      size_t len)
{
	char path[4096];
	item_path(path, sizeof(path), dir, i, it, ext);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return true;
}

static bool read_gvisor(const char *dir, size_t i, const struct item *it, struct sock_filter **insns,
			size_t *len)
{
	char path[4096];
	item_path(path, sizeof(path), dir, i, it, ".gvisor.bpf");
	char *buf;
	size_t n;
	if (testutil_load_file(path, &buf, &n) < 0)
		return false;
	if (n == 0 || n % sizeof(struct sock_filter)) {
		free(buf);
		return false;
	}
	*insns = (struct sock_filter *)(void *)buf;
	*len = n / sizeof(struct sock_filter);
	return true;
}

/* scmpc's program goes next to gVisor's as DIR/NN-NAME.scmpc.bpf, so that
 * the two can be read side by side (scmp-compile inspect); best effort:
 * the figures do not depend on it. */
static void write_program(const char *dir, size_t i, const struct item *it,
			  const struct sock_filter *insns, size_t len)
{
	char path[4096];
	item_path(path, sizeof(path), dir, i, it, ".scmpc.bpf");
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	bool ok = fwrite(insns, sizeof(*insns), len, f) == len;
	if (fclose(f) != 0 || !ok)
		remove(path);
}

static void measure_one(const char *dir, size_t i, const struct item *it, struct row *r)
{
	memset(r, 0, sizeof(*r));
	for (int c = 0; c < NCOMP; c++) {
		struct sock_filter *insns = NULL;
		size_t len = 0;
		int rc = -1;
		char err[160] = "";
		if (c == C_SCMPC)
			rc = testutil_compile_copy(it->p, &insns, &len, NULL, err, sizeof(err));
		else if (c == C_L1 || c == C_L2)
			rc = lsc_compile(it->p, c == C_L1 ? 1 : 2, &insns, &len, err, sizeof(err));
		else if (read_gvisor(dir, i, it, &insns, &len))
			rc = 0;
		else if (!read_note(dir, i, it, ".skip", r->note, sizeof(r->note)) &&
			 !read_note(dir, i, it, ".gvisor.err", r->note, sizeof(r->note)))
			snprintf(r->note, sizeof(r->note), "no gVisor program (bench/gvisor/run)");
		if (rc < 0)
			continue;
		if (c == C_SCMPC)
			write_program(dir, i, it, insns, len);
		r->ok[c] = true;
		r->len[c] = len;
		r->worst[c] = bench_worst_path(it->p, insns, len, &r->afworst[c]);
		r->argmean[c] = bench_arg_rule_mean(it->p, insns, len);
		r->ebpf[c] = bpf_ebpf_len(insns, len);
		if (c == C_GV) {
			/* A proof over every input, as for scmpc's own programs. */
			scmpc_diag *d = scmpc_diag_new();
			int vr = scmpc_verify_policy(it->p, insns, len, d);
			r->proven = vr == 0;
			if (vr == 0)
				snprintf(r->note, sizeof(r->note), "proven equivalent");
			else
				snprintf(r->note, sizeof(r->note), "NOT equivalent: %s",
					 d ? scmpc_diag_message(d) : strerror(-vr));
			scmpc_diag_free(d);
		}
		free(insns);
	}
}

static void cells_u(const struct row *r, const unsigned *v)
{
	for (int c = 0; c < NCOMP; c++)
		r->ok[c] ? printf(" %4u", v[c]) : printf(" %4s", "-");
}

static void print_row(const struct item *it, const struct row *r)
{
	printf("  %-44s", it->label);
	for (int c = 0; c < NCOMP; c++)
		r->ok[c] ? printf(" %5zu", r->len[c]) : printf(" %5s", "-");
	printf(" ");
	cells_u(r, r->worst);
	printf(" ");
	cells_u(r, r->afworst);
	printf(" ");
	for (int c = 0; c < NCOMP; c++)
		r->ok[c] && r->argmean[c] >= 0 ? printf(" %6.2f", r->argmean[c]) : printf(" %6s", "-");
	printf(" ");
	for (int c = 0; c < NCOMP; c++)
		r->ok[c] ? printf(" %5zu", r->ebpf[c]) : printf(" %5s", "-");
	printf("  %s\n", r->note);
	for (int c = 0; c < NCOMP; c++) {
		if (!r->ok[c])
			continue;
		csv_row(it->label, "instructions", comp_name[c], (double)r->len[c]);
		csv_row(it->label, "worst_path", comp_name[c], r->worst[c]);
		csv_row(it->label, "worst_path_argfree", comp_name[c], r->afworst[c]);
		csv_row(it->label, "ebpf", comp_name[c], (double)r->ebpf[c]);
		if (r->argmean[c] >= 0)
			csv_row(it->label, "arg_rule_mean_path", comp_name[c], r->argmean[c]);
	}
	if (r->ok[C_GV])
		csv_row(it->label, "gvisor_proven", "gvisor", r->proven);
}

static int measure(const char *dir, struct item *it, size_t n)
{
	static struct row rows[MAX_ITEMS];
	if (csv)
		fputs("section,policy,metric,abi,compiler,value\n", csv);
	printf("== scmpc, libseccomp and gVisor (gvisor.dev/gvisor pkg/seccomp, as runsc builds:\n"
	       "   optimizations on, no hot syscalls) on one-ABI policies; profiles: their rules\n"
	       "   alone.  Columns per figure: scmpc, L1 (libseccomp linear), L2 (tree), gV.\n"
	       "   insns: program size; worst: worst path over numbers 0..1023 and every probe\n"
	       "   vector; free: worst over argument-free numbers; argmean: mean path over\n"
	       "   argument-checked rules, each on arguments that meet it; eBPF: the kernel's\n"
	       "   converted length; last: gVisor's program proven against the policy\n"
	       "   (scmpc_verify_policy) or why it has none)\n");
	printf("  %-44s %5s %5s %5s %5s  %4s %4s %4s %4s  %4s %4s %4s %4s  %6s %6s %6s %6s  %5s %5s "
	       "%5s %5s\n",
	       "", "insns", "L1", "L2", "gV", "wrst", "L1", "L2", "gV", "free", "L1", "L2", "gV",
	       "argmn", "L1", "L2", "gV", "eBPF", "L1", "L2", "gV");
	for (size_t i = 0; i < n; i++) {
		if (!it[i].p) {
			printf("  %-44s (could not build)\n", it[i].label);
			continue;
		}
		measure_one(dir, i, &it[i], &rows[i]);
		print_row(&it[i], &rows[i]);
	}

	/* Issue #26's targets: worst path (over every probe, and over the
	 * argument-free numbers) at most every peer's, mean over
	 * argument-checked rules at most gVisor's. */
	unsigned pass = 0, miss = 0, proven = 0, measured = 0;
	printf("\n== targets (issue #26; where gVisor's program exists): scmpc's worst paths at\n"
	       "   most every peer's, its mean over argument-checked rules at most gVisor's\n");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (!it[i].p || !r->ok[C_SCMPC] || !r->ok[C_GV])
			continue;
		measured++;
		proven += r->proven;
		bool ok = true;
		for (int c = C_L1; c < NCOMP; c++) {
			if (!r->ok[c])
				continue;
			if (r->worst[C_SCMPC] > r->worst[c] || r->afworst[C_SCMPC] > r->afworst[c]) {
				printf("  MISS %-44s worst %u, arg-free %u; %s's %u, %u\n", it[i].label,
				       r->worst[C_SCMPC], r->afworst[C_SCMPC], comp_name[c], r->worst[c],
				       r->afworst[c]);
				ok = false;
			}
		}
		if (r->argmean[C_SCMPC] > r->argmean[C_GV] + 1e-9) {
			printf("  MISS %-44s argmean %.2f; gvisor's %.2f (%+.2f)\n", it[i].label,
			       r->argmean[C_SCMPC], r->argmean[C_GV],
			       r->argmean[C_SCMPC] - r->argmean[C_GV]);
			ok = false;
		}
		ok ? pass++ : miss++;
	}
	printf("  %u passed, %u missed; gVisor's program proven equivalent on %u of %u\n", pass, miss,
	       proven, measured);
	return 0;
}

int main(int argc, char **argv)
{
	const char *csv_path = NULL;
	if (argc == 5 && !strcmp(argv[3], "--csv"))
		csv_path = argv[4];
	if ((argc != 3 && !csv_path) || (strcmp(argv[1], "export") && strcmp(argv[1], "measure")) ||
	    (csv_path && strcmp(argv[1], "measure"))) {
		fprintf(stderr, "usage: %s export DIR\n       %s measure DIR [--csv FILE]\n", argv[0],
			argv[0]);
		return 2;
	}
	if (csv_path && !(csv = fopen(csv_path, "w"))) {
		perror(csv_path);
		return 1;
	}
	static struct item it[MAX_ITEMS];
	size_t n = build(it);
	int rc = !strcmp(argv[1], "export") ? export(argv[2], it, n) : measure(argv[2], it, n);
	items_free(it, n);
	if (csv && fclose(csv) != 0) {
		perror(csv_path);
		rc = 1;
	}
	return rc;
}
