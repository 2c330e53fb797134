/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The profile's "syscalls": each entry to rules of the policy, as runc
 * adds them to libseccomp (its names, its action with errnoRet, its args
 * as conditions), with runc's ENOSYS stub counted as runc counts it.
 * Docker's and Podman's fields of an entry are json_docker.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "front/json_profile.h"

/* A hostile profile can multiply names by same-index conditions; stop well
 * before that exhausts memory. */
#define MAX_RULES (1U << 20)

/* runtime-spec LinuxSyscall, with moby's and containers/common's additions */
const struct fdef entry_fields[] = {
	{ "names", F_LIST, false },	{ "action", F_STR, false },	{ "errnoRet", F_PUINT, false },
	{ "args", F_OBJS, false },	{ "name", F_STR, true },	{ "comment", F_STR, true },
	{ "includes", F_OBJ, true },	{ "excludes", F_OBJ, true },	{ "errno", F_STR, true },
	{ NULL, F_STR, false },
};
/* runtime-spec LinuxSeccompArg */
static const struct fdef arg_fields[] = {
	{ "index", F_UINT, false }, { "value", F_UINT, false }, { "valueTwo", F_UINT, false },
	{ "op", F_STR, false },	    { NULL, F_STR, false },
};

/* ------------------------------------------------------- vocabularies */

/* libseccomp's names, as runc and crun accept them */
static const struct {
	const char *name;
	uint32_t act;
	bool data;	/* carries errnoRet */
} actions[] = {
	{ "SCMP_ACT_KILL", SCMPC_ACT_KILL_THREAD, false },
	{ "SCMP_ACT_KILL_PROCESS", SCMPC_ACT_KILL_PROCESS, false },
	{ "SCMP_ACT_KILL_THREAD", SCMPC_ACT_KILL_THREAD, false },
	{ "SCMP_ACT_TRAP", SCMPC_ACT_TRAP, false },
	{ "SCMP_ACT_ERRNO", SCMPC_ACT_ERRNO(0), true },
	{ "SCMP_ACT_TRACE", SCMPC_ACT_TRACE(0), true },
	{ "SCMP_ACT_ALLOW", SCMPC_ACT_ALLOW, false },
	{ "SCMP_ACT_LOG", SCMPC_ACT_LOG, false },
	{ "SCMP_ACT_NOTIFY", SCMPC_ACT_USER_NOTIF, false },
};

static const struct {
	const char *name;
	enum scmpc_op op;
} operators[] = {
	{ "SCMP_CMP_NE", SCMPC_OP_NE }, { "SCMP_CMP_LT", SCMPC_OP_LT },
	{ "SCMP_CMP_LE", SCMPC_OP_LE }, { "SCMP_CMP_EQ", SCMPC_OP_EQ },
	{ "SCMP_CMP_GE", SCMPC_OP_GE }, { "SCMP_CMP_GT", SCMPC_OP_GT },
	{ "SCMP_CMP_MASKED_EQ", SCMPC_OP_MASKED_EQ },
};

/* ------------------------------------------------------- conversions */

int action_of(struct jctx *c, const char *s, const char *where, uint32_t *act, bool *data)
{
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++) {
		if (!strcmp(actions[i].name, s)) {
			*act = actions[i].act;
			*data = actions[i].data;
			return 0;
		}
	}
	/* jerr() always gives -EINVAL, but it is variadic and never inlined:
	 * returning the constant lets the compiler see that a 0 here always
	 * comes with *ACT and *DATA set. */
	jerr(c, where, "unknown action \"%s\"", s);
	return -EINVAL;
}

/* The data of an ERRNO or TRACE action: the kernel caps errno at 4095 and
 * TRACE carries a 16-bit message.  Larger values are refused, never cut to
 * 16 bits as runc's int16() conversion does (70000 would become 4464). */
