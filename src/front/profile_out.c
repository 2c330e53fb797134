/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A recording written as the smallest OCI profile that allows exactly its
 * calls: the recorded ABIs, one list of the calls allowed whatever their
 * arguments, and, with SCMPC_PROFILE_ARGS, one entry per distinct value
 * (or tuple) of the arguments that are flags or enumerations, when a call
 * saw few of them.  Everything else gets the default action.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"

/* The arguments worth a condition: each a flag word or an enumeration the
 * kernel switches on, never a pointer, a size or a descriptor.  INT32:
 * the kernel reads an int (or unsigned int), so only the low word is
 * compared (MASKED_EQ with 0xffffffff): a 64-bit caller may leave garbage
 * or a sign extension above it. */
static const struct cond_arg {
	const char *name;
	uint8_t args;		/* bit I: argument I */
	uint8_t int32;		/* bit I: argument I is an int */
	const char *why;
} cond_args[] = {
	{ "ioctl", 0x02, 0x02, "the request names the operation (its argument is a pointer)" },
	{ "socket", 0x07, 0x07, "domain, type and protocol say what the socket is" },
	{ "socketpair", 0x07, 0x07, "domain, type and protocol say what the sockets are" },
	{ "clone", 0x01, 0x00, "the flags say what the child shares, which namespaces it gets" },
	{ "unshare", 0x01, 0x01, "the flags say which namespaces the caller leaves" },
	{ "setns", 0x02, 0x02, "the type says which namespace the caller joins" },
	{ "prctl", 0x01, 0x01, "the option selects the operation" },
	{ "fcntl", 0x02, 0x02, "the command selects the operation" },
	{ "personality", 0x01, 0x01, "the persona changes how the kernel runs the process" },
	{ "madvise", 0x04, 0x04, "the advice selects the operation" },
	{ "mprotect", 0x04, 0x04, "the protection (executable memory among them)" },
	{ "futex", 0x02, 0x02, "the operation" },
	{ "arch_prctl", 0x01, 0x01, "the code selects the operation" },
	{ "seccomp", 0x01, 0x01, "the operation (installing a filter, probing actions)" },
	{ "kill", 0x02, 0x02, "the signal" },
	{ "tkill", 0x02, 0x02, "the signal" },
	{ "tgkill", 0x04, 0x04, "the signal" },
	{ "rt_sigprocmask", 0x01, 0x01, "how the mask changes" },
	{ "setsockopt", 0x06, 0x06, "level and option name select what is set" },
	{ "getsockopt", 0x06, 0x06, "level and option name select what is read" },
	{ "flock", 0x02, 0x02, "the operation" },
};

static const struct cond_arg *cond_arg_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cond_args); i++)
		if (!strcmp(cond_args[i].name, name))
			return &cond_args[i];
	return NULL;
}

/* One call by name, with the tuples of its conditioned arguments seen. */
struct call {
	const char *name;
	const struct cond_arg *ca;
	uint64_t (*tuples)[6];
	size_t ntuples, cap;
	bool too_many;
};

