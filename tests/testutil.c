/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "oracle.h"
#include "testutil.h"

static char last_error[512];
static int last_errno;

static void set_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	last_errno = err;
}

const char *testutil_last_error(void) { return last_error; }
int testutil_last_errno(void) { return last_errno; }

bool testutil_json_missing(void)
{
	return last_errno == -ENOSYS || last_errno == -EOPNOTSUPP;
}

int testutil_load_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	if (!b) {
		fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		if (n + 1 >= cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				fclose(f);
				return -ENOMEM;
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

struct seccomp_data testutil_sd_audit(uint32_t audit, uint32_t nr, const uint64_t args[6])
{
	struct seccomp_data sd;
	memset(&sd, 0, sizeof(sd));
	sd.nr = (int)nr;
	sd.arch = audit;
	if (args)
		memcpy(sd.args, args, sizeof(sd.args));
	return sd;
}

struct seccomp_data testutil_sd(enum scmpc_arch a, uint32_t nr, const uint64_t args[6])
{
	return testutil_sd_audit(scmpc_arch_audit(a), nr, args);
}

#define DOCKER_DIR "/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/"
#define RUNC_DIR "/usr/share/gocode/src/github.com/opencontainers/runc/tests/integration/testdata/"
#define PKG_DOCKER "golang-github-docker-docker-dev"
#define PKG_PODMAN "golang-github-containers-common"
#define PKG_RUNC "golang-github-opencontainers-runc-dev"

static const struct {
	const char *name, *path, *package;
} profiles[] = {
	{ "docker-default.json", DOCKER_DIR "default.json", PKG_DOCKER },
	{ "docker-old-format.json", DOCKER_DIR "fixtures/default-old-format.json", PKG_DOCKER },
	{ "docker-example.json", DOCKER_DIR "fixtures/example.json", PKG_DOCKER },
	{ "docker-conditional.json", DOCKER_DIR "fixtures/conditional_include.json", PKG_DOCKER },
	{ "podman-default.json", "/usr/share/containers/seccomp.json", PKG_PODMAN },
	{ "runc-test1.json", RUNC_DIR "seccomp_syscall_test1.json", PKG_RUNC },
	{ "runc-test2.json", RUNC_DIR "seccomp_syscall_test2.json", PKG_RUNC },
	{ "runc-test1.c", RUNC_DIR "seccomp_syscall_test1.c", PKG_RUNC },
	{ "runc-test2.c", RUNC_DIR "seccomp_syscall_test2.c", PKG_RUNC },
};

const char *const testutil_profile_names[] = {
	"docker-default.json", "docker-old-format.json", "docker-example.json",
	"docker-conditional.json", "podman-default.json", "runc-test1.json", "runc-test2.json",
	NULL,
};

const char *testutil_profile_path(const char *name, char *buf, size_t len)
{
	const char *root = getenv("SCMPC_PROFILE_ROOT");
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name)) {
			snprintf(buf, len, "%s%s", root ? root : "", profiles[i].path);
			return buf;
		}
	set_error(-ENOENT, "%s: not a packaged profile this suite knows", name);
	return NULL;
}

const char *testutil_profile_package(const char *name)
{
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name))
			return profiles[i].package;
	return "";
}

const char *testutil_extra_policies_dir(void)
{
	const char *e = getenv("SCMPC_EXTRA_POLICIES");
	return e && *e ? e : NULL;
}

const char *testutil_examples_dir(void)
{
	const char *e = getenv("SCMPC_EXAMPLES");
	return e && *e ? e : "examples";
}

scmpc_policy *testutil_policy_file(testutil_from_json_fn from_json, const char *path,
				   enum scmpc_arch target)
{
	char *json;
	size_t len;
	int rc = testutil_load_file(path, &json, &len);
	if (rc < 0) {
		set_error(rc, "%s: %s%s", path, strerror(-rc),
			  rc == -ENOENT ? " (tools/setup-debian installs the Debian packages"
					  " the tests read profiles from)" : "");
		return NULL;
	}
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_json_opts o = {
		.sz = sizeof(o),
		.flavor = SCMPC_JSON_AUTO,
		.arch = target,
		.caps = NULL,		/* Docker's default set */
		.kernel_major = 6,	/* fixed: minKernel tests must not follow the host */
		.kernel_minor = 8,
	};
	scmpc_policy *p = NULL;
	rc = from_json(json, len, &o, &p, d);
	free(json);
	if (rc < 0 || !p) {
		set_error(rc < 0 ? rc : -EINVAL, "%s: %s%s%s", path,
			  d ? scmpc_diag_message(d) : strerror(-rc),
			  d && *scmpc_diag_where(d) ? " at " : "", d ? scmpc_diag_where(d) : "");
		scmpc_diag_free(d);
		scmpc_policy_free(p);
		return NULL;
	}
	scmpc_diag_free(d);
	last_error[0] = '\0';
	last_errno = 0;
	return p;
}

const char *testutil_act(uint32_t act)
{
	static char ring[8][32];
	static unsigned next;
	char *b = ring[next++ % 8];
	scmpc_action_str(act, b, sizeof(ring[0]));
	return b;
}