int action_data(struct jctx *c, uint32_t act, uint64_t v, const char *field, const char *where,
		uint32_t *out)
{
	if (act == SCMPC_ACT_ERRNO(0) && v > 4095)
		return diag_err(c->d, -ERANGE, where, "%s %" PRIu64 " is out of range 0-4095 "
				"(the kernel caps errno at 4095)", field, v);
	if (v > 0xffff)
		return diag_err(c->d, -ERANGE, where, "%s %" PRIu64 " is out of range 0-65535 "
				"(TRACE data is 16 bits)", field, v);
	*out = act | (uint32_t)v;
	return 0;
}

/* Unknown in runc's sense: no ABI of the syscall table has the name.  A
 * name that only other ABIs have (arm_fadvise64_64 in an x86 policy) is
 * normal in multi-arch profiles; it simply resolves nowhere. */
static bool syscall_known(const char *name)
{
	return syscall_name_known(name);
}

/* ------------------------------------------------------------ entries */

/* The condition of the args element A at AW; checked in full only when the
 * entry is KEPT, since Go type-checks every entry but runc reads only
 * those it keeps. */
static int parse_arg(struct jctx *c, struct jval a, const char *aw, bool keep, struct scmpc_cond *cond)
{
	char b[PATH_LEN];
	json_object *v;
	uint64_t index = 0, value = 0, value2 = 0;
	bool has_index = false, has_value = false;
	const char *op = NULL;
	struct jobj ao;
	int r;

	if ((r = want_object(c, a, aw, arg_fields, true, &ao)))
		return r;
	if ((v = jget(&ao, "index"))) {
		if ((r = want_u64(c, jv(&ao, "index"), fpath(b, aw, &ao, "index"), &index)))
			return r;
		has_index = true;
	}
	if ((v = jget(&ao, "value"))) {
		if ((r = want_u64(c, jv(&ao, "value"), fpath(b, aw, &ao, "value"), &value)))
			return r;
		has_value = true;
	}
	if ((v = jget(&ao, "valueTwo")) && (r = want_u64(c, jv(&ao, "valueTwo"),
							 fpath(b, aw, &ao, "valueTwo"), &value2)))
		return r;
	if ((v = jget(&ao, "op")) && (r = want_string(c, v, fpath(b, aw, &ao, "op"), &op)))
		return r;
	if (!keep)
		return 0;

	if (!has_index)
		return jerr(c, fpath(b, aw, &ao, "index"), "missing required \"index\"");
	if (index > 5)
		return jerr(c, fpath(b, aw, &ao, "index"), "argument index %" PRIu64 " is not 0-5", index);
	if (!op)
		return jerr(c, fpath(b, aw, &ao, "op"), "missing required \"op\"");
	cond->op = 0;
	for (size_t i = 0; i < ARRAY_SIZE(operators); i++)
		if (!strcmp(operators[i].name, op))
			cond->op = operators[i].op;
	if (!cond->op)
		return jerr(c, fpath(b, aw, &ao, "op"), "unknown operator \"%s\"", op);
	if (!has_value)
		return jerr(c, fpath(b, aw, &ao, "value"), "missing required \"value\"");
	cond->arg = (unsigned)index;
	cond->value = value;	/* MASKED_EQ: the mask */
	cond->value2 = cond->op == SCMPC_OP_MASKED_EQ ? value2 : 0;
	cond->flags = 0;
	/* libseccomp, and so runc and crun, compares (arg & mask) with
	 * (valueTwo & mask); taken literally, bits outside the mask would make
	 * the rule never match. */
	if (cond->op == SCMPC_OP_MASKED_EQ && (value2 & ~value)) {
		cond->value2 = value2 & value;
		diag_warn(c->d, "%s: valueTwo 0x%" PRIx64 " has bits outside the mask 0x%" PRIx64
			  "; compared as 0x%" PRIx64 ", as runc does", fpath(b, aw, &ao, "valueTwo"),
			  value2, value, cond->value2);
	}
	return 0;
}

/* Adds NAME's rule with the NCONDS conditions CONDS, or (SPLIT) one rule
 * per condition. */
