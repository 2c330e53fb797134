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
 * json-c builds the tree, but it is laxer than Go's encoding/json (NaN,
 * single-quoted keys, raw control characters in strings) and it silently
 * saturates integers beyond 64 bits.  A second pass over the text (scan_*)
 * therefore enforces RFC 8259 and rejects out-of-range integers with their
 * path.  Duplicate keys keep the last value, as both json-c and Go do.
 * JSON null counts as "not set" everywhere, as Go decodes it.
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <json-c/json.h>
#include "internal.h"

#define PATH_LEN 256
/* json-c's default of 32 is plenty for profiles; a config.json nests a few
 * levels more, and neither comes close to 64. */
#define MAX_DEPTH 64
/* A hostile profile can multiply names by same-index conditions; stop well
 * before that exhausts memory. */
#define MAX_RULES (1U << 20)

/* Kernel ABI values of SECCOMP_FILTER_FLAG_* (include/uapi/linux/seccomp.h);
 * spelled out because older headers lack the newer ones. */
#define FLAG_TSYNC 0x1U
#define FLAG_LOG 0x2U
#define FLAG_SPEC_ALLOW 0x4U
#define FLAG_WAIT_KILLABLE_RECV 0x20U

struct jctx {
	scmpc_diag *d;
	struct scmpc_json_opts o;
	char pre[16];		/* "" or "linux.seccomp": prefix of every path */
	bool docker;		/* Docker/Podman extensions are understood */
	const char *const *caps;
	scmpc_policy *p;
	uint32_t def_action;
	bool have_kernel;
	unsigned kmaj, kmin;
	size_t nrules;
};

/* ------------------------------------------------------------ reporting */

static void line_col(const char *s, size_t len, size_t off, unsigned *line, unsigned *col)
{
	unsigned l = 1, c = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (s[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)s[i] & 0xc0) != 0x80) {
			c++;	/* count characters, not UTF-8 continuation bytes */
		}
	}
	*line = l;
	*col = c;
}

static int syntax_err(scmpc_diag *d, const char *s, size_t len, size_t off, const char *why)
{
	unsigned line, col;
	char where[64];
	line_col(s, len, off, &line, &col);
	snprintf(where, sizeof(where), "line %u, column %u", line, col);
	return diag_err(d, -EINVAL, where, "invalid JSON: %s", why);
}

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

static const char *kpath(char *buf, const char *base, const char *key)
{
	/* Paths are for messages: a truncated one is still useful. */
	if (snprintf(buf, PATH_LEN, "%s%s%s", base, base[0] ? "." : "", key) >= PATH_LEN)
		buf[PATH_LEN - 1] = '\0';
	return buf;
}

static const char *ipath(char *buf, const char *base, size_t i)
{
	if (snprintf(buf, PATH_LEN, "%s[%zu]", base, i) >= PATH_LEN)
		buf[PATH_LEN - 1] = '\0';
	return buf;
}

/* ------------------------------------------------- strict syntax pass */

struct scan {
	const char *s;
	size_t n, i;
	const char *pre;	/* out-of-range integers matter below this path */
	char path[PATH_LEN];
	bool path_ok;		/* false once a key did not fit in path */
	const char *why;
	size_t at;
	char lit[48];		/* the out-of-range literal, for the message */
	char bad_path[PATH_LEN];
};

static bool sc_fail(struct scan *sc, const char *why)
{
	if (!sc->why) {
		sc->why = why;
		sc->at = sc->i;
	}
	return false;
}

