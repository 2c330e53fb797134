/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON front end: seccomp profiles in JSON to a policy
 * (scmpc_policy_from_json()).  An OCI linux.seccomp object (alone or inside
 * a whole config.json), a Docker/moby profile or a containers/common
 * (Podman) profile.
 *
 * The policy must be the one the runtimes install today, so the conversion
 * follows runc (libcontainer/specconv, libcontainer/seccomp) and moby
 * (profiles/seccomp) decision for decision, including where they are looser
 * or stricter than the runtime-spec's prose.
 *
 * Top-down, each file below the ones above it:
 *   json_profile.c  the document to the profile: its top-level fields
 *                   and what the runtime adds around the rules
 *   json_rules.c    the syscalls entries and their args, to rules
 *   json_docker.c   Docker's and Podman's additions: archMap, includes
 *                   and excludes, capabilities, minKernel, errno names
 *   json_decode.c   Go's decoding: an object into a struct, values by
 *                   type, messages with the value's path
 *   json_doc.c      the JSON document: the text and json-c behind one
 *                   interface (json_doc.h)
 *   json_scan.c, json_syntax.c  the checks on the text (json_scan.h)
 * workload.c, the folder's other front end, stands apart.
 *
 * The front end builds the policy through the public scmpc_policy_*()
 * calls alone and asks arch/ for ABI names and syscall numbers: it
 * includes base/ and arch/, neither policy/'s internals nor anything above
 * them (compiler, program, check).  The reader (the first four files)
 * sees the text only through json_doc.h: it never indexes the text or
 * runs json-c's parser, and only reads the json-c values the document
 * hands it.
 */
#include <stdio.h>
#include <string.h>
#include "front/json_profile.h"

/* runtime-spec LinuxSeccomp, with moby's and containers/common's additions */
const struct fdef top_fields[] = {
	{ "defaultAction", F_STR, false },	{ "defaultErrnoRet", F_PUINT, false },
	{ "architectures", F_LIST, false },	{ "flags", F_LIST, false },
	{ "listenerPath", F_STR, false },	{ "listenerMetadata", F_STR, false },
	{ "syscalls", F_OBJS, false },		{ "archMap", F_OBJS, true },
	{ "defaultErrno", F_STR, true },	{ NULL, F_STR, false },
};
/* a config.json (runtime-spec Spec, Linux): only the way to linux.seccomp */
static const struct fdef spec_fields[] = {
	{ "ociVersion", F_STR, false }, { "linux", F_OBJ, false }, { NULL, F_STR, false },
};
static const struct fdef linux_fields[] = {
	{ "seccomp", F_OBJ, false }, { NULL, F_STR, false },
};

/* ------------------------------------------------------------- arches */

int add_arch_token(struct jctx *c, const char *tok, const char *where)
{
	enum scmpc_arch a = arch_from_scmp_name(tok);
	if (a == SCMPC_ARCH_NONE)
		return jerr(c, where, "unknown architecture \"%s\"", tok);
	c->listed[a] = true;
	int r = scmpc_policy_add_arch(c->p, a, c->d);
	if (r < 0) {
		char msg[256];	/* jerr() rewrites the message it would read */
		snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(c->d));
		return jerr(c, where, "%s", msg);
	}
	return r;
}

/* The ABIs: the target, then those of "architectures" or of Docker's
 * archMap. */
static int parse_arches(struct jctx *c, const struct jobj *po, const char *w)
{
	char b[PATH_LEN], ib[PATH_LEN];
	json_object *arches = jget(po, "architectures");
	struct jval map = jv(po, "archMap");
	int r;

	/* The target always comes first, as libseccomp's native ABI does. */
	if ((r = scmpc_policy_add_arch(c->p, c->o.arch, c->d)))
		return r;
	if (arches && (r = want_string_array(c, arches, fpath(b, w, po, "architectures"))))
		return r;
	if (jval_has(map) && (r = want_vtype(c, map, json_type_array, fpath(b, w, po, "archMap"))))
		return r;
	if (arches && jval_has(map) && json_object_array_length(arches) && !jdoc_empty(&c->doc, map))
		return jerr(c, fpath(b, w, po, "archMap"),
			    "both \"architectures\" and \"archMap\" are set; use one");
	/* moby appends the archMap group to "architectures"; since at most
	 * one of them is non-empty, that is one or the other. */
	for (size_t i = 0; arches && i < json_object_array_length(arches); i++) {
		const char *tok = json_object_get_string(json_object_array_get_idx(arches, i));
		if ((r = add_arch_token(c, tok, ipath(ib, fpath(b, w, po, "architectures"), i))))
			return r;
	}
	return jval_has(map) ? parse_archmap(c, map, fpath(b, w, po, "archMap")) : 0;
}

/* ------------------------------------------------------------ profile */

