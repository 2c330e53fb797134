/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile lint: the rules of a profile that do not do what they say
 * under the runtime's reading, each with its origin and a call that shows
 * it:
 *  - shadowed: a rule that holds for a call the runtime decides less
 *    restrictively (libseccomp's order of comparisons, or its first
 *    unconditional rule that drops the others): the profile compiled as the
 *    runtime reads it against the same rules read with "the most
 *    restrictive match wins", by scmpc_subset(), a proof over every call;
 *  - never decides: the profile decides every call alike with and without
 *    the rule (scmpc_diff(), a proof), after a cheap search for a call it
 *    does decide has cleared most rules;
 *  - repeats the default action: runc and crun drop such a rule;
 *  - names: missing on some of the profile's ABIs, or on all of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

enum kind { SHADOWED, NEVER, DEFAULT_REPEAT, MISSING, UNKNOWN_NAME, NKINDS };

static const char *const kind_key[NKINDS] = {
	"shadowed", "never-decides", "repeats-default", "missing-abi", "unknown-name",
};

struct finding {
	enum kind kind;
	char origin[96];
	char name[64];			/* the syscall, or "" */
	char text[512];
	bool has_witness;
	struct seccomp_data witness;
	enum scmpc_arch arch;
};

struct lint {
	const struct cli *c;
	const char *name;		/* the profile, for messages */
	scmpc_policy *p;
	scmpc_prog *prog;		/* P as the runtime reads it */
	struct finding *f;
	size_t n, cap;
	size_t exact;			/* rules that needed the proof of "never" */
};

static int add_finding(struct lint *l, const struct finding *f)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		struct finding *nf = realloc(l->f, nc * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		l->f = nf;
		l->cap = nc;
	}
	l->f[l->n++] = *f;
	return 0;
}

static void rule_origin(const scmpc_policy *p, size_t i, struct finding *f)
{
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };

	scmpc_policy_rule(p, i, &ri);
	snprintf(f->origin, sizeof(f->origin), "%s", ri.origin ? ri.origin : "a rule");
	if (ri.syscall)
		snprintf(f->name, sizeof(f->name), "%s", ri.syscall);
	else
		snprintf(f->name, sizeof(f->name), "%" PRIu32, ri.nr);
}

/* "x86_64 135 personality(0x6, 0, 0, 0, 0, 0)" */
static void call_text(const struct seccomp_data *sd, enum scmpc_arch a, char *buf, size_t len)
{
	char label[96];
	syscall_label(a, (uint32_t)sd->nr, label, sizeof(label));
	snprintf(buf, len, "%s %s(%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
		 ", %#" PRIx64 ")", scmpc_arch_name(a), label, (uint64_t)sd->args[0],
		 (uint64_t)sd->args[1], (uint64_t)sd->args[2], (uint64_t)sd->args[3],
		 (uint64_t)sd->args[4], (uint64_t)sd->args[5]);
}

/* The number rule RI names on ABI A, or -1 (a name A lacks, another
 * ABI's rule). */
static int64_t rule_nr(const struct scmpc_rule_info *ri, enum scmpc_arch a)
{
	if (ri->arch != SCMPC_ARCH_NONE && ri->arch != a)
		return -1;
	if (!ri->syscall)
		return ri->nr;
	int64_t nr = scmpc_syscall_resolve(a, ri->syscall);
	return nr < 0 ? -1 : nr;
}

/* ---- shadowed rules */

static int compile_quiet(const scmpc_policy *p, scmpc_prog **out, scmpc_diag *d)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o) };

	scmpc_diag_clear(d);
	return scmpc_compile(p, &o, out, d);
}

/* Every call the runtime decides less restrictively than the rules'
 * severity, and the rules that hold there with a stricter action. */
