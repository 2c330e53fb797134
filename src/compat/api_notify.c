/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's user-notification calls on scmpc: buffers of the kernel's
 * sizes, receive, respond, id checks, addfd, and the listener fd the last
 * load kept (api_export.c).  Each is refused below API level 5, and a
 * failed ioctl is -ECANCELED (-ENOENT for an id gone), as libseccomp says.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api.h"
#include "compat.h"

/* ----------------------------------------------------- notification */

/* The kernel's sizes, which may be larger than this header's structs. */
static int notif_sizes(struct seccomp_notif_sizes *s)
{
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, s) < 0)
		return -ECANCELED;
	if (s->seccomp_notif < sizeof(struct seccomp_notif))
		s->seccomp_notif = sizeof(struct seccomp_notif);
	if (s->seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		s->seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
	return 0;
}

API int seccomp_notify_alloc(struct seccomp_notif **req, struct seccomp_notif_resp **resp)
{
	struct seccomp_notif_sizes s;
	if (compat_level() < 5)
		return -EOPNOTSUPP;
	if (notif_sizes(&s) < 0)
		return -ECANCELED;
	if (req && !(*req = calloc(1, s.seccomp_notif)))
		return -ENOMEM;
	if (resp && !(*resp = calloc(1, s.seccomp_notif_resp))) {
		if (req) {
			free(*req);
			*req = NULL;
		}
		return -ENOMEM;
	}
	return 0;
}

API void seccomp_notify_free(struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	free(req);
	free(resp);
}

API int seccomp_notify_receive(int fd, struct seccomp_notif *req)
{
	struct seccomp_notif_sizes s;
	if (!req || compat_level() < 5 || notif_sizes(&s) < 0)
		return -EOPNOTSUPP;
	memset(req, 0, s.seccomp_notif);
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return -ECANCELED;
	return 0;
}

API int seccomp_notify_respond(int fd, struct seccomp_notif_resp *resp)
{
	if (!resp || compat_level() < 5)
		return -EOPNOTSUPP;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		return -ECANCELED;
	return 0;
}

API int seccomp_notify_id_valid(int fd, uint64_t id)
{
	if (compat_level() < 5)
		return -EOPNOTSUPP;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return -ENOENT;
	return 0;
}

/* libseccomp main's call: install SRCFD (with the flags and the target
 * number ADDFD asks for) in the task whose notification ADDFD->id names;
 * the number it got there, or a negative errno. */
API int seccomp_notify_addfd(int fd, struct seccomp_notif_addfd *addfd)
{
	if (compat_level() < 5)
		return -EOPNOTSUPP;
	if (!addfd)
		return -EINVAL;
	int rc = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, addfd);
	return rc < 0 ? -ECANCELED : rc;
}

API int seccomp_notify_fd(const scmp_filter_ctx ctx)
{
	if (!compat_ctx_valid(ctx))
		return -EINVAL;
	int fd = atomic_load(&compat_notify_fd);
	return fd >= 0 ? fd : -EFAULT;
}
