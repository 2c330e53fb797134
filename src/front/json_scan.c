/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The one pass over the whole JSON text (json_scan.h).
 *
 * json-c is laxer than Go's encoding/json, which runc and Docker decode
 * profiles with (NaN, single-quoted keys, raw control characters in
 * strings), and it silently saturates integers beyond 64 bits.  The scan
 * enforces RFC 8259 and rejects out-of-range integers with their path;
 * where it stops, json_syntax.c asks json-c whether it stops too.  It also
 * finds duplicated keys: the last value counts for Go, and the profile
 * reader reads profiles so that it does for scmpc too, but a profile that
 * says two things about one key was most likely edited by mistake, and
 * nothing else would tell.
 *
 * Keys are decoded as Go decodes them, so that "a" and "\u0061" are one
 * key here as there; the JSON document (json_doc.c) lists an object's
 * members with the same decoding (json_decode_string()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/json_scan.h"

#define PATH_LEN 256
/* Listed one by one; the rest are only counted, so that a generated file
 * full of them cannot bury the other messages. */
#define MAX_DUP_WARNINGS 20

/* ---------------------------------------------------------------- scan */

struct dup {
	size_t pos;		/* the key's first repetition */
	char path[PATH_LEN];
};

/* An out-of-range integer: the literal, for the message, and its path. */
struct big {
	char lit[48];
	char path[PATH_LEN];
};

struct json_scan_report {
	/* The earliest duplicates by position (objects close innermost
	 * first, out of text order), and how many there are in all. */
	struct dup dups[MAX_DUP_WARNINGS];
	size_t nkept, ndups;
	/* The first out-of-range integer below the prefix, and anywhere. */
	struct big in_pre, any;
};

struct scan {
	const char *s;
	size_t n, i;
	/* the containers open where the scan stopped, outermost first */
	struct json_frame fr[JSON_MAX_DEPTH + 1];
	size_t nfr;
	size_t root_end;	/* past the top-level value, once it is complete */
	bool root_done;
	const char *pre;	/* out-of-range integers matter below this path */
	char path[PATH_LEN];
	bool path_ok;		/* false once a key did not fit in path */
	char why[128];		/* the first syntax error, at offset at */
	size_t at;
	bool oom;
	/* Keys of the objects still open, innermost last, decoded so that
	 * "a" and "\u0061" compare equal. */
	char *arena;
	size_t alen, acap;
	struct json_key *keys;
	size_t nkeys, kcap;
	struct json_scan_report *r;
};

/* Notes the first syntax error, WHY at the cursor; returns false. */
static bool sc_fail(struct scan *sc, const char *why)
{
	if (!sc->why[0]) {
		snprintf(sc->why, sizeof(sc->why), "%s", why);
		sc->at = sc->i;
	}
	return false;
}

/* Notes the first syntax error as the character at AT, then AFTER; returns
 * false. */
static bool sc_unexpected(struct scan *sc, size_t at, const char *after)
{
	char what[64];

	if (!sc->why[0]) {
		json_describe_char(sc->s, sc->n, at, what, sizeof(what));
		snprintf(sc->why, sizeof(sc->why), "unexpected %s%s", what, after);
		sc->at = at;
	}
	return false;
}

static bool sc_oom(struct scan *sc)
{
	sc->oom = true;
	return false;
}

static void sc_ws(struct scan *sc)
{
	while (sc->i < sc->n && json_ws(sc->s[sc->i]))
		sc->i++;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* The four hex digits at S[AT]; -1 when they are not. */
static long hex4(const struct scan *sc, size_t at)
{
	long v = 0;
	for (size_t j = 0; j < 4; j++) {
		int h = at + j < sc->n ? hexval(sc->s[at + j]) : -1;
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Appends the LEN bytes at B to the key arena, grown by doubling. */
static bool arena_put(struct scan *sc, const char *b, size_t len)
{
	if (len > sc->acap - sc->alen) {
		size_t cap = sc->acap;
		char *p;
		while (cap - sc->alen < len) {
			if (cap > SIZE_MAX / 2)
				return sc_oom(sc);
			cap *= 2;
		}
		if (!(p = realloc(sc->arena, cap)))
			return sc_oom(sc);
		sc->arena = p;
		sc->acap = cap;
	}
	memcpy(sc->arena + sc->alen, b, len);
	sc->alen += len;
	return true;
}

/* Appends code point CP to the key arena as UTF-8. */
static bool arena_put_cp(struct scan *sc, uint32_t cp)
{
	char b[4];
	size_t l;

	if (cp < 0x80) {
		b[0] = (char)cp, l = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), l = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)), l = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (char)(0x80 | (cp & 0x3f)), l = 4;
	}
	return arena_put(sc, b, l);
}

/* Scans the string at sc->i; with DECODE, appends its value to the arena
 * as UTF-8.  A lone surrogate decodes to U+FFFD, as Go decodes it, so keys
 * equal for Go are equal here. */
static bool sc_string(struct scan *sc, bool decode)
{
	sc->i++;	/* the opening quote */
	while (sc->i < sc->n) {
		unsigned char ch = (unsigned char)sc->s[sc->i];
		uint32_t cp = ch;
		size_t run;

		if (ch == '"') {
			sc->i++;
			return true;
		}
		if (ch < 0x20)
			return sc_fail(sc, "control character in a string");
		if (ch != '\\') {
			/* Copy up to the next quote, escape or control byte at once. */
			for (run = 1; sc->i + run < sc->n; run++) {
				unsigned char c2 = (unsigned char)sc->s[sc->i + run];
				if (c2 == '"' || c2 == '\\' || c2 < 0x20)
					break;
			}
			if (decode && !arena_put(sc, sc->s + sc->i, run))
				return false;
			sc->i += run;
			continue;
		}
		if (sc->i + 1 >= sc->n)
			break;
		switch (sc->s[sc->i + 1]) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u': {
			long v = hex4(sc, sc->i + 2), lo;
			if (v < 0)
				return sc_fail(sc, "invalid \\u escape in a string");
			cp = (uint32_t)v;
			sc->i += 4;
			if (cp >= 0xdc00 && cp < 0xe000) {
				cp = 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xdc00) {
				/* only a low surrogate right after completes the pair */
				if (sc->i + 7 < sc->n && sc->s[sc->i + 2] == '\\' && sc->s[sc->i + 3] == 'u' &&
				    (lo = hex4(sc, sc->i + 4)) >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
					sc->i += 6;
				} else {
					cp = 0xfffd;
				}
			}
			break;
		}
		default:
			return sc_fail(sc, "invalid escape in a string");
		}
		sc->i += 2;
		if (decode && !arena_put_cp(sc, cp))
			return false;
	}
	return sc_fail(sc, "unterminated string");
}

