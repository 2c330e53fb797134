/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile: command-line front end of libscmpc.
 *
 * Exit status: 0 success, 1 bad policy or input, 2 usage error.  diff is the
 * exception, as with cmp(1): 0 equivalent, 1 different, 2 any failure, so a
 * script can tell "they differ" from "could not compare".  exec follows
 * env(1) once the filter is in place: 126 when the command cannot run, 127
 * when it is not found, else whatever the command exits with.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "scmpc.h"
#include "internal.h"	/* arch_table_max(); policy rules for diff's probe values */
#include "json_text.h"	/* a .bpf given as a policy, and the reverse */

#define PROG_NAME "scmp-compile"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 126, EXIT_NOT_FOUND = 127 };

/* Inputs larger than this are not policies or filters (a 4096-insn filter
 * is 32 KiB; the largest real profiles are well under 1 MiB). */
#define INPUT_LIMIT (64U << 20)

/* The kernel's cache bitmap size on Linux 6.18 for every ABI we handle:
 * NR_syscalls (x86_64, aarch64) and the compat tables (i386, arm) all end
 * at 469 there, file_setattr.  explain and inspect report against it. */
#define CACHE_NR 470U

/* Numbers probed per ABI, as scmpc_stats does. */
#define PROBE_NRS 1024U

#define X32_BIT 0x40000000U

/* --------------------------------------------------------------- output */

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorf(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The subcommand being run, once main() knows it: its usage errors point
 * to its own --help. */
static const char *usage_cmd;

/* "x86_64, i386, ..." for a usage message. */
static const char *abi_names(char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int a = 1; a <= SCMPC_ARCH_COUNT && k < len; a++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", a > 1 ? ", " : "",
				      scmpc_arch_name((enum scmpc_arch)a));
	return buf;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (usage_cmd)
		fprintf(stderr, "\nTry '" PROG_NAME " %s --help' for more information.\n",
			usage_cmd);
	else
		fputs("\nTry '" PROG_NAME " --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* "scmp-compile: NAME: where: message"; RC supplies a message when the
 * library left none. */
static void report_diag(const char *name, const scmpc_diag *d, int rc)
{
	const char *where = scmpc_diag_where(d);
	const char *msg = scmpc_diag_message(d);

	size_t wl = where ? strlen(where) : 0;

	if (!msg || !*msg)
		msg = strerror(rc < 0 ? -rc : EINVAL);
	/* Some messages already start with their position. */
	if (wl && !strncmp(msg, where, wl) && msg[wl] == ':' && msg[wl + 1] == ' ')
		msg += wl + 2;
	if (where && *where)
		errorf("%s: %s: %s", name, where, msg);
	else
		errorf("%s: %s", name, msg);
}

static void report_warnings(const char *name, const scmpc_diag *d, bool quiet)
{
	size_t n = scmpc_diag_warning_count(d);

	if (quiet)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, PROG_NAME ": warning: %s: %s\n", name, scmpc_diag_warning(d, i));
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Small numbers read best in decimal, syscall numbers with x32 or ARM
 * private bits and argument masks in hex. */
static const char *fmt_u64(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, v < 0x10000 ? "%" PRIu64 : "0x%" PRIx64, v);
	return buf;
}

static const char *action_name(uint32_t act, char *buf, size_t len)
{
	scmpc_action_str(act, buf, len);
	return buf;
}

/* ---------------------------------------------------------------- input */

/* The regular files read so far, by identity: -o must not name one of
 * them, whatever path (a link, a hard link, "..") it takes to get there. */
static struct input_id {
	dev_t dev;
	ino_t ino;
	const char *name;
} inputs[4];
static size_t n_inputs;

static int read_input(const char *path, char **out, size_t *out_len)
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

/* A policy is text whose first non-blank byte opens an object; a .bpf file
 * starts with an instruction whose 16-bit code has a zero high byte, so it
 * always contains a NUL and never passes. */
static bool looks_like_json(const char *buf, size_t len)
{
	size_t i = 0;

	if (memchr(buf, '\0', len))
		return false;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;	/* a UTF-8 byte order mark: still text */
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i < len && buf[i] == '{';
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

static void install_signal_cleanup(void)
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
static int write_output(const char *path, const void *buf, size_t len)
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
static int create_new(int dfd, const char *path, const char *name, const void *buf, size_t len)
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

/* ------------------------------------------------------------- options */

enum {
	OPT_CAPS = 256,
	OPT_KERNEL,
	OPT_STRICT,
	OPT_NO_ENOSYS,
	OPT_RESTRICTIVE,
	OPT_RUNTIME,
	OPT_BAD_ARCH,
	OPT_NAME,
	OPT_FLAGS,
	OPT_KEEP_NNP,
};

/* Which options each subcommand takes. */
enum {
	F_OUTPUT = 1 << 0,
	F_FORMAT = 1 << 1,
	F_ARCH = 1 << 2,
	F_CAPS = 1 << 3,
	F_KERNEL = 1 << 4,
	F_STRICT = 1 << 5,
	F_NO_ENOSYS = 1 << 6,
	F_STATS = 1 << 7,
	F_NAME = 1 << 8,
	F_QUIET = 1 << 9,
	F_RESTRICTIVE = 1 << 10,
	F_FLAGS = 1 << 11,
	F_KEEP_NNP = 1 << 12,
	F_RUNTIME = 1 << 13,
	F_BAD_ARCH = 1 << 14,
	F_POLICY = F_CAPS | F_KERNEL | F_STRICT | F_NO_ENOSYS | F_RESTRICTIVE | F_QUIET | F_RUNTIME |
		   F_BAD_ARCH,
};

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "arch", required_argument, NULL, 'a' },
	{ "caps", required_argument, NULL, OPT_CAPS },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "no-enosys", no_argument, NULL, OPT_NO_ENOSYS },
	{ "restrictive", no_argument, NULL, OPT_RESTRICTIVE },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "bad-arch", required_argument, NULL, OPT_BAD_ARCH },
	{ "stats", no_argument, NULL, 's' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "quiet", no_argument, NULL, 'q' },
	{ "flags", required_argument, NULL, OPT_FLAGS },
	{ "keep-nnp", no_argument, NULL, OPT_KEEP_NNP },
	{ NULL, 0, NULL, 0 },
};

struct command;

struct cli {
	const struct command *command;	/* the subcommand being run */
	const char *cmd;		/* its name */
	unsigned seen;			/* F_* given on the command line */
	const char *output;
	int format;			/* enum scmpc_format, or -1 */
	enum scmpc_arch arch;		/* SCMPC_ARCH_NONE unless --arch */
	char **caps;			/* NULL-terminated; NULL = Docker's default set */
	unsigned kernel_major, kernel_minor;
	unsigned json_flags;
	enum scmpc_runtime runtime;
	uint32_t bad_arch;
	bool stats;
	bool quiet;
	const char *c_name;
	unsigned seccomp_flags;		/* exec --flags */
	bool keep_nnp;
	char **pos;
	int npos;
	char **cmd_argv;		/* exec: the command, NULL-terminated */
};

/* Every capability of Linux 6.x, for --caps all (a privileged container). */
static const char *const all_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

static void free_caps(char **caps)
{
	if (!caps)
		return;
	for (char **c = caps; *c; c++)
		free(*c);
	free(caps);
}

/* Adds NAME to LIST (of N) unless it is there: the list holds at most
 * every capability once, which its size allows for. */
static int add_cap(char **list, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(list[i], name))
			return 0;
	return (list[(*n)++] = strdup(name)) ? 0 : -1;
}

/* "default", "all", "none"/"" or a comma list; CAP_ and case are optional
 * so that "net_admin,sys_ptrace" works too.  In a list, "default" and
 * "all" stand for their sets ("default,CAP_SYS_ADMIN" is Docker's
 * --cap-add SYS_ADMIN). */
static int parse_caps(const char *s, struct cli *c)
{
	size_t n = 0, cap = ARRAY_SIZE(all_caps) + 1;
	char **list;

	free_caps(c->caps);
	c->caps = NULL;
	if (!strcasecmp(s, "default"))
		return 0;
	list = calloc(cap, sizeof(*list));
	if (!list)
		return -1;
	c->caps = list;
	if (!strcasecmp(s, "all")) {
		for (size_t i = 0; i < ARRAY_SIZE(all_caps); i++)
			if (!(list[n++] = strdup(all_caps[i])))
				return -1;
		return 0;
	}
	if (!strcasecmp(s, "none"))
		return 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		char name[64];
		size_t k;

		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len == 7 && !strncasecmp(s, "default", 7)) {
			for (const char *const *d = json_docker_default_caps(); *d; d++)
				if (add_cap(list, &n, *d))
					return -1;
		} else if (len == 3 && !strncasecmp(s, "all", 3)) {
			for (size_t i = 0; i < ARRAY_SIZE(all_caps); i++)
				if (add_cap(list, &n, all_caps[i]))
					return -1;
		} else if (len == 4 && !strncasecmp(s, "none", 4)) {
			usage_error("'none' cannot be combined with other capabilities");
			return 1;
		} else if (len) {
			bool prefixed = len > 4 && !strncasecmp(s, "CAP_", 4);

			if (len + (prefixed ? 0 : 4) >= sizeof(name)) {
				usage_error("unknown capability '%.*s'", (int)len, s);
				return 1;
			}
			k = (size_t)snprintf(name, sizeof(name), "%s%.*s", prefixed ? "" : "CAP_",
					     (int)len, s);
			for (size_t i = 0; i < k; i++)
				if (name[i] >= 'a' && name[i] <= 'z')
					name[i] = (char)(name[i] - 'a' + 'A');
			size_t j;
			for (j = 0; j < ARRAY_SIZE(all_caps); j++)
				if (!strcmp(name, all_caps[j]))
					break;
			if (j == ARRAY_SIZE(all_caps)) {
				usage_error("unknown capability '%s'", name);
				return 1;
			}
			if (add_cap(list, &n, name))
				return -1;
		}
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
	}
	return 0;
}

static bool parse_uint(const char *s, unsigned max, unsigned *out, const char **end)
{
	unsigned long v;
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v > max)
		return false;
	*out = (unsigned)v;
	*end = e;
	return true;
}

/* X.Y as Docker's minKernel spells it; a third part (uname's 6.8.0-45) is
 * accepted and ignored, as moby does. */
static bool parse_kernel(const char *s, unsigned *major, unsigned *minor)
{
	const char *e;

	if (!parse_uint(s, 255, major, &e) || *e != '.')
		return false;
	if (!parse_uint(e + 1, 255, minor, &e))
		return false;
	return (*e == '\0' || *e == '.' || *e == '-') && (*major || *minor);
}

/* Decimal or 0x hex; a leading '-' gives the two's complement, so that
 * AT_FDCWD can be written -100.  1 for a number, 0 for none, -1 for one
 * outside -2^63 .. 2^64-1, which no 64-bit register holds (it is refused,
 * not wrapped or saturated). */
static int parse_u64(const char *s, uint64_t *out)
{
	bool neg = *s == '-';
	int base = 10;
	char *e;
	uint64_t v;

	if (neg)
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s || !((*s >= '0' && *s <= '9') || (base == 16 && strchr("abcdefABCDEF", *s))))
		return 0;
	errno = 0;
	v = strtoull(s, &e, base);
	if (*e)
		return 0;
	if (errno == ERANGE || (neg && v > (uint64_t)1 << 63))
		return -1;
	*out = neg ? (uint64_t)0 - v : v;
	return 1;
}

static int parse_format(const char *s)
{
	if (!strcmp(s, "bpf"))
		return SCMPC_FORMAT_BPF;
	if (!strcmp(s, "c"))
		return SCMPC_FORMAT_C;
	if (!strcmp(s, "text"))
		return SCMPC_FORMAT_TEXT;
	return -1;
}

/* exec --flags: SECCOMP_FILTER_FLAG_* names as the OCI "flags" field spells
 * them, or without the prefix, in any case, '-' for '_'. */
