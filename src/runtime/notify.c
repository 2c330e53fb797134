/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * User notification (SECCOMP_RET_USER_NOTIF) around a listener fd.  The
 * kernel's structures may be larger than the ones this library was built
 * with, and it copies its own size in and out, so every buffer is sized
 * from SECCOMP_GET_NOTIF_SIZES.
 */
#include <fcntl.h>
#include <json.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "runtime/runtime.h"

#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
/* Linux 5.9: include/uapi/linux/seccomp.h */
struct seccomp_notif_addfd {
	__u64 id;
	__u32 flags;
	__u32 srcfd;
	__u32 newfd;
	__u32 newfd_flags;
};
#define SECCOMP_IOCTL_NOTIF_ADDFD _IOW('!', 3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SETFD
#define SECCOMP_ADDFD_FLAG_SETFD (1UL << 0)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
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

/* A listener is the anonymous inode the kernel names "seccomp notify"
 * (kernel/seccomp.c, init_listener).  Any other fd, such as 0 left to
 * stdin, would fail only at the first receive, or in the agent, far from
 * the mistake. */
static int check_listener(int fd, scmpc_diag *d)
{
	static const char want[] = "anon_inode:seccomp notify";
	char path[64], link[256];
	ssize_t n;

	if (fd < 0)
		return diag_err(d, -EBADF, NULL, "%d is not a listener fd", fd);
	if (fcntl(fd, F_GETFD) < 0)
		return diag_err(d, -EBADF, NULL, "fd %d is not open", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;	/* no /proc to ask: the first use tells */
	link[n] = '\0';
	if (strcmp(link, want))
		return diag_err(d, -EINVAL, NULL, "fd %d is not a seccomp listener (it is %s, "
				"not %s)", fd, link, want);
	return 0;
}

SCMPC_API int scmpc_notify_new(int listener_fd, scmpc_notify **out, scmpc_diag *d)
{
	int r;
	struct seccomp_notif_sizes sizes;
	scmpc_notify *n;

	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the handle");
	*out = NULL;
	if ((r = check_listener(listener_fd, d)) < 0)
		return r;
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

SCMPC_API int scmpc_notify_addfd(const scmpc_notify *n, uint64_t id, int srcfd, int newfd,
				 unsigned flags, scmpc_diag *d)
{
	struct seccomp_notif_addfd a;

	if (!n)
		return diag_err(d, -EINVAL, NULL, "no handle");
	if (flags & ~(SCMPC_ADDFD_SEND | SCMPC_ADDFD_CLOEXEC))
		return diag_err(d, -EINVAL, NULL, "unknown addfd flags 0x%x", flags);
	if (srcfd < 0)
		return diag_err(d, -EBADF, NULL, "%d is not an fd", srcfd);
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.srcfd = (__u32)srcfd;
	if (newfd >= 0) {
		a.flags |= SECCOMP_ADDFD_FLAG_SETFD;
		a.newfd = (__u32)newfd;
	}
	if (flags & SCMPC_ADDFD_SEND)
		a.flags |= SECCOMP_ADDFD_FLAG_SEND;
	if (flags & SCMPC_ADDFD_CLOEXEC)
		a.newfd_flags = O_CLOEXEC;
	int r = ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
	if (r >= 0)
		return r;
	int e = errno;
	switch (e) {
	case ENOENT:
		return diag_err(d, -ENOENT, NULL, "request %llu is gone (its caller died or was "
				"interrupted by a signal)", (unsigned long long)id);
	case EINPROGRESS:
		return diag_err(d, -EINPROGRESS, NULL, "request %llu is being answered; an fd "
				"cannot be added now", (unsigned long long)id);
	case ENOTTY:
		return diag_err(d, -EOPNOTSUPP, NULL, "this kernel cannot add fds to a notified "
				"process (Linux 5.9+; SCMPC_ADDFD_SEND 5.14+)");
	case EINVAL:
		return diag_err(d, -EINVAL, NULL, "the kernel refused the request (flags this "
				"kernel lacks, or SEND on a request already answered)");
	default:
		return diag_err(d, -e, NULL, "adding fd %d to request %llu failed: %s", srcfd,
				(unsigned long long)id, strerror(e));
	}
}

/* The state as runc marshals specs.ContainerProcessState: fields in its
 * struct order, empty optional ones left out. */
static json_object *state_json(const struct scmpc_process_state *st)
{
	const char *ver = st->oci_version ? st->oci_version : "1.0.2";
	json_object *top = json_object_new_object(), *fds = json_object_new_array();
	json_object *state = json_object_new_object();
	if (!top || !fds || !state) {
		json_object_put(top);
		json_object_put(fds);
		json_object_put(state);
		return NULL;
	}
	json_object_object_add(top, "ociVersion", json_object_new_string(ver));
	json_object_array_add(fds, json_object_new_string("seccompFd"));
	json_object_object_add(top, "fds", fds);
	json_object_object_add(top, "pid", json_object_new_int64(st->pid));
	if (st->metadata && st->metadata[0])
		json_object_object_add(top, "metadata", json_object_new_string(st->metadata));
	json_object_object_add(state, "ociVersion", json_object_new_string(ver));
	json_object_object_add(state, "id", json_object_new_string(st->id ? st->id : ""));
	json_object_object_add(state, "status",
			       json_object_new_string(st->status ? st->status : "creating"));
	json_object_object_add(state, "pid",
			       json_object_new_int64(st->init_pid ? st->init_pid : st->pid));
	json_object_object_add(state, "bundle", json_object_new_string(st->bundle ? st->bundle : ""));
	if (st->annotations && st->annotations[0]) {
		json_object *ann = json_object_new_object();
		for (size_t i = 0; ann && st->annotations[i] && st->annotations[i + 1]; i += 2)
			json_object_object_add(ann, st->annotations[i],
					       json_object_new_string(st->annotations[i + 1]));
		json_object_object_add(state, "annotations", ann);
	}
	json_object_object_add(top, "state", state);
	return top;
}

SCMPC_API int scmpc_notify_handoff(int listener_fd, const char *socket_path,
				   const struct scmpc_process_state *in, scmpc_diag *d)
{
	struct scmpc_process_state st;
	struct sockaddr_un sa;
	int r = 0;

	if (!in)
		return diag_err(d, -EINVAL, NULL, "no process state");
	if (OPTS_VALID(in, scmpc_process_state, pid, d))
		return -EINVAL;
	OPTS_COPY(st, in);
	if ((r = check_listener(listener_fd, d)) < 0)
		return r;
	if (!socket_path || socket_path[0] != '/')
		return diag_err(d, -EINVAL, NULL, "the agent's socket path must be absolute");
	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return diag_err(d, -ENAMETOOLONG, NULL, "the agent's socket path is longer than "
				"an AF_UNIX address holds (%zu bytes)", sizeof(sa.sun_path) - 1);
	json_object *j = state_json(&st);
	if (!j)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE);
	int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		r = diag_err(d, -errno, NULL, "socket: %s", strerror(errno));
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, socket_path, strlen(socket_path));
	if (connect(sock, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = diag_err(d, -errno, NULL, "cannot reach the seccomp agent at %s: %s", socket_path,
			     strerror(errno));
		goto out;
	}
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = { .iov_base = (void *)text, .iov_len = strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &listener_fd, sizeof(int));
	ssize_t n;
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = diag_err(d, -errno, NULL, "sending the listener to %s failed: %s", socket_path,
			     strerror(errno));
	else if ((size_t)n != iov.iov_len)
		r = diag_err(d, -EIO, NULL, "the agent at %s took %zd of %zu bytes", socket_path, n,
			     iov.iov_len);
out:
	if (sock >= 0)
		close(sock);
	json_object_put(j);
	return r;
}