size_t json_decode_string(const char *s, size_t n, size_t at, char **buf, size_t *len, size_t *cap)
{
	struct scan sc;
	bool ok;

	/* sc_string() reads no other field; the rest of a scan (frames, path)
	 * is kilobytes, too much to clear for each key. */
	sc.s = s;
	sc.n = n;
	sc.i = at;
	sc.why[0] = '\0';
	sc.oom = false;
	sc.arena = *buf;
	sc.alen = *len;
	sc.acap = *cap;
	ok = sc_string(&sc, true);
	*buf = sc.arena;
	*len = sc.alen;
	*cap = sc.acap;
	return ok ? sc.i : 0;
}

/* PATH is PRE or below it, its keys matched as Go matches them, since Go
 * reads "Linux" as "linux". */
static bool in_prefix(const char *path, const char *pre)
{
	size_t n = json_fold_prefix(path, strlen(path), pre);

	if (!pre[0])
		return true;
	return n != SIZE_MAX && (path[n] == '\0' || path[n] == '.' || path[n] == '[');
}

/* Keeps the integer literal LIT (ND digits) and its PATH for the message. */
static void note_big(struct big *b, const char *path, const char *lit, size_t nd)
{
	snprintf(b->path, sizeof(b->path), "%s", path);
	if (nd < sizeof(b->lit))
		snprintf(b->lit, sizeof(b->lit), "%.*s", (int)nd, lit);
	else
		snprintf(b->lit, sizeof(b->lit), "%.20s...", lit);
}

