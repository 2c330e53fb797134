/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile: reading inputs and writing outputs.  An output is the file
 * named and no other: written to a temporary file and renamed onto its
 * name, never through a link, never over an input, and a signal leaves no
 * temporary file behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* Inputs larger than this are not policies or filters (a 4096-insn filter
 * is 32 KiB; the largest real profiles are well under 1 MiB). */
#define INPUT_LIMIT (64U << 20)

/* ---------------------------------------------------------------- input */

/* The regular files read so far, by identity: -o must not name one of
 * them, whatever path (a link, a hard link, "..") it takes to get there. */
static struct input_id {
	dev_t dev;
	ino_t ino;
	const char *name;
} inputs[4];
static size_t n_inputs;

int read_input(const char *path, char **out, size_t *out_len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t cap = 64 * 1024, n = 0;
	struct stat ist;
	char *buf;

	if (fd < 0) {
		errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	/* Only regular files: a terminal or pipe may well be both the input
	 * and the output. */
	if (!fstat(fd, &ist) && S_ISREG(ist.st_mode) && n_inputs < ARRAY_SIZE(inputs))
		inputs[n_inputs++] = (struct input_id){ ist.st_dev, ist.st_ino, display_name(path) };
	buf = malloc(cap + 1);
	if (!buf)
		goto nomem;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= INPUT_LIMIT) {
				errorf("%s: larger than %u MiB; not a policy or filter",
				       display_name(path), INPUT_LIMIT >> 20);
				goto fail;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto nomem;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			errorf("%s: %s", display_name(path), strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (fd != STDIN_FILENO)
		close(fd);
	*out = buf;
	*out_len = n;
	return 0;
nomem:
	errorf("%s: %s", display_name(path), strerror(ENOMEM));
fail:
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return -1;
}

/* --------------------------------------------------------------- writing */

/* The file a signal must not leave behind (a temporary file, or a dump file
 * being written), by name in the directory it was created in: unlinkat()
 * is async-signal-safe and needs no path that could have been renamed. */
static volatile sig_atomic_t tmp_dirfd = AT_FDCWD;
static char tmp_name[64];
static volatile sig_atomic_t tmp_live;

static void on_fatal_signal(int sig)
{
	if (tmp_live)
		unlinkat(tmp_dirfd, tmp_name, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

void install_signal_cleanup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* 0644 less the umask: the mode a new output gets, as install(1) gives it. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0644 & ~mask;
}

/* Refuse, before anything is written, an output that is one of the inputs:
 * compiling a policy onto itself would lose the policy. */
static bool is_input(const char *path, const struct stat *st)
{
	for (size_t i = 0; i < n_inputs; i++) {
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino) {
			errorf("%s: the output is the same file as the input %s; nothing written",
			       path, inputs[i].name);
			return true;
		}
	}
	return false;
}

/* The descriptor /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
 * names, else -1.  These are written through the descriptor this process
 * already holds, never reopened: reopening loses the caller's O_APPEND (a
 * shell's >>), fails on a socket (ENXIO), and with a deleted file behind
 * the descriptor the rename would replace the system's /dev/stdout link. */
static int fd_named(const char *path)
{
	static const char *const fd_dirs[] = { "/dev/fd/", "/proc/self/fd/",
						"/proc/thread-self/fd/" };

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < ARRAY_SIZE(fd_dirs); i++) {
		size_t n = strlen(fd_dirs[i]);
		const char *s = path + n;
		int fd = 0;

		if (strncmp(path, fd_dirs[i], n) || !*s)
			continue;
		for (; *s; s++) {
			if (*s < '0' || *s > '9' || fd > (INT_MAX - 9) / 10)
				return -1;
			fd = fd * 10 + (*s - '0');
		}
		return fd;
	}
	return -1;
}

/* Write to a descriptor the caller set up, as it is: appending when it is
 * in append mode, at its offset otherwise. */
static int write_fd(const char *path, int fd, const void *buf, size_t len)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	if (fl < 0) {
		errorf("%s: descriptor %d is not open", path, fd);
		return -1;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		errorf("%s: descriptor %d is open for reading only", path, fd);
		return -1;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && is_input(path, &st))
		return -1;
	if (write_all(fd, buf, len)) {
		errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A device, FIFO or directory at the output cannot be renamed over and must
 * not be: it is opened as it is (no O_CREAT, no O_TRUNC, no link followed)
 * and written in place.  ST is what was found there, if known. */
static int write_in_place(const char *path, int dfd, const char *name, const struct stat *st,
			  const void *buf, size_t len)
{
	struct stat now;
	int fd;

	if (st && S_ISSOCK(st->st_mode)) {
		errorf("%s: a socket, which cannot be opened as a file", path);
		return -1;
	}
	fd = openat(dfd, name, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &now)) {
		errorf("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Written in place, a regular file would mix old and new content. */
	if (S_ISREG(now.st_mode)) {
		errorf("%s: became a regular file while being opened; nothing written", path);
		close(fd);
		return -1;
	}
	if (write_all(fd, buf, len)) {
		errorf("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd)) {
		errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Write BUF to a new file in DFD (DIR) and rename it onto NAME, so readers
 * see the old content or the new, never a mix, and a failure leaves NAME as
 * it was.  The temporary name is short whatever NAME's length (a 255-byte
 * NAME plus a suffix would pass NAME_MAX) and is created O_EXCL|O_NOFOLLOW:
 * nothing someone put there first is ever opened. */
static int replace_file(const char *path, const char *dir, int dfd, const char *name,
			mode_t mode, const void *buf, size_t len)
{
	int fd = -1;

	for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long long v;

		if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
			/* No entropy yet (early boot): O_EXCL keeps any name safe. */
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			v = (unsigned long long)ts.tv_nsec * 1000003U ^
			    (unsigned long long)getpid() << 32 ^ tries;
		}
		snprintf(tmp_name, sizeof(tmp_name), ".scmpc-%012llx", v & 0xffffffffffffULL);
		fd = openat(dfd, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		errorf("%s: cannot create a temporary file in %s: %s", path, dir, strerror(errno));
		return -1;
	}
	tmp_dirfd = dfd;
	tmp_live = 1;
	if (write_all(fd, buf, len) || fchmod(fd, mode) || fsync(fd)) {
		errorf("%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	if (close(fd)) {
		errorf("%s: %s", path, strerror(errno));
		goto fail;
	}
	/* rename(2) replaces the directory entry NAME, whatever it is: a link
	 * there is replaced itself, and its target is never touched. */
	if (renameat(dfd, tmp_name, dfd, name)) {
		errorf("%s: cannot put the new file in its place: %s", path, strerror(errno));
		goto fail;
	}
	tmp_live = 0;
	return 0;
fail:
	unlinkat(dfd, tmp_name, 0);
	tmp_live = 0;
	return -1;
}

/* Write BUF to PATH, the file -o names and no other.  No path is resolved
 * beforehand (no realpath()): the last component is looked at with
 * AT_SYMLINK_NOFOLLOW relative to its directory, which is opened once. */
int write_output(const char *path, const void *buf, size_t len)
{
	char dir[PATH_MAX], target[PATH_MAX];
	const char *slash, *name;
	struct stat st, via, dst;
	mode_t mode = new_file_mode();
	int dfd, fd, rc = -1;
	ssize_t tl;

	if (!path || !strcmp(path, "-"))
		return write_fd("standard output", STDOUT_FILENO, buf, len);
	fd = fd_named(path);
	if (fd >= 0)
		return write_fd(path, fd, buf, len);
	slash = strrchr(path, '/');
	name = slash ? slash + 1 : path;
	/* "DIR/", "." or "..": a directory, or nothing; open() says which. */
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return write_in_place(path, AT_FDCWD, path, NULL, buf, len);
	if (!slash) {
		strcpy(dir, ".");
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		if (n >= sizeof(dir)) {
			errorf("%s: %s", path, strerror(ENAMETOOLONG));
			return -1;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			errorf("%s: %s", path, strerror(errno));
			goto out;
		}
	} else if (is_input(path, &st) ||
		   (S_ISLNK(st.st_mode) && !fstatat(dfd, name, &via, 0) && is_input(path, &via))) {
		goto out;
	} else if (S_ISLNK(st.st_mode)) {
		/* A link is replaced, never followed, as mv(1) and install(1)
		 * replace it; nothing is written through a link.  Except another
		 * user's link in a sticky directory such as /tmp: there it is
		 * what fs.protected_symlinks guards against, a link planted where
		 * someone else is about to write.  It is refused, so the caller
		 * hears of it, and so that root and other callers fare alike
		 * (rename(2) over another user's entry there is EPERM unless
		 * root). */
		if (fstat(dfd, &dst)) {
			errorf("%s: %s", dir, strerror(errno));
			goto out;
		}
		if ((dst.st_mode & S_ISVTX) && st.st_uid != geteuid()) {
			errorf("%s: a symbolic link owned by uid %u in the sticky directory %s; "
			       "not replacing it or writing through it",
			       path, (unsigned)st.st_uid, dir);
			goto out;
		}
		/* The caller's own link to /dev/stdout, or /dev/stdout itself
		 * reached by another spelling (//dev/stdout). */
		tl = readlinkat(dfd, name, target, sizeof(target) - 1);
		if (tl > 0) {
			target[tl] = '\0';
			fd = fd_named(target);
			if (fd >= 0) {
				rc = write_fd(path, fd, buf, len);
				goto out;
			}
		}
	} else if (S_ISREG(st.st_mode)) {
		/* The caller's own file keeps its permissions, never a setuid,
		 * setgid or sticky bit: the new file belongs to the caller (root,
		 * often) and a filter is no program.  Another user's mode says
		 * nothing of what the caller wants. */
		if (st.st_uid == geteuid())
			mode = st.st_mode & 0777;
	} else {
		rc = write_in_place(path, dfd, name, &st, buf, len);
		goto out;
	}
	rc = replace_file(path, dir, dfd, name, mode, buf, len);
out:
	close(dfd);
	return rc;
}

/* Create NAME in directory DFD (PATH in messages) holding BUF, for dump,
 * whose names (PID-N.bpf) anyone can predict: O_EXCL|O_NOFOLLOW, so a file
 * or link someone put there first is never opened, followed or replaced. */
int create_new(int dfd, const char *path, const char *name, const void *buf, size_t len)
{
	struct stat st;
	int fd;

	if (strlen(name) >= sizeof(tmp_name)) {
		errorf("%s: %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			errorf("%s: a symbolic link is in the way; dump never follows or "
			       "replaces one", path);
		else if (errno == EEXIST)
			errorf("%s: already exists; dump does not replace files "
			       "(remove it or choose another -o DIR)", path);
		else
			errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(tmp_name, sizeof(tmp_name), "%s", name);
	tmp_dirfd = dfd;
	tmp_live = 1;
	if (write_all(fd, buf, len) || fsync(fd)) {
		errorf("%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	if (close(fd)) {
		errorf("%s: %s", path, strerror(errno));
		goto fail;
	}
	tmp_live = 0;
	return 0;
fail:
	unlinkat(dfd, name, 0);
	tmp_live = 0;
	return -1;
}
