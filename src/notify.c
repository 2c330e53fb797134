/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * User notification (SECCOMP_RET_USER_NOTIF) around a listener fd.  The
 * kernel's structures may be larger than the ones this library was built
 * with, and it copies its own size in and out, so every buffer is sized
 * from SECCOMP_GET_NOTIF_SIZES.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "load.h"

#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

struct scmpc_notify {
	int fd;
	size_t req_size, resp_size;
	struct seccomp_notif *req;
};

static size_t max_size(size_t kernel, size_t ours)
{
	return kernel > ours ? kernel : ours;
}

SCMPC_API int scmpc_notify_new(int listener_fd, scmpc_notify **out, scmpc_diag *d)
{
	struct seccomp_notif_sizes sizes;
	scmpc_notify *n;

	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the handle");
	*out = NULL;
	if (listener_fd < 0)
		return diag_err(d, -EBADF, NULL, "%d is not a listener fd", listener_fd);
	memset(&sizes, 0, sizeof(sizes));
	if (sys_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		int e = errno;
		if (e == EINVAL || e == ENOSYS)
			return diag_err(d, -EOPNOTSUPP, NULL, "this kernel has no seccomp user "
					"notification (Linux 5.0+)");
		return diag_err(d, -e, NULL, "SECCOMP_GET_NOTIF_SIZES failed: %s", strerror(e));
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	n->fd = listener_fd;
	n->req_size = max_size(sizes.seccomp_notif, sizeof(struct seccomp_notif));
	n->resp_size = max_size(sizes.seccomp_notif_resp, sizeof(struct seccomp_notif_resp));
	n->req = calloc(1, n->req_size);
	if (!n->req) {
		free(n);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	*out = n;
	return 0;
}

SCMPC_API void scmpc_notify_free(scmpc_notify *n)
{
	if (!n)
		return;
	free(n->req);
	free(n);
}

SCMPC_API int scmpc_notify_receive(scmpc_notify *n, const struct seccomp_notif **req,
				   scmpc_diag *d)
{
	if (!n || !req)
		return diag_err(d, -EINVAL, NULL, "no handle or no place to store the request");
	*req = NULL;
	/* The kernel refuses a buffer that is not zeroed, so that fields it
	 * adds later can be told from garbage. */
	memset(n->req, 0, n->req_size);
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, n->req) < 0) {
		int e = errno;
		switch (e) {
		case EINTR:
			return diag_err(d, -EINTR, NULL, "interrupted while waiting for a request");
		case ENOENT:
			return diag_err(d, -ENOENT, NULL, "the request was withdrawn before it "
					"could be read (its caller died or was interrupted)");
		case ENOTTY:
		case EINVAL:
			return diag_err(d, -e, NULL, "fd %d is not a seccomp listener", n->fd);
		default:
			return diag_err(d, -e, NULL, "receiving a request failed: %s", strerror(e));
		}
	}
	*req = n->req;
	return 0;
}

SCMPC_API int scmpc_notify_id_valid(const scmpc_notify *n, uint64_t id, scmpc_diag *d)
{
	if (!n)
		return diag_err(d, -EINVAL, NULL, "no handle");
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	return diag_err(d, -errno, NULL, "checking request %llu failed: %s",
			(unsigned long long)id, strerror(errno));
}

SCMPC_API int scmpc_notify_respond(const scmpc_notify *n, uint64_t id, int64_t val, int err,
				   unsigned flags, scmpc_diag *d)
{
	struct seccomp_notif_resp *resp;
	int r = 0;

	if (!n)
		return diag_err(d, -EINVAL, NULL, "no handle");
	if (flags & ~SCMPC_NOTIFY_CONTINUE)
		return diag_err(d, -EINVAL, NULL, "unknown response flags 0x%x", flags);
	if (err < 0 || err > 4095)
		return diag_err(d, -EINVAL, NULL, "errno %d is out of range (1..4095, or 0 to "
				"return a value)", err);
	if ((flags & SCMPC_NOTIFY_CONTINUE) && (err || val))
		return diag_err(d, -EINVAL, NULL, "a CONTINUE response carries neither a value "
				"nor an errno");
	/* Allocated per call so that threads can answer through one handle. */
	resp = calloc(1, n->resp_size);
	if (!resp)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	resp->id = id;
	resp->val = val;
	resp->error = -err;
	resp->flags = (flags & SCMPC_NOTIFY_CONTINUE) ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
		int e = errno;
		if (e == ENOENT)
			r = diag_err(d, -ENOENT, NULL, "request %llu is gone (its caller died or "
				     "was interrupted by a signal)", (unsigned long long)id);
		else if (e == EINVAL && (flags & SCMPC_NOTIFY_CONTINUE))
			r = diag_err(d, -EINVAL, NULL, "the kernel refused CONTINUE (Linux 5.5+)");
		else
			r = diag_err(d, -e, NULL, "answering request %llu failed: %s",
				     (unsigned long long)id, strerror(e));
	}
	free(resp);
	return r;
}