static void sc_ws(struct scan *sc)
{
	while (sc->i < sc->n && (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\t' ||
				 sc->s[sc->i] == '\n' || sc->s[sc->i] == '\r'))
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

/* Decodes into KEY (when not NULL) only what a path needs: ASCII, since no
 * field scmpc reads has another character in its name. */
static bool sc_string(struct scan *sc, char *key, size_t keylen, bool *key_ok)
{
	size_t k = 0;

	sc->i++;	/* the opening quote */
	while (sc->i < sc->n) {
		unsigned char ch = (unsigned char)sc->s[sc->i];
		char out = (char)ch;
		if (ch == '"') {
			sc->i++;
			if (key)
				key[k] = '\0';
			return true;
		}
		if (ch < 0x20)
			return sc_fail(sc, "control character in a string");
		if (ch == '\\') {
			if (sc->i + 1 >= sc->n)
				break;
			switch (sc->s[sc->i + 1]) {
			case '"': out = '"'; break;
			case '\\': out = '\\'; break;
			case '/': out = '/'; break;
			case 'b': out = '\b'; break;
			case 'f': out = '\f'; break;
			case 'n': out = '\n'; break;
			case 'r': out = '\r'; break;
			case 't': out = '\t'; break;
			case 'u': {
				unsigned cp = 0;
				for (size_t j = 2; j < 6; j++) {
					int h = sc->i + j < sc->n ? hexval(sc->s[sc->i + j]) : -1;
					if (h < 0)
						return sc_fail(sc, "invalid \\u escape in a string");
					cp = cp * 16 + (unsigned)h;
				}
				out = cp > 0 && cp < 0x80 ? (char)cp : '?';
				sc->i += 4;
				break;
			}
			default:
				return sc_fail(sc, "invalid escape in a string");
			}
			sc->i += 2;
		} else {
			sc->i++;
		}
		if (key) {
			if (k + 1 < keylen)
				key[k++] = out;
			else
				*key_ok = false;
		}
	}
	return sc_fail(sc, "unterminated string");
}

static bool in_prefix(const char *path, const char *pre)
{
	size_t n = strlen(pre);
	if (!n)
		return true;
	return !strncmp(path, pre, n) && (path[n] == '\0' || path[n] == '.' || path[n] == '[');
}

static bool sc_number(struct scan *sc)
{
	const char *s = sc->s;
	size_t st = sc->i, digits_end;
	bool integer = true, neg = false;

	if (s[sc->i] == '-') {
		neg = true;
		sc->i++;
	}
	if (sc->i >= sc->n || !isdigit((unsigned char)s[sc->i]))
		return sc_fail(sc, "invalid number");
	if (s[sc->i] == '0')
		sc->i++;
	else
		while (sc->i < sc->n && isdigit((unsigned char)s[sc->i]))
			sc->i++;
	digits_end = sc->i;
	if (sc->i < sc->n && s[sc->i] == '.') {
		integer = false;
		sc->i++;
		if (sc->i >= sc->n || !isdigit((unsigned char)s[sc->i]))
			return sc_fail(sc, "invalid number");
		while (sc->i < sc->n && isdigit((unsigned char)s[sc->i]))
			sc->i++;
	}
	if (sc->i < sc->n && (s[sc->i] == 'e' || s[sc->i] == 'E')) {
		integer = false;
		sc->i++;
		if (sc->i < sc->n && (s[sc->i] == '+' || s[sc->i] == '-'))
			sc->i++;
		if (sc->i >= sc->n || !isdigit((unsigned char)s[sc->i]))
			return sc_fail(sc, "invalid number");
		while (sc->i < sc->n && isdigit((unsigned char)s[sc->i]))
			sc->i++;
	}
	/* json-c turns these into UINT64_MAX without a word; negative ones
	 * saturate to a negative value and are rejected as negative later. */
	size_t nd = digits_end - st;
	if (integer && !neg && (nd > 20 || (nd == 20 && memcmp(s + st, "18446744073709551615", 20) > 0)) &&
	    !sc->bad_path[0] && sc->path_ok && in_prefix(sc->path, sc->pre)) {
		snprintf(sc->bad_path, sizeof(sc->bad_path), "%s", sc->path);
		if (nd < sizeof(sc->lit))
			snprintf(sc->lit, sizeof(sc->lit), "%.*s", (int)nd, s + st);
		else
			snprintf(sc->lit, sizeof(sc->lit), "%.20s...", s + st);
	}
	return true;
}

static bool sc_literal(struct scan *sc, const char *word)
{
	size_t l = strlen(word);
	if (sc->n - sc->i < l || memcmp(sc->s + sc->i, word, l))
		return sc_fail(sc, "unexpected character");
	sc->i += l;
	return true;
}

static bool sc_value(struct scan *sc, int depth);

/* Scans one member value with KEY (or index IDX when KEY is NULL) appended
 * to the current path. */
static bool sc_member(struct scan *sc, const char *key, size_t idx, int depth)
{
	size_t plen = strlen(sc->path);
	bool ok = sc->path_ok;
	if (ok) {
		size_t room = PATH_LEN - plen;
		int w = key ? snprintf(sc->path + plen, room, "%s%s", plen ? "." : "", key)
			    : snprintf(sc->path + plen, room, "[%zu]", idx);
		if (w < 0 || (size_t)w >= room)
			sc->path_ok = false;
	}
	bool r = sc_value(sc, depth + 1);
	sc->path[plen] = '\0';
	sc->path_ok = ok;
	return r;
}

static bool sc_value(struct scan *sc, int depth)
{
	sc_ws(sc);
	if (sc->i >= sc->n)
		return sc_fail(sc, "unexpected end of input");
	if (depth > MAX_DEPTH)
		return sc_fail(sc, "nesting too deep");
	switch (sc->s[sc->i]) {
	case '{':
		sc->i++;
		sc_ws(sc);
		if (sc->i < sc->n && sc->s[sc->i] == '}') {
			sc->i++;
			return true;
		}
		for (;;) {
			char key[PATH_LEN];
			bool key_ok = true;
			sc_ws(sc);
			if (sc->i >= sc->n || sc->s[sc->i] != '"')
				return sc_fail(sc, "expected a double-quoted key");
			if (!sc_string(sc, key, sizeof(key), &key_ok))
				return false;
			sc_ws(sc);
			if (sc->i >= sc->n || sc->s[sc->i] != ':')
				return sc_fail(sc, "expected ':'");
			sc->i++;
			bool saved = sc->path_ok;
			if (!key_ok)
				sc->path_ok = false;
			bool r = sc_member(sc, key, 0, depth);
			sc->path_ok = saved;
			if (!r)
				return false;
			sc_ws(sc);
			if (sc->i < sc->n && sc->s[sc->i] == ',') {
				sc->i++;
				continue;
			}
			if (sc->i < sc->n && sc->s[sc->i] == '}') {
				sc->i++;
				return true;
			}
			return sc_fail(sc, "expected ',' or '}'");
		}
	case '[':
		sc->i++;
		sc_ws(sc);
		if (sc->i < sc->n && sc->s[sc->i] == ']') {
			sc->i++;
			return true;
		}
		for (size_t idx = 0;; idx++) {
			if (!sc_member(sc, NULL, idx, depth))
				return false;
			sc_ws(sc);
			if (sc->i < sc->n && sc->s[sc->i] == ',') {
				sc->i++;
				continue;
			}
			if (sc->i < sc->n && sc->s[sc->i] == ']') {
				sc->i++;
				return true;
			}
			return sc_fail(sc, "expected ',' or ']'");
		}
	case '"':
		return sc_string(sc, NULL, 0, NULL);
	case 't':
		return sc_literal(sc, "true");
	case 'f':
		return sc_literal(sc, "false");
	case 'n':
		return sc_literal(sc, "null");
	default:
		if (sc->s[sc->i] == '-' || isdigit((unsigned char)sc->s[sc->i]))
			return sc_number(sc);
		return sc_fail(sc, "unexpected character");
	}
}

static int strict_scan(struct jctx *c, const char *s, size_t n)
{
	struct scan sc;
	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	sc.n = n;
	sc.pre = c->pre;
	sc.path_ok = true;
	if (sc_value(&sc, 1)) {
		sc_ws(&sc);
		if (sc.i < sc.n)
			sc_fail(&sc, "unexpected character after the top-level value");
	}
	if (sc.why)
		return syntax_err(c->d, s, n, sc.at, sc.why);
	if (sc.bad_path[0])
		return jerr(c, sc.bad_path, "%s does not fit in 64 bits", sc.lit);
	return 0;
}

/* ------------------------------------------------------- typed access */

/* KEY of OBJ, or NULL when absent or null: Go decodes null as "not set". */
static json_object *member(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

static const char *kind(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a non-integer number";
	case json_type_int: return "a number";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "an unknown value";
}

static int want_type(struct jctx *c, json_object *v, enum json_type t, const char *where)
{
	static const char *const names[] = {
		[json_type_object] = "an object",
		[json_type_array] = "an array",
		[json_type_string] = "a string",
	};
	if (json_object_is_type(v, t))
		return 0;
	return jerr(c, where, "expected %s, got %s", names[t], kind(v));
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

static int want_u64(struct jctx *c, json_object *v, const char *where, uint64_t *out)
{
	switch (json_object_get_type(v)) {
	case json_type_int:
		if (json_object_get_int64(v) < 0)
			return jerr(c, where, "expected an unsigned integer, got %s",
				    json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		*out = json_object_get_uint64(v);
		return 0;
	case json_type_double:
		return jerr(c, where, "expected an unsigned integer, got %s",
			    json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	default:
		return jerr(c, where, "expected an unsigned integer, got %s", kind(v));
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

static bool in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Go ignores keys it does not know; say so, since it is usually a typo. */
static void check_keys(struct jctx *c, json_object *obj, const char *where,
		       const char *const *known, const char *const *docker_only)
{
	json_object_object_foreach(obj, key, val) {
		(void)val;
		if (in_list(known, key))
			continue;
		if (in_list(docker_only, key)) {
			if (!c->docker)
				jwarn(c, where, "\"%s\" is a Docker profile field; ignored in an OCI profile",
				      key);
			continue;
		}
		jwarn(c, where, "unknown key \"%s\" ignored", key);
	}
}

static const char *const top_keys[] = { "defaultAction", "defaultErrnoRet", "architectures", "flags",
					"listenerPath", "listenerMetadata", "syscalls", NULL };
static const char *const top_docker_keys[] = { "archMap", "defaultErrno", NULL };
static const char *const entry_keys[] = { "names", "action", "errnoRet", "args", NULL };
static const char *const entry_docker_keys[] = { "name", "comment", "includes", "excludes", "errno",
						 NULL };
static const char *const arg_keys[] = { "index", "value", "valueTwo", "op", NULL };
static const char *const filter_keys[] = { "caps", "arches", "minKernel", NULL };
static const char *const archmap_keys[] = { "architecture", "subArchitectures", NULL };

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

static const struct {
	const char *name;
	unsigned bit;
} filter_flags[] = {
	{ "SECCOMP_FILTER_FLAG_TSYNC", FLAG_TSYNC },
	{ "SECCOMP_FILTER_FLAG_LOG", FLAG_LOG },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", FLAG_SPEC_ALLOW },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", FLAG_WAIT_KILLABLE_RECV },
};

/* Every SCMP_ARCH_* token the runtime-spec and libseccomp define; the ones
 * scmpc cannot compile for are skipped rather than rejected. */
static const struct {
	const char *tok;
	enum scmpc_arch a;
} arch_tokens[] = {
	{ "SCMP_ARCH_X86", SCMPC_ARCH_I386 },	    { "SCMP_ARCH_X86_64", SCMPC_ARCH_X86_64 },
	{ "SCMP_ARCH_X32", SCMPC_ARCH_X32 },	    { "SCMP_ARCH_ARM", SCMPC_ARCH_ARM },
	{ "SCMP_ARCH_AARCH64", SCMPC_ARCH_AARCH64 }, { "SCMP_ARCH_LOONGARCH64", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_M68K", SCMPC_ARCH_NONE },	    { "SCMP_ARCH_MIPS", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_MIPS64", SCMPC_ARCH_NONE },    { "SCMP_ARCH_MIPS64N32", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_MIPSEL", SCMPC_ARCH_NONE },    { "SCMP_ARCH_MIPSEL64", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_MIPSEL64N32", SCMPC_ARCH_NONE }, { "SCMP_ARCH_PPC", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_PPC64", SCMPC_ARCH_NONE },	    { "SCMP_ARCH_PPC64LE", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_S390", SCMPC_ARCH_NONE },	    { "SCMP_ARCH_S390X", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_SH", SCMPC_ARCH_NONE },	    { "SCMP_ARCH_SHEB", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_PARISC", SCMPC_ARCH_NONE },    { "SCMP_ARCH_PARISC64", SCMPC_ARCH_NONE },
	{ "SCMP_ARCH_RISCV64", SCMPC_ARCH_NONE },
};

/* The host names moby and containers/common test includes/excludes.arches
 * against (libseccomp's native-arch strings; Go's "386" becomes "x86").  No
 * Go runtime is x32, so "x32" is scmpc's own choice for that target. */
static const char *host_arch_name(enum scmpc_arch a)
{
	switch (a) {
	case SCMPC_ARCH_X86_64: return "amd64";
	case SCMPC_ARCH_I386: return "x86";
	case SCMPC_ARCH_X32: return "x32";
	case SCMPC_ARCH_AARCH64: return "arm64";
	case SCMPC_ARCH_ARM: return "arm";
	default: return "";
	}
}

static const char *arch_token(enum scmpc_arch a)
{
	for (size_t i = 0; i < ARRAY_SIZE(arch_tokens); i++)
		if (arch_tokens[i].a == a)
			return arch_tokens[i].tok;
	return "";
}

/* Docker's default bounding set (moby oci/caps/defaults.go). */
static const char *const docker_default_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL,
};

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
	return jerr(c, where, "unknown action \"%s\"", s);
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
				return jerr(c, where, "errno %s is above 4095", s);
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
 * TRACE carries a 16-bit message. */
static int action_data(struct jctx *c, uint32_t act, uint64_t v, const char *field, const char *where,
		       uint32_t *out)
{
	uint64_t max = act == SCMPC_ACT_ERRNO(0) ? 4095 : 0xffff;
	if (v > max)
		return jerr(c, where, "%s %" PRIu64 " is above %" PRIu64, field, v, max);
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

struct jfilter {
	bool present;
	json_object *caps, *arches;
	bool has_min;
	unsigned kmaj, kmin;
};

static int parse_filter(struct jctx *c, json_object *v, const char *where, struct jfilter *f)
{
	char b[PATH_LEN];
	const char *s;
	json_object *m;
	int r;

	memset(f, 0, sizeof(*f));
	if (!v)
		return 0;
	if ((r = want_type(c, v, json_type_object, where)))
		return r;
	f->present = true;
	check_keys(c, v, where, filter_keys, NULL);
	if ((m = member(v, "caps")) && (r = want_string_array(c, m, kpath(b, where, "caps"))))
		return r;
	f->caps = m;
	if ((m = member(v, "arches")) && (r = want_string_array(c, m, kpath(b, where, "arches"))))
		return r;
	f->arches = m;
	if (!(m = member(v, "minKernel")))
		return 0;
	kpath(b, where, "minKernel");
	if ((r = want_string(c, m, b, &s)))
		return r;
	/* moby leaves "" as version 0.0, which every kernel satisfies. */
	f->has_min = true;
	if (!s[0])
		return 0;
	const char *dot = strchr(s, '.');
	if (!dot || strchr(dot + 1, '.') || !parse_u8(s, (size_t)(dot - s), &f->kmaj) ||
	    !parse_u8(dot + 1, strlen(dot + 1), &f->kmin))
		return jerr(c, b, "invalid kernel version \"%s\": expected \"<kernel>.<major>\"", s);
	if (!f->kmaj && !f->kmin)
		return jerr(c, b, "invalid kernel version \"%s\": version cannot be 0.0", s);
	return 0;
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
static int docker_keep(struct jctx *c, json_object *e, const char *ew, bool *keep)
{
	char b[PATH_LEN];
	struct jfilter inc, exc;
	const char *host = host_arch_name(c->o.arch);
	bool ge;
	int r;

	*keep = false;
	if ((r = parse_filter(c, member(e, "excludes"), kpath(b, ew, "excludes"), &exc)) ||
	    (r = parse_filter(c, member(e, "includes"), kpath(b, ew, "includes"), &inc)))
		return r;
	if (exc.present) {
		if (array_has(exc.arches, host))
			return 0;
		for (size_t i = 0; exc.caps && i < json_object_array_length(exc.caps); i++)
			if (has_cap(c, json_object_get_string(json_object_array_get_idx(exc.caps, i))))
				return 0;
		if (exc.has_min) {
			if ((r = kernel_at_least(c, &exc, kpath(b, ew, "excludes.minKernel"), &ge)))
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
			if ((r = kernel_at_least(c, &inc, kpath(b, ew, "includes.minKernel"), &ge)))
				return r;
			if (!ge)
				return 0;
		}
	}
	*keep = true;
	return 0;
}

/* Unknown in runc's sense: libseccomp knows the name on no architecture at
 * all.  A name that only other ABIs have (arm_fadvise64_64 in an x86
 * policy) is normal in multi-arch profiles; it simply resolves nowhere.
 * libseccomp answers a pseudo-number (< 0 but not __NR_SCMP_ERROR) for a
 * name it knows elsewhere, which keeps this to a few hash lookups. */
static bool syscall_known(const char *name)
{
	for (enum scmpc_arch a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if (seccomp_syscall_resolve_name_arch(arch_info(a)->scmp_token, name) !=
		    __NR_SCMP_ERROR)
			return true;
	return false;
}

/* ------------------------------------------------------------ entries */

static int parse_arg(struct jctx *c, json_object *a, const char *aw, bool keep, struct scmpc_cond *cond)
{
	char b[PATH_LEN];
	json_object *v;
	uint64_t index = 0, value = 0, value2 = 0;
	bool has_index = false, has_value = false;
	const char *op = NULL;
	int r;

	if ((r = want_type(c, a, json_type_object, aw)))
		return r;
	check_keys(c, a, aw, arg_keys, NULL);
	if ((v = member(a, "index"))) {
		if ((r = want_u64(c, v, kpath(b, aw, "index"), &index)))
			return r;
		has_index = true;
	}
	if ((v = member(a, "value"))) {
		if ((r = want_u64(c, v, kpath(b, aw, "value"), &value)))
			return r;
		has_value = true;
	}
	if ((v = member(a, "valueTwo")) && (r = want_u64(c, v, kpath(b, aw, "valueTwo"), &value2)))
		return r;
	if ((v = member(a, "op")) && (r = want_string(c, v, kpath(b, aw, "op"), &op)))
		return r;
	if (!keep)
		return 0;

	if (!has_index)
		return jerr(c, kpath(b, aw, "index"), "missing required \"index\"");
	if (index > 5)
		return jerr(c, kpath(b, aw, "index"), "argument index %" PRIu64 " is not 0-5", index);
	if (!op)
		return jerr(c, kpath(b, aw, "op"), "missing required \"op\"");
	cond->op = 0;
	for (size_t i = 0; i < ARRAY_SIZE(operators); i++)
		if (!strcmp(operators[i].name, op))
			cond->op = operators[i].op;
	if (!cond->op)
		return jerr(c, kpath(b, aw, "op"), "unknown operator \"%s\"", op);
	if (!has_value)
		return jerr(c, kpath(b, aw, "value"), "missing required \"value\"");
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
			  "; compared as 0x%" PRIx64 ", as runc does", kpath(b, aw, "valueTwo"),
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

static int parse_entry(struct jctx *c, json_object *e, const char *ew)
{
	char b[PATH_LEN], nb[PATH_LEN];
	json_object *v, *names = NULL, *args = NULL;
	const char *name = NULL, *act_s = NULL, *errno_s = NULL, *s;
	uint64_t ret = 0;
	bool has_ret = false, keep = true, split = false, data;
	struct scmpc_cond *conds = NULL;
	size_t nargs = 0;
	uint32_t act;
	unsigned seen = 0;
	int r;

	/* runc refuses null entries ("encountered nil syscall"). */
	if ((r = want_type(c, e, json_type_object, ew)))
		return r;
	check_keys(c, e, ew, entry_keys, entry_docker_keys);
	if ((names = member(e, "names")) && (r = want_string_array(c, names, kpath(b, ew, "names"))))
		return r;
	if (c->docker) {
		if ((v = member(e, "name")) && (r = want_string(c, v, kpath(b, ew, "name"), &name)))
			return r;
		if (name && !name[0])
			name = NULL;	/* Go's zero value: not set */
		if (name && names && json_object_array_length(names))
			return jerr(c, ew, "both \"name\" and \"names\" are set; use one");
		if ((v = member(e, "comment")) && (r = want_string(c, v, kpath(b, ew, "comment"), &s)))
			return r;
		if ((r = docker_keep(c, e, ew, &keep)))
			return r;
		if ((v = member(e, "errno")) && (r = want_string(c, v, kpath(b, ew, "errno"), &errno_s)))
			return r;
		if (errno_s && !errno_s[0])
			errno_s = NULL;
	}
	if ((v = member(e, "action")) && (r = want_string(c, v, kpath(b, ew, "action"), &act_s)))
		return r;
	if ((v = member(e, "errnoRet"))) {
		if ((r = want_u64(c, v, kpath(b, ew, "errnoRet"), &ret)))
			return r;
		has_ret = true;
	}
	if ((args = member(e, "args"))) {
		if ((r = want_type(c, args, json_type_array, kpath(b, ew, "args"))))
			return r;
		nargs = json_object_array_length(args);
	}
	if (nargs && !(conds = calloc(nargs, sizeof(*conds))))
		return diag_err(c->d, -ENOMEM, ew, "out of memory");
	for (size_t k = 0; k < nargs; k++) {
		ipath(nb, kpath(b, ew, "args"), k);
		if ((r = parse_arg(c, json_object_array_get_idx(args, k), nb, keep, &conds[k])))
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
		r = jerr(c, kpath(b, ew, "action"), "missing required \"action\"");
		goto out;
	}
	if ((r = action_of(c, act_s, kpath(b, ew, "action"), &act, &data)))
		goto out;
	if (data) {
		uint64_t ev = has_ret ? ret : EPERM;
		const char *field = "errnoRet";
		if (errno_s) {
			field = "errno";
			if ((r = errno_of(c, errno_s, kpath(b, ew, "errno"), &ev)))
				goto out;
		}
		if ((r = action_data(c, act, ev, field, kpath(b, ew, field), &act)))
			goto out;
	} else if (has_ret || errno_s) {
		const char *field = has_ret ? "errnoRet" : "errno";
		jwarn(c, kpath(b, ew, field), "ignored for %s (runc ignores it)", act_s);
	}
	if (!names && !name) {
		r = jerr(c, kpath(b, ew, "names"), "missing required \"names\"");
		goto out;
	}
	for (size_t j = 0; names && j < json_object_array_length(names); j++) {
		if (!json_object_get_string(json_object_array_get_idx(names, j))[0]) {
			r = jerr(c, ipath(nb, kpath(b, ew, "names"), j), "empty syscall name");
			goto out;
		}
	}
	if (names && !name && !json_object_array_length(names))
		jwarn(c, ew, "no syscall names; entry ignored");
	/* runc drops rules that repeat the default (libseccomp would refuse
	 * them), before it even looks the names up. */
	if (act == c->def_action)
		goto out;
	if (name) {
		r = emit_name(c, name, kpath(b, ew, "name"), act, conds, nargs, split);
		goto out;
	}
	for (size_t j = 0; j < json_object_array_length(names); j++) {
		ipath(nb, kpath(b, ew, "names"), j);
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
	for (size_t i = 0; i < ARRAY_SIZE(arch_tokens); i++) {
		if (strcmp(arch_tokens[i].tok, tok))
			continue;
		if (arch_tokens[i].a == SCMPC_ARCH_NONE) {
			jwarn(c, where, "%s is not supported by scmpc; skipped", tok);
			return 0;
		}
		return scmpc_policy_add_arch(c->p, arch_tokens[i].a, c->d);
	}
	return jerr(c, where, "unknown architecture \"%s\"", tok);
}

/* moby: the first archMap entry for the host adds itself and its
 * subArchitectures; the other entries are never looked at again. */
static int parse_archmap(struct jctx *c, json_object *map, const char *mw)
{
	char b[PATH_LEN], eb[PATH_LEN], sb[PATH_LEN];
	const char *target = arch_token(c->o.arch), *s;
	json_object *chosen = NULL, *v;
	size_t chosen_i = 0;
	int r;

	if ((r = want_type(c, map, json_type_array, mw)))
		return r;
	for (size_t i = 0; i < json_object_array_length(map); i++) {
		json_object *e = json_object_array_get_idx(map, i);
		const char *arch = NULL;
		ipath(eb, mw, i);
		if ((r = want_type(c, e, json_type_object, eb)))
			return r;
		check_keys(c, e, eb, archmap_keys, NULL);
		if ((v = member(e, "architecture")) &&
		    (r = want_string(c, v, kpath(b, eb, "architecture"), &arch)))
			return r;
		if ((v = member(e, "subArchitectures")) &&
		    (r = want_string_array(c, v, kpath(b, eb, "subArchitectures"))))
			return r;
		if (!chosen && arch && !strcmp(arch, target)) {
			chosen = e;
			chosen_i = i;
		}
	}
	if (!chosen)
		return 0;
	ipath(eb, mw, chosen_i);
	if ((r = add_arch_token(c, target, kpath(b, eb, "architecture"))))
		return r;
	if (!(v = member(chosen, "subArchitectures")))
		return 0;
	kpath(sb, eb, "subArchitectures");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		s = json_object_get_string(json_object_array_get_idx(v, i));
		if ((r = add_arch_token(c, s, ipath(b, sb, i))))
			return r;
	}
	return 0;
}

static int parse_arches(struct jctx *c, json_object *prof, const char *w)
{
	char b[PATH_LEN], ib[PATH_LEN];
	json_object *arches = member(prof, "architectures");
	json_object *map = c->docker ? member(prof, "archMap") : NULL;
	int r;

	/* The target always comes first, as libseccomp's native ABI does. */
	if ((r = scmpc_policy_add_arch(c->p, c->o.arch, c->d)))
		return r;
	if (arches && (r = want_string_array(c, arches, kpath(b, w, "architectures"))))
		return r;
	if (map && (r = want_type(c, map, json_type_array, kpath(b, w, "archMap"))))
		return r;
	if (arches && map && json_object_array_length(arches) && json_object_array_length(map))
		return jerr(c, kpath(b, w, "archMap"), "both \"architectures\" and \"archMap\" are set; use one");
	/* moby appends the archMap group to "architectures"; since at most
	 * one of them is non-empty, that is one or the other. */
	for (size_t i = 0; arches && i < json_object_array_length(arches); i++) {
		const char *tok = json_object_get_string(json_object_array_get_idx(arches, i));
		if ((r = add_arch_token(c, tok, ipath(ib, kpath(b, w, "architectures"), i))))
			return r;
	}
	return map ? parse_archmap(c, map, kpath(b, w, "archMap")) : 0;
}

/* ------------------------------------------------------------ profile */

static int parse_default(struct jctx *c, json_object *prof, const char *w)
{
	char b[PATH_LEN];
	json_object *v;
	const char *defact = NULL, *dname = NULL;
	uint64_t ret = 0;
	bool has_ret = false, data;
	uint32_t act;
	int r;

	if ((v = member(prof, "defaultAction")) &&
	    (r = want_string(c, v, kpath(b, w, "defaultAction"), &defact)))
		return r;
	if ((v = member(prof, "defaultErrnoRet"))) {
		if ((r = want_u64(c, v, kpath(b, w, "defaultErrnoRet"), &ret)))
			return r;
		has_ret = true;
	}
	if (c->docker && (v = member(prof, "defaultErrno"))) {
		if ((r = want_string(c, v, kpath(b, w, "defaultErrno"), &dname)))
			return r;
		if (!dname[0])
			dname = NULL;
	}
	/* runc would run with no filter at all here; a compiler has nothing
	 * to compile. */
	if (!defact || !defact[0])
		return jerr(c, kpath(b, w, "defaultAction"), "missing required \"defaultAction\"");
	if ((r = action_of(c, defact, kpath(b, w, "defaultAction"), &act, &data)))
		return r;
	if (act == SCMPC_ACT_USER_NOTIF)
		return jerr(c, kpath(b, w, "defaultAction"), "SCMP_ACT_NOTIFY cannot be the default action");
	if ((has_ret || dname) && !data) {
		const char *field = dname ? "defaultErrno" : "defaultErrnoRet";
		return jerr(c, kpath(b, w, field),
			    "%s needs an SCMP_ACT_ERRNO or SCMP_ACT_TRACE default action, not %s", field,
			    defact);
	}
	if (data) {
		uint64_t ev = has_ret ? ret : EPERM;
		const char *field = "defaultErrnoRet";
		if (dname) {
			field = "defaultErrno";
			if ((r = errno_of(c, dname, kpath(b, w, field), &ev)))
				return r;
		}
		if ((r = action_data(c, act, ev, field, kpath(b, w, field), &act)))
			return r;
	}
	c->def_action = act;
	return 0;
}

static int parse_flags(struct jctx *c, json_object *prof, const char *w)
{
	char b[PATH_LEN], ib[PATH_LEN];
	json_object *v = member(prof, "flags");
	unsigned bits = 0;
	int r;

	if (!v)
		return 0;
	if ((r = want_string_array(c, v, kpath(b, w, "flags"))))
		return r;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		size_t k;
		for (k = 0; k < ARRAY_SIZE(filter_flags); k++)
			if (!strcmp(filter_flags[k].name, s))
				break;
		if (k == ARRAY_SIZE(filter_flags))
			return jerr(c, ipath(ib, b, i), "unknown flag \"%s\"", s);
		bits |= filter_flags[k].bit;
	}
	return scmpc_policy_set_flags(c->p, bits, c->d);
}

/* Not stored yet: the loader has no listener support.  Validated so that a
 * profile scmpc accepts is one the runtimes accept. */
static int parse_listener(struct jctx *c, json_object *prof, const char *w)
{
	char b[PATH_LEN];
	json_object *v;
	const char *path = NULL, *meta = NULL;
	int r;

	if ((v = member(prof, "listenerPath")) &&
	    (r = want_string(c, v, kpath(b, w, "listenerPath"), &path)))
		return r;
	if ((v = member(prof, "listenerMetadata")) &&
	    (r = want_string(c, v, kpath(b, w, "listenerMetadata"), &meta)))
		return r;
	if (meta && meta[0] && !(path && path[0]))
		return jerr(c, kpath(b, w, "listenerMetadata"), "listenerMetadata requires listenerPath");
	return 0;
}

static int parse_profile(struct jctx *c, json_object *prof)
{
	const char *w = c->pre;
	char b[PATH_LEN], eb[PATH_LEN];
	json_object *v;
	uint32_t base;
	int r;

	check_keys(c, prof, w, top_keys, top_docker_keys);
	if ((r = parse_default(c, prof, w)))
		return r;
	if (!(c->p = scmpc_policy_new(c->def_action)))
		return diag_err(c->d, -ENOMEM, NULL, "out of memory");
	/* runc and crun add the rules to libseccomp in file order; where a
	 * syscall has an unconditional rule, the first such rule is what
	 * their filters do. */
	if (!(c->o.flags & SCMPC_JSON_RESTRICTIVE) &&
	    (r = scmpc_policy_set_merge(c->p, SCMPC_MERGE_LIBSECCOMP, c->d)))
		return r;
	if ((r = parse_arches(c, prof, w)) || (r = parse_flags(c, prof, w)) ||
	    (r = parse_listener(c, prof, w)))
		return r;
	if ((v = member(prof, "syscalls"))) {
		kpath(b, w, "syscalls");
		if ((r = want_type(c, v, json_type_array, b)))
			return r;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if ((r = parse_entry(c, json_object_array_get_idx(v, i), ipath(eb, b, i))))
				return r;
	}
	/* runc's ENOSYS stub: calls newer than the profile fail with ENOSYS
	 * so libcs fall back instead of treating EPERM as final.  runc builds
	 * none for permissive defaults, and TRACE counts as permissive because
	 * a tracer handles unknown calls itself. */
	base = c->def_action & 0xffff0000U;
	if (!(c->o.flags & SCMPC_JSON_NO_ENOSYS) && base != SCMPC_ACT_ALLOW && base != SCMPC_ACT_LOG &&
	    base != SCMPC_ACT_TRACE(0))
		return scmpc_policy_set_unknown_action(c->p, SCMPC_ACT_ERRNO(ENOSYS),
						       SCMPC_UNKNOWN_POLICY_MAX, c->d);
	return 0;
}

static bool looks_docker(json_object *prof)
{
	json_object *v;
	if (json_object_object_get_ex(prof, "archMap", NULL) ||
	    json_object_object_get_ex(prof, "defaultErrno", NULL))
		return true;
	if (!(v = member(prof, "syscalls")) || !json_object_is_type(v, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);
		if (!json_object_is_type(e, json_type_object))
			continue;
		for (size_t k = 0; entry_docker_keys[k]; k++)
			if (json_object_object_get_ex(e, entry_docker_keys[k], NULL))
				return true;
	}
	return false;
}

static json_object *parse_text(scmpc_diag *d, const char *json, size_t len, int *err)
{
	struct json_tokener *tok;
	json_object *root;
	enum json_tokener_error te;
	const char *nul;

	if (len > INT_MAX - 1) {
		*err = diag_err(d, -E2BIG, NULL, "input of %zu bytes is too large", len);
		return NULL;
	}
	/* json-c stops at a NUL byte as if the input ended there. */
	if ((nul = memchr(json, '\0', len))) {
		*err = syntax_err(d, json, len, (size_t)(nul - json), "NUL byte in the input");
		return NULL;
	}
	if (!(tok = json_tokener_new_ex(MAX_DEPTH))) {
		*err = diag_err(d, -ENOMEM, NULL, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, json, (int)len);
	te = json_tokener_get_error(tok);
	if (!root && te == json_tokener_continue) {
		/* A terminating NUL tells json-c the input is complete; anything
		 * still open is truncated input. */
		root = json_tokener_parse_ex(tok, "", 1);
		if (!root)
			*err = syntax_err(d, json, len, len, "unexpected end of input");
	} else if (!root) {
		*err = syntax_err(d, json, len, json_tokener_get_parse_end(tok),
				  json_tokener_error_desc(te));
	}
	json_tokener_free(tok);
	return root;
}

SCMPC_API int scmpc_policy_from_json(const char *json, size_t len, const struct scmpc_json_opts *o,
				     scmpc_policy **out, scmpc_diag *d)
{
	struct jctx c;
	json_object *root, *prof, *lx;
	int r = 0;

	memset(&c, 0, sizeof(c));
	c.d = d;
	if (out)
		*out = NULL;
	if (!out || (!json && len))
		return diag_err(d, -EINVAL, NULL, "no input or no output pointer");
	OPTS_COPY(c.o, o);
	if (c.o.flavor != SCMPC_JSON_AUTO && c.o.flavor != SCMPC_JSON_OCI &&
	    c.o.flavor != SCMPC_JSON_DOCKER)
		return diag_err(d, -EINVAL, NULL, "unknown JSON flavor %d", (int)c.o.flavor);
	if (c.o.flags & ~(SCMPC_JSON_STRICT | SCMPC_JSON_NO_ENOSYS | SCMPC_JSON_RESTRICTIVE))
		return diag_err(d, -EINVAL, NULL, "unknown JSON flags 0x%x", c.o.flags);
	if (c.o.arch == SCMPC_ARCH_NONE)
		c.o.arch = scmpc_arch_native();
	if (c.o.arch == SCMPC_ARCH_NONE)
		return diag_err(d, -EINVAL, NULL, "no target architecture: this build has no native ABI");
	if (!arch_info(c.o.arch))
		return diag_err(d, -EINVAL, NULL, "unsupported target architecture %d", (int)c.o.arch);
	c.caps = c.o.caps ? c.o.caps : docker_default_caps;

	if (!(root = parse_text(d, json ? json : "", len, &r)))
		return r;
	if (!json_object_is_type(root, json_type_object)) {
		r = jerr(&c, "", "expected a JSON object at the top level, got %s", kind(root));
		goto out;
	}
	prof = root;
	if (json_object_object_get_ex(root, "ociVersion", NULL) ||
	    json_object_object_get_ex(root, "linux", NULL)) {
		if (c.o.flavor == SCMPC_JSON_DOCKER) {
			r = jerr(&c, "", "expected a Docker profile, got an OCI config.json");
			goto out;
		}
		if ((lx = member(root, "linux")) && (r = want_type(&c, lx, json_type_object, "linux")))
			goto out;
		if (!lx || !(prof = member(lx, "seccomp"))) {
			r = jerr(&c, "linux.seccomp", "config.json has no linux.seccomp");
			goto out;
		}
		if ((r = want_type(&c, prof, json_type_object, "linux.seccomp")))
			goto out;
		snprintf(c.pre, sizeof(c.pre), "linux.seccomp");
	} else {
		c.docker = c.o.flavor == SCMPC_JSON_DOCKER ||
			   (c.o.flavor == SCMPC_JSON_AUTO && looks_docker(prof));
	}
	if ((r = strict_scan(&c, json, len)))
		goto out;
	r = parse_profile(&c, prof);
out:
	json_object_put(root);
	if (r) {
		scmpc_policy_free(c.p);
		return r;
	}
	*out = c.p;
	return 0;
}