/* Scans a number as RFC 8259 spells it, and notes an integer past 64 bits. */
static bool sc_number(struct scan *sc)
{
	const char *s = sc->s;
	size_t st = sc->i, digits_end;
	bool integer = true, neg = false;

	if (s[sc->i] == '-') {
		neg = true;
		sc->i++;
	}
	if (sc->i >= sc->n || !is_digit(s[sc->i]))
		return sc_fail(sc, "invalid number");
	if (s[sc->i] == '0')
		sc->i++;
	else
		while (sc->i < sc->n && is_digit(s[sc->i]))
			sc->i++;
	digits_end = sc->i;
	if (sc->i < sc->n && s[sc->i] == '.') {
		integer = false;
		sc->i++;
		if (sc->i >= sc->n || !is_digit(s[sc->i]))
			return sc_fail(sc, "invalid number");
		while (sc->i < sc->n && is_digit(s[sc->i]))
			sc->i++;
	}
	if (sc->i < sc->n && (s[sc->i] == 'e' || s[sc->i] == 'E')) {
		integer = false;
		sc->i++;
		if (sc->i < sc->n && (s[sc->i] == '+' || s[sc->i] == '-'))
			sc->i++;
		if (sc->i >= sc->n || !is_digit(s[sc->i]))
			return sc_fail(sc, "invalid number");
		while (sc->i < sc->n && is_digit(s[sc->i]))
			sc->i++;
	}
	/* json-c turns these into UINT64_MAX without a word; negative ones
	 * saturate to a negative value and are rejected as negative later. */
	size_t nd = digits_end - st;
	if (integer && !neg && (nd > 20 || (nd == 20 && memcmp(s + st, "18446744073709551615", 20) > 0)) &&
	    sc->path_ok) {
		if (!sc->r->any.path[0])
			note_big(&sc->r->any, sc->path, s + st, nd);
		if (!sc->r->in_pre.path[0] && in_prefix(sc->path, sc->pre))
			note_big(&sc->r->in_pre, sc->path, s + st, nd);
	}
	return true;
}

/* Scans the literal WORD (true, false, null). */
static bool sc_literal(struct scan *sc, const char *word)
{
	for (size_t k = 0; word[k]; k++)
		if (sc->i + k >= sc->n || sc->s[sc->i + k] != word[k])
			return sc_unexpected(sc, sc->i + k, "");
	sc->i += strlen(word);
	return true;
}

/* Appends ".KEY" (no dot at the start of a path) to the path in DST, which
 * has ROOM bytes; false when it had to be cut.  Control characters become
 * '?' so that a key cannot drive the terminal a message is printed on. */
