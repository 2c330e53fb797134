/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Helpers shared by the harnesses.  A harness reports a bug by printing what
 * it saw and calling abort(): libFuzzer then saves the input as a crash, and
 * the message in the log says which oracle failed, so a finding never
 * depends on reading a core dump.
 */
#ifndef SCMPC_FUZZ_COMMON_H
#define SCMPC_FUZZ_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scmpc.h"

__attribute__((format(printf, 1, 2), noreturn)) static void fuzz_bug(const char *fmt, ...)
{
	va_list ap;

	fputs("scmpc-fuzz BUG: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A failed call must leave a diag that explains it: the CLI prints the
 * message as the whole error, so an empty one is a user-visible bug. */
static inline void fuzz_check_failure(const char *what, int rc, const scmpc_diag *d)
{
	const char *msg = scmpc_diag_message(d);

	if (rc >= 0)
		return;
	if (scmpc_diag_errno(d) != rc)
		fuzz_bug("%s returned %d but the diag holds errno %d (\"%s\")", what, rc,
			 scmpc_diag_errno(d), msg);
	if (!msg || !*msg)
		fuzz_bug("%s failed with %d and no message", what, rc);
	if (!strncmp(msg, "internal error", 14))
		fuzz_bug("%s: %s", what, msg);
}

/* The three export formats on a program; the raw format must give back
 * the instructions byte for byte, the text formats a NUL-terminated string
 * of the announced length. */
static inline void fuzz_check_formats(const struct sock_filter *insns, size_t len,
				      enum scmpc_arch arch)
{
	static const enum scmpc_format fmts[] = { SCMPC_FORMAT_BPF, SCMPC_FORMAT_C,
						  SCMPC_FORMAT_TEXT };
	struct scmpc_format_opts fo;
	scmpc_diag *d = scmpc_diag_new();

	if (!d)
		return;
	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.arch = arch;
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char *out = NULL;
		size_t out_len = 0;
		int rc = scmpc_format(insns, len, fmts[i], &fo, &out, &out_len, d);

		if (rc == -ENOMEM) {
			scmpc_diag_clear(d);
			continue;
		}
		if (rc < 0)
			fuzz_bug("scmpc_format(%d) failed on a %zu-insn program: %d %s",
				 (int)fmts[i], len, rc, scmpc_diag_message(d));
		if (!out)
			fuzz_bug("scmpc_format(%d) succeeded without output", (int)fmts[i]);
		if (fmts[i] == SCMPC_FORMAT_BPF) {
			if (out_len != len * sizeof(*insns) || memcmp(out, insns, out_len))
				fuzz_bug("SCMPC_FORMAT_BPF does not reproduce the program");
		} else if (strlen(out) != out_len) {
			fuzz_bug("scmpc_format(%d): length %zu but strlen %zu", (int)fmts[i],
				 out_len, strlen(out));
		}
		free(out);
	}
	scmpc_diag_free(d);
}

static inline struct seccomp_data fuzz_sd(uint32_t audit, uint32_t nr, const uint64_t args[6],
					  uint64_t ip)
{
	struct seccomp_data sd;

	memset(&sd, 0, sizeof(sd));
	sd.nr = (int)nr;
	sd.arch = audit;
	sd.instruction_pointer = ip;
	if (args)
		memcpy(sd.args, args, sizeof(sd.args));
	return sd;
}

#endif