static int parse_seccomp_flags(const char *s, unsigned *out)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{ "TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
		{ "LOG", SECCOMP_FILTER_FLAG_LOG },
		{ "SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
		{ "TSYNC_ESRCH", SECCOMP_FILTER_FLAG_TSYNC_ESRCH },
		{ "NEW_LISTENER", SECCOMP_FILTER_FLAG_NEW_LISTENER },
		{ "WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
	};
	static const char prefix[] = "SECCOMP_FILTER_FLAG_";

	while (*s) {
		size_t len = strcspn(s, ",");
		const char *next = s + len + (s[len] == ',');
		char name[64];
		size_t j, k = 0;

		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (!len) {
			s = next;
			continue;
		}
		if (len >= sizeof(name))
			return usage_error("unknown seccomp flag '%.*s'", (int)len, s);
		for (size_t i = 0; i < len; i++) {
			char ch = s[i] == '-' ? '_' : s[i];

			name[k++] = ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
		}
		name[k] = '\0';
		const char *bare = strncmp(name, prefix, sizeof(prefix) - 1) ? name
									     : name + sizeof(prefix) - 1;
		for (j = 0; j < ARRAY_SIZE(names); j++)
			if (!strcmp(bare, names[j].name))
				break;
		if (j == ARRAY_SIZE(names))
			return usage_error("unknown seccomp flag '%.*s' (tsync, log, spec_allow or "
					   "tsync_esrch)", (int)len, s);
		/* The listener fd would be closed by the exec it is meant to
		 * survive, leaving notifying calls to fail with ENOSYS. */
		if (names[j].bit & (SECCOMP_FILTER_FLAG_NEW_LISTENER |
				    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))
			return usage_error("%s needs a supervisor to answer notifications, and exec "
					   "has none", names[j].name);
		*out |= names[j].bit;
		s = next;
	}
	return EXIT_OK;
}

static void print_help(FILE *f)
{
	fputs(
"Usage: " PROG_NAME " compile POLICY [-o FILE] [-f bpf|c|text] [-a ABI] [--stats]\n"
"                    [--caps LIST] [--kernel X.Y] [--strict] [--no-enosys] [--restrictive]\n"
"                    [--runtime RT] [--bad-arch ACT] [--name NAME] [-q]\n"
"       " PROG_NAME " explain POLICY SYSCALL [ARG...] [-a ABI] [POLICY OPTIONS]\n"
"       " PROG_NAME " inspect FILE.bpf [-a ABI] [-f text] [--kernel X.Y]\n"
"       " PROG_NAME " diff A B [-a ABI] [POLICY OPTIONS]\n"
"       " PROG_NAME " exec [--flags LIST] [--keep-nnp] [-a ABI] [POLICY OPTIONS]\n"
"                    POLICY|FILE.bpf [--] CMD [ARG...]\n"
"       " PROG_NAME " dump PID [-o DIR]\n"
"       " PROG_NAME " COMMAND --help\n"
"       " PROG_NAME " --help | --version\n"
"\n"
"POLICY OPTIONS are --caps, --kernel, --strict, --no-enosys, --restrictive,\n"
"--runtime, --bad-arch and -q.\n"
"\n"
"Compile OCI, Docker and Podman seccomp profiles into verified classic BPF.\n"
"\n"
"Commands:\n"
"  compile   parse POLICY, compile and verify it, write the filter\n"
"  explain   show which rule decides one call, the instructions the filter\n"
"            runs for it and whether the kernel caches it\n"
"  inspect   check a raw .bpf filter against the kernel's rules and list what\n"
"            it decides for each syscall number, and what it lets the kernel cache\n"
"  diff      list the syscalls and arguments on which two filters (policies or\n"
"            .bpf files) decide differently\n"
"  exec      compile POLICY (or take FILE.bpf), install it in this process\n"
"            with seccomp(2) and execute CMD under it\n"
"  dump      write each filter of process PID (oldest first) to DIR/PID-N.bpf\n"
"            and say what each costs and lets the kernel cache; needs\n"
"            CAP_SYS_ADMIN and a caller not under seccomp\n"
"\n"
"Options:\n"
"  -o, --output FILE   write to FILE (replaced atomically; '-' = stdout);\n"
"                      dump: the directory to write to (default: .)\n"
"  -f, --format FMT    bpf (raw sock_filter array), c (C array) or text\n"
"                      (disassembly); default text, or bpf when FILE ends in\n"
"                      .bpf, c when it ends in .c or .h\n"
"  -a, --arch ABI      x86_64, i386, x32, aarch64, arm, s390x, ppc64le, riscv64,\n"
"                      mips64, ... (every libseccomp ABI; also amd64, arm64, ...);\n"
"                      compile: the target; exec: this machine's (the only\n"
"                      one it can load); otherwise: the ABI to examine\n"
"      --caps LIST     capabilities for Docker includes/excludes: CAP_X,CAP_Y,\n"
"                      'default' (Docker's default set), 'all' or 'none';\n"
"                      'default,CAP_X' is the default set plus CAP_X\n"
"      --kernel X.Y    kernel version for Docker minKernel (default: running)\n"
"      --strict        unknown syscall names are errors, not warnings\n"
"      --no-enosys     no runc-style ENOSYS for syscalls newer than the policy\n"
"      --restrictive   overlapping rules: the most restrictive action wins,\n"
"                      instead of libseccomp's order (as runc and crun)\n"
"      --runtime RT    whose filter to reproduce: runc (default; 1.2 and\n"
"                      later), runc-1.1 (1.1.5, Debian 12's), crun or\n"
"                      libseccomp (its rules alone, no ENOSYS stub)\n"
"      --bad-arch ACT  action for ABIs the filter does not serve (default\n"
"                      the runtime's: KILL_THREAD)\n"
"  -s, --stats         print size, path length and cache figures (to stderr,\n"
"                      or stdout when the filter goes to a file)\n"
"      --name NAME     array name for --format c (default scmpc_filter)\n"
"  -q, --quiet         do not print warnings\n"
"      --flags LIST    exec: seccomp(2) flags added to the policy's own:\n"
"                      tsync, log, spec_allow, tsync_esrch (comma-separated)\n"
"      --keep-nnp      exec: do not set no_new_privs, so that set-user-ID\n"
"                      programs keep their privileges (needs CAP_SYS_ADMIN)\n"
"  -h, --help          print this help; after COMMAND, that command's usage\n"
"                      and options only\n"
"  -V, --version       print the version\n"
"\n"
"SYSCALL is a name or a number; ARGs are integers (decimal, 0x hex, or\n"
"negative after '--').  POLICY, A or B may be '-' for standard input.\n"
"\n"
"Exit status: 0 success, 1 invalid policy or input, 2 usage error.\n"
"diff: 0 equivalent, 1 different, 2 error.\n"
"exec: 1 when the filter cannot be installed, 126 when CMD cannot be run,\n"
"127 when it is not found, else CMD's own status.\n", f);
}

static int cmd_compile(struct cli *c);
static int cmd_explain(struct cli *c);
static int cmd_inspect(struct cli *c);
static int cmd_diff(struct cli *c);
static int cmd_exec(struct cli *c);
static int cmd_dump(struct cli *c);

#define EXIT_HELP "Exit status: 0 success, 1 invalid policy or input, 2 usage error.\n"

/* The subcommands: what each runs, the options it takes (parse_opts()
 * refuses the others) and the text of its --help. */
static const struct command {
	const char *name;
	int (*fn)(struct cli *);
	unsigned allowed;
	const char *usage, *about, *exits;
} commands[] = {
	{ "compile", cmd_compile, F_OUTPUT | F_FORMAT | F_ARCH | F_POLICY | F_STATS | F_NAME,
	  "Usage: " PROG_NAME " compile POLICY [-o FILE] [-f bpf|c|text] [-a ABI] [--stats]\n"
	  "                            [--caps LIST] [--kernel X.Y] [--strict]\n"
	  "                            [--no-enosys] [--restrictive] [--runtime RT]\n"
	  "                            [--bad-arch ACT] [--name NAME] [-q]\n",
	  "Parse POLICY (an OCI, Docker or Podman seccomp profile; '-' for standard\n"
	  "input), compile it into classic BPF, check the program against the kernel's\n"
	  "rules and against the policy, and write it.\n",
	  EXIT_HELP },
	{ "explain", cmd_explain, F_ARCH | F_POLICY,
	  "Usage: " PROG_NAME " explain POLICY SYSCALL [ARG...] [-a ABI] [--caps LIST]\n"
	  "                            [--kernel X.Y] [--strict] [--no-enosys]\n"
	  "                            [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n",
	  "Say which rule of POLICY decides one call, the action, the instructions the\n"
	  "compiled filter executes for it and whether the kernel caches it.  SYSCALL is\n"
	  "a name or a number; up to six ARGs are integers (decimal, 0x hex, or negative\n"
	  "after '--'), missing ones 0.  POLICY may be '-' for standard input.\n",
	  EXIT_HELP },
	{ "inspect", cmd_inspect, F_ARCH | F_FORMAT | F_KERNEL,
	  "Usage: " PROG_NAME " inspect FILE.bpf [-a ABI] [-f text] [--kernel X.Y]\n",
	  "Check a raw filter (a struct sock_filter array; '-' for standard input)\n"
	  "against the kernel's rules, print what it decides for each syscall number\n"
	  "as ranges per ABI, how many syscalls the kernel caches, and for each allowed\n"
	  "syscall it cannot cache, the instruction that stops it.\n",
	  EXIT_HELP },
	{ "diff", cmd_diff, F_ARCH | F_POLICY,
	  "Usage: " PROG_NAME " diff A B [-a ABI] [--caps LIST] [--kernel X.Y] [--strict]\n"
	  "                         [--no-enosys] [--restrictive] [--runtime RT]\n"
	  "                         [--bad-arch ACT] [-q]\n",
	  "List the syscalls and argument values on which two filters decide\n"
	  "differently.  A and B are each a policy, compiled first, or a raw .bpf\n"
	  "filter; one of them may be '-' for standard input.\n",
	  "Exit status: 0 equivalent, 1 different, 2 error (as cmp(1)).\n" },
	{ "exec", cmd_exec, F_ARCH | F_POLICY | F_FLAGS | F_KEEP_NNP,
	  "Usage: " PROG_NAME " exec [--flags LIST] [--keep-nnp] [-a ABI] [--caps LIST]\n"
	  "                         [--kernel X.Y] [--strict] [--no-enosys]\n"
	  "                         [--restrictive] [--runtime RT] [--bad-arch ACT] [-q]\n"
	  "                         POLICY|FILE.bpf [--] CMD [ARG...]\n",
	  "Compile POLICY for this machine (or take a raw FILE.bpf), install it in this\n"
	  "process with seccomp(2), setting no_new_privs first, and execute CMD under\n"
	  "it.  Options are read up to the first word after POLICY, the command; what\n"
	  "follows it is CMD's.\n",
	  "Exit status: 1 when the filter cannot be installed, 2 usage error, 126 when\n"
	  "CMD cannot be run, 127 when it is not found, else CMD's own status.\n" },
	{ "dump", cmd_dump, F_OUTPUT,
	  "Usage: " PROG_NAME " dump PID [-o DIR]\n",
	  "Write each seccomp filter of process PID (oldest first) to DIR/PID-N.bpf\n"
	  "and say what each costs and lets the kernel cache.  Needs CAP_SYS_ADMIN and\n"
	  "a caller not under seccomp itself.\n",
	  EXIT_HELP },
};

/* A line of a subcommand's option list, shown to the commands whose allowed
 * set has FLAG; CMDS (space-separated), when set, narrows it further, for
 * options whose meaning differs between commands.  The first match wins. */
static const struct {
	unsigned flag;
	const char *cmds;
	const char *text;
} opt_help[] = {
	{ F_OUTPUT, "dump",
	  "  -o, --output DIR    the directory to write to (default: .)\n" },
	{ F_OUTPUT, NULL,
	  "  -o, --output FILE   write to FILE (replaced atomically; '-' = stdout)\n" },
	{ F_FORMAT, "inspect",
	  "  -f, --format text   disassemble the whole program first\n" },
	{ F_FORMAT, NULL,
	  "  -f, --format FMT    bpf (raw sock_filter array), c (C array) or text\n"
	  "                      (disassembly); default text, or bpf when FILE ends in\n"
	  "                      .bpf, c when it ends in .c or .h\n" },
	{ F_ARCH, "compile",
	  "  -a, --arch ABI      the target: x86_64, i386, x32, aarch64, arm, s390x,\n"
	  "                      ppc64le, riscv64, mips64, ... (every libseccomp ABI, also\n"
	  "                      amd64, arm64, ...); default: this machine's\n" },
	{ F_ARCH, "explain",
	  "  -a, --arch ABI      the ABI of the call: x86_64, i386, s390x, ... (every\n"
	  "                      libseccomp ABI); default: this machine's\n" },
	{ F_ARCH, "exec",
	  "  -a, --arch ABI      this machine's ABI, the only one exec can load\n" },
	{ F_ARCH, NULL,
	  "  -a, --arch ABI      the ABI to examine: x86_64, i386, s390x, ... (every\n"
	  "                      libseccomp ABI); default: this machine's ABIs and\n"
	  "                      those the inputs serve\n" },
	{ F_STATS, NULL,
	  "  -s, --stats         print size, path length and cache figures (to stderr,\n"
	  "                      or stdout when the filter goes to a file)\n" },
	{ F_NAME, NULL,
	  "      --name NAME     array name for --format c (default scmpc_filter)\n" },
	{ F_FLAGS, NULL,
	  "      --flags LIST    seccomp(2) flags added to the policy's own: tsync, log,\n"
	  "                      spec_allow, tsync_esrch (comma-separated)\n" },
	{ F_KEEP_NNP, NULL,
	  "      --keep-nnp      do not set no_new_privs, so that set-user-ID programs\n"
	  "                      keep their privileges (needs CAP_SYS_ADMIN)\n" },
	{ F_CAPS, NULL,
	  "      --caps LIST     capabilities for Docker includes/excludes: CAP_X,CAP_Y,\n"
	  "                      'default' (Docker's default set), 'all' or 'none';\n"
	  "                      'default,CAP_X' is the default set plus CAP_X\n" },
	{ F_KERNEL, "inspect",
	  "      --kernel X.Y    the kernel whose action cache to predict (default:\n"
	  "                      running)\n" },
	{ F_KERNEL, "compile",
	  "      --kernel X.Y    kernel version for Docker minKernel and for the cache\n"
	  "                      figures of --stats (default: running)\n" },
	{ F_KERNEL, "explain",
	  "      --kernel X.Y    kernel version for Docker minKernel and for whether\n"
	  "                      the kernel caches the call (default: running)\n" },
	{ F_KERNEL, NULL,
	  "      --kernel X.Y    kernel version for Docker minKernel (default: running)\n" },
	{ F_STRICT, NULL,
	  "      --strict        unknown syscall names are errors, not warnings\n" },
	{ F_NO_ENOSYS, NULL,
	  "      --no-enosys     no runc-style ENOSYS for syscalls newer than the policy\n" },
	{ F_RESTRICTIVE, NULL,
	  "      --restrictive   overlapping rules: the most restrictive action wins,\n"
	  "                      instead of libseccomp's order (as runc and crun)\n" },
	{ F_RUNTIME, NULL,
	  "      --runtime RT    whose filter to reproduce: runc (default; 1.2 and\n"
	  "                      later), runc-1.1 (1.1.5, Debian 12's), crun or\n"
	  "                      libseccomp (its rules alone, no ENOSYS stub)\n" },
	{ F_BAD_ARCH, NULL,
	  "      --bad-arch ACT  action for ABIs the filter does not serve (default\n"
	  "                      the runtime's: KILL_THREAD)\n" },
	{ F_QUIET, NULL,
	  "  -q, --quiet         do not print warnings\n" },
};

static bool word_in(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* CMD --help: its usage, what it does, and the options it takes, no more. */
static void print_command_help(const struct command *cmd, FILE *f)
{
	unsigned listed = 0;

	fprintf(f, "%s\n%s\nOptions:\n", cmd->usage, cmd->about);
	for (size_t i = 0; i < ARRAY_SIZE(opt_help); i++) {
		if (!(cmd->allowed & opt_help[i].flag) || (listed & opt_help[i].flag))
			continue;
		if (opt_help[i].cmds && !word_in(cmd->name, opt_help[i].cmds))
			continue;
		fputs(opt_help[i].text, f);
		listed |= opt_help[i].flag;
	}
	fprintf(f, "  -h, --help          print this help\n"
		   "  -V, --version       print the version\n\n%s", cmd->exits);
}

/* One getopt pass over ARGV; OPTSTRING's leading '+' (or not) decides
 * whether it stops at the first operand.  *END gets getopt's optind. */
static int parse_opts(int argc, char **argv, const char *optstring, unsigned allowed,
		      struct cli *c, int *end)
{
	static const struct {
		int opt;
		unsigned flag;
		const char *name;
	} flag_of[] = {
		{ 'o', F_OUTPUT, "--output" }, { 'f', F_FORMAT, "--format" },
		{ 'a', F_ARCH, "--arch" }, { OPT_CAPS, F_CAPS, "--caps" },
		{ OPT_KERNEL, F_KERNEL, "--kernel" }, { OPT_STRICT, F_STRICT, "--strict" },
		{ OPT_NO_ENOSYS, F_NO_ENOSYS, "--no-enosys" }, { 's', F_STATS, "--stats" },
		{ OPT_RESTRICTIVE, F_RESTRICTIVE, "--restrictive" },
		{ OPT_RUNTIME, F_RUNTIME, "--runtime" }, { OPT_BAD_ARCH, F_BAD_ARCH, "--bad-arch" },
		{ OPT_NAME, F_NAME, "--name" }, { 'q', F_QUIET, "--quiet" },
		{ OPT_FLAGS, F_FLAGS, "--flags" }, { OPT_KEEP_NNP, F_KEEP_NNP, "--keep-nnp" },
	};
	int opt;

	opterr = 0;
	optind = 0;	/* glibc: a full restart, so a second pass sees its own '+' */
	while ((opt = getopt_long(argc, argv, optstring, long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			print_command_help(c->command, stdout);
			exit(EXIT_OK);
		case 'V':
			printf(PROG_NAME " %s\n", scmpc_version());
			exit(EXIT_OK);
		case '?':
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		case ':':
			if (optopt && optopt < 256)
				return usage_error("option '-%c' needs an argument", optopt);
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			break;
		}
		for (size_t i = 0; i < ARRAY_SIZE(flag_of); i++) {
			if (flag_of[i].opt != opt)
				continue;
			if (!(allowed & flag_of[i].flag))
				return usage_error("%s does not apply to '%s'", flag_of[i].name, c->cmd);
			c->seen |= flag_of[i].flag;
		}
		switch (opt) {
		case 'o':
			c->output = optarg;
			break;
		case 'f':
			c->format = parse_format(optarg);
			if (c->format < 0)
				return usage_error("unknown format '%s' (bpf, c or text)", optarg);
			break;
		case 'a':
			c->arch = scmpc_arch_from_name(optarg);
			if (c->arch == SCMPC_ARCH_NONE) {
				char known[512];
				return usage_error("unknown ABI '%s' (%s)", optarg,
						   abi_names(known, sizeof(known)));
			}
			break;
		case OPT_CAPS: {
			int rc = parse_caps(optarg, c);

			if (rc < 0) {
				errorf("%s", strerror(ENOMEM));
				return EXIT_INPUT;
			}
			if (rc)
				return EXIT_USAGE;
			break;
		}
		case OPT_KERNEL:
			if (!parse_kernel(optarg, &c->kernel_major, &c->kernel_minor))
				return usage_error("invalid kernel version '%s' (expected X.Y)", optarg);
			break;
		case OPT_STRICT:
			c->json_flags |= SCMPC_JSON_STRICT;
			break;
		case OPT_NO_ENOSYS:
			c->json_flags |= SCMPC_JSON_NO_ENOSYS;
			break;
		case OPT_RESTRICTIVE:
			c->json_flags |= SCMPC_JSON_RESTRICTIVE;
			break;
		case OPT_RUNTIME: {
			int rt = scmpc_runtime_from_name(optarg);
			if (rt < 0)
				return usage_error("unknown runtime '%s' (runc, runc-1.1, crun or "
						   "libseccomp)", optarg);
			c->runtime = (enum scmpc_runtime)rt;
			break;
		}
		case OPT_BAD_ARCH: {
			int ra = scmpc_action_parse(optarg, &c->bad_arch);
			/* -ERANGE: ERRNO(N) or TRACE(N) with N the action cannot
			 * carry; N is quoted as written, not as 16 bits of it */
			if (ra == -ERANGE) {
				const char *n = strchr(optarg, '(');
				bool is_errno = !strncasecmp(optarg, "ERRNO", 5) ||
						!strncasecmp(optarg, "SCMP_ACT_ERRNO", 14);
				return usage_error("--bad-arch %s: %s %.*s is out of range (%s)", optarg,
						   is_errno ? "errno" : "TRACE data",
						   (int)strcspn(n + 1, ")"), n + 1,
						   is_errno ? "0-4095: the kernel caps errno at 4095"
							    : "0-65535: TRACE data is 16 bits");
			}
			if (ra < 0)
				return usage_error("unknown action '%s' (KILL_PROCESS, KILL_THREAD, TRAP, "
						   "ERRNO(N), TRACE(N), LOG or ALLOW)", optarg);
			c->json_flags |= SCMPC_JSON_BAD_ARCH;
			break;
		}
		case 's':
			c->stats = true;
			break;
		case OPT_NAME:
			c->c_name = optarg;
			break;
		case 'q':
			c->quiet = true;
			break;
		case OPT_FLAGS:
			if (parse_seccomp_flags(optarg, &c->seccomp_flags))
				return EXIT_USAGE;
			break;
		case OPT_KEEP_NNP:
			c->keep_nnp = true;
			break;
		}
	}
	*end = optind;
	return EXIT_OK;
}

#define OPTSTRING ":ho:f:a:sqV"

static int parse_args(int argc, char **argv, unsigned allowed, struct cli *c)
{
	int end, rc = parse_opts(argc, argv, OPTSTRING, allowed, c, &end);

	c->pos = argv + end;
	c->npos = argc - end;
	return rc;
}

/* exec's command line is ours up to the command and the command's after
 * it, as for env(1): options are taken before and after POLICY, but
 * scanning stops at the first word after POLICY (or after '--'), so CMD's
 * own options are never read as ours. */
static int parse_exec_args(int argc, char **argv, unsigned allowed, struct cli *c)
{
	int end, rc = parse_opts(argc, argv, "+" OPTSTRING, allowed, c, &end);

	if (rc)
		return rc;
	if (end >= argc)
		return usage_error("exec needs a POLICY and a command");
	bool after_dashes = end > 1 && !strcmp(argv[end - 1], "--");
	c->pos = argv + end;
	c->npos = 1;
	if (!after_dashes) {
		/* The pass restarts on POLICY's tail with POLICY as its argv[0]. */
		int tail;

		rc = parse_opts(argc - end, argv + end, "+" OPTSTRING, allowed, c, &tail);
		if (rc)
			return rc;
		end += tail;
	} else {
		end++;
	}
	if (end >= argc)
		return usage_error("exec needs a command to run after the POLICY");
	c->cmd_argv = argv + end;
	return EXIT_OK;
}

/* ----------------------------------------------------------- ABIs */

static enum scmpc_arch native_arch(void)
{
	enum scmpc_arch a = scmpc_arch_native();

	return a == SCMPC_ARCH_NONE ? SCMPC_ARCH_X86_64 : a;
}

static struct scmpc_arch_info abi_info(enum scmpc_arch a)
{
	struct scmpc_arch_info i = { .sz = sizeof(i) };
	if (scmpc_arch_describe(a, &i) < 0)
		memset(&i, 0, sizeof(i));
	return i;
}

/* The host whose container runtime would load a filter serving ABI A:
 * Docker resolves a profile for the host and adds its compat ABIs. */
static enum scmpc_arch host_of(enum scmpc_arch a)
{
	enum scmpc_arch h = abi_info(a).host;
	return h == SCMPC_ARCH_NONE ? a : h;
}

struct abi_list {
	enum scmpc_arch a[SCMPC_ARCH_COUNT];
	size_t n;
};

static void abi_add(struct abi_list *l, enum scmpc_arch a)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->a[i] == a)
			return;
	if (l->n < SCMPC_ARCH_COUNT && scmpc_arch_name(a))
		l->a[l->n++] = a;
}

static void abi_add_host_group(struct abi_list *l, enum scmpc_arch host)
{
	abi_add(l, host);
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++)
		if ((enum scmpc_arch)a != host && abi_info((enum scmpc_arch)a).host == host)
			abi_add(l, (enum scmpc_arch)a);
}