/* The default action, with its errno from defaultErrnoRet or Podman's
 * defaultErrno. */
static int parse_default(struct jctx *c, const struct jobj *po, const char *w)
{
	char b[PATH_LEN];
	json_object *v;
	const char *defact = NULL, *dname = NULL;
	uint64_t ret = 0;
	bool has_ret = false, data;
	uint32_t act;
	int r;

	if ((v = jget(po, "defaultAction")) &&
	    (r = want_string(c, v, fpath(b, w, po, "defaultAction"), &defact)))
		return r;
	if ((v = jget(po, "defaultErrnoRet"))) {
		if ((r = want_u64(c, jv(po, "defaultErrnoRet"),
				  fpath(b, w, po, "defaultErrnoRet"), &ret)))
			return r;
		has_ret = true;
	}
	if (c->docker && (v = jget(po, "defaultErrno"))) {
		if ((r = want_string(c, v, fpath(b, w, po, "defaultErrno"), &dname)))
			return r;
		if (!dname[0])
			dname = NULL;
	}
	/* runc would run with no filter at all here; a compiler has nothing
	 * to compile. */
	if (!defact || !defact[0])
		return jerr(c, fpath(b, w, po, "defaultAction"), "missing required \"defaultAction\"");
	if ((r = action_of(c, defact, fpath(b, w, po, "defaultAction"), &act, &data)))
		return r;
	if (act == SCMPC_ACT_USER_NOTIF)
		return jerr(c, fpath(b, w, po, "defaultAction"),
			    "SCMP_ACT_NOTIFY cannot be the default action");
	if ((has_ret || dname) && !data) {
		const char *field = dname ? "defaultErrno" : "defaultErrnoRet";
		return jerr(c, fpath(b, w, po, field),
			    "%s needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not %s", field,
			    defact);
	}
	if (data) {
		uint64_t ev = has_ret ? ret : EPERM;
		const char *field = "defaultErrnoRet";
		if (dname) {
			field = "defaultErrno";
			if ((r = errno_of(c, dname, fpath(b, w, po, field), &ev)))
				return r;
		}
		if ((r = action_data(c, act, ev, field, fpath(b, w, po, field), &act)))
			return r;
	}
	c->def_action = act;
	return 0;
}

/* The flag an OCI "flags" entry names, or 0: runc compares the names as
 * written (prefixed, upper case) and passes on only some flags. */
static unsigned oci_flag(const char *s)
{
	static const char prefix[] = "SECCOMP_FILTER_FLAG_";
	bool oci;
	unsigned bit = scmpc_filter_flag(s, &oci);

	if (!bit || !oci || strncmp(s, prefix, sizeof(prefix) - 1) ||
	    strcmp(s + sizeof(prefix) - 1, scmpc_filter_flag_name(bit)))
		return 0;
	return bit;
}

/* The profile's "flags", runc's way. */
static int parse_flags(struct jctx *c, const struct jobj *po, const char *w)
{
	char b[PATH_LEN], ib[PATH_LEN];
	json_object *v = jget(po, "flags");
	unsigned bits = 0;
	int r;

	if (!v)
		return 0;
	if ((r = want_string_array(c, v, fpath(b, w, po, "flags"))))
		return r;
	c->flags_given = true;
	if (c->o.runtime == SCMPC_RUNTIME_RUNC_1_1 && json_object_array_length(v))
		return jerr(c, fpath(b, w, po, "flags"),
			    "runc 1.1 refuses seccomp flags (\"seccomp flags are not yet supported\")");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		unsigned bit = oci_flag(s);
		if (!bit)
			return jerr(c, ipath(ib, b, i), "unknown flag \"%s\"", s);
		bits |= bit;
	}
	return scmpc_policy_set_flags(c->p, bits, c->d);
}

/* The agent that answers SCMP_ACT_NOTIFY calls: stored for whoever loads
 * the filter (scmp-compile exec hands the listener to it as runc does). */
static int parse_listener(struct jctx *c, const struct jobj *po, const char *w)
{
	char b[PATH_LEN];
	json_object *v;
	const char *path = NULL, *meta = NULL;
	int r;

	if ((v = jget(po, "listenerPath")) &&
	    (r = want_string(c, v, fpath(b, w, po, "listenerPath"), &path)))
		return r;
	if ((v = jget(po, "listenerMetadata")) &&
	    (r = want_string(c, v, fpath(b, w, po, "listenerMetadata"), &meta)))
		return r;
	if (meta && meta[0] && !(path && path[0]))
		return jerr(c, fpath(b, w, po, "listenerMetadata"), "listenerMetadata requires listenerPath");
	if (!path || !path[0])
		return 0;
	if (path[0] != '/')
		return jerr(c, fpath(b, w, po, "listenerPath"), "listenerPath must be absolute");
	return scmpc_policy_set_listener(c->p, path, meta && meta[0] ? meta : NULL, c->d);
}