static const char *op_name(enum scmpc_op op)
{
	switch (op) {
	case SCMPC_OP_EQ: return "==";
	case SCMPC_OP_NE: return "!=";
	case SCMPC_OP_LT: return "<";
	case SCMPC_OP_LE: return "<=";
	case SCMPC_OP_GT: return ">";
	case SCMPC_OP_GE: return ">=";
	case SCMPC_OP_MASKED_EQ: return "&";
	}
	return "?";
}

void testutil_policy_dump(FILE *f, const scmpc_policy *p)
{
	fprintf(f, "policy: default %s, bad-arch %s", testutil_act(p->def_action),
		testutil_act(p->badarch_action));
	if (p->unknown_set)
		fprintf(f, ", unknown %s above %s", testutil_act(p->unknown_action),
			p->unknown_thr == SCMPC_UNKNOWN_POLICY_MAX ? "policy max" : "table max");
	if (p->merge == SCMPC_MERGE_LIBSECCOMP)
		fprintf(f, ", libseccomp merge");
	fprintf(f, "\n  arches:");
	for (size_t i = 0; i < p->narches; i++)
		fprintf(f, " %s", scmpc_arch_name(p->arches[i]));
	fprintf(f, "\n");
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		fprintf(f, "  [%zu] ", i);
		if (r->name)
			fprintf(f, "%s", r->name);
		else
			fprintf(f, "#%u", r->nr);
		if (r->arch != SCMPC_ARCH_NONE)
			fprintf(f, "@%s", scmpc_arch_name(r->arch));
		fprintf(f, " -> %s", testutil_act(r->action));
		for (size_t c = 0; c < r->nconds; c++) {
			const struct scmpc_cond *k = &r->conds[c];
			fprintf(f, "%s arg%u%s ", c ? " &&" : " if", k->arg,
				k->flags & SCMPC_COND_32BIT ? "(32)" : "");
			if (k->op == SCMPC_OP_MASKED_EQ)
				fprintf(f, "& 0x%llx == 0x%llx", (unsigned long long)k->value,
					(unsigned long long)k->value2);
			else
				fprintf(f, "%s 0x%llx", op_name(k->op), (unsigned long long)k->value);
		}
		if (r->origin)
			fprintf(f, "   (%s)", r->origin);
		fprintf(f, "\n");
	}
}

void testutil_sd_dump(FILE *f, const struct seccomp_data *sd)
{
	uint32_t nr = (uint32_t)sd->nr;
	enum scmpc_arch a = arch_of_call(sd->arch, nr);
	char name[64] = "?";
	if (a != SCMPC_ARCH_NONE && !scmpc_syscall_name(a, nr, name, sizeof(name)))
		snprintf(name, sizeof(name), "?");
	fprintf(f, "seccomp_data: arch 0x%08x (%s) nr %u (0x%x, %s) args", sd->arch,
		a != SCMPC_ARCH_NONE ? scmpc_arch_name(a) : "foreign", nr, nr, name);
	for (int i = 0; i < 6; i++)
		fprintf(f, " 0x%llx", (unsigned long long)sd->args[i]);
	fprintf(f, "\n");
}

/* ---------------------------------------------------------- arguments */

static int vecs_add(struct testutil_vecs *s, const uint64_t a[6])
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t (*nv)[6] = realloc(s->v, cap * sizeof(*s->v));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	memcpy(s->v[s->n++], a, sizeof(s->v[0]));
	return 0;
}

static int cmp_vec(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(uint64_t[6]));
}

static void vecs_unique(struct testutil_vecs *s)
{
	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(s->v[0]), cmp_vec);
	size_t w = 1;
	for (size_t i = 1; i < s->n; i++)
		if (memcmp(s->v[i], s->v[w - 1], sizeof(s->v[0])))
			memcpy(s->v[w++], s->v[i], sizeof(s->v[0]));
	s->n = w;
}

struct cands {
	uint64_t v[256];
	size_t n;
};

static void cand_add(struct cands *c, uint64_t x)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i] == x)
			return;
	if (c->n < ARRAY_SIZE(c->v))
		c->v[c->n++] = x;
}

/* Values around one constant: neighbours, the high word set or flipped,
 * the low word sign-extended, and for masks the values that just meet or
 * just miss them. */
static void cand_around(struct cands *c, const struct scmpc_cond *k)
{
	uint64_t x = k->value;
	cand_add(c, x - 1);
	cand_add(c, x);
	cand_add(c, x + 1);
	cand_add(c, x | 0xffffffff00000000ULL);
	cand_add(c, x ^ (1ULL << 32));
	cand_add(c, x & 0xffffffffULL);
	cand_add(c, (uint64_t)(int64_t)(int32_t)(uint32_t)x);
	cand_add(c, ((x & 0xffffffffULL) - 1) & 0xffffffffULL);
	cand_add(c, (x & 0xffffffffULL) + 1);
	if (k->op == SCMPC_OP_MASKED_EQ) {
		uint64_t m = k->value, r = k->value2;
		cand_add(c, r);
		cand_add(c, r | ~m);
		cand_add(c, m);
		if (m) {
			cand_add(c, r ^ (m & -m));
			cand_add(c, r ^ (1ULL << (63 - __builtin_clzll(m))));
		}
		cand_add(c, r | 0xffffffff00000000ULL);
	}
}


