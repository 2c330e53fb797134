/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Seccomp profiles in JSON: an OCI linux.seccomp object (alone or inside a
 * whole config.json), a Docker/moby profile or a containers/common (Podman)
 * profile.
 *
 * The policy must be the one the runtimes install today, so the conversion
 * follows runc (libcontainer/specconv, libcontainer/seccomp) and moby
 * (profiles/seccomp) decision for decision, including where they are looser
 * or stricter than the runtime-spec's prose.
 *
 * The text is read through the JSON document (json_doc.h), which checks it
 * once and then answers from the text or from json-c as it sees fit: the
 * objects down to the profile are read member by member, each scalar
 * parsed on its own, and an array of objects (syscalls, archMap) one
 * element's tree at a time.  Keys are matched to fields as Go matches
 * them, in text order, which json-c's tree cannot tell (see resolve()).
 * JSON null is what Go makes of it: "not set" for a pointer or a slice,
 * nothing at all for a string or a number.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <json-c/json.h>
#include "policy/policy.h"
#include "front/json_doc.h"

#define PATH_LEN 256
/* A hostile profile can multiply names by same-index conditions; stop well
 * before that exhausts memory. */
#define MAX_RULES (1U << 20)

struct jctx {
	scmpc_diag *d;
	struct scmpc_json_opts o;
	struct jdoc doc;	/* the text and json-c's values */
	bool config;		/* a config.json: the profile is its linux.seccomp */
	char pre[PATH_LEN];	/* "" or linux.seccomp as spelled: prefix of every path */
	bool docker;		/* Docker/Podman extensions are understood */
	const char *const *caps;
	scmpc_policy *p;
	uint32_t def_action;
	bool have_kernel;
	unsigned kmaj, kmin;
	size_t nrules;
	bool listed[SCMPC_ARCH_COUNT + 1];	/* named by architectures or archMap */
	bool flags_given;			/* the profile has "flags" */
	uint32_t stubmax[SCMPC_ARCH_COUNT + 1];	/* runc's stub: highest number named */
};

/* ------------------------------------------------------------ reporting */

__attribute__((format(printf, 3, 4)))
static int jerr(struct jctx *c, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_err(c->d, -EINVAL, where, "%s", msg);
}

__attribute__((format(printf, 3, 4)))
static void jwarn(struct jctx *c, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (where && where[0])
		diag_warn(c->d, "%s: %s", where, msg);
	else
		diag_warn(c->d, "%s", msg);
}

/* Appends the LEN bytes at S to BUF, which holds *AT bytes, within
 * PATH_LEN.  Paths are for messages: a truncated one is still useful.
 * (snprintf() did this, and was a tenth of a large profile's time.) */
static void put(char *buf, size_t *at, const char *s, size_t len)
{
	size_t room = PATH_LEN - 1 - *at;
	if (len > room)
		len = room;
	memmove(buf + *at, s, len);
	*at += len;
}

static const char *kpath(char *buf, const char *base, const char *key)
{
	size_t at = 0, bl = strlen(base);

	put(buf, &at, base, bl);
	if (bl)
		put(buf, &at, ".", 1);
	put(buf, &at, key, strlen(key));
	buf[at] = '\0';
	return buf;
}

static const char *ipath(char *buf, const char *base, size_t i)
{
	char num[24];
	size_t at = 0, k = sizeof(num);

	num[--k] = ']';
	do
		num[--k] = (char)('0' + i % 10);
	while ((i /= 10));
	num[--k] = '[';
	put(buf, &at, base, strlen(base));
	put(buf, &at, num + k, sizeof(num) - k);
	buf[at] = '\0';
	return buf;
}

/* ------------------------------------------------------- typed access */


/* V is of type T (an object, an array or a string), whether json-c holds
 * it or it is only in the text. */
static int want_vtype(struct jctx *c, struct jval v, enum json_type t, const char *where)
{
	if (jdoc_is(&c->doc, v, t))
		return 0;
	return jerr(c, where, "expected %s, got %s", jdoc_type_name(t), jdoc_kind(&c->doc, v));
}

/* want_vtype() for a value json-c holds: once for every name of every
 * entry, so json-c answers at once. */