static int lint_shadowed(struct lint *l, scmpc_diag *d)
{
	scmpc_policy *q = NULL;
	scmpc_prog *strict = NULL;
	scmpc_answer *ans = NULL;
	size_t nrules = scmpc_policy_rule_count(l->p);
	bool *seen = calloc(nrules ? nrules : 1, sizeof(*seen));
	int rc;

	if (!seen)
		return -ENOMEM;
	if ((rc = scmpc_policy_copy(l->p, NULL, &q, d)) < 0 ||
	    (rc = scmpc_policy_set_merge(q, SCMPC_MERGE_RESTRICTIVE, d)) < 0 ||
	    (rc = compile_quiet(q, &strict, d)) < 0)
		goto out;
	struct scmpc_compare_opts o = { .sz = sizeof(o) };
	rc = scmpc_subset(scmpc_prog_insns(strict), scmpc_prog_len(strict),
			  scmpc_prog_insns(l->prog), scmpc_prog_len(l->prog), &o, &ans, d);
	if (rc < 0)
		goto out;
	/* The profile's first ABI (the host's) first: its call is the one a
	 * finding shows. */
	enum scmpc_arch first = scmpc_policy_arch(l->p, 0);
	size_t nreg = scmpc_answer_count(ans);
	for (size_t k = 0; k < 2 * nreg; k++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		if (scmpc_answer_region(ans, k % nreg, &r) < 0 || r.other_arches || !r.arch ||
		    (k < nreg) != (r.arch == first))
			continue;
		struct scmpc_explanation e = { .sz = sizeof(e) };
		bool named = false;
		if ((rc = scmpc_policy_explain(l->p, &r.witness, &e, d)) < 0)
			goto out;
		for (size_t i = 0; i < nrules; i++) {
			struct scmpc_rule_info ri = { .sz = sizeof(ri) };
			char got[32], want[32], call[200], by[160];
			if (scmpc_policy_rule(l->p, i, &ri) < 0 ||
			    rule_nr(&ri, r.arch) != (uint32_t)r.witness.nr ||
			    scmpc_policy_rule_holds(l->p, i, &r.witness, NULL) != 1 ||
			    scmpc_action_cmp(ri.action, r.action[1]) >= 0)
				continue;
			named = true;
			if (seen[i])
				continue;
			seen[i] = true;
			struct finding f = { .kind = SHADOWED, .has_witness = true,
					     .witness = r.witness, .arch = r.arch };
			rule_origin(l->p, i, &f);
			call_text(&r.witness, r.arch, call, sizeof(call));
			if (e.reason == SCMPC_REASON_ORDER)
				snprintf(by, sizeof(by), "libseccomp's order of comparisons overrides it");
			else if (e.reason == SCMPC_REASON_RULE && e.rule >= 0)
				snprintf(by, sizeof(by), "%s decides alone: libseccomp keeps only a "
					 "call's first unconditional rule",
					 scmpc_policy_rule_origin(l->p, (size_t)e.rule)
						 ? scmpc_policy_rule_origin(l->p, (size_t)e.rule) : "a rule");
			else
				snprintf(by, sizeof(by), "libseccomp's merge drops it");
			snprintf(f.text, sizeof(f.text), "the rule holds for %s with %s, but the "
				 "runtime gives it %s: %s", call, action_name(ri.action, want,
				 sizeof(want)), action_name(r.action[1], got, sizeof(got)), by);
			if ((rc = add_finding(l, &f)) < 0)
				goto out;
		}
		if (named)
			continue;
		/* No rule names the call: socketcall(2) or ipc(2), which rules on
		 * the calls they carry reach through libseccomp's copies. */
		char got[32], want[32], call[200];
		struct finding f = { .kind = SHADOWED, .has_witness = true, .witness = r.witness,
				     .arch = r.arch };
		call_text(&r.witness, r.arch, call, sizeof(call));
		snprintf(f.origin, sizeof(f.origin), "(no rule names it)");
		syscall_label(r.arch, (uint32_t)r.witness.nr, f.name, sizeof(f.name));
		snprintf(f.text, sizeof(f.text), "the rules give %s %s, but the runtime gives it %s",
			 call, action_name(r.action[0], want, sizeof(want)),
			 action_name(r.action[1], got, sizeof(got)));
		if ((rc = add_finding(l, &f)) < 0)
			goto out;
	}
	rc = 0;
out:
	free(seen);
	scmpc_answer_free(ans);
	scmpc_prog_free(strict);
	scmpc_policy_free(q);
	return rc;
}