/* A vector meeting every condition of R where the candidates allow it. */
static void satisfy(const struct rule *r, const struct cands *c, bool compat32, uint64_t out[6])
{
	for (unsigned arg = 0; arg < 6; arg++) {
		bool any = false;
		for (size_t i = 0; i < r->nconds; i++)
			any |= r->conds[i].arg == arg;
		if (!any)
			continue;
		for (size_t j = 0; j < c[arg].n; j++) {
			bool all = true;
			for (size_t i = 0; i < r->nconds && all; i++)
				if (r->conds[i].arg == arg)
					all = oracle_cond(&r->conds[i], c[arg].v[j], compat32);
			if (all) {
				out[arg] = c[arg].v[j];
				break;
			}
		}
	}
}

int testutil_arg_vectors(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
			 struct testutil_vecs *out)
{
	static const uint64_t zero[6];
	static const uint64_t ones[6] = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
					  UINT64_MAX, UINT64_MAX, UINT64_MAX };
	struct cands c[6];
	size_t lo, hi;
	int rc;

	out->n = 0;
	if ((rc = vecs_add(out, zero)) < 0 || (rc = vecs_add(out, ones)) < 0)
		return rc;
	if (!v)
		return 0;
	arch_view_find(v, nr, &lo, &hi);
	bool conds = false;
	for (size_t i = lo; i < hi; i++)
		conds |= view_rule(p, v, i)->nconds > 0;
	if (!conds)
		return 0;

	for (unsigned a = 0; a < 6; a++) {
		c[a].n = 0;
		cand_add(&c[a], 0);
		cand_add(&c[a], UINT64_MAX);
		cand_add(&c[a], 0xffffffffULL);
		cand_add(&c[a], 0x100000000ULL);
	}
	for (size_t i = lo; i < hi; i++) {
		const struct rule *r = view_rule(p, v, i);
		for (size_t j = 0; j < r->nconds; j++)
			cand_around(&c[r->conds[j].arg], &r->conds[j]);
	}

	/* Base vectors: zeros, each rule's satisfying vector, and every
	 * ordered pair of those merged (the second rule's arguments win). */
	size_t n = hi - lo, nbase = 1;
	uint64_t (*base)[6] = calloc(1 + n + n * n, sizeof(*base));
	if (!base)
		return -ENOMEM;
	for (size_t i = lo; i < hi; i++)
		satisfy(view_rule(p, v, i), c, v->info->compat32, base[nbase++]);
	size_t nsat = nbase;
	for (size_t i = 1; i < nsat; i++)
		for (size_t j = 1; j < nsat; j++) {
			if (i == j)
				continue;
			const struct rule *rj = view_rule(p, v, lo + j - 1);
			memcpy(base[nbase], base[i], sizeof(base[0]));
			for (size_t k = 0; k < rj->nconds; k++)
				base[nbase][rj->conds[k].arg] = base[j][rj->conds[k].arg];
			nbase++;
		}
	/* Each base vector as is; the single-rule ones also with one argument
	 * swept (sweeping the pairs too grows with the cube of the rules). */
	for (size_t b = 0; b < nbase; b++) {
		if ((rc = vecs_add(out, base[b])) < 0)
			goto out;
		if (b >= nsat)
			continue;
		for (unsigned a = 0; a < 6; a++)
			for (size_t j = 0; j < c[a].n; j++) {
				uint64_t x[6];
				memcpy(x, base[b], sizeof(x));
				x[a] = c[a].v[j];
				if ((rc = vecs_add(out, x)) < 0)
					goto out;
			}
	}
	vecs_unique(out);
	rc = 0;
out:
	free(base);
	return rc;
}

void testutil_vecs_free(struct testutil_vecs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

uint64_t testutil_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void testutil_rng_seed(struct testutil_rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t testutil_rng_next(struct testutil_rng *r)
{
	uint64_t x = r->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint32_t testutil_rng_below(struct testutil_rng *r, uint32_t n)
{
	return (uint32_t)(testutil_rng_next(r) % n);
}

int testutil_compile_copy(const scmpc_policy *p, struct sock_filter **insns, size_t *len,
			  scmpc_prog **keep, char *err, size_t errlen)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *sp = NULL;
	int rc = scmpc_compile(p, NULL, &sp, d);
	if (rc < 0) {
		snprintf(err, errlen, "%s", d ? scmpc_diag_message(d) : "out of memory");
		scmpc_diag_free(d);
		return rc;
	}
	scmpc_diag_free(d);
	*len = scmpc_prog_len(sp);
	*insns = malloc(*len * sizeof(**insns));
	if (!*insns) {
		scmpc_prog_free(sp);
		return -ENOMEM;
	}
	memcpy(*insns, scmpc_prog_insns(sp), *len * sizeof(**insns));
	if (keep)
		*keep = sp;
	else
		scmpc_prog_free(sp);
	return 0;
}
