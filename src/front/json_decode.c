/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Go's encoding/json as runc and moby decode profiles with it, for the
 * profile reader (json_profile.h): messages that name a value by its path,
 * values of the Go types profiles use (string, unsigned integer, []string,
 * moby's KernelVersion), and an object decoded into a struct, key by key.
 *
 * JSON null is what Go makes of it: "not set" for a pointer or a slice,
 * nothing at all for a string or a number.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "front/json_profile.h"

/* ------------------------------------------------------------ reporting */

__attribute__((format(printf, 3, 4)))
int jerr(struct jctx *c, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_err(c->d, -EINVAL, where, "%s", msg);
}

__attribute__((format(printf, 3, 4)))
void jwarn(struct jctx *c, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the kind is FMT: the path and the values vary within it */
	if (where && where[0])
		diag_warn_kind(c->d, fmt, "%s: %s", where, msg);
	else
		diag_warn_kind(c->d, fmt, "%s", msg);
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

const char *kpath(char *buf, const char *base, const char *key)
{
	size_t at = 0, bl = strlen(base);

	put(buf, &at, base, bl);
	if (bl)
		put(buf, &at, ".", 1);
	put(buf, &at, key, strlen(key));
	buf[at] = '\0';
	return buf;
}

const char *ipath(char *buf, const char *base, size_t i)
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
int want_vtype(struct jctx *c, struct jval v, enum json_type t, const char *where)
{
	if (jdoc_is(&c->doc, v, t))
		return 0;
	return jerr(c, where, "expected %s, got %s", jdoc_type_name(t), jdoc_kind(&c->doc, v));
}

/* want_vtype() for a value json-c holds: once for every name of every
 * entry, so json-c answers at once. */
int want_type(struct jctx *c, json_object *v, enum json_type t, const char *where)
{
	if (json_object_is_type(v, t))
		return 0;
	return want_vtype(c, (struct jval){ v, 0, false }, t, where);
}

int want_string(struct jctx *c, json_object *v, const char *where, const char **out)
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
int want_u64(struct jctx *c, struct jval v, const char *where, uint64_t *out)
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
int want_string_array(struct jctx *c, json_object *v, const char *where)
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
int parse_kver(struct jctx *c, const char *s, const char *where, unsigned *maj, unsigned *min)
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

/* The keys of one object that name one field, by member index. */
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
int resolve(struct jctx *c, struct jval o, const char *where, const struct fdef *defs, bool closed,
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
		/* a copy, not snprintf(), which took a twentieth of a large
		 * profile's reading for this line alone */
		size_t l = strlen(defs[k].name) < KEY_LEN ? strlen(defs[k].name) : KEY_LEN - 1;
		memcpy(out->f[k].key, defs[k].name, l);
		out->f[k].key[l] = '\0';
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
int want_object(struct jctx *c, struct jval v, const char *where, const struct fdef *defs,
		bool closed, struct jobj *out)
{
	int r = want_vtype(c, v, json_type_object, where);
	return r ? r : resolve(c, v, where, defs, closed, out);
}