/* ABIs a raw filter dispatches on (seccomp_data.arch tested against their
 * AUDIT_ARCH), not every constant that happens to equal one. */
static void abi_add_from_prog(struct abi_list *l, const struct sock_filter *f, size_t len)
{
	enum scmpc_arch found[SCMPC_ARCH_COUNT];
	int n = scmpc_prog_abis(f, len, found, SCMPC_ARCH_COUNT);
	for (int i = 0; i < n && i < SCMPC_ARCH_COUNT; i++)
		abi_add(l, found[i]);
}

static bool abi_cacheable(enum scmpc_arch a)
{
	return abi_info(a).cached;
}

static uint32_t abi_base(enum scmpc_arch a)
{
	return abi_info(a).nr_base;
}

static const char *syscall_label(enum scmpc_arch a, uint32_t nr, char *buf, size_t len)
{
	char name[64], num[24];

	fmt_u64(nr, num, sizeof(num));
	if (scmpc_syscall_name(a, nr, name, sizeof(name)))
		snprintf(buf, len, "%s %s", num, name);
	else
		snprintf(buf, len, "%s", num);
	return buf;
}

struct nr_list {
	uint32_t *v;
	size_t n, cap;
};

static int nr_push(struct nr_list *l, uint32_t nr)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 2048;
		uint32_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = nr;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The numbers to probe for ABI A: the first PROBE_NRS (or the whole table
 * with some room past its end), and the boundaries where filters go wrong:
 * the x32 bit, the sign bit, -1 (a tracer's skipped call) and ARM's private
 * range. */
static int nr_probes(enum scmpc_arch a, struct nr_list *l)
{
	static const uint32_t x86_64_extra[] = { 0x3fffffff, 0x80000000, 0xbfffffff, 0xffffffff };
	static const uint32_t x32_extra[] = { 0x7fffffff, 0xc0000000, 0xfffffffe };
	static const uint32_t other_extra[] = { 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
	const uint32_t *extra = other_extra;
	size_t nextra = ARRAY_SIZE(other_extra);
	uint32_t base = abi_base(a);
	uint32_t limit = abi_info(a).table_max - base + 65;

	if (limit < PROBE_NRS)
		limit = PROBE_NRS;
	l->n = 0;
	for (uint32_t i = 0; i < limit; i++)
		if (nr_push(l, base + i))
			return -1;
	if (a == SCMPC_ARCH_X86_64) {
		extra = x86_64_extra;
		nextra = ARRAY_SIZE(x86_64_extra);
	} else if (a == SCMPC_ARCH_X32) {
		extra = x32_extra;
		nextra = ARRAY_SIZE(x32_extra);
	} else if (a == SCMPC_ARCH_ARM) {
		for (uint32_t nr = 0x0f0000; nr <= 0x0f0800; nr++)
			if (nr_push(l, nr))
				return -1;
	}
	/* Below a mips ABI's base lie the other mips ABIs' numbers. */
	if (base && a != SCMPC_ARCH_X32 && (nr_push(l, 0) || nr_push(l, base - 1)))
		return -1;
	for (size_t i = 0; i < nextra; i++)
		if (nr_push(l, extra[i]))
			return -1;
	qsort(l->v, l->n, sizeof(*l->v), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!k || l->v[k - 1] != l->v[i])
			l->v[k++] = l->v[i];
	l->n = k;
	return 0;
}

/* ---------------------------------------------------------- disassembly */

/* The seccomp_data field at offset K; on a big-endian ABI (BE) the high
 * word of a 64-bit field comes first. */
static const char *seccomp_field(uint32_t k, bool be, char *buf, size_t len)
{
	if (k == 0)
		return "nr";
	if (k == 4)
		return "arch";
	bool high = (k % 8 == 4) != be;
	if (k == 8 || k == 12)
		return high ? "instruction_pointer high" : "instruction_pointer low";
	if (k >= 16 && k < 64 && k % 4 == 0) {
		snprintf(buf, len, "args[%u] %s", (k - 16) / 8, high ? "high" : "low");
		return buf;
	}
	return NULL;
}

/* One instruction in the usual cBPF assembler syntax, jump targets
 * absolute; the CLI needs single lines (a path, a cache stop) where
 * scmpc_format renders whole programs. */
static void disasm(const struct sock_filter *f, size_t pc, bool be, char *buf, size_t len)
{
	static const char *const alu[16] = {
		[BPF_ADD >> 4] = "add", [BPF_SUB >> 4] = "sub", [BPF_MUL >> 4] = "mul",
		[BPF_DIV >> 4] = "div", [BPF_OR >> 4] = "or",	[BPF_AND >> 4] = "and",
		[BPF_LSH >> 4] = "lsh", [BPF_RSH >> 4] = "rsh", [BPF_NEG >> 4] = "neg",
		[BPF_MOD >> 4] = "mod", [BPF_XOR >> 4] = "xor",
	};
	static const char *const jmp[16] = {
		[BPF_JA >> 4] = "ja",	[BPF_JEQ >> 4] = "jeq", [BPF_JGT >> 4] = "jgt",
		[BPF_JGE >> 4] = "jge", [BPF_JSET >> 4] = "jset",
	};
	const struct sock_filter *in = &f[pc];
	uint16_t code = in->code;
	char note[48], act[32];
	const char *field;

	switch (BPF_CLASS(code)) {
	case BPF_LD:
	case BPF_LDX: {
		const char *op = BPF_CLASS(code) == BPF_LD ? "ld" : "ldx";
		const char *sz = BPF_SIZE(code) == BPF_H ? "h" : BPF_SIZE(code) == BPF_B ? "b" : "";

		switch (BPF_MODE(code)) {
		case BPF_ABS:
			field = seccomp_field(in->k, be, note, sizeof(note));
			snprintf(buf, len, "%s%s [%u]%s%s", op, sz, in->k, field ? "  ; " : "",
				 field ? field : "");
			return;
		case BPF_IND:
			snprintf(buf, len, "%s%s [x+%u]", op, sz, in->k);
			return;
		case BPF_IMM:
			snprintf(buf, len, "%s #0x%x", op, in->k);
			return;
		case BPF_MEM:
			snprintf(buf, len, "%s M[%u]", op, in->k);
			return;
		case BPF_LEN:
			snprintf(buf, len, "%s #len", op);
			return;
		case BPF_MSH:
			snprintf(buf, len, "ldxb 4*([%u]&0xf)", in->k);
			return;
		}
		break;
	}
	case BPF_ST:
		snprintf(buf, len, "st M[%u]", in->k);
		return;
	case BPF_STX:
		snprintf(buf, len, "stx M[%u]", in->k);
		return;
	case BPF_ALU: {
		const char *op = alu[BPF_OP(code) >> 4];

		if (!op)
			break;
		if (BPF_OP(code) == BPF_NEG)
			snprintf(buf, len, "neg");
		else if (BPF_SRC(code) == BPF_X)
			snprintf(buf, len, "%s x", op);
		else
			snprintf(buf, len, "%s #0x%x", op, in->k);
		return;
	}
	case BPF_JMP: {
		const char *op = jmp[BPF_OP(code) >> 4];

		if (!op)
			break;
		if (BPF_OP(code) == BPF_JA) {
			snprintf(buf, len, "ja %" PRIu64, (uint64_t)pc + 1 + in->k);
			return;
		}
		if (BPF_SRC(code) == BPF_X)
			snprintf(buf, len, "%s x, %zu, %zu", op, pc + 1 + in->jt, pc + 1 + in->jf);
		else
			snprintf(buf, len, "%s #0x%x, %zu, %zu", op, in->k, pc + 1 + in->jt,
				 pc + 1 + in->jf);
		return;
	}
	case BPF_RET:
		if (BPF_RVAL(code) == BPF_K)
			snprintf(buf, len, "ret #0x%08x  ; %s", in->k,
				 action_name(in->k, act, sizeof(act)));
		else
			snprintf(buf, len, "ret %s", BPF_RVAL(code) == BPF_X ? "x" : "a");
		return;
	case BPF_MISC:
		if (BPF_MISCOP(code) == BPF_TAX) {
			snprintf(buf, len, "tax");
			return;
		}
		if (BPF_MISCOP(code) == BPF_TXA) {
			snprintf(buf, len, "txa");
			return;
		}
		break;
	}
	snprintf(buf, len, ".insn 0x%04x, %u, %u, 0x%08x", code, in->jt, in->jf, in->k);
}

/* ------------------------------------------------------------ emulation */

struct filter {
	const char *name;		/* for messages */
	scmpc_policy *policy;		/* NULL for a raw .bpf */
	scmpc_prog *prog;		/* compiled policy */
	struct sock_filter *raw;	/* raw .bpf (owned) */
	const struct sock_filter *insns;
	size_t len;
	/* INSNS with every argument or IP load turned into a RET of a marker
	 * plus its index: where both copies return their marker, the path
	 * reads arguments, first at that index. */
	struct sock_filter *mark[2];
	/* Per instruction, bit I set when it tests argument I through a mask
	 * (jset, and): probe_vals_from_prog() fills it. */
	uint8_t *mask_tests;
};

static const uint32_t mark_ret[2] = { 0x7ffe0000, 0x7ffd0000 };

static void filter_free(struct filter *f)
{
	scmpc_policy_free(f->policy);
	scmpc_prog_free(f->prog);
	free(f->raw);
	free(f->mark[0]);
	free(f->mark[1]);
	free(f->mask_tests);
	memset(f, 0, sizeof(*f));
}

static bool reads_args(const struct sock_filter *in)
{
	return BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_ABS && in->k >= 8;
}

static int filter_prepare_marks(struct filter *f)
{
	for (int m = 0; m < 2; m++) {
		f->mark[m] = malloc(f->len * sizeof(*f->mark[m]));
		if (!f->mark[m])
			return -1;
		for (size_t i = 0; i < f->len; i++)
			f->mark[m][i] = reads_args(&f->insns[i])
				? (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							       mark_ret[m] | (uint32_t)i)
				: f->insns[i];
	}
	return 0;
}

static void make_data(struct seccomp_data *sd, enum scmpc_arch a, uint32_t nr, const uint64_t *args)
{
	memset(sd, 0, sizeof(*sd));
	sd->nr = (int)nr;
	sd->arch = scmpc_arch_audit(a);
	if (args)
		memcpy(sd->args, args, sizeof(sd->args));
}

static uint32_t run(const struct sock_filter *insns, size_t len, enum scmpc_arch a, uint32_t nr,
		    const uint64_t *args, unsigned *steps)
{
	struct seccomp_data sd;
	uint32_t ret = 0;

	make_data(&sd, a, nr, args);
	if (scmpc_emulate(insns, len, &sd, &ret, steps) < 0) {
		/* Only verified programs get here; a failure is a library bug,
		 * and a wrong answer would be worse than none. */
		errorf("internal error: the emulator rejected a verified program");
		exit(EXIT_USAGE);
	}
	return ret;
}

/* The instruction where the path for (A, NR) first loads an argument, or
 * -1 when the decision does not depend on them.  Until that load the path
 * depends on nr and arch alone, so one run of each marked copy answers
 * exactly. */
static long first_arg_load(const struct filter *f, enum scmpc_arch a, uint32_t nr)
{
	uint32_t r0 = run(f->mark[0], f->len, a, nr, NULL, NULL);
	uint32_t r1 = run(f->mark[1], f->len, a, nr, NULL, NULL);

	if ((r0 & 0xffff0000U) != mark_ret[0] || (r1 & 0xffff0000U) != mark_ret[1] ||
	    (r0 & 0xffffU) != (r1 & 0xffffU) || (r0 & 0xffffU) >= f->len)
		return -1;
	return (long)(r0 & 0xffffU);
}

static bool depends_on_args(const struct filter *f, enum scmpc_arch a, uint32_t nr)
{
	return first_arg_load(f, a, nr) >= 0;
}

/* Arguments that (A, NR)'s part of the program tests through a mask: the
 * instructions reachable from its first argument load. */
static unsigned masked_args(const struct filter *f, enum scmpc_arch a, uint32_t nr)
{
	long start = first_arg_load(f, a, nr);
	unsigned bits = 0;
	bool *reach;

	if (start < 0 || !f->mask_tests)
		return 0;
	reach = calloc(f->len, sizeof(*reach));
	if (!reach)
		return 0x3f;	/* the cautious answer: merge nothing */
	reach[start] = true;
	for (size_t pc = (size_t)start; pc < f->len; pc++) {
		const struct sock_filter *in = &f->insns[pc];

		if (!reach[pc])
			continue;
		bits |= f->mask_tests[pc];
		if (BPF_CLASS(in->code) == BPF_RET)
			continue;
		if (BPF_CLASS(in->code) != BPF_JMP) {
			if (pc + 1 < f->len)
				reach[pc + 1] = true;
		} else if (BPF_OP(in->code) == BPF_JA) {
			if (pc + 1 + in->k < f->len)
				reach[pc + 1 + in->k] = true;
		} else {
			if (pc + 1 + in->jt < f->len)
				reach[pc + 1 + in->jt] = true;
			if (pc + 1 + in->jf < f->len)
				reach[pc + 1 + in->jf] = true;
		}
	}
	free(reach);
	return bits;
}

/* Instructions executed for DATA: an instruction is on the path exactly
 * when turning it into a RET of another value changes the result. */
static size_t trace_path(const struct sock_filter *insns, size_t len, enum scmpc_arch a, uint32_t nr,
			 const uint64_t *args, size_t *path)
{
	struct sock_filter *copy = malloc(len * sizeof(*copy));
	uint32_t ret = run(insns, len, a, nr, args, NULL);
	size_t n = 0;

	if (!copy)
		return 0;
	memcpy(copy, insns, len * sizeof(*copy));
	for (size_t i = 0; i < len; i++) {
		copy[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret ^ 1);
		if (run(copy, len, a, nr, args, NULL) == (ret ^ 1))
			path[n++] = i;
		copy[i] = insns[i];
	}
	free(copy);
	return n;
}

/* ------------------------------------------------------- argument probes */

struct valset {
	uint64_t *v;
	size_t n, cap;
};

static int val_add(struct valset *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void val_uniq(struct valset *s)
{
	size_t k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (size_t i = 0; i < s->n; i++)
		if (!k || s->v[k - 1] != s->v[i])
			s->v[k++] = s->v[i];
	s->n = k;
}

/* Values a probe of argument I tries; built once per command. */
struct probe_vals {
	struct valset arg[6];
};

static void probe_vals_free(struct probe_vals *pv)
{
	for (int i = 0; i < 6; i++)
		free(pv->arg[i].v);
}

/* Around each constant of the policy's conditions: the value, its
 * neighbours, and the value with the high word flipped (the filter must or
 * must not look at it, depending on the ABI and SCMPC_COND_32BIT). */
static int probe_vals_from_policy(struct probe_vals *pv, const scmpc_policy *p)
{
	for (size_t r = 0; r < p->nrules; r++) {
		const struct rule *ru = &p->rules[r];

		for (size_t c = 0; c < ru->nconds; c++) {
			const struct scmpc_cond *cd = &ru->conds[c];
			struct valset *s;
			uint64_t v = cd->value;

			if (cd->arg > 5)
				continue;
			s = &pv->arg[cd->arg];
			if (cd->op == SCMPC_OP_MASKED_EQ) {
				uint64_t low_bit = v & (~v + 1);

				if (val_add(s, cd->value2) || val_add(s, cd->value2 | ~v) ||
				    val_add(s, v) || val_add(s, cd->value2 ^ low_bit))
					return -1;
				continue;
			}
			if (val_add(s, v - 1) || val_add(s, v) || val_add(s, v + 1) ||
			    val_add(s, v ^ 0xffffffff00000000ULL))
				return -1;
		}
	}
	return 0;
}

/* Where A's value came from, per instruction: a seccomp_data word (k / 4),
 * or none of them. */
#define SRC_UNREACHED (-2)
#define SRC_OTHER (-1)

static void src_merge(int *into, int s)
{
	if (*into == SRC_UNREACHED)
		*into = s;
	else if (*into != s)
		*into = SRC_OTHER;
}

/* For a filter: the constants compared against (or masked with) each
 * argument word.  Which word A holds at a comparison is found by a forward
 * pass over the program, which is a DAG since jumps only go forward. */
static int probe_vals_from_prog(struct probe_vals *pv, struct filter *filt)
{
	const struct sock_filter *f = filt->insns;
	size_t len = filt->len;
	struct valset lo[6] = { { 0 } }, hi[6] = { { 0 } };
	int *src = malloc((len ? len : 1) * sizeof(*src));
	int rc = -1;

	free(filt->mask_tests);
	filt->mask_tests = calloc(len ? len : 1, sizeof(*filt->mask_tests));
	if (!src || !filt->mask_tests) {
		free(src);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		src[i] = SRC_UNREACHED;
	if (len)
		src[0] = SRC_OTHER;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &f[pc];
		uint16_t code = in->code;
		int s = src[pc];

		if (s == SRC_UNREACHED)
			continue;
		/* the argument word A holds, if any, before this instruction */
		int word = s >= 4 && s < 16 ? s - 4 : -1;
		bool test = (BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA &&
			     BPF_SRC(code) == BPF_K) ||
			    (BPF_CLASS(code) == BPF_ALU && BPF_OP(code) == BPF_AND &&
			     BPF_SRC(code) == BPF_K);
		if (test && word >= 0) {
			struct valset *vs = word % 2 ? &hi[word / 2] : &lo[word / 2];
			uint32_t k = in->k;

			if (val_add(vs, k) || val_add(vs, (uint32_t)(k - 1)) ||
			    val_add(vs, (uint32_t)(k + 1)))
				goto out;
			if (BPF_OP(code) == BPF_JSET || BPF_CLASS(code) == BPF_ALU)
				filt->mask_tests[pc] |= (uint8_t)(1U << (word / 2));
		}

		switch (BPF_CLASS(code)) {
		case BPF_LD:
			s = BPF_MODE(code) == BPF_ABS && in->k < 64 && in->k % 4 == 0
				? (int)(in->k / 4) : SRC_OTHER;
			break;
		case BPF_ALU:
			if (!(BPF_OP(code) == BPF_AND && BPF_SRC(code) == BPF_K))
				s = SRC_OTHER;
			break;
		case BPF_MISC:
			if (BPF_MISCOP(code) == BPF_TXA)
				s = SRC_OTHER;
			break;
		case BPF_RET:
			continue;
		default:
			break;
		}
		if (BPF_CLASS(code) == BPF_JMP) {
			size_t t = BPF_OP(code) == BPF_JA ? pc + 1 + in->k : pc + 1 + in->jt;
			size_t e = pc + 1 + in->jf;

			if (t < len)
				src_merge(&src[t], s);
			if (BPF_OP(code) != BPF_JA && e < len)
				src_merge(&src[e], s);
		} else if (pc + 1 < len) {
			src_merge(&src[pc + 1], s);
		}
	}
	for (int a = 0; a < 6; a++) {
		if (!lo[a].n && !hi[a].n)
			continue;
		if (val_add(&lo[a], 0) || val_add(&lo[a], 0xffffffff) || val_add(&hi[a], 0) ||
		    val_add(&hi[a], 0xffffffff))
			goto out;
		val_uniq(&lo[a]);
		val_uniq(&hi[a]);
		/* Every pairing of words, bounded so that a filter full of
		 * constants does not make a probe take minutes. */
		size_t nh = hi[a].n, nl = lo[a].n;
		if (nh * nl > 4096)
			nh = 4096 / nl ? 4096 / nl : 1;
		for (size_t h = 0; h < nh; h++)
			for (size_t l = 0; l < nl && l < 4096; l++)
				if (val_add(&pv->arg[a], hi[a].v[h] << 32 | lo[a].v[l]))
					goto out;
	}
	rc = 0;
out:
	free(src);
	for (int a = 0; a < 6; a++) {
		free(lo[a].v);
		free(hi[a].v);
	}
	return rc;
}

static int probe_vals_finish(struct probe_vals *pv)
{
	for (int a = 0; a < 6; a++) {
		if (val_add(&pv->arg[a], 0) || val_add(&pv->arg[a], UINT64_MAX))
			return -1;
		val_uniq(&pv->arg[a]);
	}
	return 0;
}

static bool rule_names(const struct rule *r, enum scmpc_arch a, uint32_t nr)
{
	if (!r->name)
		return r->arch == a && r->nr == nr;
	if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
		return false;
	int64_t got = scmpc_syscall_resolve(a, r->name);
	return got >= 0 && (uint32_t)got == nr;
}

#define MAX_BASES 64

struct bases {
	uint64_t v[MAX_BASES][6];
	size_t n;
};

static void bases_init(struct bases *b, const struct filter *const *fs, size_t nf, enum scmpc_arch a,
		       uint32_t nr)
{
	memset(b->v[0], 0, sizeof(b->v[0]));
	for (int i = 0; i < 6; i++)
		b->v[1][i] = UINT64_MAX;
	b->n = 2;
	for (size_t k = 0; k < nf; k++) {
		const scmpc_policy *p = fs[k]->policy;

		for (size_t r = 0; p && r < p->nrules && b->n < MAX_BASES; r++)
			if (p->rules[r].nconds && rule_names(&p->rules[r], a, nr))
				rule_witness(&p->rules[r], b->v[b->n++]);
	}
}

/* ---------------------------------------------------------------- policy */

static int load_policy_text(const struct cli *c, const char *name, const char *text, size_t len,
			    enum scmpc_arch target, scmpc_policy **out)
{
	struct scmpc_json_opts o;
	scmpc_diag *d;
	int rc;

	/* The library can only say what the bytes are; which command takes
	 * them is for the CLI to say. */
	if (json_text_is_filter(text, len)) {
		errorf("%s: not a JSON policy (it looks like a compiled filter: use 'inspect')", name);
		*out = NULL;
		return -1;
	}
	if (!(d = scmpc_diag_new())) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.flavor = SCMPC_JSON_AUTO;
	o.flags = c->json_flags;
	o.runtime = c->runtime;
	o.bad_arch_action = c->bad_arch;
	o.arch = target;
	o.caps = (const char *const *)c->caps;
	o.kernel_major = c->kernel_major;
	o.kernel_minor = c->kernel_minor;
	/* Editors on Windows start UTF-8 files with a byte order mark, which
	 * JSON forbids but users cannot see. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		len -= 3;
	}
	rc = scmpc_policy_from_json(text, len, &o, out, d);
	report_warnings(name, d, c->quiet);
	if (rc < 0) {
		report_diag(name, d, rc);
		*out = NULL;
	}
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

static int compile_policy(const char *name, const scmpc_policy *p, scmpc_prog **out)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = 0 };
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (!d) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	rc = scmpc_compile(p, &o, out, d);
	if (rc < 0) {
		report_diag(name, d, rc);
		*out = NULL;
	}
	scmpc_diag_free(d);
	return rc < 0 ? -1 : 0;
}

/* Check a raw program against the kernel's rules, printing every problem:
 * after each one the offending instruction is replaced by a harmless one so
 * the check can go on.  Returns the number of problems, or -1. */
static int verify_all(const char *name, const struct sock_filter *insns, size_t len)
{
	struct sock_filter *work;
	scmpc_diag *d = scmpc_diag_new();
	bool *patched;
	int problems = 0;

	work = malloc((len ? len : 1) * sizeof(*work));
	patched = calloc(len ? len : 1, sizeof(*patched));
	if (!d || !work || !patched) {
		errorf("%s", strerror(ENOMEM));
		problems = -1;
		goto out;
	}
	if (len)
		memcpy(work, insns, len * sizeof(*work));
	for (;;) {
		scmpc_diag_clear(d);
		int rc = scmpc_verify_insns(work, len, d);
		if (rc >= 0)
			break;
		problems++;
		report_diag(name, d, rc);
		long at = scmpc_diag_insn(d);
		if (at < 0 || (size_t)at >= len || patched[at])
			break;
		patched[at] = true;
		work[at] = (size_t)at == len - 1 ? (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0)
						  : (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	}
out:
	free(work);
	free(patched);
	scmpc_diag_free(d);
	return problems;
}

/* A .bpf file's bytes as a program, or -1 after printing why not. */
static int load_raw(const char *name, const char *buf, size_t size, struct filter *f)
{
	int problems;

	if (size % sizeof(struct sock_filter)) {
		errorf("%s: size %zu is not a multiple of %zu (struct sock_filter)", name, size,
		       sizeof(struct sock_filter));
		return -1;
	}
	f->len = size / sizeof(struct sock_filter);
	f->raw = malloc(size ? size : 1);
	if (!f->raw) {
		errorf("%s", strerror(ENOMEM));
		return -1;
	}
	/* The library reads either byte order (a .bpf written for a
	 * big-endian target is byte-swapped on a little-endian host). */
	scmpc_prog *prog = NULL;
	if (size && scmpc_prog_from_bytes(buf, size, &prog, NULL) == 0) {
		memcpy(f->raw, scmpc_prog_insns(prog), size);
		scmpc_prog_free(prog);
	} else {
		memcpy(f->raw, buf, size);
	}
	f->insns = f->raw;
	problems = verify_all(name, f->raw, f->len);
	if (problems) {
		if (problems > 0)
			errorf("%s: rejected by the kernel's rules (%d problem%s)", name, problems,
			       problems == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* POLICY or .bpf, told apart by content. */
static int load_filter(const struct cli *c, const char *path, enum scmpc_arch target,
		       struct filter *f)
{
	char *buf;
	size_t len;
	int rc;

	memset(f, 0, sizeof(*f));
	f->name = display_name(path);
	if (read_input(path, &buf, &len))
		return -1;
	/* Text in UTF-16 or UTF-32 is a policy saved in the wrong encoding:
	 * the JSON front end says so, where the .bpf reader would not. */
	if (looks_like_json(buf, len) || json_text_wide_encoding(buf, len)) {
		rc = load_policy_text(c, f->name, buf, len, target, &f->policy);
		if (!rc)
			rc = compile_policy(f->name, f->policy, &f->prog);
		if (!rc) {
			f->insns = scmpc_prog_insns(f->prog);
			f->len = scmpc_prog_len(f->prog);
		}
	} else {
		rc = load_raw(f->name, buf, len, f);
	}
	free(buf);
	if (!rc && filter_prepare_marks(f)) {
		errorf("%s", strerror(ENOMEM));
		rc = -1;
	}
	return rc;
}

/* The action cache arrived in Linux 5.11; --kernel may name an older one. */
static bool kernel_has_cache(const struct cli *c)
{
	return !(c->seen & F_KERNEL) || c->kernel_major > 5 ||
	       (c->kernel_major == 5 && c->kernel_minor >= 11);
}

#define NO_CACHE_NOTE "the kernel has no action cache before Linux 5.11"

/* The kernel's cache bitmap for ABI A with INSNS as the only filter;
 * returns the number of cached calls or a negative errno. */
static int cache_bits(const struct cli *c, const struct sock_filter *insns, size_t len,
		      enum scmpc_arch a, uint8_t bits[(CACHE_NR + 7) / 8])
{
	const struct sock_filter *progs[1] = { insns };
	size_t lens[1] = { len };
	struct scmpc_cache_opts co;

	memset(&co, 0, sizeof(co));
	co.sz = sizeof(co);
	co.nr_count = CACHE_NR;
	if (c->seen & F_KERNEL)
		co.kernel_version = (c->kernel_major << 16) | (c->kernel_minor << 8);
	memset(bits, 0, (CACHE_NR + 7) / 8);
	return scmpc_cache_bitmap(progs, lens, 1, a, &co, bits);
}

/* --------------------------------------------------------------- compile */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void print_stats(FILE *out, const struct cli *c, const scmpc_policy *p,
			const scmpc_prog *prog, double parse_ms)
{
	struct scmpc_arch_stats st[SCMPC_ARCH_COUNT];
	struct scmpc_stats_opts so;
	scmpc_diag *d = scmpc_diag_new();
	size_t len = scmpc_prog_len(prog), elen = scmpc_prog_ebpf_len(prog);
	int n;

	memset(&so, 0, sizeof(so));
	so.sz = sizeof(so);
	so.cache.sz = sizeof(so.cache);
	if (c->seen & F_KERNEL)
		so.cache.kernel_version = (c->kernel_major << 16) | (c->kernel_minor << 8);
	/* How many filters of this size one task can stack: the kernel's
	 * 32768-instruction path budget counts eBPF plus 4 per filter. */
	size_t fit = elen && elen <= 32768 ? (32768 - elen) / (elen + 4) + 1 : 0;
	fprintf(out, "instructions: %zu cBPF, %zu eBPF predicted (%zu such filters fit in a chain)\n",
		len, elen, fit);
	n = d ? scmpc_stats(p, scmpc_prog_insns(prog), len, &so, st, ARRAY_SIZE(st), d) : -ENOMEM;
	if (n < 0) {
		fflush(out);
		report_diag("stats", d, n);
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		const struct scmpc_arch_stats *s = &st[i];
		const char *an = scmpc_arch_name(s->arch);

		fprintf(out, "%s: path over %u argument-free numbers: worst %u, mean %.2f\n", an,
			s->nr_probed, s->worst_path, s->mean_path);
		if (s->nargsys) {
			fprintf(out, "%s: worst path of argument-checked syscalls:", an);
			for (unsigned k = 0; k < s->nargsys && k < SCMPC_STATS_MAX_ARGSYS; k++) {
				char name[64];

				if (!scmpc_syscall_name(s->arch, s->argsys[k].nr, name, sizeof(name)))
					fmt_u64(s->argsys[k].nr, name, sizeof(name));
				fprintf(out, "%s %s %u", k ? "," : "", name, s->argsys[k].worst_path);
			}
			fputc('\n', out);
		}
		if (!kernel_has_cache(c))
			fprintf(out, "%s: none cacheable (" NO_CACHE_NOTE ")\n", an);
		else if (abi_cacheable(s->arch))
			fprintf(out, "%s: %u of %u unconditional allows cacheable\n", an,
				s->cacheable, s->allow_unconditional);
		else
			fprintf(out, "%s: none cacheable (the kernel never caches x32 calls)\n", an);
	}
	fprintf(out, "compile time: %.3f ms (JSON parsing %.3f ms)\n",
		(double)scmpc_prog_compile_ns(prog) / 1e6, parse_ms);
	scmpc_diag_free(d);
}

static int cmd_compile(struct cli *c)
{
	const char *out = c->output;
	bool to_file = out && strcmp(out, "-");
	int format = c->format;
	char *text = NULL, *rendered = NULL;
	size_t text_len, rendered_len;
	scmpc_policy *p = NULL;
	scmpc_prog *prog = NULL;
	scmpc_diag *d = NULL;
	int status = EXIT_INPUT;
	const char *name;
	double t0;

	if (c->npos != 1)
		return usage_error(c->npos ? "compile takes one POLICY" : "compile needs a POLICY");
	name = display_name(c->pos[0]);
	if (format < 0) {
		format = SCMPC_FORMAT_TEXT;
		if (to_file && ends_with(out, ".bpf"))
			format = SCMPC_FORMAT_BPF;
		else if (to_file && (ends_with(out, ".c") || ends_with(out, ".h")))
			format = SCMPC_FORMAT_C;
	}
	if (format == SCMPC_FORMAT_BPF && !to_file && isatty(STDOUT_FILENO))
		return usage_error("refusing to write binary BPF to a terminal; use -o FILE");
	if ((c->seen & F_NAME) && format != SCMPC_FORMAT_C)
		return usage_error("--name applies to --format c only");

	if (read_input(c->pos[0], &text, &text_len))
		goto out;
	t0 = now_ms();
	if (load_policy_text(c, name, text, text_len, c->arch, &p))
		goto out;
	double parse_ms = now_ms() - t0;
	if (compile_policy(name, p, &prog))
		goto out;

	struct scmpc_format_opts fo;
	memset(&fo, 0, sizeof(fo));
	fo.sz = sizeof(fo);
	fo.c_name = c->c_name;
	fo.arch = c->arch != SCMPC_ARCH_NONE ? c->arch
		: scmpc_policy_arch_count(p) ? scmpc_policy_arch(p, 0) : SCMPC_ARCH_NONE;
	d = scmpc_diag_new();
	int rc = d ? scmpc_format(scmpc_prog_insns(prog), scmpc_prog_len(prog),
				  (enum scmpc_format)format, &fo, &rendered, &rendered_len, d)
		   : -ENOMEM;
	if (rc < 0) {
		report_diag(name, d, rc);
		goto out;
	}
	if (write_output(out, rendered, rendered_len))
		goto out;
	if (c->stats)
		print_stats(to_file ? stdout : stderr, c, p, prog, parse_ms);
	status = EXIT_OK;
out:
	free(text);
	free(rendered);
	scmpc_diag_free(d);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	return status;
}

/* --------------------------------------------------------------- explain */

static int cmd_explain(struct cli *c)
{
	enum scmpc_arch a = c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch();
	uint64_t args[6] = { 0 }, v;
	char buf[128], act[32], num[24];
	struct filter f;
	int64_t nr;
	int status = EXIT_INPUT;

	if (c->npos < 2)
		return usage_error("explain needs a POLICY and a SYSCALL");
	if (c->npos > 8)
		return usage_error("a syscall has at most 6 arguments");
	for (int i = 2; i < c->npos; i++) {
		int pr = parse_u64(c->pos[i], &args[i - 2]);
		if (pr < 0)
			return usage_error("argument value '%s' is out of range (-9223372036854775808 "
					   "to 18446744073709551615)", c->pos[i]);
		if (!pr)
			return usage_error("invalid argument value '%s'", c->pos[i]);
	}
	int pn = parse_u64(c->pos[1], &v);
	if (pn) {
		if (pn < 0 || (v > UINT32_MAX && v < 0xffffffff80000000ULL))
			return usage_error("syscall number '%s' out of range", c->pos[1]);
		nr = (uint32_t)v;
		/* Numbers are accepted with or without the ABI's base (the x32
		 * bit, mips' 4000/5000/6000). */
		if ((uint32_t)nr < abi_base(a))
			nr += abi_base(a);
	} else {
		nr = scmpc_syscall_resolve(a, c->pos[1]);
		if (nr < 0) {
			errorf("unknown syscall '%s' on %s", c->pos[1], scmpc_arch_name(a));
			return EXIT_INPUT;
		}
	}
	if (load_filter(c, c->pos[0], host_of(a), &f))
		goto out;
	if (!f.policy) {
		errorf("%s: explain needs a policy, not a compiled filter (see 'inspect')", f.name);
		goto out;
	}

	struct seccomp_data sd;
	int rule = -1;
	make_data(&sd, a, (uint32_t)nr, args);
	uint32_t want = scmpc_policy_eval(f.policy, &sd, &rule);

	printf("syscall: %s on %s", syscall_label(a, (uint32_t)nr, buf, sizeof(buf)),
	       scmpc_arch_name(a));
	int last = c->npos - 3;
	for (int i = 0; i <= last; i++)
		printf("%s%s", i ? ", " : ", arguments ", fmt_u64(args[i], num, sizeof(num)));
	putchar('\n');

	printf("action: %s\n", action_name(want, act, sizeof(act)));
	if (rule >= 0) {
		const char *origin = scmpc_policy_rule_origin(f.policy, (size_t)rule);

		printf("decided by: %s (rule %d)\n", origin ? origin : "a rule without origin", rule);
	} else {
		bool has_abi = false;

		for (size_t i = 0; i < scmpc_policy_arch_count(f.policy); i++)
			has_abi |= scmpc_policy_arch(f.policy, i) == a;
		if (!has_abi)
			printf("decided by: the bad-arch action (the policy has no %s section)\n",
			       scmpc_arch_name(a));
		else if (want == scmpc_policy_default_action(f.policy))
			printf("decided by: the default action (no rule matches)\n");
		else
			printf("decided by: the unknown-syscall action (the number is above the "
			       "policy's threshold for syscalls newer than it)\n");
	}

	unsigned steps = 0;
	uint32_t got = run(f.insns, f.len, a, (uint32_t)nr, args, &steps);
	size_t *path = malloc(f.len * sizeof(*path));
	size_t npath = path ? trace_path(f.insns, f.len, a, (uint32_t)nr, args, path) : 0;

	printf("filter: %s after %u of %zu instructions\n", action_name(got, act, sizeof(act)),
	       steps, f.len);
	for (size_t i = 0; i < npath; i++) {
		disasm(f.insns, path[i], scmpc_arch_big_endian(a), buf, sizeof(buf));
		printf("  %4zu: %s\n", path[i], buf);
	}
	free(path);
	if (got != want)
		errorf("warning: the compiled filter returns %s where the policy says %s",
		       action_name(got, act, sizeof(act)), action_name(want, buf, sizeof(buf)));

	uint32_t stop = 0;
	if (!kernel_has_cache(c)) {
		printf("cache: never cached (" NO_CACHE_NOTE ")\n");
	} else if (!abi_cacheable(a)) {
		printf("cache: never cached (%s numbers are outside the kernel's bitmaps)\n",
		       scmpc_arch_name(a));
	} else if ((uint32_t)nr >= CACHE_NR) {
		printf("cache: never cached (the number is outside the kernel's bitmap of %u)\n",
		       CACHE_NR);
	} else {
		uint8_t bits[(CACHE_NR + 7) / 8];
		int rc = cache_bits(c, f.insns, f.len, a, bits);
		bool cached = rc >= 0 && (bits[nr / 8] >> (nr % 8)) & 1;
		int const_allow = scmpc_cache_const_allow(f.insns, f.len, scmpc_arch_audit(a),
							  (uint32_t)nr, &stop);

		if (stop < f.len)
			disasm(f.insns, stop, scmpc_arch_big_endian(a), buf, sizeof(buf));
		if (rc < 0)
			printf("cache: cannot be predicted (%s)\n", strerror(-rc));
		else if (cached && const_allow == 1)
			printf("cache: cached: the kernel allows the call without running the "
			       "filter\n");
		else if (cached)
			printf("cache: cached although the filter does not allow it: the kernel "
			       "lets this call bypass every filter\n");
		else if (stop < f.len && BPF_CLASS(f.insns[stop].code) == BPF_RET)
			printf("cache: not cached: the argument-free path ends in insn %u: %s\n",
			       stop, buf);
		else if (stop < f.len)
			printf("cache: not cached: the kernel's check gives up at insn %u: %s\n",
			       stop, buf);
		else
			printf("cache: not cached\n");
	}
	status = EXIT_OK;
out:
	filter_free(&f);
	return status;
}

/* --------------------------------------------------------------- inspect */

#define MAX_OUTCOMES 4

struct decision {
	uint32_t nr;
	uint32_t act;			/* with zero arguments */
	bool dep;			/* depends on the arguments */
	uint32_t outcomes[MAX_OUTCOMES];
	unsigned nout;
};

static void outcome_add(struct decision *d, uint32_t act)
{
	for (unsigned i = 0; i < d->nout; i++)
		if (d->outcomes[i] == act)
			return;
	if (d->nout < MAX_OUTCOMES)
		d->outcomes[d->nout++] = act;
}

static void decide(const struct filter *f, const struct probe_vals *pv, enum scmpc_arch a,
		   uint32_t nr, struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->nr = nr;
	d->act = run(f->insns, f->len, a, nr, NULL, NULL);
	d->dep = depends_on_args(f, a, nr);
	outcome_add(d, d->act);
	if (!d->dep)
		return;

	const struct filter *fs[1] = { f };
	struct bases b;
	uint64_t args[6];
	bases_init(&b, fs, 1, a, nr);
	for (size_t k = 0; k < b.n; k++) {
		for (int i = 0; i < 6; i++) {
			memcpy(args, b.v[k], sizeof(args));
			for (size_t j = 0; j < pv->arg[i].n && d->nout < MAX_OUTCOMES; j++) {
				args[i] = pv->arg[i].v[j];
				outcome_add(d, run(f->insns, f->len, a, nr, args, NULL));
			}
		}
	}
}

static void print_range(const struct decision *from, const struct decision *to, enum scmpc_arch a)
{
	char label[96], n1[24], n2[24], act[32];

	if (from == to)
		syscall_label(a, from->nr, label, sizeof(label));
	else
		snprintf(label, sizeof(label), "%s-%s", fmt_u64(from->nr, n1, sizeof(n1)),
			 fmt_u64(to->nr, n2, sizeof(n2)));
	printf("  %-28s ", label);
	if (!from->dep) {
		printf("%s\n", action_name(from->act, act, sizeof(act)));
		return;
	}
	printf("depends on arguments:");
	for (unsigned i = 0; i < from->nout; i++)
		printf("%s %s", i ? "," : "", action_name(from->outcomes[i], act, sizeof(act)));
	printf("\n");
}

static bool is_allow(uint32_t act)
{
	return (act & 0xffff0000U) == SCMPC_ACT_ALLOW;
}

static int inspect_abi(const struct filter *f, const struct probe_vals *pv, enum scmpc_arch a,
		       const struct cli *c)
{
	struct nr_list nrs = { 0 };
	struct decision *ds;
	char label[96], buf[128];

	if (nr_probes(a, &nrs))
		return -1;
	ds = calloc(nrs.n, sizeof(*ds));
	if (!ds) {
		free(nrs.v);
		return -1;
	}
	for (size_t i = 0; i < nrs.n; i++)
		decide(f, pv, a, nrs.v[i], &ds[i]);

	printf("%s (AUDIT_ARCH 0x%08x%s):\n", scmpc_arch_name(a), scmpc_arch_audit(a),
	       a == SCMPC_ARCH_X32 ? ", numbers with bit 30 set" : "");
	for (size_t i = 0; i < nrs.n;) {
		size_t j = i;

		while (!ds[i].dep && j + 1 < nrs.n && !ds[j + 1].dep && ds[j + 1].act == ds[i].act &&
		       ds[j + 1].nr == ds[j].nr + 1)
			j++;
		print_range(&ds[i], &ds[j], a);
		i = j + 1;
	}

	if (!kernel_has_cache(c)) {
		printf("  cache: never (" NO_CACHE_NOTE ")\n");
		goto out;
	}
	if (!abi_cacheable(a)) {
		printf("  cache: never (x32 numbers are outside the kernel's bitmaps)\n");
		goto out;
	}
	uint8_t bits[(CACHE_NR + 7) / 8];
	int cached = cache_bits(c, f->insns, f->len, a, bits);
	if (cached < 0) {
		printf("  cache: cannot be predicted for %s (%s)\n", scmpc_arch_name(a),
		       strerror(-cached));
		goto out;
	}
	printf("  cache: %d of %u numbers cached\n", cached, CACHE_NR);
	bool header = false;
	for (size_t i = 0; i < nrs.n && ds[i].nr < CACHE_NR; i++) {
		bool allows = false;
		uint32_t stop = 0;

		for (unsigned k = 0; k < ds[i].nout; k++)
			allows |= is_allow(ds[i].outcomes[k]);
		if (!allows || (bits[ds[i].nr / 8] & (1U << (ds[i].nr % 8))))
			continue;
		if (!header)
			printf("  allowed but not cached:\n");
		header = true;
		scmpc_cache_const_allow(f->insns, f->len, scmpc_arch_audit(a), ds[i].nr, &stop);
		if (stop < f->len)
			disasm(f->insns, stop, scmpc_arch_big_endian(a), buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "(past the end)");
		printf("    %-26s insn %u: %s\n", syscall_label(a, ds[i].nr, label, sizeof(label)),
		       stop, buf);
	}
out:
	free(ds);
	free(nrs.v);
	return 0;
}

static int cmd_inspect(struct cli *c)
{
	struct probe_vals pv;
	struct abi_list abis = { .n = 0 };
	struct filter f;
	char *buf = NULL;
	size_t size;
	int status = EXIT_INPUT;

	memset(&pv, 0, sizeof(pv));
	memset(&f, 0, sizeof(f));
	if (c->npos != 1)
		return usage_error(c->npos ? "inspect takes one FILE" : "inspect needs a FILE");
	if ((c->seen & F_FORMAT) && c->format != SCMPC_FORMAT_TEXT)
		return usage_error("inspect prints --format text only");
	f.name = display_name(c->pos[0]);
	if (read_input(c->pos[0], &buf, &size))
		goto out;
	if (load_raw(f.name, buf, size, &f))
		goto out;
	if (filter_prepare_marks(&f) || probe_vals_from_prog(&pv, &f) ||
	    probe_vals_finish(&pv)) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}

	size_t elen = 0;
	scmpc_prog *wrapped = NULL;
	if (scmpc_prog_new(f.insns, f.len, &wrapped, NULL) == 0)
		elen = scmpc_prog_ebpf_len(wrapped);
	scmpc_prog_free(wrapped);
	printf("%s: %zu instructions (%zu eBPF), accepted by the kernel's rules\n", f.name, f.len,
	       elen);

	if (c->arch != SCMPC_ARCH_NONE) {
		abi_add(&abis, c->arch);
	} else {
		abi_add_host_group(&abis, native_arch());
		abi_add_from_prog(&abis, f.insns, f.len);
	}
	if (c->format == SCMPC_FORMAT_TEXT) {
		struct scmpc_format_opts fo;
		scmpc_diag *d = scmpc_diag_new();
		char *text = NULL;
		size_t tlen = 0;

		memset(&fo, 0, sizeof(fo));
		fo.sz = sizeof(fo);
		fo.arch = abis.a[0];
		int rc = d ? scmpc_format(f.insns, f.len, SCMPC_FORMAT_TEXT, &fo, &text, &tlen, d)
			   : -ENOMEM;
		if (rc < 0) {
			report_diag(f.name, d, rc);
			scmpc_diag_free(d);
			goto out;
		}
		fwrite(text, 1, tlen, stdout);
		if (tlen && text[tlen - 1] != '\n')
			putchar('\n');
		free(text);
		scmpc_diag_free(d);
	}
	for (size_t i = 0; i < abis.n; i++) {
		if (inspect_abi(&f, &pv, abis.a[i], c)) {
			errorf("%s", strerror(ENOMEM));
			goto out;
		}
	}
	status = EXIT_OK;
out:
	free(buf);
	probe_vals_free(&pv);
	filter_free(&f);
	return status;
}

/* ------------------------------------------------------------------ diff */

struct difference {
	uint32_t nr;
	int arg;			/* varied argument; -1: none (all zero); -2: the vector */
	uint64_t args[6];		/* the vector, args[arg] ignored */
	uint64_t lo, hi;		/* range of the varied argument */
	uint32_t a, b;
};

struct diff_out {
	struct difference *v;
	size_t n, cap;
};

/* Past this many argument differences for one number, the rest add noise. */
#define MAX_ARG_DIFFS 8

static int diff_push(struct diff_out *o, const struct difference *d)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct difference *nv = realloc(o->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n++] = *d;
	return 0;
}

/* The same argument range differing the same way from another base vector
 * says nothing new. */
static bool diff_seen(const struct diff_out *o, size_t from, const struct difference *d)
{
	for (size_t i = from; i < o->n; i++) {
		const struct difference *e = &o->v[i];

		if (e->arg == d->arg && e->lo == d->lo && e->hi == d->hi && e->a == d->a &&
		    e->b == d->b && (d->arg != -2 || !memcmp(e->args, d->args, sizeof(e->args))))
			return true;
	}
	return false;
}

static int diff_add(struct diff_out *o, size_t from, const struct difference *d, bool *full)
{
	if (diff_seen(o, from, d))
		return 0;
	if (o->n - from >= MAX_ARG_DIFFS) {
		*full = true;
		return 0;
	}
	return diff_push(o, d);
}

/* A base vector that differs by itself: with one non-zero argument it reads
 * as that argument's value, otherwise as the whole vector. */
static int diff_add_vector(struct diff_out *o, size_t from, uint32_t nr, const uint64_t *args,
			   uint32_t ra, uint32_t rb, bool *full)
{
	struct difference d = { .nr = nr, .arg = -2, .a = ra, .b = rb };
	int nonzero = 0, which = 0;

	/* a whole vector is worth a line only for a new kind of difference */
	for (size_t i = from; i < o->n; i++)
		if (o->v[i].a == ra && o->v[i].b == rb)
			return 0;

	for (int i = 0; i < 6; i++)
		if (args[i]) {
			nonzero++;
			which = i;
		}
	if (nonzero == 1) {
		d.arg = which;
		d.lo = d.hi = args[which];
	} else {
		memcpy(d.args, args, sizeof(d.args));
	}
	return diff_add(o, from, &d, full);
}

/* Differences for one number that depend on arguments: from each base
 * vector, vary one argument at a time over the probe values, keep what
 * differs otherwise than the base itself does, and merge runs into ranges.
 * The probes hold every constant the filters compare an argument word with
 * and its neighbours, so between two adjacent probes no equality or order
 * test changes its outcome: a run of adjacent probes is a range.  A mask
 * breaks that, and then only consecutive integers merge. */
static int diff_args(const struct filter *fa, const struct filter *fb, const struct probe_vals *pv,
		     enum scmpc_arch a, uint32_t nr, uint32_t a0, uint32_t b0, struct bases *b,
		     struct diff_out *out)
{
	const struct filter *fs[2] = { fa, fb };
	size_t from = out->n;
	bool full = false;
	uint64_t args[6];

	unsigned masked = masked_args(fa, a, nr) | masked_args(fb, a, nr);
	bool compat = abi_info(a).args32;

	bases_init(b, fs, 2, a, nr);
	for (size_t k = 0; k < b->n && !full; k++) {
		uint32_t ak = run(fa->insns, fa->len, a, nr, b->v[k], NULL);
		uint32_t bk = run(fb->insns, fb->len, a, nr, b->v[k], NULL);

		/* base 0 is all zeros: the caller reported it, and what differs
		 * as it does needs no second line */
		if (k && ak != bk && (ak != a0 || bk != b0) &&
		    diff_add_vector(out, from, nr, b->v[k], ak, bk, &full))
			return -1;
		for (int i = 0; i < 6 && !full; i++) {
			struct difference cur = { .nr = nr, .arg = -1 };

			memcpy(args, b->v[k], sizeof(args));
			for (size_t j = 0; j <= pv->arg[i].n; j++) {
				bool end = j == pv->arg[i].n;
				uint32_t ra = 0, rb = 0;

				if (!end) {
					args[i] = pv->arg[i].v[j];
					ra = run(fa->insns, fa->len, a, nr, args, NULL);
					rb = run(fb->insns, fb->len, a, nr, args, NULL);
				}
				bool differs = !end && ra != rb && (ra != ak || rb != bk) &&
					       (ra != a0 || rb != b0);
				/* On a 32-bit ABI a value with a high word matters only
				 * when a filter reads that word (a bypass); otherwise
				 * it repeats its low word's line. */
				if (differs && compat && args[i] >> 32) {
					uint64_t low[6];

					memcpy(low, args, sizeof(low));
					low[i] = (uint32_t)args[i];
					differs = run(fa->insns, fa->len, a, nr, low, NULL) != ra ||
						  run(fb->insns, fb->len, a, nr, low, NULL) != rb;
				}
				bool adjacent = !(masked & (1U << i)) || args[i] == cur.hi + 1;
				if (cur.arg >= 0 && (!differs || ra != cur.a || rb != cur.b ||
						     !adjacent)) {
					if (diff_add(out, from, &cur, &full))
						return -1;
					cur.arg = -1;
				}
				if (!differs)
					continue;
				if (cur.arg < 0) {
					cur.arg = i;
					memcpy(cur.args, b->v[k], sizeof(cur.args));
					cur.lo = args[i];
					cur.a = ra;
					cur.b = rb;
				}
				cur.hi = args[i];
			}
		}
	}
	if (full) {
		struct difference more = { .nr = nr, .arg = -3 };

		if (diff_push(out, &more))
			return -1;
	}
	return 0;
}

static void print_args(const struct difference *d)
{
	char n1[24], n2[24];
	bool ones = true;

	for (int i = 0; i < 6; i++)
		if (i != d->arg)
			ones &= d->args[i] == UINT64_MAX;
	if (d->arg < 0 && ones) {
		printf("arguments all ones");
		return;
	}
	for (int i = 0, sep = 0; i < 6; i++) {
		if (i == d->arg) {
			printf("%sarg%d=%s", sep++ ? " " : "", i, fmt_u64(d->lo, n1, sizeof(n1)));
			if (d->hi != d->lo)
				printf("-%s", fmt_u64(d->hi, n2, sizeof(n2)));
		} else if (d->args[i] && !ones) {
			printf("%sarg%d=%s", sep++ ? " " : "", i, fmt_u64(d->args[i], n1, sizeof(n1)));
		}
	}
	if (ones)
		printf(" (other arguments all ones)");
}

static int diff_abi(const struct filter *fa, const struct filter *fb, const struct probe_vals *pv,
		    enum scmpc_arch a, bool *differ)
{
	struct nr_list nrs = { 0 };
	struct diff_out out = { 0 };
	struct bases *b = malloc(sizeof(*b));
	char label[96], n1[24], n2[24], acta[32], actb[32];
	const char *an = scmpc_arch_name(a);
	int rc = -1;

	if (!b || nr_probes(a, &nrs))
		goto done;
	for (size_t i = 0; i < nrs.n; i++) {
		uint32_t nr = nrs.v[i];
		uint32_t a0 = run(fa->insns, fa->len, a, nr, NULL, NULL);
		uint32_t b0 = run(fb->insns, fb->len, a, nr, NULL, NULL);

		if (a0 != b0) {
			struct difference d = { .nr = nr, .arg = -1, .a = a0, .b = b0 };

			if (diff_push(&out, &d))
				goto done;
		}
		if ((depends_on_args(fa, a, nr) || depends_on_args(fb, a, nr)) &&
		    diff_args(fa, fb, pv, a, nr, a0, b0, b, &out))
			goto done;
	}

	for (size_t i = 0; i < out.n;) {
		const struct difference *d = &out.v[i];
		size_t j = i;

		*differ = true;
		if (d->arg == -3) {
			printf("%s %s: more argument values differ\n", an,
			       syscall_label(a, d->nr, label, sizeof(label)));
			i++;
			continue;
		}
		if (d->arg == -1) {
			while (j + 1 < out.n && out.v[j + 1].arg == -1 &&
			       out.v[j + 1].nr == out.v[j].nr + 1 && out.v[j + 1].a == d->a &&
			       out.v[j + 1].b == d->b)
				j++;
		}
		if (j == i)
			printf("%s %s", an, syscall_label(a, d->nr, label, sizeof(label)));
		else
			printf("%s %s-%s", an, fmt_u64(d->nr, n1, sizeof(n1)),
			       fmt_u64(out.v[j].nr, n2, sizeof(n2)));
		if (d->arg != -1) {
			putchar(' ');
			print_args(d);
		}
		printf(": A=%s B=%s\n", action_name(d->a, acta, sizeof(acta)),
		       action_name(d->b, actb, sizeof(actb)));
		i = j + 1;
	}
	rc = 0;
done:
	free(b);
	free(out.v);
	free(nrs.v);
	return rc;
}

/* The library's own semantic check catches what the probe points missed:
 * it knows the policy's structure, not just its constants. */
static bool verify_against(const struct filter *pol, const struct filter *other)
{
	scmpc_diag *d = scmpc_diag_new();
	int rc;

	if (!pol->policy || !d) {
		scmpc_diag_free(d);
		return true;
	}
	rc = scmpc_verify_policy(pol->policy, other->insns, other->len, d);
	if (rc < 0) {
		const char *where = scmpc_diag_where(d);

		printf("%s decides differently from the policy %s: %s%s%s\n", other->name, pol->name,
		       where, *where ? ": " : "", scmpc_diag_message(d));
	}
	scmpc_diag_free(d);
	return rc >= 0;
}

/* The ABIs neither input serves get their bad-arch action from each: a
 * few numbers of each (0, a common one, x32's first, -1) must agree. */
static void diff_foreign(const struct filter *fa, const struct filter *fb,
			 const struct abi_list *served, bool *differ)
{
	static const uint32_t nrs[] = { 0, 59, 0x40000000, 0xffffffff };
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		bool in = false;
		for (size_t i = 0; i < served->n; i++)
			in |= served->a[i] == (enum scmpc_arch)a ||
			      scmpc_arch_audit(served->a[i]) == scmpc_arch_audit((enum scmpc_arch)a);
		if (in)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(nrs); k++) {
			uint64_t args[6] = { 0 };
			uint32_t ra = run(fa->insns, fa->len, (enum scmpc_arch)a, nrs[k], args, NULL);
			uint32_t rb = run(fb->insns, fb->len, (enum scmpc_arch)a, nrs[k], args, NULL);
			if (ra == rb)
				continue;
			char sa[32], sb[32];
			printf("%s (not served) %#x: A=%s B=%s\n", scmpc_arch_name((enum scmpc_arch)a),
			       nrs[k], action_name(ra, sa, sizeof(sa)), action_name(rb, sb, sizeof(sb)));
			*differ = true;
			break;
		}
	}
}

static int cmd_diff(struct cli *c)
{
	enum scmpc_arch target = host_of(c->arch != SCMPC_ARCH_NONE ? c->arch : native_arch());
	struct filter fa, fb;
	struct probe_vals pv;
	struct abi_list abis = { .n = 0 };
	bool differ = false;
	int status = EXIT_USAGE;

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	memset(&pv, 0, sizeof(pv));
	if (c->npos != 2)
		return usage_error("diff needs two inputs, A and B");
	if (!strcmp(c->pos[0], "-") && !strcmp(c->pos[1], "-"))
		return usage_error("only one of A and B can be standard input");
	if (load_filter(c, c->pos[0], target, &fa) || load_filter(c, c->pos[1], target, &fb))
		goto out;

	struct filter *both[2] = { &fa, &fb };
	for (int k = 0; k < 2; k++) {
		struct filter *f = both[k];

		if ((f->policy && probe_vals_from_policy(&pv, f->policy)) ||
		    probe_vals_from_prog(&pv, f)) {
			errorf("%s", strerror(ENOMEM));
			goto out;
		}
	}
	if (probe_vals_finish(&pv)) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}

	if (c->arch != SCMPC_ARCH_NONE) {
		abi_add(&abis, c->arch);
	} else {
		abi_add_host_group(&abis, target);
		for (int k = 0; k < 2; k++) {
			const struct filter *f = both[k];

			if (f->policy)
				for (size_t i = 0; i < scmpc_policy_arch_count(f->policy); i++)
					abi_add(&abis, scmpc_policy_arch(f->policy, i));
			else
				abi_add_from_prog(&abis, f->insns, f->len);
		}
	}
	for (size_t i = 0; i < abis.n; i++) {
		if (diff_abi(&fa, &fb, &pv, abis.a[i], &differ)) {
			errorf("%s", strerror(ENOMEM));
			goto out;
		}
	}
	if (c->arch == SCMPC_ARCH_NONE)
		diff_foreign(&fa, &fb, &abis, &differ);
	if (!differ && c->arch == SCMPC_ARCH_NONE)
		differ = !verify_against(&fa, &fb) || !verify_against(&fb, &fa);
	status = differ ? EXIT_INPUT : EXIT_OK;
out:
	probe_vals_free(&pv);
	filter_free(&fa);
	filter_free(&fb);
	return status;
}

/* ------------------------------------------------------------------ exec */

/* Whether execvp() will find NAME, asked before any filter is in place:
 * a typo then costs nothing and is reported in env(1)'s terms.  Returns 0,
 * or the status to exit with. */
static int find_command(const char *name)
{
	const char *path = getenv("PATH");
	bool denied = false;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(name, '/')) {
		/* access(X_OK) holds for a directory too, which execve then
		 * refuses with EACCES: said here, that is not the filter's doing. */
		if (access(name, X_OK) == 0) {
			if (stat(name, &st) < 0 || S_ISREG(st.st_mode))
				return EXIT_OK;
			errorf("%s: %s", name, S_ISDIR(st.st_mode) ? strerror(EISDIR)
					: "not a regular file, so it cannot be executed");
			return EXIT_CANNOT_RUN;
		}
		int e = errno;
		errorf("%s: %s", name, strerror(e));
		return e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	}
	if (!path)
		path = "/bin:/usr/bin";	/* what glibc's execvp() searches then */
	for (const char *p = path;;) {
		const char *next = strchrnul(p, ':');
		int dl = (int)(next - p);

		/* An empty entry is the current directory. */
		int n = snprintf(buf, sizeof(buf), "%.*s%s%s", dl ? dl : 1, dl ? p : ".",
				 "/", name);
		if (n > 0 && (size_t)n < sizeof(buf)) {
			if (access(buf, X_OK) == 0) {
				if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
					return EXIT_OK;
			} else if (errno == EACCES) {
				denied = true;
			}
		}
		if (!*next)
			break;
		p = next + 1;
	}
	if (denied) {
		errorf("%s: %s", name, strerror(EACCES));
		return EXIT_CANNOT_RUN;
	}
	errorf("%s: command not found", name);
	return EXIT_NOT_FOUND;
}

/* Whether the program can return SCMP_ACT_NOTIFY. */
static bool returns_notify(const struct sock_filter *f, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (f[i].code == (BPF_RET | BPF_K) && (f[i].k & 0xffff0000U) == SCMPC_ACT_USER_NOTIF)
			return true;
	return false;
}

/* The listener's way to the agent.  A helper forked before the filter is
 * loaded (so that none of its calls pass it) waits for the listener's fd
 * number, takes a copy with pidfd_getfd(2) (which needs ptrace rights over
 * this process, as runc has), sends it to the agent and says so; the
 * double fork leaves no child behind for CMD. */
struct handoff {
	int to[2], from[2];
	pid_t pid;
};

static void handoff_close(struct handoff *h)
{
	for (int i = 0; i < 2; i++) {
		if (h->to[i] >= 0)
			close(h->to[i]);
		if (h->from[i] >= 0)
			close(h->from[i]);
		h->to[i] = h->from[i] = -1;
	}
}

static int handoff_start(struct handoff *h, const char *agent, const char *meta)
{
	h->pid = getpid();
	if (pipe2(h->to, O_CLOEXEC) < 0 || pipe2(h->from, O_CLOEXEC) < 0) {
		errorf("pipe: %s", strerror(errno));
		handoff_close(h);
		return -1;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		errorf("fork: %s", strerror(errno));
		handoff_close(h);
		return -1;
	}
	if (child == 0) {
		if (fork() != 0)
			_exit(0);
		/* the grandchild */
		char ok = 0;
		int fdnum = -1;
		close(h->to[1]);
		close(h->from[0]);
		if (read(h->to[0], &fdnum, sizeof(fdnum)) == (ssize_t)sizeof(fdnum)) {
			int pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
			int fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fdnum, 0);
			char id[64], cwd[4096];
			snprintf(id, sizeof(id), "scmp-compile-exec-%d", (int)h->pid);
			struct scmpc_process_state st = {
				.sz = sizeof(st), .pid = h->pid, .metadata = meta, .id = id,
				.bundle = getcwd(cwd, sizeof(cwd)),
			};
			scmpc_diag *d = scmpc_diag_new();
			if (fd < 0)
				errorf("taking the listener from process %d: %s", (int)h->pid,
				       strerror(errno));
			else if (scmpc_notify_handoff(fd, agent, &st, d) < 0)
				errorf("%s", scmpc_diag_message(d));
			else
				ok = 1;
			scmpc_diag_free(d);
		}
		if (write(h->from[1], &ok, 1) < 0)
			_exit(1);
		_exit(0);
	}
	int st;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	close(h->to[0]);
	close(h->from[1]);
	h->to[0] = h->from[1] = -1;
	return 0;
}

static int handoff_finish(struct handoff *h, int listener)
{
	char ok = 0;
	int r = write(h->to[1], &listener, sizeof(listener)) == (ssize_t)sizeof(listener) &&
			read(h->from[0], &ok, 1) == 1 && ok
		? 0 : -1;
	handoff_close(h);
	return r;
}

static void handoff_abort(struct handoff *h)
{
	handoff_close(h);	/* the helper reads EOF and ends */
}

static int cmd_exec(struct cli *c)
{
	enum scmpc_arch native = native_arch();
	struct scmpc_load_opts o;
	struct scmpc_load_result res;
	struct filter f;
	scmpc_diag *d = NULL;
	int status = EXIT_INPUT, rc;

	memset(&f, 0, sizeof(f));
	/* The filter goes into this kernel: a policy resolved for another
	 * host would answer every call, execve first, with its bad-arch action. */
	if (c->arch != SCMPC_ARCH_NONE && c->arch != native)
		return usage_error("exec installs the filter here: --arch can only be %s",
				   scmpc_arch_name(native));
	if (load_filter(c, c->pos[0], native, &f))
		goto out;
	if (f.policy) {
		bool has_native = false;

		for (size_t i = 0; i < scmpc_policy_arch_count(f.policy); i++)
			has_native |= scmpc_policy_arch(f.policy, i) == native;
		if (!has_native) {
			errorf("%s: the policy has no %s section, so every call (execve first) "
			       "would get its bad-arch action", f.name, scmpc_arch_name(native));
			goto out;
		}
	}
	status = find_command(c->cmd_argv[0]);
	if (status != EXIT_OK)
		goto out;
	status = EXIT_INPUT;

	d = scmpc_diag_new();
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.flags = c->keep_nnp ? SCMPC_LOAD_KEEP_NNP : 0;
	o.seccomp_flags = c->seccomp_flags;
	memset(&res, 0, sizeof(res));
	res.sz = sizeof(res);

	/* SCMP_ACT_NOTIFY calls need an agent: the profile's listenerPath gets
	 * the listener, as from runc, by a helper started now, before the
	 * filter holds this process. */
	const char *agent = NULL, *meta = NULL;
	struct handoff h = { .to = { -1, -1 }, .from = { -1, -1 } };
	if (returns_notify(f.insns, f.len)) {
		if (!f.policy || !scmpc_policy_listener(f.policy, &agent, &meta)) {
			if (!c->quiet)
				errorf("warning: %s: calls the filter sends to an agent will fail with "
				       "ENOSYS: it has no listenerPath", f.name);
		} else {
			o.seccomp_flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
			if (handoff_start(&h, agent, meta) < 0)
				goto out;
		}
	}
	rc = f.policy ? scmpc_load_prog(f.prog, f.policy, &o, &res, d)
		      : scmpc_load(f.insns, f.len, &o, &res, d);
	report_warnings(f.name, d, c->quiet);
	if (rc == -EACCES && c->keep_nnp) {
		/* the library's message names its flag; the user gave an option */
		errorf("%s: --keep-nnp needs CAP_SYS_ADMIN or an inherited no_new_privs, and "
		       "this process has neither: the kernel refuses the filter then (EACCES), "
		       "because it could subvert a set-user-ID program; drop --keep-nnp or run "
		       "with CAP_SYS_ADMIN", f.name);
		handoff_abort(&h);
		goto out;
	}
	if (rc < 0) {
		report_diag(f.name, d, rc);
		handoff_abort(&h);
		goto out;
	}
	if (rc > 0) {
		/* From here on every call passes the filter: the few left are
		 * write, read and close (which runc too makes after loading). */
		if (agent && handoff_finish(&h, rc) < 0) {
			errorf("%s: the seccomp agent at %s did not get the listener", f.name, agent);
			goto out;
		}
		close(rc);
	}

	fflush(stdout);
	execvp(c->cmd_argv[0], c->cmd_argv);
	/* From here on every call, these too, passes the new filter. */
	int e = errno;
	errorf("%s: cannot execute under the filter: %s", c->cmd_argv[0], strerror(e));
	status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
out:
	scmpc_diag_free(d);
	filter_free(&f);
	return status;
}

/* ------------------------------------------------------------------ dump */

/* KERNEL_VERSION of the running kernel, for the cache prediction. */
static unsigned running_kernel(void)
{
	struct utsname u;
	unsigned major, minor;

	if (uname(&u) || !parse_kernel(u.release, &major, &minor))
		return 0;	/* the library's default: the newest kernel it knows */
	return major << 16 | minor << 8;
}

static int cmd_dump(struct cli *c)
{
	enum scmpc_arch native = native_arch();
	const char *dir = c->output ? c->output : ".";
	scmpc_diag *d = NULL;
	scmpc_prog **progs = NULL;
	const struct sock_filter **insns = NULL;
	size_t *lens = NULL;
	struct stat st;
	unsigned pid;
	const char *end;
	int n = 0, status = EXIT_INPUT, dfd, written = 0;
	char name[64], path[PATH_MAX];

	if (c->npos != 1)
		return usage_error(c->npos ? "dump takes one PID" : "dump needs a PID");
	if (!parse_uint(c->pos[0], INT_MAX, &pid, &end) || *end || !pid)
		return usage_error("invalid process id '%s'", c->pos[0]);
	if (!strcmp(dir, "-"))
		return usage_error("dump writes one file per filter: -o names a directory");
	/* The files are created relative to this descriptor, so the
	 * directory checked is the one written to; a link in DIR's place is
	 * not followed, for the reason create_new() gives. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			errorf("%s: a symbolic link; dump does not follow it (name the directory "
			       "itself)", dir);
		else
			errorf("%s: %s", dir, strerror(errno));
		return EXIT_INPUT;
	}

	d = scmpc_diag_new();
	if (!d) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	n = scmpc_introspect((pid_t)pid, NULL, &progs, d);
	report_warnings("dump", d, false);
	if (n < 0) {
		const char *msg = scmpc_diag_message(d);

		switch (-n) {
		case ESRCH: {
			char none[48];

			/* the library's other ESRCH reasons (a zombie, a thread
			 * gone while stopped) are passed on as they are */
			snprintf(none, sizeof(none), "no thread %u", pid);
			if (!*msg || !strcmp(msg, none))
				errorf("no process %u", pid);
			else
				errorf("process %u: %s", pid, msg);
			break;
		}
		case EPERM:
		case EACCES:
			errorf("process %u: %s%s", pid, *msg ? msg : strerror(-n),
			       geteuid() ? " (try as root)" : "");
			break;
		default:
			errorf("process %u: %s", pid, *msg ? msg : strerror(-n));
			break;
		}
		goto out;
	}
	if (n == 0) {
		errorf("process %u has no seccomp filters: nothing to dump", pid);
		goto out;
	}

	insns = calloc((size_t)n, sizeof(*insns));
	lens = calloc((size_t)n, sizeof(*lens));
	if (!insns || !lens) {
		errorf("%s", strerror(ENOMEM));
		goto out;
	}
	struct scmpc_cache_opts co;
	memset(&co, 0, sizeof(co));
	co.sz = sizeof(co);
	co.nr_count = CACHE_NR;
	co.kernel_version = running_kernel();
	uint8_t bits[(CACHE_NR + 7) / 8];
	size_t used = 0;
	for (; written < n; written++) {
		insns[written] = scmpc_prog_insns(progs[written]);
		lens[written] = scmpc_prog_len(progs[written]);
		snprintf(name, sizeof(name), "%u-%d.bpf", pid, written);
		if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
			errorf("%s: %s", dir, strerror(ENAMETOOLONG));
			goto out;
		}
		if (create_new(dfd, path, name, insns[written],
			       lens[written] * sizeof(struct sock_filter)))
			goto out;
	}
	for (int i = 0; i < n; i++) {
		size_t elen = scmpc_prog_ebpf_len(progs[i]);

		snprintf(path, sizeof(path), "%s/%u-%d.bpf", dir, pid, i);
		int cached = scmpc_cache_bitmap(&insns[i], &lens[i], 1, native, &co, bits);
		printf("%d %s: %zu instructions, %zu eBPF, ", i, path, lens[i], elen);
		if (cached < 0)
			printf("cache unknown (%s)\n", strerror(-cached));
		else
			printf("%d of %u %s syscalls cached\n", cached, CACHE_NR,
			       scmpc_arch_name(native));
		used += elen + 4;
	}
	/* The kernel caches a call only when every filter of the chain would
	 * allow it. */
	int cached = scmpc_cache_bitmap(insns, lens, (size_t)n, native, &co, bits);
	printf("chain: %d filter%s, %zu of %u eBPF instructions used, ", n, n == 1 ? "" : "s",
	       used, SCMPC_CHAIN_BUDGET);
	if (cached < 0)
		printf("cache unknown (%s)\n", strerror(-cached));
	else
		printf("%d of %u %s syscalls cached\n", cached, CACHE_NR, scmpc_arch_name(native));
	status = EXIT_OK;