static bool put_key(char *dst, size_t room, bool dot, const char *key, size_t klen)
{
	size_t w = 0;
	bool quote = !klen;	/* "" would vanish from the path */

	if (dot && w + 1 < room)
		dst[w++] = '.';
	if (quote && w + 1 < room)
		dst[w++] = '"';
	for (size_t k = 0; k < klen && w + 1 < room; k++) {
		unsigned char ch = (unsigned char)key[k];
		dst[w++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	if (quote && w + 1 < room)
		dst[w++] = '"';
	if (room)
		dst[w] = '\0';
	return w == (size_t)dot + klen + (quote ? 2 : 0);
}

/* Keeps the duplicate key K for a warning, among the earliest
 * MAX_DUP_WARNINGS by position. */
static void note_dup(struct scan *sc, const struct json_key *k)
{
	struct json_scan_report *r = sc->r;
	size_t at;

	r->ndups++;
	if (r->nkept == MAX_DUP_WARNINGS && k->pos > r->dups[MAX_DUP_WARNINGS - 1].pos)
		return;
	if (r->nkept < MAX_DUP_WARNINGS)
		r->nkept++;
	for (at = r->nkept - 1; at > 0 && r->dups[at - 1].pos > k->pos; at--)
		;
	memmove(&r->dups[at + 1], &r->dups[at], (r->nkept - 1 - at) * sizeof(r->dups[0]));
	r->dups[at].pos = k->pos;
	snprintf(r->dups[at].path, PATH_LEN, "%s", sc->path);
	size_t plen = strlen(r->dups[at].path);
	put_key(r->dups[at].path + plen, PATH_LEN - plen, plen > 0, sc->arena + k->off, k->len);
}

/* The keys A and B are the same bytes. */
static bool key_eq(const struct scan *sc, const struct json_key *a, const struct json_key *b)
{
	return a->len == b->len && (!a->len || !memcmp(sc->arena + a->off, sc->arena + b->off, a->len));
}

/* By key, then by position: each run of equal keys is in text order. */
static int key_cmp(const void *x, const void *y)
{
	const struct json_key *a = x, *b = y;
	size_t l = a->len < b->len ? a->len : b->len;
	int c = l ? memcmp(a->p, b->p, l) : 0;

	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void json_keys_sort(struct json_key *k, size_t m)
{
	qsort(k, m, sizeof(*k), key_cmp);
}

/* Notes each key the object being closed (keys from BASE on) repeats,
 * once, at its first repetition. */
static void check_object(struct scan *sc, size_t base)
{
	struct json_key *k = sc->keys + base;
	size_t m = sc->nkeys - base;

	if (m <= JSON_SMALL_OBJECT) {
		for (size_t j = 1; j < m; j++) {
			size_t same = 0;
			for (size_t i = 0; i < j && same < 2; i++)
				same += key_eq(sc, &k[i], &k[j]);
			if (same == 1)
				note_dup(sc, &k[j]);
		}
		return;
	}
	for (size_t i = 0; i < m; i++)
		k[i].p = sc->arena + k[i].off;
	json_keys_sort(k, m);
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && key_eq(sc, &k[i], &k[j]); j++)
			;
		if (j - i > 1)
			note_dup(sc, &k[i + 1]);
	}
}

static bool sc_value(struct scan *sc, int depth);

/* Scans one member value with KEY (or index IDX when KEY is NULL) appended
 * to the current path. */
static bool sc_member(struct scan *sc, const char *key, size_t klen, size_t idx, int depth)
{
	size_t plen = strlen(sc->path);
	bool ok = sc->path_ok;

	if (ok) {
		size_t room = PATH_LEN - plen;
		if (key) {
			if (!put_key(sc->path + plen, room, plen > 0, key, klen))
				sc->path_ok = false;
		} else {
			int w = snprintf(sc->path + plen, room, "[%zu]", idx);
			if (w < 0 || (size_t)w >= room)
				sc->path_ok = false;
		}
	}
	bool r = sc_value(sc, depth + 1);
	sc->path[plen] = '\0';
	sc->path_ok = ok;
	return r;
}

/* Opens a container at sc->i (depth checked by sc_value(), so there is
 * room). */
static void sc_push(struct scan *sc, char open)
{
	sc->i++;
	sc->fr[sc->nfr++] = (struct json_frame){ .open = open, .cursor = sc->i };
}

/* Steps over a comma between members of the innermost container. */
static void sc_comma(struct scan *sc)
{
	sc->i++;
	sc->fr[sc->nfr - 1].some = true;
	sc->fr[sc->nfr - 1].cursor = sc->i;
}

/* Steps over the closing bracket of the innermost container. */
static bool sc_pop(struct scan *sc)
{
	sc->i++;
	sc->nfr--;
	return true;
}

/* Scans the object at sc->i, DEPTH deep, and notes its duplicate keys. */
static bool sc_object(struct scan *sc, int depth)
{
	size_t base = sc->nkeys, abase = sc->alen;

	sc_push(sc, '{');
	sc_ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == '}')
		return sc_pop(sc);
	for (;;) {
		struct json_key *k;
		sc_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != '"')
			return sc_fail(sc, "expected a double-quoted key");
		if (!array_reserve(&sc->keys, &sc->kcap, sc->nkeys, sizeof(*sc->keys), 16))
			return sc_oom(sc);
		k = &sc->keys[sc->nkeys++];
		k->off = sc->alen;
		k->pos = sc->i;
		if (!sc_string(sc, true))
			return false;
		k->len = sc->alen - k->off;
		sc_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != ':')
			return sc_fail(sc, "expected ':'");
		sc->i++;
		/* k is not used past here: objects in the value may move the
		 * key array */
		if (!sc_member(sc, sc->arena + k->off, k->len, 0, depth))
			return false;
		sc_ws(sc);
		if (sc->i < sc->n && sc->s[sc->i] == ',') {
			sc_comma(sc);
			continue;
		}
		if (sc->i < sc->n && sc->s[sc->i] == '}') {
			check_object(sc, base);
			sc->nkeys = base;
			sc->alen = abase;
			return sc_pop(sc);
		}
		return sc_fail(sc, "expected ',' or '}'");
	}
}

