/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile: progress of a long library call as one line on the
 * terminal, rewritten in place.  Nothing is drawn for work under a
 * second, with -q, or when standard error is not a terminal (a log or a
 * pipe gets no carriage returns).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

/* Work shorter than this draws nothing. */
#define PROGRESS_AFTER_MS 1000.0

/* The library's callback: STAGE at DONE of TOTAL, drawn once a second
 * has passed. */
static void draw(void *user, const char *stage, uint64_t done, uint64_t total)
{
	struct cli_progress *p = user;

	if (!p->on || now_ms() - p->start_ms < p->after_ms)
		return;
	fprintf(stderr, "\r" PROG_NAME ": %s %" PRIu64 "/%" PRIu64 " (%" PRIu64 "%%)\033[K", stage,
		done, total, done * 100 / total);
	fflush(stderr);
	p->drawn = true;
}

void progress_start(struct cli_progress *p, bool quiet)
{
	p->pr = (struct scmpc_progress){ .sz = sizeof(p->pr), .fn = draw, .user = p };
	const char *after = getenv("SCMPC_PROGRESS_AFTER_MS");

	/* the tests' hook: a delay of their choosing, so none waits a second */
	p->after_ms = after && *after ? strtod(after, NULL) : PROGRESS_AFTER_MS;
	p->start_ms = now_ms();
	p->on = !quiet && isatty(STDERR_FILENO);
	p->drawn = false;
}

void progress_end(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
}