out:
	/* All or nothing: a failed dump leaves no PID-N.bpf in a rerun's way. */
	while (status != EXIT_OK && written-- > 0) {
		snprintf(name, sizeof(name), "%u-%d.bpf", pid, written);
		unlinkat(dfd, name, 0);
	}
	close(dfd);
	free(insns);
	free(lens);
	scmpc_prog_array_free(progs, n > 0 ? (size_t)n : 0);
	scmpc_diag_free(d);
	return status;
}

/* ------------------------------------------------------------------ main */

#define COMMANDS "compile, explain, inspect, diff, exec or dump"

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	struct cli c;
	int status;

	memset(&c, 0, sizeof(c));
	c.format = -1;
	if (argc < 2)
		return usage_error("missing command (" COMMANDS ")");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf(PROG_NAME " %s\n", scmpc_version());
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands) && !cmd; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		if (argv[1][0] == '-')
			return usage_error("unknown option '%s'", argv[1]);
		return usage_error("unknown command '%s' (" COMMANDS ")", argv[1]);
	}
	c.command = cmd;
	c.cmd = cmd->name;
	usage_cmd = cmd->name;
	install_signal_cleanup();
	if (cmd->fn == cmd_exec)
		status = parse_exec_args(argc - 1, argv + 1, cmd->allowed, &c);
	else
		status = parse_args(argc - 1, argv + 1, cmd->allowed, &c);
	if (status == EXIT_OK)
		status = cmd->fn(&c);
	free_caps(c.caps);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("standard output: %s", strerror(errno));
		if (status == EXIT_OK)
			status = EXIT_INPUT;
	}
	return status;
}