/* What the runtime adds around the rules: the bad-arch action, default
 * flags, and runc's ENOSYS stub, which makes calls newer than the profile
 * fail with ENOSYS so that libcs fall back instead of treating EPERM as
 * final.  runc builds no stub for permissive defaults; TRACE counts as
 * permissive because a tracer handles unknown calls itself. */
static int runtime_setup(struct jctx *c)
{
	enum scmpc_runtime rt = c->o.runtime;
	int r;

	r = scmpc_policy_set_bad_arch_action(c->p, c->o.flags & SCMPC_JSON_BAD_ARCH
							? c->o.bad_arch_action
							: SCMPC_ACT_KILL_THREAD, c->d);
	if (r)
		return r;
	if (!c->flags_given && (rt == SCMPC_RUNTIME_RUNC || rt == SCMPC_RUNTIME_CRUN) &&
	    (r = scmpc_policy_set_flags(c->p, SECCOMP_FILTER_FLAG_SPEC_ALLOW, c->d)))
		return r;
	uint32_t base = c->def_action & 0xffff0000U;
	if ((rt != SCMPC_RUNTIME_RUNC && rt != SCMPC_RUNTIME_RUNC_1_1) ||
	    (c->o.flags & SCMPC_JSON_NO_ENOSYS) || base == SCMPC_ACT_ALLOW || base == SCMPC_ACT_LOG ||
	    base == SCMPC_ACT_TRACE(0))
		return 0;
	for (size_t i = 0; i < scmpc_policy_arch_count(c->p); i++) {
		enum scmpc_arch a = scmpc_policy_arch(c->p, i);
		/* runc 1.1 covers the ABIs the profile lists; later runc adds
		 * the host's.  A largest number of 0 means "none" to runc. */
		bool covered = c->listed[a] || (rt == SCMPC_RUNTIME_RUNC && a == c->o.arch);
		if (!covered || !c->stubmax[a])
			continue;
		unsigned flags = a == SCMPC_ARCH_S390 || a == SCMPC_ARCH_S390X ? SCMPC_LIMIT_ZERO : 0;
		if ((r = scmpc_policy_set_limit(c->p, a, c->stubmax[a], SCMPC_ACT_ERRNO(ENOSYS), flags,
						c->d)))
			return r;
	}
	return 0;
}

/* The policy of the profile PROF: its top-level fields, then each entry of
 * "syscalls". */
static int parse_profile(struct jctx *c, struct jval prof)
{
	const char *w = c->pre;
	char b[PATH_LEN], eb[PATH_LEN];
	struct jobj po;
	struct jval v;
	size_t mark;
	int r;

	if ((r = resolve(c, prof, w, top_fields, true, &po)) || (r = parse_default(c, &po, w)))
		return r;
	if (!(c->p = scmpc_policy_new(c->def_action)))
		return diag_err(c->d, -ENOMEM, NULL, "out of memory");
	/* runc and crun add the rules to libseccomp in file order; where a
	 * syscall has an unconditional rule, the first such rule is what
	 * their filters do. */
	if (!(c->o.flags & SCMPC_JSON_RESTRICTIVE) &&
	    (r = scmpc_policy_set_merge(c->p, SCMPC_MERGE_LIBSECCOMP, c->d)))
		return r;
	if ((r = parse_arches(c, &po, w)) || (r = parse_flags(c, &po, w)) ||
	    (r = parse_listener(c, &po, w)))
		return r;
	if (!jval_has(v = jv(&po, "syscalls")))
		return runtime_setup(c);
	fpath(b, w, &po, "syscalls");
	if ((r = want_vtype(c, v, json_type_array, b)))
		return r;
	/* one entry's tree at a time */
	mark = jdoc_mark(&c->doc);
	for (struct jelems e = jdoc_elems(v); jdoc_elem_next(&c->doc, &e);) {
		if (!(r = jdoc_load(&c->doc, &e.e)))
			r = parse_entry(c, e.e, ipath(eb, b, e.i));
		jdoc_release(&c->doc, mark);
		if (r)
			return r;
	}
	return runtime_setup(c);
}

/* The profile in the document DOC: the document itself, or a
 * config.json's linux.seccomp. */
