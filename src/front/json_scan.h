/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON text checks, made before anything reads a value: what bytes
 * that cannot be UTF-8 JSON are, and syntax errors by line and column in
 * the words scmpc has always used (json_syntax.c); the one pass that holds
 * the text to what Go's encoding/json accepts, finds integers past 64 bits
 * and duplicate keys, and decodes keys as Go does (json_scan.c).  Below
 * the JSON document (json_doc.h): nothing here knows a profile.
 */
#ifndef SCMPC_JSON_SCAN_H
#define SCMPC_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>
#include "base/base.h"

/* json-c's default of 32 is plenty for profiles; a config.json nests a few
 * levels more, and neither comes close to 64. */
#define JSON_MAX_DEPTH 64

/* JSON's white space. */
static inline bool json_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* ---- json_syntax.c */

/* S has the shape of a compiled classic BPF program (an array of struct
 * sock_filter in either byte order), not of text. */
bool json_is_filter(const char *s, size_t n);

/* Before the scan: 0, or -EINVAL with the reason in D when S cannot be
 * UTF-8 JSON text (UTF-16 or UTF-32, a compiled filter, a NUL byte). */
int json_precheck(const char *s, size_t n, scmpc_diag *d);

/* The type json-c gives the value at S[AT] (valid JSON text, AT < N). */
enum json_type json_value_type(const char *s, size_t n, size_t at);

/* How messages name a value of type T: "an object", "a string", "a
 * non-integer number", "null", ... */
const char *json_type_kind(enum json_type t);

/* The kind of the value at S[AT] (valid JSON text), as messages name it. */
const char *json_value_kind(const char *s, size_t n, size_t at);

/* The character at S[OFF] as a message names it (BUF, LEN bytes). */
void json_describe_char(const char *s, size_t n, size_t off, char *buf, size_t len);

/* An open container where the scan stopped: json-c is in the same state
 * at CURSOR, just past the opening bracket or (SOME) a comma, whatever the
 * members before it held. */
struct json_frame {
	char open;
	bool some;
	size_t cursor;
};

/* Where and why the scan refused S. */
struct json_stop {
	const char *s;
	size_t n;
	const struct json_frame *fr;	/* the containers open there, outermost first */
	size_t nfr;
	bool root_done;			/* the top-level value was complete... */
	size_t root_end;		/* ...and ended here */
	size_t at;			/* the scan's error, in its words */
	const char *why;
};

/* Records in D the error a text the scan refused is named by: json-c's,
 * where json-c refuses the text too, else the scan's; returns it. */
int json_verdict(const struct json_stop *st, scmpc_diag *d);

/* ---- json_scan.c */

/* The one pass over S, after json_precheck(): a syntax error is named in
 * json-c's words where json-c refuses S too, else as Go's decoder refuses
 * it; so is an integer past 64 bits at or below path PRE ("": the whole
 * document); each duplicated key is a warning.  Returns 0 or a negative
 * errno. */
int json_scan_check(const char *s, size_t n, const char *pre, scmpc_diag *d);

/* json_scan_check() in two steps, for a caller that reads the document in
 * between and must not have "the last value counts" said of a duplicate it
 * refuses.  The scan records syntax errors in D and returns them; on
 * success *OUT holds what else it found, for json_scan_report().  PRE is
 * matched the way Go matches keys. */
struct json_scan_report;
int json_scan(const char *s, size_t n, const char *pre, struct json_scan_report **out,
	      scmpc_diag *d);
/* Warns of each duplicated key except those whose repetition starts at one
 * of the NSKIP offsets in SKIP; then returns the first integer past 64 bits
 * below PRE (IN_PRE) or anywhere as an error, or 0.  Frees R. */
int json_scan_report(struct json_scan_report *r, bool in_pre, const size_t *skip, size_t nskip,
		     scmpc_diag *d);
void json_scan_report_free(struct json_scan_report *r);

static inline char json_ascii_upper(char ch)
{
	return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
}

/* Go's encoding/json matches a key to a field as bytes.EqualFold does:
 * ASCII letters in either case, and the two other characters whose simple
 * case folding is an ASCII letter, U+017F (long s) and U+212A (Kelvin
 * sign).  The number of bytes of S that spell NAME (ASCII) that way, or
 * SIZE_MAX when S does not begin with it.  Inline: the profile reader
 * tries every member of every object against each field. */
static inline size_t json_fold_prefix(const char *s, size_t len, const char *name)
{
	size_t i = 0;

	for (; *name; name++) {
		char up = json_ascii_upper(*name);
		if (i < len && (unsigned char)s[i] < 0x80 && json_ascii_upper(s[i]) == up)
			i++;
		else if (up == 'S' && len - i >= 2 && !memcmp(s + i, "\xc5\xbf", 2))
			i += 2;
		else if (up == 'K' && len - i >= 3 && !memcmp(s + i, "\xe2\x84\xaa", 3))
			i += 3;
		else
			return SIZE_MAX;
	}
	return i;
}

/* KEY (KLEN bytes, decoded) names the field NAME for Go's encoding/json:
 * equal but for ASCII case, U+017F for 's' and U+212A for 'k'. */
static inline bool json_fold_eq(const char *key, size_t klen, const char *name)
{
	return json_fold_prefix(key, klen, name) == klen;
}

/* For the document (json_doc.c), in text json_scan() accepted: */

/* Decodes the string at S[AT] as Go decodes it (a lone surrogate as
 * U+FFFD), appending its value to the buffer *BUF of *CAP bytes (at least
 * one), *LEN of them used, grown as needed.  Returns the offset just past
 * the string, or 0 without memory. */
size_t json_decode_string(const char *s, size_t n, size_t at, char **buf, size_t *len, size_t *cap);

/* Objects up to this many keys are compared pair by pair; larger ones are
 * sorted, so that one huge object costs n log n, not n squared. */
#define JSON_SMALL_OBJECT 16

/* A decoded key of an object. */
struct json_key {
	size_t off, len;	/* where the key is in its buffer */
	size_t pos;		/* its place in text order */
	const char *p;		/* its bytes, set for sorting */
};

/* Sorts the M keys at K by their bytes, each run of equal keys by POS. */
void json_keys_sort(struct json_key *k, size_t m);

#endif
