/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What Docker (moby) and Podman (containers/common) add to the OCI
 * profile, as they read it: archMap, an entry's includes and excludes
 * (the host's ABI, the container's capabilities, the kernel's version),
 * errno names ("errno", "defaultErrno"), and what makes a profile theirs.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include "front/json_profile.h"

/* moby's Filter: an entry's includes and excludes */
static const struct fdef filter_fields[] = {
	{ "caps", F_LIST, false }, { "arches", F_LIST, false }, { "minKernel", F_KVER, false },
	{ NULL, F_STR, false },
};
/* moby's Architecture: an archMap entry */
static const struct fdef archmap_fields[] = {
	{ "architecture", F_STR, false }, { "subArchitectures", F_LIST, false }, { NULL, F_STR, false },
};

/* ------------------------------------------------------ the host, caps */

/* A's name as libseccomp's token, as archMap names it: "SCMP_ARCH_X86_64". */
static const char *arch_token(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i ? i->scmp_name : "";
}

/* The name moby and containers/common give the host when they test
 * includes/excludes.arches (their goToNative strings: Go's "386" is "x86",
 * "mips64le" is "mipsel64").  No Go runtime is x32, so "x32" is scmpc's own
 * choice for that target. */
static const char *host_arch_name(enum scmpc_arch a)
{
	const struct arch_info *i = arch_info(a);
	return i ? i->docker_name : "";
}

/* Docker's default bounding set (moby oci/caps/defaults.go). */
static const char *const docker_default_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL,
};

SCMPC_API const char *const *scmpc_json_default_caps(void)
{
	return docker_default_caps;
}

/* Podman's (containers/common 0.50.1 pkg/config DefaultCapabilities):
 * Docker's without CAP_AUDIT_WRITE, CAP_MKNOD and CAP_NET_RAW. */
static const char *const podman_default_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID",
	"CAP_SYS_CHROOT", NULL,
};

SCMPC_API const char *const *scmpc_json_podman_caps(void)
{
	return podman_default_caps;
}

/* Callers may spell capabilities as Docker's CLI accepts them: with or
 * without "CAP_", in any case. */
static bool cap_eq(const char *a, const char *b)
{
	if (!strncasecmp(a, "CAP_", 4))
		a += 4;
	if (!strncasecmp(b, "CAP_", 4))
		b += 4;
	return !strcasecmp(a, b);
}

/* CAP is in the NULL-terminated LIST (NULL: empty). */
static bool in_caps(const char *const *list, const char *cap)
{
	for (const char *const *p = list; p && *p; p++)
		if (cap_eq(*p, cap))
			return true;
	return false;
}

/* CAP is in the container's bounding set: the caller's, or a default set
 * with the caller's additions. */
static bool has_cap(const struct jctx *c, const char *cap)
{
	return in_caps(c->caps, cap) || in_caps(c->o.caps_add, cap);
}

/* A key of MS is FIELD, as Go matches it. */
static bool has_key(const struct jmembers *ms, const char *field)
{
	for (size_t i = 0; i < ms->n; i++)
		if (jdoc_key_is(ms, i, field))
			return true;
	return false;
}

/* *FOUND: PROF's top-level members satisfy TOP(TOP_ARG), or the members
 * of an entry of its last "syscalls" (the one Go would decode) satisfy
 * ENTRY(ENTRY_ARG).  The detectors of who wrote a profile share this walk. */
static int profile_has(struct jctx *c, struct jval prof,
		       bool (*top)(const struct jmembers *, const void *), const void *top_arg,
		       bool (*entry)(const struct jmembers *, const void *),
		       const void *entry_arg, bool *found)
{
	const struct jmembers *ms;
	struct jval syscalls = { NULL, 0, false };
	int r;

	*found = false;
	if ((r = jdoc_members(&c->doc, prof, NULL, &ms)) || (*found = top(ms, top_arg)))
		return r;
	for (size_t i = 0; i < ms->n; i++)
		if (jdoc_key_is(ms, i, "syscalls"))
			syscalls = jval_at(ms->m[i].at);
	if (!jval_has(syscalls) || !jdoc_is(&c->doc, syscalls, json_type_array))
		return 0;
	for (struct jelems e = jdoc_elems(syscalls); !*found && jdoc_elem_next(&c->doc, &e);) {
		if (!jdoc_is(&c->doc, e.e, json_type_object))
			continue;
		if ((r = jdoc_members(&c->doc, e.e, NULL, &ms)))
			return r;
		*found = entry(ms, entry_arg);
	}
	return 0;
}

/* has_key() for profile_has(): ARG is the field's name. */
static bool has_key_arg(const struct jmembers *ms, const void *arg)
{
	return has_key(ms, arg);
}