static int add_rules(struct jctx *c, const char *name, const char *origin, uint32_t act,
		     const struct scmpc_cond *conds, size_t nconds, bool split)
{
	struct scmpc_rule rule = {
		.sz = sizeof(rule), .syscall = name, .action = act, .origin = origin,
	};
	size_t n = split ? nconds : 1;
	int r;

	if (c->nrules + n > MAX_RULES)
		return diag_err(c->d, -E2BIG, origin, "the profile expands to more than %u rules",
				MAX_RULES);
	c->nrules += n;
	if (!split) {
		rule.conds = conds;
		rule.nconds = nconds;
		r = scmpc_policy_add_rule(c->p, &rule, c->d);
		return r < 0 ? r : 0;
	}
	for (size_t k = 0; k < nconds; k++) {
		rule.conds = &conds[k];
		rule.nconds = 1;
		if ((r = scmpc_policy_add_rule(c->p, &rule, c->d)) < 0)
			return r;
	}
	return 0;
}

/* runc's stub counts every name an entry gives, by libseccomp's number on
 * each ABI: not the socket and IPC calls where libseccomp names them by
 * pseudo numbers (the ABIs that multiplex them), not the names it lacks. */
static void stub_count(struct jctx *c, const char *name)
{
	enum arch_mux m;
	uint32_t call, mux;
	bool muxed = arch_subcall(name, &m, &call) == 0;
	for (size_t i = 0; i < scmpc_policy_arch_count(c->p); i++) {
		enum scmpc_arch a = scmpc_policy_arch(c->p, i);
		const struct arch_info *ai = arch_info(a);
		int64_t n = arch_resolve(ai, name);
		if (n < 0 || (muxed && arch_multiplexer(ai, m, &mux) == 0))
			continue;
		if ((uint32_t)n > c->stubmax[a])
			c->stubmax[a] = (uint32_t)n;
	}
}

/* The rules of one name of an entry, at NW: skipped with a warning when no
 * ABI knows it (an error with SCMPC_JSON_STRICT). */
static int emit_name(struct jctx *c, const char *name, const char *nw, uint32_t act,
		     const struct scmpc_cond *conds, size_t nconds, bool split)
{
	if (!syscall_known(name)) {
		if (c->o.flags & SCMPC_JSON_STRICT)
			return jerr(c, nw, "unknown syscall \"%s\"", name);
		jwarn(c, nw, "unknown syscall \"%s\" skipped", name);
		return 0;
	}
	if (act == SCMPC_ACT_USER_NOTIF && !strcmp(name, "write"))
		jwarn(c, nw, "SCMP_ACT_NOTIFY on write: runc refuses this");
	return add_rules(c, name, nw, act, conds, nconds, split);
}