static int want_type(struct jctx *c, json_object *v, enum json_type t, const char *where)
{
	if (json_object_is_type(v, t))
		return 0;
	return want_vtype(c, (struct jval){ v, 0, false }, t, where);
}

static int want_string(struct jctx *c, json_object *v, const char *where, const char **out)
{
	int r = want_type(c, v, json_type_string, where);
	if (r)
		return r;
	*out = json_object_get_string(v);
	/* C strings stop at NUL; a name that hides one must not pass as
	 * its prefix. */
	if (strlen(*out) != (size_t)json_object_get_string_len(v))
		return jerr(c, where, "string contains a NUL character");
	return 0;
}

/* V as an unsigned integer.  Negative numbers are quoted from the text,
 * not from json-c, which saturates those below INT64_MIN and reads "-0" as
 * 0. */
static int want_u64(struct jctx *c, struct jval v, const char *where, uint64_t *out)
{
	const char *t;
	size_t n;

	switch (json_object_get_type(v.j)) {
	case json_type_int:
		if ((t = jdoc_text(&c->doc, v))[0] == '-') {
			n = jdoc_text_len(&c->doc, v);
			/* Go's strconv.ParseUint, which decodes runc's and
			 * Docker's unsigned fields, refuses any sign, so "-0"
			 * fails there as -1 does. */
			if (n == 2 && t[1] == '0')
				return jerr(c, where, "expected an unsigned integer, got -0 "
					    "(runc and Docker refuse a minus sign even on zero)");
			if (n > 40)
				return jerr(c, where, "expected an unsigned integer, got %.20s... "
					    "(%zu digits)", t, n - 1);
			return jerr(c, where, "expected an unsigned integer, got %.*s", (int)n, t);
		}
		*out = json_object_get_uint64(v.j);
		return 0;
	case json_type_double:
		return jerr(c, where, "expected an unsigned integer, got %s",
			    json_object_to_json_string_ext(v.j, JSON_C_TO_STRING_PLAIN));
	default:
		return jerr(c, where, "expected an unsigned integer, got %s", jdoc_kind(&c->doc, v));
	}
}

/* Type-checks an array of strings (Go rejects the whole profile otherwise). */
static int want_string_array(struct jctx *c, json_object *v, const char *where)
{
	char b[PATH_LEN];
	const char *s;
	int r = want_type(c, v, json_type_array, where);
	for (size_t i = 0; !r && i < json_object_array_length(v); i++)
		r = want_string(c, json_object_array_get_idx(v, i), ipath(b, where, i), &s);
	return r;
}

/* moby's KernelVersion: "<kernel>.<major>", each a decimal 0-255. */
static bool parse_u8(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > 255)
			return false;
	}
	*out = v;
	return true;
}

/* moby leaves "" as version 0.0, which every kernel satisfies; anything
 * else its UnmarshalJSON does not take fails the whole profile. */
static int parse_kver(struct jctx *c, const char *s, const char *where, unsigned *maj, unsigned *min)
{
	const char *dot = strchr(s, '.');

	*maj = *min = 0;
	if (!s[0])
		return 0;
	if (!dot || strchr(dot + 1, '.') || !parse_u8(s, (size_t)(dot - s), maj) ||
	    !parse_u8(dot + 1, strlen(dot + 1), min))
		return jerr(c, where, "invalid kernel version \"%s\": expected \"<kernel>.<major>\"", s);
	if (!*maj && !*min)
		return jerr(c, where, "invalid kernel version \"%s\": version cannot be 0.0", s);
	return 0;
}

/* ------------------------------------------------------------- objects */

/*
 * runc and Docker decode profiles into Go structs with encoding/json, which
 * gives a key to the field whose name it equals, or failing that equals
 * but for case ("DefaultAction" sets defaultAction), and applies the keys
 * of one object in text order, so that of several keys naming one field the
 * last counts.  json-c keeps one entry per exact key, with the last value
 * but at the first one's place, and cuts a key at a NUL character: its
 * tree cannot say which of "defaultAction" and "DefaultAction" came last.
 * So each object is read from its members in the text (jdoc_members()),
 * and the values come from json-c's tree where it kept the right one
 * (jdoc_member()).
 */