struct text {
	char *s;
	size_t len, cap;
	bool oom;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append printf-style text to T, growing it as needed; T->oom when out of memory. */
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (int pass = 0; pass < 2 && !t->oom; pass++) {
		va_start(ap, fmt);
		int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if (t->s && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap : 4096;
		while (cap <= t->len + (size_t)n)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->oom = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

static int cmp_call(const void *a, const void *b)
{
	return strcmp(((const struct call *)a)->name, ((const struct call *)b)->name);
}

static int cmp_tuple(const void *a, const void *b)
{
	return memcmp(a, b, 6 * sizeof(uint64_t));
}

/* OCI's spelling of action ACT: "SCMP_ACT_ERRNO" and its errno apart. */
static const char *oci_action(uint32_t act, uint32_t *data)
{
	*data = act & 0xffffU;
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS: return "SCMP_ACT_KILL_PROCESS";
	case SCMPC_ACT_KILL_THREAD: return "SCMP_ACT_KILL_THREAD";
	case SCMPC_ACT_TRAP: return "SCMP_ACT_TRAP";
	case SCMPC_ACT_ERRNO(0): return "SCMP_ACT_ERRNO";
	case SCMPC_ACT_TRACE(0): return "SCMP_ACT_TRACE";
	case SCMPC_ACT_LOG: return "SCMP_ACT_LOG";
	case SCMPC_ACT_ALLOW: return "SCMP_ACT_ALLOW";
	default: return NULL;
	}
}

SCMPC_API int scmpc_recording_profile(const scmpc_recording *rec,
				      const struct scmpc_profile_opts *o, char **out,
				      size_t *len, size_t *nconds, scmpc_diag *d)
{
	struct scmpc_profile_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_profile_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags & ~SCMPC_PROFILE_ARGS)
		return diag_err(d, -EINVAL, NULL, "unknown profile flags %#x", opts.flags);
	if (!rec || !out || !len)
		return diag_err(d, -EINVAL, NULL, "no recording or no output");
	uint32_t def = opts.default_action ? opts.default_action : SCMPC_ACT_ERRNO(1), ddata;
	const char *defname = oci_action(def, &ddata);
	if (!defname || def == SCMPC_ACT_ALLOW)
		return diag_err(d, -EINVAL, NULL, "default action %#x: an OCI profile of what was "
				"recorded needs one that stops the rest", def);
	size_t maxv = opts.max_values ? opts.max_values : 8;

	struct call *calls = NULL;
	size_t ncalls = 0, capcalls = 0;
	bool abis[SCMPC_ARCH_COUNT + 1] = { false };
	size_t n = scmpc_recording_count(rec), unnamed = 0, conds = 0;
	err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct seccomp_data sd;
		if ((err = scmpc_recording_get(rec, i, &sd, NULL)) < 0)
			break;
		enum scmpc_arch a = arch_of_call(sd.arch, (uint32_t)sd.nr);
		const struct arch_info *ai = arch_info(a);
		const char *name = ai ? arch_syscall_name(ai, (uint32_t)sd.nr) : NULL;
		if (!name) {
			unnamed++;	/* nr -1, numbers no table names, foreign ABIs */
			continue;
		}
		abis[a] = true;
		struct call *c = NULL;
		for (size_t k = 0; k < ncalls && !c; k++)
			if (calls[k].name == name)
				c = &calls[k];
		if (!c) {
			if (!array_reserve(&calls, &capcalls, ncalls, sizeof(*calls), 64)) {
				err = -ENOMEM;
				break;
			}
			c = &calls[ncalls++];
			*c = (struct call){ .name = name,
					    .ca = (opts.flags & SCMPC_PROFILE_ARGS) ? cond_arg_of(name)
										 : NULL };
		}
		if (!c->ca || c->too_many)
			continue;
		/* the tuple of the conditioned arguments, low words of ints;
		 * on a 32-bit ABI every argument is its low word */
		uint64_t t[6] = { 0 };
		for (int k = 0; k < 6; k++)
			if (c->ca->args & (1U << k))
				t[k] = (c->ca->int32 & (1U << k)) || ai->compat32 ? (uint32_t)sd.args[k]
										  : sd.args[k];
		bool seen = false;
		for (size_t k = 0; k < c->ntuples && !seen; k++)
			seen = !memcmp(c->tuples[k], t, sizeof(t));
		if (seen)
			continue;
		if (c->ntuples == maxv) {
			c->too_many = true;
			continue;
		}
		if (!array_reserve(&c->tuples, &c->cap, c->ntuples, sizeof(*c->tuples), 4)) {
			err = -ENOMEM;
			break;
		}
		memcpy(c->tuples[c->ntuples++], t, sizeof(t));
	}
	struct text t = { 0 };
	if (!err) {
		qsort(calls, ncalls, sizeof(*calls), cmp_call);
		put(&t, "{\n\t\"defaultAction\": \"%s\",\n", defname);
		if (def != SCMPC_ACT_KILL_PROCESS && def != SCMPC_ACT_KILL_THREAD &&
		    def != SCMPC_ACT_TRAP && def != SCMPC_ACT_LOG)
			put(&t, "\t\"defaultErrnoRet\": %" PRIu32 ",\n", ddata);
		put(&t, "\t\"architectures\": [");
		bool first = true;
		for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
			if (abis[a]) {
				put(&t, "%s\"%s\"", first ? "" : ", ", arch_info((enum scmpc_arch)a)->scmp_name);
				first = false;
			}
		put(&t, "],\n\t\"syscalls\": [\n\t\t{\n\t\t\t\"names\": [");
		first = true;
		for (size_t k = 0; k < ncalls; k++)
			if (!calls[k].ca || calls[k].too_many) {
				put(&t, "%s\n\t\t\t\t\"%s\"", first ? "" : ",", calls[k].name);
				first = false;
			}
		put(&t, "\n\t\t\t],\n\t\t\t\"action\": \"SCMP_ACT_ALLOW\"\n\t\t}");
		for (size_t k = 0; k < ncalls; k++) {
			struct call *c = &calls[k];
			if (!c->ca || c->too_many)
				continue;
			qsort(c->tuples, c->ntuples, sizeof(*c->tuples), cmp_tuple);
			for (size_t j = 0; j < c->ntuples; j++) {
				put(&t, ",\n\t\t{\n\t\t\t\"names\": [\"%s\"],\n\t\t\t\"action\": "
				    "\"SCMP_ACT_ALLOW\",\n\t\t\t\"args\": [", c->name);
				bool fa = true;
				for (int a = 0; a < 6; a++) {
					if (!(c->ca->args & (1U << a)))
						continue;
					if (c->ca->int32 & (1U << a))
						put(&t, "%s\n\t\t\t\t{\"index\": %d, \"value\": 4294967295, "
						    "\"valueTwo\": %" PRIu64 ", \"op\": "
						    "\"SCMP_CMP_MASKED_EQ\"}", fa ? "" : ",", a,
						    c->tuples[j][a]);
					else
						put(&t, "%s\n\t\t\t\t{\"index\": %d, \"value\": %" PRIu64
						    ", \"op\": \"SCMP_CMP_EQ\"}", fa ? "" : ",", a,
						    c->tuples[j][a]);
					fa = false;
					conds++;
				}
				put(&t, "\n\t\t\t]\n\t\t}");
			}
		}
		put(&t, "\n\t]\n}\n");
		if (t.oom)
			err = -ENOMEM;
	}
	for (size_t k = 0; k < ncalls; k++)
		free(calls[k].tuples);
	free(calls);
	if (err < 0) {
		free(t.s);
		return diag_err(d, err, NULL, "out of memory");
	}
	if (unnamed)
		diag_warn(d, "%zu recorded call%s without a name in scmpc's table (nr -1, a number "
			  "no ABI names) left out: the profile gives them the default action",
			  unnamed, unnamed == 1 ? "" : "s");
	*out = t.s;
	*len = t.len;
	if (nconds)
		*nconds = conds;
	return 0;
}