/* ---- rules that never decide */

/* Whether rule I decides call SD on its own: the rules of SD's number
 * (KEEP, rule I among them) decide it otherwise without rule I.  Those
 * rules alone decide the call (runc's stub aside, which the copies keep),
 * so small copies answer for the whole profile. */
static int decides_at(const scmpc_policy *p, bool *keep, size_t i, const struct seccomp_data *sd,
		      scmpc_diag *d)
{
	scmpc_policy *with = NULL, *without = NULL;
	struct scmpc_explanation e = { .sz = sizeof(e) };
	int rc;

	if ((rc = scmpc_policy_copy(p, keep, &with, d)) < 0)
		return rc;
	keep[i] = false;
	rc = scmpc_policy_copy(p, keep, &without, d);
	keep[i] = true;
	if (rc >= 0)
		rc = scmpc_policy_explain(with, sd, &e, d);
	if (rc >= 0)
		rc = e.reason != SCMPC_REASON_LIMIT &&
		     e.action != scmpc_policy_eval(without, sd, NULL);
	scmpc_policy_free(with);
	scmpc_policy_free(without);
	return rc;
}

static int lint_never(struct lint *l, scmpc_diag *d)
{
	size_t nrules = scmpc_policy_rule_count(l->p), narch = scmpc_policy_arch_count(l->p);
	bool *keep = calloc(nrules ? nrules : 1, sizeof(*keep));
	int64_t *nrs = malloc((nrules ? nrules : 1) * narch * sizeof(*nrs));
	int rc = 0;

	if (!keep || !nrs) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nrules; i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		scmpc_policy_rule(l->p, i, &ri);
		for (size_t k = 0; k < narch; k++)
			nrs[i * narch + k] = rule_nr(&ri, scmpc_policy_arch(l->p, k));
	}
	for (size_t i = 0; i < nrules; i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		bool named = false, decides = false;
		scmpc_policy_rule(l->p, i, &ri);
		for (size_t k = 0; k < narch && !decides; k++) {
			int64_t nr = nrs[i * narch + k];
			enum scmpc_arch a = scmpc_policy_arch(l->p, k);
			uint64_t args[6];
			struct seccomp_data sd;
			if (nr < 0)
				continue;
			named = true;
			scmpc_conds_witness(ri.conds, ri.nconds, args);
			make_data(&sd, a, (uint32_t)nr, args);
			if (scmpc_policy_rule_holds(l->p, i, &sd, NULL) != 1)
				continue;
			for (size_t j = 0; j < nrules; j++)
				keep[j] = nrs[j * narch + k] == nr;
			rc = decides_at(l->p, keep, i, &sd, d);
			if (rc < 0)
				goto out;
			decides = rc;
		}
		/* Names no ABI of the profile has are lint_names()'s. */
		if (!named || decides)
			continue;
		/* No call found: prove it, the profile without the rule against
		 * the profile, over every call. */
		scmpc_policy *q = NULL;
		scmpc_prog *prog = NULL;
		scmpc_answer *ans = NULL;
		for (size_t j = 0; j < nrules; j++)
			keep[j] = j != i;
		l->exact++;
		struct scmpc_compare_opts o = { .sz = sizeof(o) };
		if ((rc = scmpc_policy_copy(l->p, keep, &q, d)) >= 0 &&
		    (rc = compile_quiet(q, &prog, d)) >= 0)
			rc = scmpc_diff(scmpc_prog_insns(l->prog), scmpc_prog_len(l->prog),
					scmpc_prog_insns(prog), scmpc_prog_len(prog), &o, &ans, d);
		if (rc >= 0 && scmpc_answer_count(ans) == 0) {
			struct finding f = { .kind = NEVER };
			rule_origin(l->p, i, &f);
			snprintf(f.text, sizeof(f.text), "never decides anything: the profile decides "
				 "every call alike without it (its conditions never hold, or other "
				 "rules always decide first)");
			rc = add_finding(l, &f);
		}
		scmpc_answer_free(ans);
		scmpc_prog_free(prog);
		scmpc_policy_free(q);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	free(keep);
	free(nrs);
	return rc;
}