/* *PODMAN: the profile PROF was written by containers/common.  Its types
 * alone carry errno names ("defaultErrno" at the top, "errno" in an
 * entry), and its generator writes them wherever an errno is, so its
 * default profile has them whatever else changes between releases; moby's
 * types have neither. */
static int looks_podman(struct jctx *c, struct jval prof, bool *podman)
{
	return profile_has(c, prof, has_key_arg, "defaultErrno", has_key_arg, "errno", podman);
}

/* The bounding set includes and excludes test for the Docker-style
 * profile PROF: the caller's list, else the default set of the engine
 * whose profile it is (or the caller names). */
int choose_caps(struct jctx *c, struct jval prof)
{
	bool podman = c->o.caps_from == SCMPC_JSON_CAPS_PODMAN;
	int r;

	if (c->o.caps)
		return 0;
	if (c->o.caps_from == SCMPC_JSON_CAPS_AUTO && (r = looks_podman(c, prof, &podman)))
		return r;
	if (podman)
		c->caps = c->o.podman_caps ? c->o.podman_caps : podman_default_caps;
	return 0;
}

/* --------------------------------------------------------- errno names */

/* Podman writes errno names ("ENOSYS") next to, or instead of, numbers.
 * The names come from the C library so no table can drift from it. */
int errno_of(struct jctx *c, const char *s, const char *where, uint64_t *out)
{
	static const struct {
		const char *alias;
		int value;
	} aliases[] = {
		/* strerrorname_np() names only one spelling per value */
		{ "EWOULDBLOCK", EWOULDBLOCK },
		{ "EDEADLOCK", EDEADLOCK },
		{ "ENOTSUP", ENOTSUP },
	};

	if (s[0] && strspn(s, "0123456789") == strlen(s)) {
		uint64_t v = 0;
		for (const char *p = s; *p; p++) {
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > 0xffffffffULL)
				return diag_err(c->d, -ERANGE, where, "errno %s is out of range 0-4095 "
						"(the kernel caps errno at 4095)", s);
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (!strcmp(s, aliases[i].alias)) {
			*out = (uint64_t)aliases[i].value;
			return 0;
		}
	}
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	for (int e = 1; e <= 4095; e++) {
		const char *n = strerrorname_np(e);
		if (n && !strcmp(n, s)) {
			*out = (uint64_t)e;
			return 0;
		}
	}
	return jerr(c, where, "unknown errno name \"%s\"", s);
#else
	return jerr(c, where, "errno names need glibc 2.32 or later; use the number instead of \"%s\"", s);
#endif
}

/* ------------------------------------------------ includes and excludes */

/* The kernel minKernel is compared with: the caller's, else the running
 * one's, found once. */
static int running_kernel(struct jctx *c, const char *where)
{
	struct utsname u;
	if (c->have_kernel)
		return 0;
	if (c->o.kernel_major) {
		c->kmaj = c->o.kernel_major;
		c->kmin = c->o.kernel_minor;
	} else {
		if (uname(&u) < 0)
			return diag_err(c->d, -errno, where, "uname failed");
		/* moby reads only "<kernel>.<major>": 6.8.0-45-generic is 6.8 */
		if (sscanf(u.release, "%u.%u", &c->kmaj, &c->kmin) != 2)
			return jerr(c, where, "cannot parse the running kernel's release \"%s\"",
				    u.release);
	}
	c->have_kernel = true;
	return 0;
}

/* An includes or excludes object, read. */
struct jfilter {
	bool present;
	json_object *caps, *arches;
	bool has_min;
	unsigned kmaj, kmin;
	char min_where[PATH_LEN];
};

/* Reads the includes or excludes V at WHERE into F (not present: V unset). */
static int parse_filter(struct jctx *c, struct jval v, const char *where, struct jfilter *f)
{
	char b[PATH_LEN];
	const char *s;
	struct jobj fo;
	json_object *m;
	int r;

	memset(f, 0, sizeof(*f));
	if (!v.j)
		return 0;
	if ((r = want_object(c, v, where, filter_fields, true, &fo)))
		return r;
	f->present = true;
	if ((m = jget(&fo, "caps")) && (r = want_string_array(c, m, fpath(b, where, &fo, "caps"))))
		return r;
	f->caps = m;
	if ((m = jget(&fo, "arches")) && (r = want_string_array(c, m, fpath(b, where, &fo, "arches"))))
		return r;
	f->arches = m;
	if (!(m = jget(&fo, "minKernel")))
		return 0;
	fpath(f->min_where, where, &fo, "minKernel");
	if ((r = want_string(c, m, f->min_where, &s)))
		return r;
	f->has_min = true;
	return parse_kver(c, s, f->min_where, &f->kmaj, &f->kmin);
}

