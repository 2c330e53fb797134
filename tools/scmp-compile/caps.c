/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile: the capability set a profile's includes and excludes are
 * matched against.  Podman's default set is the one its containers.conf
 * gives, found where containers/common looks for it; the library reads
 * the text, the CLI finds the files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* The whole of PATH, NUL-terminated, or NULL (no such file: silently). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb)
				break;
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
		if (!k)
			break;
	}
	if (ferror(f) || !buf) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* PATH's default_capabilities into *LIST, replacing it, when PATH exists
 * and sets them; a file the library cannot read is named in a warning
 * (unless QUIET) and passed over, as it does not decide the filter. */
static void read_conf(const char *path, char ***list, bool quiet)
{
	size_t len = 0;
	char *text = slurp(path, &len), **caps = NULL;
	scmpc_diag *d;
	int n;

	if (!text || !(d = scmpc_diag_new())) {
		free(text);
		return;
	}
	n = scmpc_containers_conf_caps(text, len, &caps, d);
	if (n < 0 && !quiet)
		fprintf(stderr, "%s: warning: %s: %s: %s; its default_capabilities are not used\n",
			PROG_NAME, path, scmpc_diag_where(d), scmpc_diag_message(d));
	if (n > 0) {
		free(*list);
		*list = caps;
	}
	scmpc_diag_free(d);
	free(text);
}

/* Podman's default set as containers.conf sets it (NULL: the built-in
 * default).  containers/common reads CONTAINERS_CONF alone when it is
 * set, else the packaged file, the administrator's, and for a rootless
 * user their own, each later one that sets the list winning. */
static char **podman_conf_caps(bool quiet)
{
	const char *env = getenv("CONTAINERS_CONF"), *home;
	char **list = NULL, path[4096];

	if (env && *env) {
		read_conf(env, &list, quiet);
		return list;
	}
	read_conf("/usr/share/containers/containers.conf", &list, quiet);
	read_conf("/etc/containers/containers.conf", &list, quiet);
	if (geteuid() == 0)
		return list;
	if ((home = getenv("XDG_CONFIG_HOME")) && *home)
		snprintf(path, sizeof(path), "%s/containers/containers.conf", home);
	else if ((home = getenv("HOME")) && *home)
		snprintf(path, sizeof(path), "%s/.config/containers/containers.conf", home);
	else
		return list;
	read_conf(path, &list, quiet);
	return list;
}

void json_caps_opts(const struct cli *c, struct scmpc_json_opts *o, char ***podman)
{
	*podman = NULL;
	o->caps = (const char *const *)c->caps;
	if (c->caps)
		return;
	o->caps_from = c->caps_from;
	o->caps_add = (const char *const *)c->caps_add;
	if (c->caps_from != SCMPC_JSON_CAPS_DOCKER)
		*podman = podman_conf_caps(c->quiet);
	o->podman_caps = (const char *const *)*podman;
}
