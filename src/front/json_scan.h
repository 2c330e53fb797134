/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The JSON text checks, made before anything reads a value: what bytes
 * that cannot be UTF-8 JSON are, and syntax errors by line and column in
 * the words scmpc has always used (json_syntax.c); the one pass that holds
 * the text to what Go's encoding/json accepts, finds integers past 64 bits
 * and duplicate keys, and lists an object's members as Go decodes its keys
 * (json_scan.c).  Below the JSON document (json_doc.h): nothing here knows
 * a profile.
 */
#ifndef SCMPC_JSON_SCAN_H
#define SCMPC_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
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

/* What json-c makes of the value at S[AT] (valid JSON text), as messages
 * name it: "an object", "a string", "a non-integer number", "null", ... */
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

/* KEY (KLEN bytes, decoded) names the field NAME for Go's encoding/json:
 * equal but for ASCII case, U+017F for 's' and U+212A for 'k'. */
bool json_fold_eq(const char *key, size_t klen, const char *name);

/* Navigation in text json_scan() accepted; offsets point at the first
 * character of a value. */

/* One member of an object, in text order, with its key decoded as Go
 * decodes it (a NUL character included, where json-c would cut the key). */
struct json_member {
	size_t key_at;		/* the key's opening quote */
	size_t koff, klen;	/* the key in json_members.keys */
	size_t at;		/* the value */
	bool repeat;		/* an earlier member has the very same key */
};

struct json_members {
	struct json_member *m;
	size_t n, cap;
	char *keys;
	size_t kcap;
};

/* Fills OUT (reused from call to call) with the members of the object at
 * S[AT].  Returns 0 or -ENOMEM. */
int json_text_members(const char *s, size_t n, size_t at, struct json_members *out);
void json_members_free(struct json_members *ms);

/* The offset just past the value at S[AT]. */
size_t json_text_skip(const char *s, size_t n, size_t at);

/* The first element of the array at S[AT], and the element after the one
 * at S[AT]; N when there is none. */
size_t json_text_first(const char *s, size_t n, size_t at);
size_t json_text_next(const char *s, size_t n, size_t at);
/* json_text_next() of the element that ends at END. */
size_t json_text_after(const char *s, size_t n, size_t end);

#endif