/* ---- names */

static int lint_names(struct lint *l, const scmpc_diag *parsed)
{
	size_t nrules = scmpc_policy_rule_count(l->p), narch = scmpc_policy_arch_count(l->p);
	int rc;

	for (size_t i = 0; i < nrules; i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		char on[256] = "", off[256] = "";
		scmpc_policy_rule(l->p, i, &ri);
		if (!ri.syscall || ri.arch != SCMPC_ARCH_NONE)
			continue;
		for (size_t k = 0; k < narch; k++) {
			enum scmpc_arch a = scmpc_policy_arch(l->p, k);
			uint32_t mux;
			struct scmpc_cond test;
			/* A call reached through socketcall(2) or ipc(2) is there. */
			bool has = scmpc_syscall_resolve(a, ri.syscall) >= 0 ||
				   scmpc_syscall_multiplexer(a, ri.syscall, &mux, &test) == 1;
			char *list = has ? on : off;
			size_t len = strlen(list);
			snprintf(list + len, sizeof(on) - len, "%s%s", len ? ", " : "",
				 scmpc_arch_name(a));
		}
		if (!off[0])
			continue;
		struct finding f = { .kind = MISSING };
		rule_origin(l->p, i, &f);
		if (on[0])
			snprintf(f.text, sizeof(f.text), "%s is not a call of %s (only of %s): the rule "
				 "does nothing there", ri.syscall, off, on);
		else
			snprintf(f.text, sizeof(f.text), "%s is a call of none of the profile's ABIs "
				 "(%s)", ri.syscall, off);
		if ((rc = add_finding(l, &f)) < 0)
			return rc;
	}
	/* Names no ABI knows never reach the policy: the parser's warnings
	 * name them ("syscalls[2].names[0]: unknown syscall "x" skipped"). */
	for (size_t w = 0; w < scmpc_diag_warning_count(parsed); w++) {
		const char *msg = scmpc_diag_warning(parsed, w);
		const char *u = strstr(msg, ": unknown syscall \"");
		if (!u)
			continue;
		struct finding f = { .kind = UNKNOWN_NAME };
		const char *q = u + strlen(": unknown syscall \"");
		snprintf(f.origin, sizeof(f.origin), "%.*s", (int)(u - msg), msg);
		snprintf(f.name, sizeof(f.name), "%.*s", (int)strcspn(q, "\""), q);
		snprintf(f.text, sizeof(f.text), "%s is a call of no ABI scmpc knows (its syscall "
			 "table: %s): runc skips it", f.name, scmpc_syscall_table_version());
		if ((rc = add_finding(l, &f)) < 0)
			return rc;
	}
	return 0;
}

/* ---- rules that repeat the default */

/*
 * runc drops a rule whose action is the default before anything else, so
 * the policy never holds it.  To find them the profile is read again with
 * its "defaultAction" replaced by another action: the rules that appear
 * then are those.  A small scanner finds the top-level key (Go matches
 * keys without regard to case; the last of duplicates counts, so every one
 * is replaced) and skips the rest of the text as JSON.
 */
struct scan {
	const char *s;
	size_t len, at;
};

static void skip_ws(struct scan *sc)
{
	while (sc->at < sc->len && strchr(" \t\r\n", sc->s[sc->at]))
		sc->at++;
}

