/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The floor every module stands on: growable arrays and sorted sets, the
 * error and warning messages (scmpc_diag), and the rules for the options
 * and output structs of the public API.  It owns no fact about seccomp but
 * the kernel's filter flag values, and includes nothing of the library's
 * but the public header.
 */
#ifndef SCMPC_BASE_H
#define SCMPC_BASE_H

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "scmpc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The options-struct contract, as libbpf keeps it: SZ must cover the
 * fields this call needs (through NEED, the last of them), and bytes past
 * the struct this version knows must be zero, since they are fields of a
 * newer scmpc this one would silently ignore.  Returns 0 or -EINVAL with a
 * message naming the struct.  TYPE is the struct's tag. */
int opts_check(const void *opts, size_t sz, size_t need, size_t known, const char *type,
	       scmpc_diag *d);
#define OPTS_END(type, field) (offsetof(struct type, field) + sizeof(((struct type *)0)->field))
#define OPTS_VALID(src, type, need, d)                                              \
	((src) ? opts_check((src), (src)->sz, OPTS_END(type, need), sizeof(struct type), \
			    #type, (d))                                              \
	       : 0)

/* Read an options struct the caller may have built against an older header:
 * copy what its sz covers over zeroed defaults. */
#define OPTS_COPY(dst, src)                                                        \
	do {                                                                       \
		memset(&(dst), 0, sizeof(dst));                                    \
		if (src) {                                                         \
			size_t n_ = (src)->sz < sizeof(dst) ? (src)->sz : sizeof(dst); \
			memcpy(&(dst), (src), n_);                                 \
		}                                                                  \
	} while (0)

/* Hand back an output struct the caller sized with its own header: OUT_SZ
 * bytes at OUT get what both versions know from LOCAL (a full struct of
 * this version's, LOCAL_SZ bytes), zeros in fields only a newer header has,
 * and OUT_SZ in the leading sz.  OUT_SZ must cover sz itself. */
void out_fill(void *out, size_t out_sz, const void *local, size_t local_sz);
#define OUT_FILL(out, local) out_fill((out), (out)->sz, &(local), sizeof(local))

/* SECCOMP_FILTER_FLAG_* (linux/seccomp.h), for headers older than the
 * flags: their values are kernel ABI. */
#include <linux/seccomp.h>
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
/* ---- array.c */
/* Make room for element N of *ARRP (a T ** with *CAP elements allocated),
 * doubling from FIRST.  Returns false on ENOMEM; *ARRP is then unchanged. */
bool array_reserve(void *arrp, size_t *cap, size_t n, size_t size, size_t first);

/* Growable text (text.c): S holds LEN bytes and a terminating NUL once
 * anything was put; OOM is sticky, later puts are dropped, and the caller
 * checks it once at the end and frees S. */
struct textbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
/* Room for MORE bytes after T's text; false (and T->oom) when there is none. */
bool textbuf_reserve(struct textbuf *t, size_t more);
/* Append printf-style text to T. */
void textbuf_put(struct textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* qsort() order of uint32_t and of uint64_t values. */
int cmp_uint32(const void *a, const void *b);
int cmp_uint64(const void *a, const void *b);
/* Sort the N elements of SIZE bytes at BASE by CMP and drop repeats;
 * returns how many are left. */
size_t sort_unique(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* A set of numbers grown one at a time, then sorted once. */
struct u64set {
	uint64_t *v;
	size_t n, cap;
};
bool u64set_add(struct u64set *s, uint64_t x);
void u64set_sort_unique(struct u64set *s);
/* The first of the N elements of SIZE bytes at BASE (sorted by the uint32_t
 * at KEY_OFF in each) whose key is not below KEY; N when none. */
size_t lower_bound_u32(const void *base, size_t n, size_t size, size_t key_off, uint32_t key);

/* ---- diag.c */
/* Record an error and return ERR (a negative errno) so callers can write
 * `return diag_err(d, -EINVAL, where, "...")`. */
int diag_err(scmpc_diag *d, int err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int diag_err_insn(scmpc_diag *d, int err, long insn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_warn(scmpc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, unless D already holds that exact warning (views are made once
 * per compile, eval and check, and say the same each time). */
void diag_warn_once(scmpc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning whose kind (scmpc_diag_warning_kind()) is KIND, a string of
 * static storage, rather than FMT: for a message formatted in two steps
 * or copied from another diag. */
void diag_warn_kind(scmpc_diag *d, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* FROM's warnings appended to TO's, kinds kept; with ONCE, those whose
 * text TO already holds left out. */
void diag_copy_warnings(scmpc_diag *to, const scmpc_diag *from, bool once);

/* 0, or -EINVAL when PR (NULL: none) is a malformed struct scmpc_progress. */
int progress_check(const struct scmpc_progress *pr, scmpc_diag *d);
/* Tells PR's callback (if any) that STAGE is at DONE of TOTAL. */
void progress_report(const struct scmpc_progress *pr, const char *stage, uint64_t done,
		     uint64_t total);

#endif
