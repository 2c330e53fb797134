/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Helpers shared by the test suites and the benchmarks. */
#ifndef SCMPC_TESTS_TESTUTIL_H
#define SCMPC_TESTS_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include "scmpc.h"

/* Read PATH into a malloc'ed, NUL-terminated buffer (*LEN excludes the NUL).
 * Returns 0 or a negative errno. */
int testutil_load_file(const char *path, char **buf, size_t *len);

/* Compile P with scmpc into a malloc'ed copy of its instructions; when
 * KEEP is not NULL it receives the program handle (else it is freed).  On
 * failure ERR gets the message and a negative errno is returned. */
int testutil_compile_copy(const scmpc_policy *p, struct sock_filter **insns, size_t *len,
			  scmpc_prog **keep, char *err, size_t errlen);

/* A call on ABI A: seccomp_data.arch is A's AUDIT_ARCH and nr is used as is
 * (x32 numbers already carry 0x40000000, as scmpc_syscall_resolve gives
 * them).  ARGS may be NULL for all-zero arguments. */
struct seccomp_data testutil_sd(enum scmpc_arch a, uint32_t nr, const uint64_t args[6]);
/* Same with a raw AUDIT_ARCH value (foreign ABIs, bad-arch probes). */
struct seccomp_data testutil_sd_audit(uint32_t audit, uint32_t nr, const uint64_t args[6]);

/* The real profiles the suites and benchmarks read, by short name.  Each
 * ships in a Debian package that tools/setup-debian installs:
 *
 *   docker-default.json        Docker's default profile      golang-github-docker-docker-dev
 *   docker-old-format.json     the pre-1.13 format ("name", "architectures")   (same package)
 *   docker-example.json        fixtures/example.json         (same package)
 *   docker-conditional.json    fixtures/conditional_include.json (same package)
 *   podman-default.json        containers/common's default   golang-github-containers-common
 *   runc-test1.json, runc-test2.json
 *                              runc's integration test data  golang-github-opencontainers-runc-dev
 *   runc-test1.c, runc-test2.c the programs runc runs under them (same package)
 *
 * $SCMPC_PROFILE_ROOT, when set, is put in front of the packaged paths (the
 * aarch64 guest carries copies under its own root).  Writes the path to
 * BUF and returns BUF, or NULL for a name not listed above. */
const char *testutil_profile_path(const char *name, char *buf, size_t len);
/* Every short name above that is a JSON profile, NULL-terminated. */
extern const char *const testutil_profile_names[];
/* The Debian package that ships NAME ("" for an unknown name). */
const char *testutil_profile_package(const char *name);
/* An optional extra corpus: $SCMPC_EXTRA_POLICIES names a directory whose
 * *.json profiles must all compile and agree with the reference; NULL when
 * unset. */
const char *testutil_extra_policies_dir(void);
/* Directory of the project's examples: $SCMPC_EXAMPLES, else examples. */
const char *testutil_examples_dir(void);

/* Parse the JSON profile at PATH for TARGET as Docker would on kernel 6.8
 * with Docker's default capabilities (fixed so results do not depend on the
 * host).  FROM_JSON is scmpc_policy_from_json, passed in so only the suites
 * that parse JSON link the front end.  Returns NULL on failure with the
 * reason in testutil_last_error() / testutil_last_errno(). */
typedef int (*testutil_from_json_fn)(const char *json, size_t len,
				     const struct scmpc_json_opts *o, scmpc_policy **out,
				     scmpc_diag *d);
scmpc_policy *testutil_policy_file(testutil_from_json_fn from_json, const char *path,
				   enum scmpc_arch target);
const char *testutil_last_error(void);
int testutil_last_errno(void);

/* True when the last failure means "the JSON front end is not there yet"
 * (-ENOSYS or -EOPNOTSUPP): suites skip instead of failing. */
bool testutil_json_missing(void);

/* A packaged profile by short name (docker-default.json, ...), resolved
 * for TARGET as described above. */
static inline scmpc_policy *testutil_policy(const char *name, enum scmpc_arch target)
{
	char path[4096];
	if (!testutil_profile_path(name, path, sizeof(path)))
		return NULL;
	return testutil_policy_file(scmpc_policy_from_json, path, target);
}

/* Print the policy (arches, actions, every rule with its conditions). */
void testutil_policy_dump(FILE *f, const scmpc_policy *p);
/* "x86_64 nr=41 (socket) args=[...]" */
void testutil_sd_dump(FILE *f, const struct seccomp_data *sd);
/* scmpc_action_str into a static rotating buffer, for printf. */
const char *testutil_act(uint32_t act);

/* Argument vectors that exercise the conditions of NR's rules on ABI view V
 * (struct arch_view, src/policy/policy.h; NULL means no rules): all-zero and
 * all-ones vectors, a vector meeting each rule, each pair of those merged,
 * and the zero and single-rule vectors with one argument swept over values
 * around every constant (c-1, c, c+1, high word set or flipped, low word
 * sign-extended, values just meeting or missing each mask).  Returns 0 or -ENOMEM; OUT is
 * reused across calls and released with testutil_vecs_free(). */
struct arch_view;
struct testutil_vecs {
	uint64_t (*v)[6];
	size_t n, cap;
};
int testutil_arg_vectors(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
			 struct testutil_vecs *out);
void testutil_vecs_free(struct testutil_vecs *s);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t testutil_now_ns(void);

/* Small deterministic PRNG (xorshift64*) so random suites replay by seed. */
struct testutil_rng {
	uint64_t s;
};
void testutil_rng_seed(struct testutil_rng *r, uint64_t seed);
uint64_t testutil_rng_next(struct testutil_rng *r);
/* Uniform in [0, n) (n > 0). */
uint32_t testutil_rng_below(struct testutil_rng *r, uint32_t n);

#endif
