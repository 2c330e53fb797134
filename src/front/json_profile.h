/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The profile reader's own header: what json_profile.c, json_rules.c,
 * json_docker.c and json_decode.c share (see json_profile.c for the
 * whole front end).  Its one way down is the JSON document, json_doc.h.
 */
#ifndef SCMPC_JSON_PROFILE_H
#define SCMPC_JSON_PROFILE_H

#include <stdint.h>
#include <string.h>
#include <json-c/json.h>
#include "arch/arch.h"
#include "front/json_doc.h"

/* Paths of values in messages ("syscalls[3].args[0].value"): one that
 * does not fit is cut, and still useful. */
#define PATH_LEN 256

/* One reading of a profile. */
struct jctx {
	scmpc_diag *d;		/* the document's diag, where the reading speaks */
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

/* ---- json_decode.c: messages, and values of Go's types */

/* An error or a warning at the path WHERE (NULL or "": none).  jerr()
 * returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int jerr(struct jctx *c, const char *where, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void jwarn(struct jctx *c, const char *where, const char *fmt, ...);

/* BUF (PATH_LEN bytes) made BASE.KEY or BASE[I]; returns BUF. */
const char *kpath(char *buf, const char *base, const char *key);
const char *ipath(char *buf, const char *base, size_t i);

/* 0, or an error at WHERE when V is not of type T (an object, an array or
 * a string): want_vtype() for any value of the document, want_type() for
 * one json-c holds. */
int want_vtype(struct jctx *c, struct jval v, enum json_type t, const char *where);
int want_type(struct jctx *c, json_object *v, enum json_type t, const char *where);

/* V as a string without NUL characters (*OUT is json-c's), as an unsigned
 * integer, as an array of strings; 0 or an error at WHERE. */
int want_string(struct jctx *c, json_object *v, const char *where, const char **out);
int want_u64(struct jctx *c, struct jval v, const char *where, uint64_t *out);
int want_string_array(struct jctx *c, json_object *v, const char *where);

/* S as moby's KernelVersion, "<kernel>.<major>" ("" is 0.0); 0 or an error
 * at WHERE. */
int parse_kver(struct jctx *c, const char *s, const char *where, unsigned *maj, unsigned *min);

/* ---- json_decode.c: objects into Go structs */

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

/* A field of a Go struct; a struct is an array of them, ended by NULL. */
struct fdef {
	const char *name;
	enum fkind kind;
	bool docker;	/* a Docker/Podman field, unknown to runc */
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

/* An object as Go decoded it into the struct DEFS. */
struct jobj {
	const struct fdef *defs;
	struct jfield f[MAX_FIELDS];
};

/* The field NAME of O (one that is never given when DEFS has none). */
static inline const struct jfield *fld(const struct jobj *o, const char *name)
{
	static const struct jfield none;
	for (size_t k = 0; o->defs[k].name; k++)
		if (!strcmp(o->defs[k].name, name))
			return &o->f[k];
	return &none;
}

/* Field NAME's json-c value, its value, its key as the file spells it. */
static inline json_object *jget(const struct jobj *o, const char *name) { return fld(o, name)->v.j; }
static inline struct jval jv(const struct jobj *o, const char *name) { return fld(o, name)->v; }
static inline const char *jkey(const struct jobj *o, const char *name) { return fld(o, name)->key; }

/* The path of field NAME of O, below BASE, as the file spells it. */
static inline const char *fpath(char *buf, const char *base, const struct jobj *o, const char *name)
{
	return kpath(buf, base, jkey(o, name));
}

/* Reads the object O at WHERE as Go would decode it into a struct with the
 * fields DEFS; with CLOSED, other keys are warned about.  want_object()
 * checks first that V is an object. */
int resolve(struct jctx *c, struct jval o, const char *where, const struct fdef *defs, bool closed,
	    struct jobj *out);
int want_object(struct jctx *c, struct jval v, const char *where, const struct fdef *defs,
		bool closed, struct jobj *out);

/* ---- json_profile.c: the profile's top level */

extern const struct fdef top_fields[];

/* Adds the ABI libseccomp's token TOK names (listed by the profile);
 * errors at WHERE. */
int add_arch_token(struct jctx *c, const char *tok, const char *where);

/* ---- json_rules.c: the syscalls entries */

extern const struct fdef entry_fields[];

/* The action named S (*DATA: it carries errnoRet), and an action with its
 * data V (FIELD: the field that gave it, for the message). */
int action_of(struct jctx *c, const char *s, const char *where, uint32_t *act, bool *data);
int action_data(struct jctx *c, uint32_t act, uint64_t v, const char *field, const char *where,
		uint32_t *out);

/* Adds the rules of the syscalls entry E, at path EW. */
int parse_entry(struct jctx *c, struct jval e, const char *ew);

/* ---- json_docker.c: Docker's and Podman's additions */

/* The errno named S ("ENOSYS", or a number), at WHERE. */
int errno_of(struct jctx *c, const char *s, const char *where, uint64_t *out);

/* *KEEP: the entry EO, at EW, applies here by its includes and excludes. */
int docker_keep(struct jctx *c, const struct jobj *eo, const char *ew, bool *keep);

/* Adds the host's archMap entry's ABIs; MAP is at MW. */
int parse_archmap(struct jctx *c, struct jval map, const char *mw);

/* *DOCKER: Docker or Podman fields at the top of the profile PROF or in
 * an entry make it a Docker profile. */
int looks_docker(struct jctx *c, struct jval prof, bool *docker);

/* Picks c->caps for the Docker-style profile PROF (Docker's or Podman's
 * default set when the caller gives none). */
int choose_caps(struct jctx *c, struct jval prof);

#endif