static int read_document(struct jctx *c, struct jval doc)
{
	struct jval lx, prof;
	struct jobj so, lo;
	int r;

	/* No profile field folds to these, so they tell a config.json. */
	if ((r = resolve(c, doc, "", spec_fields, false, &so)))
		return r;
	prof = doc;
	c->config = fld(&so, "ociVersion")->given || fld(&so, "linux")->given;
	if (!c->config) {
		c->docker = c->o.flavor == SCMPC_JSON_DOCKER;
		if (c->o.flavor == SCMPC_JSON_AUTO && (r = looks_docker(c, doc, &c->docker)))
			return r;
		if (c->docker && (r = choose_caps(c, doc)))
			return r;
		return parse_profile(c, prof);
	}
	if (c->o.flavor == SCMPC_JSON_DOCKER)
		return jerr(c, "", "expected a Docker profile, got an OCI config.json");
	lx = jv(&so, "linux");
	if (jval_has(lx) && (r = want_object(c, lx, jkey(&so, "linux"), linux_fields, false, &lo)))
		return r;
	kpath(c->pre, jkey(&so, "linux"), jval_has(lx) ? jkey(&lo, "seccomp") : "seccomp");
	if (!jval_has(lx) || !jval_has(prof = jv(&lo, "seccomp")))
		return jerr(c, c->pre, "config.json has no linux.seccomp");
	if ((r = want_vtype(c, prof, json_type_object, c->pre)))
		return r;
	return parse_profile(c, prof);
}

/* --------------------------------------------------------- entry points */

/* Whose filter a profile is read for, by the names the CLI takes. */
static const char *const runtime_names[] = {
	[SCMPC_RUNTIME_RUNC] = "runc",
	[SCMPC_RUNTIME_RUNC_1_1] = "runc-1.1",
	[SCMPC_RUNTIME_CRUN] = "crun",
	[SCMPC_RUNTIME_LIBSECCOMP] = "libseccomp",
};

SCMPC_API const char *scmpc_runtime_name(enum scmpc_runtime r)
{
	return (unsigned)r < ARRAY_SIZE(runtime_names) ? runtime_names[r] : NULL;
}

SCMPC_API int scmpc_runtime_from_name(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(runtime_names); i++)
		if (!strcmp(name, runtime_names[i]))
			return (int)i;
	return -1;
}

SCMPC_API int scmpc_policy_from_json(const char *json, size_t len, const struct scmpc_json_opts *o,
				     scmpc_policy **out, scmpc_diag *d)
{
	struct jctx c;
	struct jval root;
	int r;

	memset(&c, 0, sizeof(c));
	c.d = d;
	if (out)
		*out = NULL;
	if (!out || (!json && len))
		return diag_err(d, -EINVAL, NULL, "no input or no output pointer");
	if (OPTS_VALID(o, scmpc_json_opts, sz, d))
		return -EINVAL;
	OPTS_COPY(c.o, o);
	if (c.o.flavor != SCMPC_JSON_AUTO && c.o.flavor != SCMPC_JSON_OCI &&
	    c.o.flavor != SCMPC_JSON_DOCKER)
		return diag_err(d, -EINVAL, NULL, "unknown JSON flavor %d", (int)c.o.flavor);
	if (c.o.flags & ~(SCMPC_JSON_STRICT | SCMPC_JSON_NO_ENOSYS | SCMPC_JSON_RESTRICTIVE |
			  SCMPC_JSON_BAD_ARCH))
		return diag_err(d, -EINVAL, NULL, "unknown JSON flags 0x%x", c.o.flags);
	if ((unsigned)c.o.caps_from > SCMPC_JSON_CAPS_PODMAN)
		return diag_err(d, -EINVAL, NULL, "unknown capability set %d", (int)c.o.caps_from);
	if (c.o.caps && (c.o.caps_add || c.o.podman_caps || c.o.caps_from))
		return diag_err(d, -EINVAL, NULL, "caps_add, podman_caps and caps_from choose a "
				"default set, but caps replaces it: set caps alone");
	if (!scmpc_runtime_name(c.o.runtime))
		return diag_err(d, -EINVAL, NULL, "unknown runtime %d", (int)c.o.runtime);
	if ((c.o.flags & SCMPC_JSON_BAD_ARCH) && !scmpc_action_valid(c.o.bad_arch_action))
		return diag_err(d, -EINVAL, NULL, "invalid bad-arch action 0x%08x",
				c.o.bad_arch_action);
	if (c.o.arch == SCMPC_ARCH_NONE)
		c.o.arch = scmpc_arch_native();
	if (c.o.arch == SCMPC_ARCH_NONE)
		return diag_err(d, -EINVAL, NULL, "no target architecture: this build has no native ABI");
	if (!arch_info(c.o.arch))
		return diag_err(d, -EINVAL, NULL, "unsupported target architecture %d", (int)c.o.arch);
	c.caps = c.o.caps ? c.o.caps : scmpc_json_default_caps();
	if ((r = jdoc_open(&c.doc, json, len, "linux.seccomp", &root, d)))
		return r;
	c.d = c.doc.d;
	r = read_document(&c, root);
	r = jdoc_close(&c.doc, c.config, r);
	if (r) {
		scmpc_policy_free(c.p);
		return r;
	}
	*out = c.p;
	return 0;
}