/* The array of strings ARR (NULL: none) has S. */
static bool array_has(json_object *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

/* *GE: the kernel is at least F's minKernel. */
static int kernel_at_least(struct jctx *c, const struct jfilter *f, const char *where, bool *ge)
{
	int r = running_kernel(c, where);
	if (r)
		return r;
	*ge = c->kmaj > f->kmaj || (c->kmaj == f->kmaj && c->kmin >= f->kmin);
	return 0;
}

/* moby's setupSeccomp entry filter, tests in its order: the host arch once
 * (not per ABI), the container's bounding set, the kernel. */
int docker_keep(struct jctx *c, const struct jobj *eo, const char *ew, bool *keep)
{
	char b[PATH_LEN];
	struct jfilter inc, exc;
	const char *host = host_arch_name(c->o.arch);
	bool ge;
	int r;

	*keep = false;
	if ((r = parse_filter(c, jv(eo, "excludes"), fpath(b, ew, eo, "excludes"), &exc)) ||
	    (r = parse_filter(c, jv(eo, "includes"), fpath(b, ew, eo, "includes"), &inc)))
		return r;
	if (exc.present) {
		if (array_has(exc.arches, host))
			return 0;
		for (size_t i = 0; exc.caps && i < json_object_array_length(exc.caps); i++)
			if (has_cap(c, json_object_get_string(json_object_array_get_idx(exc.caps, i))))
				return 0;
		if (exc.has_min) {
			if ((r = kernel_at_least(c, &exc, exc.min_where, &ge)))
				return r;
			if (ge)
				return 0;
		}
	}
	if (inc.present) {
		if (inc.arches && json_object_array_length(inc.arches) && !array_has(inc.arches, host))
			return 0;
		for (size_t i = 0; inc.caps && i < json_object_array_length(inc.caps); i++)
			if (!has_cap(c, json_object_get_string(json_object_array_get_idx(inc.caps, i))))
				return 0;
		if (inc.has_min) {
			if ((r = kernel_at_least(c, &inc, inc.min_where, &ge)))
				return r;
			if (!ge)
				return 0;
		}
	}
	*keep = true;
	return 0;
}

/* ------------------------------------------------------------- archMap */

/* moby: the first archMap entry for the host adds itself and its
 * subArchitectures; the other entries are never looked at again. */
int parse_archmap(struct jctx *c, struct jval map, const char *mw)
{
	char b[PATH_LEN], eb[PATH_LEN], sb[PATH_LEN];
	const char *target = arch_token(c->o.arch), *s;
	struct jobj mo, chosen;
	json_object *v;
	size_t chosen_i = NONE;
	int r;

	if ((r = want_vtype(c, map, json_type_array, mw)))
		return r;
	/* Each element's tree lives to the end: the one chosen is read after
	 * the loop, and archMap is small. */
	for (struct jelems e = jdoc_elems(map); jdoc_elem_next(&c->doc, &e);) {
		const char *arch = NULL;
		if ((r = jdoc_load(&c->doc, &e.e)))
			return r;
		ipath(eb, mw, e.i);
		if ((r = want_object(c, e.e, eb, archmap_fields, true, &mo)))
			return r;
		if ((v = jget(&mo, "architecture")) &&
		    (r = want_string(c, v, fpath(b, eb, &mo, "architecture"), &arch)))
			return r;
		if ((v = jget(&mo, "subArchitectures")) &&
		    (r = want_string_array(c, v, fpath(b, eb, &mo, "subArchitectures"))))
			return r;
		if (chosen_i == NONE && arch && !strcmp(arch, target)) {
			chosen = mo;
			chosen_i = e.i;
		}
	}
	if (chosen_i == NONE)
		return 0;
	ipath(eb, mw, chosen_i);
	if ((r = add_arch_token(c, target, fpath(b, eb, &chosen, "architecture"))))
		return r;
	if (!(v = jget(&chosen, "subArchitectures")))
		return 0;
	fpath(sb, eb, &chosen, "subArchitectures");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		s = json_object_get_string(json_object_array_get_idx(v, i));
		if ((r = add_arch_token(c, s, ipath(b, sb, i))))
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------- the flavor */

/* Some key of MS names a Docker field of DEFS, as Go would match it; null
 * counts, as it does for json-c. */
static bool docker_key(const struct jmembers *ms, const struct fdef *defs)
{
	for (size_t i = 0; i < ms->n; i++)
		for (size_t k = 0; defs[k].name; k++)
			if (defs[k].docker && jdoc_key_is(ms, i, defs[k].name))
				return true;
	return false;
}

/* docker_key() for profile_has(): ARG is the field table. */
static bool docker_key_arg(const struct jmembers *ms, const void *arg)
{
	return docker_key(ms, arg);
}

/* Docker and Podman fields at the top or in an entry make a Docker
 * profile. */
int looks_docker(struct jctx *c, struct jval prof, bool *docker)
{
	return profile_has(c, prof, docker_key_arg, top_fields, docker_key_arg, entry_fields,
			   docker);
}