/* A string at AT: its contents' span (escapes left as written). */
static bool skip_string(struct scan *sc, size_t *from, size_t *to)
{
	if (sc->at >= sc->len || sc->s[sc->at] != '"')
		return false;
	*from = ++sc->at;
	while (sc->at < sc->len && sc->s[sc->at] != '"')
		sc->at += sc->s[sc->at] == '\\' ? 2 : 1;
	if (sc->at >= sc->len)
		return false;
	*to = sc->at++;
	return true;
}

static bool skip_value(struct scan *sc, int depth)
{
	size_t a, b;

	skip_ws(sc);
	if (sc->at >= sc->len || depth > 64)
		return false;
	char ch = sc->s[sc->at];
	if (ch == '"')
		return skip_string(sc, &a, &b);
	if (ch == '{' || ch == '[') {
		char close = ch == '{' ? '}' : ']';
		sc->at++;
		skip_ws(sc);
		if (sc->at < sc->len && sc->s[sc->at] == close) {
			sc->at++;
			return true;
		}
		for (;;) {
			if (ch == '{') {
				skip_ws(sc);
				if (!skip_string(sc, &a, &b))
					return false;
				skip_ws(sc);
				if (sc->at >= sc->len || sc->s[sc->at++] != ':')
					return false;
			}
			if (!skip_value(sc, depth + 1))
				return false;
			skip_ws(sc);
			if (sc->at >= sc->len)
				return false;
			if (sc->s[sc->at] == close) {
				sc->at++;
				return true;
			}
			if (sc->s[sc->at++] != ',')
				return false;
		}
	}
	while (sc->at < sc->len && !strchr(",}] \t\r\n", sc->s[sc->at]))
		sc->at++;
	return true;
}

/* TEXT with each top-level "defaultAction" value replaced by REPL (a JSON
 * string); NULL when the text does not scan or has none. */
static char *replace_default(const char *text, size_t len, const char *repl, size_t *out_len)
{
	struct scan sc = { text, len, 0 };
	size_t spans[16][2], n = 0, a, b;

	skip_ws(&sc);
	if (sc.at >= len || text[sc.at++] != '{')
		return NULL;
	for (;;) {
		skip_ws(&sc);
		if (sc.at < len && text[sc.at] == '}')
			break;
		if (!skip_string(&sc, &a, &b))
			return NULL;
		bool key = b - a == strlen("defaultAction") &&
			   !strncasecmp(text + a, "defaultAction", b - a);
		skip_ws(&sc);
		if (sc.at >= len || text[sc.at++] != ':')
			return NULL;
		skip_ws(&sc);
		size_t from = sc.at;
		if (!skip_value(&sc, 0))
			return NULL;
		if (key && n < 16) {
			spans[n][0] = from;
			spans[n++][1] = sc.at;
		}
		skip_ws(&sc);
		if (sc.at < len && text[sc.at] == ',') {
			sc.at++;
			continue;
		}
		if (sc.at < len && text[sc.at] == '}')
			break;
		return NULL;
	}
	if (!n)
		return NULL;
	size_t rl = strlen(repl), total = len + n * rl + 1;
	char *out = malloc(total), *w = out;
	if (!out)
		return NULL;
	size_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(w, text + prev, spans[i][0] - prev);
		w += spans[i][0] - prev;
		memcpy(w, repl, rl);
		w += rl;
		prev = spans[i][1];
	}
	memcpy(w, text + prev, len - prev);
	w += len - prev;
	*w = '\0';
	*out_len = (size_t)(w - out);
	return out;
}