int parse_entry(struct jctx *c, struct jval e, const char *ew)
{
	char b[PATH_LEN], nb[PATH_LEN];
	json_object *v, *names = NULL;
	struct jval args = { NULL, 0, false };
	struct jelems ae;
	struct jobj eo;
	const char *name = NULL, *act_s = NULL, *errno_s = NULL, *s;
	uint64_t ret = 0;
	bool has_ret = false, keep = true, split = false, data;
	struct scmpc_cond *conds = NULL;
	size_t nargs = 0;
	uint32_t act;
	unsigned seen = 0;
	int r;

	/* runc refuses null entries ("encountered nil syscall"). */
	if ((r = want_object(c, e, ew, entry_fields, true, &eo)))
		return r;
	if ((names = jget(&eo, "names")) && (r = want_string_array(c, names, fpath(b, ew, &eo, "names"))))
		return r;
	if (c->docker) {
		if ((v = jget(&eo, "name")) && (r = want_string(c, v, fpath(b, ew, &eo, "name"), &name)))
			return r;
		if (name && !name[0])
			name = NULL;	/* Go's zero value: not set */
		if (name && names && json_object_array_length(names))
			return jerr(c, ew, "both \"name\" and \"names\" are set; use one");
		if ((v = jget(&eo, "comment")) && (r = want_string(c, v, fpath(b, ew, &eo, "comment"), &s)))
			return r;
		if ((r = docker_keep(c, &eo, ew, &keep)))
			return r;
		if ((v = jget(&eo, "errno")) && (r = want_string(c, v, fpath(b, ew, &eo, "errno"), &errno_s)))
			return r;
		if (errno_s && !errno_s[0])
			errno_s = NULL;
	}
	if ((v = jget(&eo, "action")) && (r = want_string(c, v, fpath(b, ew, &eo, "action"), &act_s)))
		return r;
	if ((v = jget(&eo, "errnoRet"))) {
		if ((r = want_u64(c, jv(&eo, "errnoRet"), fpath(b, ew, &eo, "errnoRet"), &ret)))
			return r;
		has_ret = true;
	}
	if ((args = jv(&eo, "args")).j) {
		if ((r = want_type(c, args.j, json_type_array, fpath(b, ew, &eo, "args"))))
			return r;
		nargs = json_object_array_length(args.j);
	}
	if (nargs && !(conds = calloc(nargs, sizeof(*conds))))
		return diag_err(c->d, -ENOMEM, ew, "out of memory");
	ae = jdoc_elems(args);
	for (size_t k = 0; k < nargs && jdoc_elem_next(&c->doc, &ae); k++) {
		ipath(nb, fpath(b, ew, &eo, "args"), k);
		if ((r = parse_arg(c, ae.e, nb, keep, &conds[k])))
			goto out;
		/* runc: one index used twice turns the whole AND into an OR of
		 * single conditions (the pre-2.4 libseccomp behaviour it keeps). */
		if (keep && (seen & (1U << conds[k].arg)))
			split = true;
		seen |= 1U << conds[k].arg;
	}
	r = 0;
	if (!keep)
		goto out;

	if (!act_s) {
		r = jerr(c, fpath(b, ew, &eo, "action"), "missing required \"action\"");
		goto out;
	}
	if ((r = action_of(c, act_s, fpath(b, ew, &eo, "action"), &act, &data)))
		goto out;
	if (data) {
		uint64_t ev = has_ret ? ret : EPERM;
		const char *field = "errnoRet";
		if (errno_s) {
			field = "errno";
			if ((r = errno_of(c, errno_s, fpath(b, ew, &eo, "errno"), &ev)))
				goto out;
		}
		if ((r = action_data(c, act, ev, field, fpath(b, ew, &eo, field), &act)))
			goto out;
	} else if (has_ret || errno_s) {
		const char *field = has_ret ? "errnoRet" : "errno";
		if (c->o.runtime == SCMPC_RUNTIME_CRUN) {
			r = jerr(c, fpath(b, ew, &eo, field), "crun refuses an errno value for %s",
				 act_s);
			goto out;
		}
		jwarn(c, fpath(b, ew, &eo, field), "ignored for %s (runc ignores it)", act_s);
	}
	if (!names && !name) {
		r = jerr(c, fpath(b, ew, &eo, "names"), "missing required \"names\"");
		goto out;
	}
	for (size_t j = 0; names && j < json_object_array_length(names); j++) {
		if (!json_object_get_string(json_object_array_get_idx(names, j))[0]) {
			r = jerr(c, ipath(nb, fpath(b, ew, &eo, "names"), j), "empty syscall name");
			goto out;
		}
	}
	if (names && !name && !json_object_array_length(names))
		jwarn(c, ew, "no syscall names; entry ignored");
	/* runc's stub counts every name, those of rules it then drops too. */
	if (name)
		stub_count(c, name);
	for (size_t j = 0; names && j < json_object_array_length(names); j++)
		stub_count(c, json_object_get_string(json_object_array_get_idx(names, j)));
	/* runc drops rules that repeat the default (libseccomp would refuse
	 * them), before it even looks the names up. */
	if (act == c->def_action)
		goto out;
	if (name) {
		r = emit_name(c, name, fpath(b, ew, &eo, "name"), act, conds, nargs, split);
		goto out;
	}
	for (size_t j = 0; j < json_object_array_length(names); j++) {
		ipath(nb, fpath(b, ew, &eo, "names"), j);
		s = json_object_get_string(json_object_array_get_idx(names, j));
		if ((r = emit_name(c, s, nb, act, conds, nargs, split)))
			goto out;
	}
out:
	free(conds);
	return r;
}