/* What Go does with a second value for a field depends on the field's Go
 * type. */
enum fkind {
	F_STR,		/* string: replaced; null leaves it as it was */
	F_UINT,		/* unsigned integer: likewise */
	F_PUINT,	/* *uint: replaced; null unsets it */
	F_KVER,		/* moby's *KernelVersion, a string: likewise */
	F_LIST,		/* []string: likewise */
	F_OBJ,		/* *struct: the second object is decoded into the first */
	F_OBJS,		/* []struct: the second array into the first's elements */
};

struct fdef {
	const char *name;
	enum fkind kind;
	bool docker;	/* a Docker/Podman field, unknown to runc */
};

/* runtime-spec LinuxSeccomp, with moby's and containers/common's additions */
static const struct fdef top_fields[] = {
	{ "defaultAction", F_STR, false },	{ "defaultErrnoRet", F_PUINT, false },
	{ "architectures", F_LIST, false },	{ "flags", F_LIST, false },
	{ "listenerPath", F_STR, false },	{ "listenerMetadata", F_STR, false },
	{ "syscalls", F_OBJS, false },		{ "archMap", F_OBJS, true },
	{ "defaultErrno", F_STR, true },	{ NULL, F_STR, false },
};
static const struct fdef entry_fields[] = {
	{ "names", F_LIST, false },	{ "action", F_STR, false },	{ "errnoRet", F_PUINT, false },
	{ "args", F_OBJS, false },	{ "name", F_STR, true },	{ "comment", F_STR, true },
	{ "includes", F_OBJ, true },	{ "excludes", F_OBJ, true },	{ "errno", F_STR, true },
	{ NULL, F_STR, false },
};
static const struct fdef arg_fields[] = {
	{ "index", F_UINT, false }, { "value", F_UINT, false }, { "valueTwo", F_UINT, false },
	{ "op", F_STR, false },	    { NULL, F_STR, false },
};
static const struct fdef filter_fields[] = {
	{ "caps", F_LIST, false }, { "arches", F_LIST, false }, { "minKernel", F_KVER, false },
	{ NULL, F_STR, false },
};
static const struct fdef archmap_fields[] = {
	{ "architecture", F_STR, false }, { "subArchitectures", F_LIST, false }, { NULL, F_STR, false },
};
/* a config.json (runtime-spec Spec, Linux): only the way to linux.seccomp */
static const struct fdef spec_fields[] = {
	{ "ociVersion", F_STR, false }, { "linux", F_OBJ, false }, { NULL, F_STR, false },
};
static const struct fdef linux_fields[] = {
	{ "seccomp", F_OBJ, false }, { NULL, F_STR, false },
};

#define MAX_FIELDS 9
/* A key naming a field spells each letter in at most 3 bytes (U+212A). */
#define KEY_LEN 64
#define NONE SIZE_MAX		/* no member, no field */
#define IGNORED (SIZE_MAX - 1)	/* a Docker field, in an OCI profile */

struct jfield {
	struct jval v;		/* the value Go ends up with; v.j NULL: unset */
	bool given;		/* some key names the field, if only with null */
	char key[KEY_LEN];	/* as written: the key whose value counts, else the
				 * last one given, else the field's name */
};

struct jobj {
	const struct fdef *defs;
	struct jfield f[MAX_FIELDS];
};

static const struct jfield *fld(const struct jobj *o, const char *name)
{
	static const struct jfield none;
	for (size_t k = 0; o->defs[k].name; k++)
		if (!strcmp(o->defs[k].name, name))
			return &o->f[k];
	return &none;
}

static json_object *jget(const struct jobj *o, const char *name) { return fld(o, name)->v.j; }
static struct jval jv(const struct jobj *o, const char *name) { return fld(o, name)->v; }
static const char *jkey(const struct jobj *o, const char *name) { return fld(o, name)->key; }

/* The path of field NAME of O, below BASE, as the file spells it. */
static const char *fpath(char *buf, const char *base, const struct jobj *o, const char *name)
{
	return kpath(buf, base, jkey(o, name));
}

/* Member I's key, for a message: control characters, which could drive
 * the terminal, and NUL become '?', as in json_scan.c's paths. */