static int parse_profile(const struct cli *c, const char *text, size_t len, scmpc_policy **out,
			 scmpc_diag *d)
{
	struct scmpc_json_opts o = { .sz = sizeof(o) };
	char **podman;
	int rc;

	o.flavor = SCMPC_JSON_AUTO;
	o.flags = c->json_flags;
	o.runtime = c->runtime;
	o.bad_arch_action = c->bad_arch;
	o.arch = host_of(c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch());
	json_caps_opts(c, &o, &podman);
	o.kernel_major = c->kernel_major;
	o.kernel_minor = c->kernel_minor;
	rc = scmpc_policy_from_json(text, len, &o, out, d);
	free(podman);
	return rc;
}

static bool has_origin(const scmpc_policy *p, const char *origin)
{
	for (size_t i = 0; i < scmpc_policy_rule_count(p); i++) {
		const char *o = scmpc_policy_rule_origin(p, i);
		if (o && !strcmp(o, origin))
			return true;
	}
	return false;
}

static int lint_default_repeats(struct lint *l, const char *text, size_t len)
{
	uint32_t def = scmpc_policy_default_action(l->p);
	/* An action no runtime makes the default of a real profile, and
	 * valid with defaultErrnoRet (TRACE carries data too). */
	const char *repl = (def & 0xffff0000U) == SCMPC_ACT_TRACE(0) ? "\"SCMP_ACT_ERRNO\""
								      : "\"SCMP_ACT_TRACE\"";
	size_t nlen = 0;
	char *other = replace_default(text, len, repl, &nlen);
	scmpc_policy *q = NULL;
	scmpc_diag *d = scmpc_diag_new();
	int rc = 0;

	if (!other || !d || parse_profile(l->c, other, nlen, &q, d) < 0) {
		/* Not a profile this scanner reads: the check is left out. */
		if (!l->c->quiet)
			errorf("%s: warning: rules that repeat the default action not looked for "
			       "(the profile could not be read with another default)", l->name);
		goto out;
	}
	char act[32];
	for (size_t i = 0; i < scmpc_policy_rule_count(q); i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		scmpc_policy_rule(q, i, &ri);
		if (!ri.origin || has_origin(l->p, ri.origin))
			continue;
		/* The entry, once: "syscalls[3]" for each of its names. */
		struct finding f = { .kind = DEFAULT_REPEAT };
		rule_origin(q, i, &f);
		snprintf(f.text, sizeof(f.text), "repeats the default action %s: runc and crun drop "
			 "the rule (libseccomp refuses it)", action_name(def, act, sizeof(act)));
		if ((rc = add_finding(l, &f)) < 0)
			goto out;
	}
out:
	free(other);
	scmpc_policy_free(q);
	scmpc_diag_free(d);
	return rc;
}

/* ---- output */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_findings(const struct lint *l)
{
	if (!l->c->json) {
		for (size_t i = 0; i < l->n; i++) {
			const struct finding *f = &l->f[i];
			printf("%s (%s): %s: %s\n", f->origin, f->name, kind_key[f->kind], f->text);
		}
		return;
	}
	printf("[");
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->f[i];
		printf("%s\n  {\"kind\": \"%s\", \"origin\": ", i ? "," : "", kind_key[f->kind]);
		json_str(f->origin);
		printf(", \"syscall\": ");
		json_str(f->name);
		printf(", \"message\": ");
		json_str(f->text);
		if (f->has_witness) {
			printf(", \"witness\": {\"abi\": \"%s\", \"arch\": %" PRIu32 ", \"nr\": %" PRIu32
			       ", \"args\": [", scmpc_arch_name(f->arch), f->witness.arch,
			       (uint32_t)f->witness.nr);
			for (int k = 0; k < 6; k++)
				printf("%s%" PRIu64, k ? ", " : "", (uint64_t)f->witness.args[k]);
			printf("]}");
		}
		printf("}");
	}
	printf("%s]\n", l->n ? "\n" : "");
}