/* Scans the array at sc->i, DEPTH deep. */
static bool sc_array(struct scan *sc, int depth)
{
	sc_push(sc, '[');
	sc_ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == ']')
		return sc_pop(sc);
	for (size_t idx = 0;; idx++) {
		if (!sc_member(sc, NULL, 0, idx, depth))
			return false;
		sc_ws(sc);
		if (sc->i < sc->n && sc->s[sc->i] == ',') {
			sc_comma(sc);
			continue;
		}
		if (sc->i < sc->n && sc->s[sc->i] == ']')
			return sc_pop(sc);
		return sc_fail(sc, "expected ',' or ']'");
	}
}

/* Scans the value at sc->i, past white space, DEPTH deep. */
static bool sc_value(struct scan *sc, int depth)
{
	sc_ws(sc);
	if (sc->i >= sc->n)
		return sc_fail(sc, "unexpected end of input");
	if (depth > JSON_MAX_DEPTH)
		return sc_fail(sc, "nesting too deep");
	switch (sc->s[sc->i]) {
	case '{':
		return sc_object(sc, depth);
	case '[':
		return sc_array(sc, depth);
	case '"':
		return sc_string(sc, false);
	case 't':
		return sc_literal(sc, "true");
	case 'f':
		return sc_literal(sc, "false");
	case 'n':
		return sc_literal(sc, "null");
	default:
		if (sc->s[sc->i] == '-' || is_digit(sc->s[sc->i]))
			return sc_number(sc);
		return sc_unexpected(sc, sc->i, "");
	}
}


int json_scan(const char *s, size_t n, const char *pre, struct json_scan_report **out,
		   scmpc_diag *d)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	int r = 0;

	*out = NULL;
	/* allocated up front: an empty first key points into it too */
	if (!sc || !(sc->arena = malloc(sc->acap = 256)) || !(sc->r = calloc(1, sizeof(*sc->r)))) {
		if (sc)
			free(sc->arena);
		free(sc);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	sc->s = s;
	sc->n = n;
	sc->pre = pre;
	sc->path_ok = true;
	if (sc_value(sc, 1)) {
		sc->root_done = true;
		sc->root_end = sc->i;
		sc_ws(sc);
		if (sc->i < sc->n)
			sc_unexpected(sc, sc->i, " after the top-level value");
	}
	if (sc->oom)
		r = diag_err(d, -ENOMEM, NULL, "out of memory");
	else if (sc->why[0])
		r = json_verdict(&(struct json_stop){ s, n, sc->fr, sc->nfr, sc->root_done, sc->root_end,
						      sc->at, sc->why }, d);
	if (r)
		free(sc->r);
	else
		*out = sc->r;
	free(sc->arena);
	free(sc->keys);
	free(sc);
	return r;
}

int json_scan_report(struct json_scan_report *r, bool in_pre, const size_t *skip, size_t nskip,
		     scmpc_diag *d)
{
	const struct big *b = in_pre ? &r->in_pre : &r->any;
	int ret = 0;

	for (size_t i = 0; i < r->nkept; i++) {
		size_t k;
		for (k = 0; k < nskip && skip[k] != r->dups[i].pos; k++)
			;
		if (k == nskip)
			diag_warn(d, "%s: duplicate key; the last value counts", r->dups[i].path);
	}
	if (r->ndups > r->nkept)
		diag_warn(d, "%zu more duplicate keys; the last value of each counts", r->ndups - r->nkept);
	if (b->path[0])
		ret = diag_err(d, -EINVAL, b->path, "%s does not fit in 64 bits", b->lit);
	free(r);
	return ret;
}

void json_scan_report_free(struct json_scan_report *r)
{
	free(r);
}

int json_scan_check(const char *s, size_t n, const char *pre, scmpc_diag *d)
{
	struct json_scan_report *r;
	int ret = json_scan(s, n, pre, &r, d);

	return ret ? ret : json_scan_report(r, pre[0] != '\0', NULL, 0, d);
}