static const char *shown_key(const struct jmembers *ms, size_t i, char *buf, size_t size)
{
	const char *k = jmember_key(ms, i);
	size_t n = ms->m[i].klen, w = 0;

	for (size_t j = 0; j < n && w + 4 < size; j++) {
		unsigned char ch = (unsigned char)k[j];
		buf[w++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	if (w < n)
		w += (size_t)snprintf(buf + w, size - w, "...");
	buf[w] = '\0';
	return buf;
}

/* Member I's key, which names a field and so fits in KEY_LEN. */
static const char *field_key(const struct jmembers *ms, size_t i, char *buf)
{
	size_t n = ms->m[i].klen < KEY_LEN ? ms->m[i].klen : KEY_LEN - 1;
	memcpy(buf, jmember_key(ms, i), n);
	buf[n] = '\0';
	return buf;
}

/* Members I and J have the very same key. */
static bool same_key(const struct jmembers *ms, size_t i, size_t j)
{
	return ms->m[i].klen == ms->m[j].klen &&
	       !memcmp(jmember_key(ms, i), jmember_key(ms, j), ms->m[i].klen);
}

/* The field of DEFS member I names (Go's fields here never fold to one
 * another, so an exact match and a folded one cannot compete), NONE or
 * IGNORED. */
static size_t field_of(const struct jctx *c, const struct fdef *defs, const struct jmembers *ms,
		       size_t i)
{
	for (size_t k = 0; defs[k].name; k++)
		if (jdoc_key_is(ms, i, defs[k].name))
			return defs[k].docker && !c->docker ? IGNORED : k;
	return NONE;
}

/* Go decodes every value a key is given, so one of the wrong type fails
 * the profile even where a later key replaces it. */
static int check_replaced(struct jctx *c, enum fkind kind, size_t at, const char *where)
{
	struct jval v = jval_at(at);
	size_t mark = jdoc_mark(&c->doc);
	const char *s;
	uint64_t u;
	unsigned a, b;
	int r = 0;

	if (jdoc_is(&c->doc, v, json_type_null) || kind == F_OBJ || kind == F_OBJS)
		return 0;
	if ((r = jdoc_load(&c->doc, &v)))
		return r;
	switch (kind) {
	case F_STR:
		r = want_type(c, v.j, json_type_string, where);
		break;
	case F_UINT:
	case F_PUINT:
		r = want_u64(c, v, where, &u);
		break;
	case F_KVER:
		if (!(r = want_string(c, v.j, where, &s)))
			r = parse_kver(c, s, where, &a, &b);
		break;
	case F_LIST:
		r = want_string_array(c, v.j, where);
		break;
	default:
		break;
	}
	jdoc_release(&c->doc, mark);
	return r;
}

/* Why KEY names its field, said after "runc and Docker": the two
 * characters that fold to an ASCII letter look like one or are easily
 * missed, so they are named. */
static const char *fold_note(const char *key)
{
	bool s = strstr(key, "\xc5\xbf"), k = strstr(key, "\xe2\x84\xaa");

	if (s && k)
		return "match keys without regard to case, and take U+017F for 's' and U+212A for 'k'";
	if (s)
		return "match keys without regard to case, and take U+017F (long s) for 's'";
	if (k)
		return "match keys without regard to case, and take U+212A (Kelvin sign) for 'k'";
	return "match keys without regard to case";
}

struct occ {
	size_t n;		/* keys naming the field */
	size_t first, second, last;
	size_t alt;		/* the first key spelled unlike the first */
	size_t win;		/* the one whose value Go keeps; NONE: unset */
};

/* Go merges a second object into the first, and decodes a second array of
 * objects into the first one's elements (golang/go#21092), so the result
 * mixes both; scmpc refuses rather than guess. */
static int refuse_merge(struct jctx *c, const struct fdef *defs, size_t k, const struct jmembers *ms,
			const struct occ *o, const char *where)
{
	char a[KEY_LEN], b[KEY_LEN], p[PATH_LEN];
	int r;

	for (size_t i = o->first; i <= o->last; i++)
		if (field_of(c, defs, ms, i) == k && (r = jdoc_unwarn(&c->doc, ms->m[i].key_at)))
			return r;
	kpath(p, where, field_key(ms, o->second, b));
	if (same_key(ms, o->first, o->second))
		return jerr(c, p, "duplicate key: runc and Docker would merge the two values, not keep the "
			    "last, and scmpc does not mirror that; give the key once");
	return jerr(c, p, "duplicate key: \"%s\" and \"%s\" are both \"%s\" to runc and Docker, which "
		    "would merge the two values, not keep the last, and scmpc does not mirror that; "
		    "give the key once", field_key(ms, o->first, a), b, defs[k].name);
}

/* Says how Go reads the keys F found for field DEF, at KEY (member SHOWN):
 * as a field they name but for case, or several as one field. */
static void warn_field(struct jctx *c, const struct fdef *def, const struct jmembers *ms,
		       const struct occ *f, size_t shown, const char *key, const char *where)
{
	char ob[KEY_LEN], p[PATH_LEN];

	kpath(p, where, key);
	if (f->alt != NONE) {
		size_t other = same_key(ms, f->first, shown) ? f->alt : f->first;
		field_key(ms, other, ob);
		jwarn(c, p, "duplicate key: \"%s\" and \"%s\" are both \"%s\" to runc and Docker, which "
		      "%s; %s", ob, key, def->name, fold_note(strcmp(ob, def->name) ? ob : key),
		      shown == f->last ? "the last value counts"
				       : "null does not unset it, so the last other value counts");
	} else if (strcmp(key, def->name)) {
		jwarn(c, p, "read as \"%s\" (runc and Docker %s)", def->name, fold_note(key));
	}
}

/* Reads the object O at WHERE as Go would decode it into a struct with the
 * fields DEFS; with CLOSED, other keys are warned about, since Go ignores
 * them and they are usually typos.  Warnings come in text order. */
static int resolve(struct jctx *c, struct jval o, const char *where, const struct fdef *defs, bool closed,
		   struct jobj *out)
{
	const struct jmembers *ms;
	struct occ occ[MAX_FIELDS];
	char kb[KEY_LEN], p[PATH_LEN], ub[160];
	size_t nf = 0;
	int r;

	while (defs[nf].name)
		nf++;
	memset(out, 0, sizeof(*out));
	out->defs = defs;
	for (size_t k = 0; k < nf; k++) {
		snprintf(out->f[k].key, KEY_LEN, "%s", defs[k].name);
		occ[k].n = 0;
		occ[k].alt = occ[k].win = NONE;
	}
	if ((r = jdoc_members(&c->doc, o, where, &ms)))
		return r;
	for (size_t i = 0; i < ms->n; i++) {
		size_t k = field_of(c, defs, ms, i);
		bool null = ms->m[i].null;
		struct occ *f;

		if (k >= nf)
			continue;
		f = &occ[k];
		if (!f->n)
			f->first = i;
		else if (f->n == 1)
			f->second = i;
		if (f->n && f->alt == NONE && !same_key(ms, f->first, i))
			f->alt = i;
		f->n++;
		f->last = i;
		if (null && (defs[k].kind == F_STR || defs[k].kind == F_UINT))
			continue;
		if (f->win != NONE &&
		    (r = check_replaced(c, defs[k].kind, ms->m[f->win].at,
					kpath(p, where, field_key(ms, f->win, kb)))))
			return r;
		f->win = null ? NONE : i;
	}
	for (size_t k = 0; k < nf; k++)
		if ((defs[k].kind == F_OBJ || defs[k].kind == F_OBJS) && occ[k].n > 1)
			return refuse_merge(c, defs, k, ms, &occ[k], where);
	for (size_t i = 0; i < ms->n; i++) {
		size_t k = field_of(c, defs, ms, i), shown;
		struct jfield *jf;

		if (k == IGNORED && !ms->m[i].repeat)
			jwarn(c, where, "\"%s\" is a Docker profile field; ignored in an OCI profile",
			      shown_key(ms, i, ub, sizeof(ub)));
		else if (k == NONE && closed && !ms->m[i].repeat)
			jwarn(c, where, "unknown key \"%s\" ignored", shown_key(ms, i, ub, sizeof(ub)));
		/* the key whose value counts speaks for the field */
		if (k >= nf || i != (shown = occ[k].win != NONE ? occ[k].win : occ[k].last))
			continue;
		jf = &out->f[k];
		jf->given = true;
		warn_field(c, &defs[k], ms, &occ[k], shown, field_key(ms, shown, jf->key), where);
		if (occ[k].win == NONE)
			continue;
		if ((r = jdoc_member(&c->doc, o, ms, i, defs[k].kind == F_OBJ || defs[k].kind == F_OBJS,
				     &jf->v)))
			return r;
	}
	return 0;
}

/* Resolves V at WHERE after checking that it is an object. */
static int want_object(struct jctx *c, struct jval v, const char *where, const struct fdef *defs,
		       bool closed, struct jobj *out)
{
	int r = want_vtype(c, v, json_type_object, where);
	return r ? r : resolve(c, v, where, defs, closed, out);
}

/* ------------------------------------------------------- vocabularies */

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

static bool has_cap(const struct jctx *c, const char *cap)
{
	for (const char *const *p = c->caps; *p; p++)
		if (cap_eq(*p, cap))
			return true;
	return false;
}

/* ------------------------------------------------------- conversions */

static int action_of(struct jctx *c, const char *s, const char *where, uint32_t *act, bool *data)
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

/* Podman writes errno names ("ENOSYS") next to, or instead of, numbers.
 * The names come from the C library so no table can drift from it. */
static int errno_of(struct jctx *c, const char *s, const char *where, uint64_t *out)
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

/* The data of an ERRNO or TRACE action: the kernel caps errno at 4095 and
 * TRACE carries a 16-bit message.  Larger values are refused, never cut to
 * 16 bits as runc's int16() conversion does (70000 would become 4464). */
static int action_data(struct jctx *c, uint32_t act, uint64_t v, const char *field, const char *where,
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

struct jfilter {
	bool present;
	json_object *caps, *arches;
	bool has_min;
	unsigned kmaj, kmin;
	char min_where[PATH_LEN];
};

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

static bool array_has(json_object *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

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
static int docker_keep(struct jctx *c, const struct jobj *eo, const char *ew, bool *keep)
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

/* Unknown in runc's sense: no ABI of the syscall table has the name.  A
 * name that only other ABIs have (arm_fadvise64_64 in an x86 policy) is
 * normal in multi-arch profiles; it simply resolves nowhere. */
static bool syscall_known(const char *name)
{
	return syscall_name_known(name);
}

/* ------------------------------------------------------------ entries */

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

static int parse_entry(struct jctx *c, struct jval e, const char *ew)
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

/* ------------------------------------------------------------- arches */

static int add_arch_token(struct jctx *c, const char *tok, const char *where)
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

/* moby: the first archMap entry for the host adds itself and its
 * subArchitectures; the other entries are never looked at again. */
static int parse_archmap(struct jctx *c, struct jval map, const char *mw)
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

/* Docker and Podman fields at the top or in an entry make a Docker
 * profile. */
static int looks_docker(struct jctx *c, struct jval prof, bool *docker)
{
	const struct jmembers *ms;
	struct jval syscalls = { NULL, 0, false };
	int r;

	if ((r = jdoc_members(&c->doc, prof, NULL, &ms)) || (*docker = docker_key(ms, top_fields)))
		return r;
	/* the entries Go would decode: those of the last "syscalls" */
	for (size_t i = 0; i < ms->n; i++)
		if (jdoc_key_is(ms, i, "syscalls"))
			syscalls = jval_at(ms->m[i].at);
	if (!jval_has(syscalls) || !jdoc_is(&c->doc, syscalls, json_type_array))
		return 0;
	for (struct jelems e = jdoc_elems(syscalls); !*docker && jdoc_elem_next(&c->doc, &e);) {
		if (!jdoc_is(&c->doc, e.e, json_type_object))
			continue;
		if ((r = jdoc_members(&c->doc, e.e, NULL, &ms)))
			return r;
		*docker = docker_key(ms, entry_fields);
	}
	return 0;
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
	c.caps = c.o.caps ? c.o.caps : docker_default_caps;
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