static int run_lint(struct cli *c)
{
	struct lint l = { .c = c };
	char *text = NULL;
	size_t len = 0;
	scmpc_diag *parsed = scmpc_diag_new(), *d = scmpc_diag_new();
	int status = EXIT_USAGE, rc;
	double t0 = now_ms();

	if (c->npos != 1) {
		status = usage_error("lint needs one PROFILE");
		goto out;
	}
	if (!parsed || !d) {
		errorf("%s", strerror(ENOMEM));
		status = EXIT_USAGE;
		goto out;
	}
	l.name = display_name(c->pos[0]);
	if (read_input(c->pos[0], &text, &len))
		goto out;
	if (scmpc_input_kind(text, len) == SCMPC_INPUT_FILTER) {
		errorf("%s: a compiled filter: lint reads profiles (a filter has no rules)", l.name);
		goto out;
	}
	rc = parse_profile(c, text, len, &l.p, parsed);
	/* Unknown names are findings here, not warnings. */
	for (size_t w = 0; !c->quiet && w < scmpc_diag_warning_count(parsed); w++)
		if (!strstr(scmpc_diag_warning(parsed, w), ": unknown syscall \""))
			errorf("%s: warning: %s", l.name, scmpc_diag_warning(parsed, w));
	if (rc < 0) {
		report_diag(l.name, parsed, rc);
		goto out;
	}
	if ((rc = compile_quiet(l.p, &l.prog, d)) < 0) {
		report_diag(l.name, d, rc);
		goto out;
	}
	/* The restrictive reading has nothing the runtime's could shadow. */
	if (!(c->json_flags & SCMPC_JSON_RESTRICTIVE) && (rc = lint_shadowed(&l, d)) < 0)
		goto failed;
	if ((rc = lint_never(&l, d)) < 0 || (rc = lint_default_repeats(&l, text, len)) < 0 ||
	    (rc = lint_names(&l, parsed)) < 0)
		goto failed;
	print_findings(&l);
	if (!c->quiet) {
		size_t per[NKINDS] = { 0 };
		for (size_t i = 0; i < l.n; i++)
			per[l.f[i].kind]++;
		fprintf(stderr, "%s: %s: %zu finding%s (%zu shadowed, %zu never decide, %zu repeat "
			"the default, %zu missing on some ABI, %zu unknown names) in %.0f ms; %zu of "
			"%zu rules proven\n", PROG_NAME, l.name, l.n, l.n == 1 ? "" : "s",
			per[SHADOWED], per[NEVER], per[DEFAULT_REPEAT], per[MISSING],
			per[UNKNOWN_NAME], now_ms() - t0, l.exact, scmpc_policy_rule_count(l.p));
	}
	status = l.n ? EXIT_INPUT : EXIT_OK;
	goto out;
failed:
	report_diag(l.name, d, rc);
	status = EXIT_USAGE;
out:
	free(l.f);
	free(text);
	scmpc_prog_free(l.prog);
	scmpc_policy_free(l.p);
	scmpc_diag_free(parsed);
	scmpc_diag_free(d);
	return status;
}

const struct command lint_command = {
	"lint", run_lint, F_ARCH | F_POLICY | F_JSON,
	"Usage: " PROG_NAME " lint PROFILE [-a ABI] [--json] [--caps LIST] [--kernel X.Y]\n"
	"                         [--strict] [--no-enosys] [--restrictive] [--runtime RT]\n"
	"                         [--bad-arch ACT] [-q]\n",
	"The rules of PROFILE that do not do what they say under the runtime's\n"
	"reading, each with its origin (syscalls[3].names[0]) and, where there is\n"
	"one, a call that shows it: a rule the runtime makes more permissive\n"
	"(libseccomp's order of comparisons or its first unconditional rule\n"
	"overrides it: proven over every call against the most restrictive\n"
	"reading), a rule that never decides anything (the profile decides every\n"
	"call alike without it: proven), a rule that repeats the default action\n"
	"(runc drops it), and names missing on some or all of the profile's ABIs.\n",
	"Exit status: 0 nothing found, 1 findings, 2 error.\n",
};
