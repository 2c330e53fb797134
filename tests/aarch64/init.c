/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * /init of the initramfs that tools/qemu-aarch64-test and
 * tools/qemu-s390x-test boot under qemu-system: it runs every program in
 * /tests (the cmocka suites, with TAP output) against the real kernel,
 * echoes what they print to the console, and ends with one line the script
 * looks for, tagged with the machine uname(2) names:
 *
 *   SCMPC-AARCH64: 20 passed, 0 failed, 4 skipped (Linux 6.1.0-56-arm64)
 *   SCMPC-S390X: 20 passed, 0 failed, 4 skipped (Linux 6.1.0-50-s390x)
 *
 * then powers the machine off.  It is linked statically, so it needs
 * nothing from the initramfs; the suites find their shared libraries in
 * /lib through LD_LIBRARY_PATH.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TESTS_DIR "/tests"
#define MAX_SUITES 16
/* A suite still running after this long is killed and counted failed; the
 * script's own timeout covers a kernel that hangs. */
#define SUITE_TIMEOUT_S 900

struct tally {
	unsigned passed, failed, skipped;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* The kernel gives init the console as fds 0-2 only when the initramfs
 * has /dev/console; creating that node would need root on the build host,
 * so the console is opened here from devtmpfs instead. */
static void setup(void)
{
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR | O_NOCTTY);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/tmp", 01777);
	if (mount("proc", "/proc", "proc", 0, NULL))
		say("init: mounting /proc failed: %s\n", strerror(errno));
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One TAP line of cmocka's (CMOCKA_MESSAGE_OUTPUT=TAP): "1..N", "ok N - name",
 * "not ok N # SKIP name", "not ok N - name". */
static void tap_line(const char *line, struct tally *t, unsigned *plan, unsigned *seen)
{
	unsigned n;

	if (sscanf(line, "1..%u", &n) == 1 && !strchr(line, ' ')) {
		*plan += n;
		return;
	}
	if (!strncmp(line, "ok ", 3) && sscanf(line + 3, "%u", &n) == 1) {
		t->passed++;
		(*seen)++;
	} else if (!strncmp(line, "not ok ", 7) && sscanf(line + 7, "%u", &n) == 1) {
		if (strstr(line, "# SKIP"))
			t->skipped++;
		else
			t->failed++;
		(*seen)++;
	}
}

static void run_suite(const char *name, struct tally *t)
{
	char path[512], buf[4096], line[4096];
	size_t ll = 0;
	unsigned plan = 0, seen = 0;
	int p[2], status = 0;
	time_t start = time(NULL);
	bool timed_out = false;

	snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
	say("init: running %s\n", path);
	if (pipe2(p, O_CLOEXEC)) {
		say("init: pipe: %s\n", strerror(errno));
		t->failed++;
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		say("init: fork: %s\n", strerror(errno));
		t->failed++;
		return;
	}
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { "PATH=/bin", "HOME=/", "TMPDIR=/tmp", "LD_LIBRARY_PATH=/lib",
				 "SCMPC_PROFILE_ROOT=/profiles", "CMOCKA_MESSAGE_OUTPUT=TAP", NULL };

		/* A session of its own, as a login would give it: under init
		 * every process starts in session 0, which suites take for
		 * "getsid() was faked". */
		setsid();
		dup2(p[1], 1);
		if (chdir("/tmp"))
			_exit(126);
		execve(path, argv, envp);
		fprintf(stderr, "init: execve %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int left = SUITE_TIMEOUT_S - (int)(time(NULL) - start);

		if (left <= 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		int r = poll(&pf, 1, left * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t got = read(p[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		fwrite(buf, 1, (size_t)got, stdout);
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				continue;
			}
			line[ll] = '\0';
			tap_line(line, t, &plan, &seen);
			ll = 0;
		}
	}
	fflush(stdout);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		say("init: %s: killed after %d s\n", name, SUITE_TIMEOUT_S);
	if (WIFSIGNALED(status))
		say("init: %s: killed by signal %d\n", name, WTERMSIG(status));
	/* Tests a crash or a timeout cut short never reported. */
	if (!plan || seen < plan) {
		unsigned missing = plan > seen ? plan - seen : 1;

		say("init: %s: %u test(s) did not report\n", name, missing);
		t->failed += missing;
	} else if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && !t->failed)) {
		say("init: %s: exit status 0x%x with no failed test\n", name, status);
		t->failed++;
	}
	say("init: %s done in %ld s\n", name, (long)(time(NULL) - start));
}

int main(void)
{
	struct tally t = { 0, 0, 0 };
	struct utsname u;
	char *names[MAX_SUITES];
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	setup();
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	say("init: Linux %s on %s\n", u.release, u.machine);
	d = opendir(TESTS_DIR);
	if (!d) {
		say("init: %s: %s\n", TESTS_DIR, strerror(errno));
		t.failed++;
	}
	while (d && (e = readdir(d)) && n < MAX_SUITES)
		if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
			n++;
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	if (!n)
		t.failed++;
	for (size_t i = 0; i < n; i++)
		run_suite(names[i], &t);

	char tag[sizeof(u.machine)];
	size_t i;
	for (i = 0; u.machine[i] && i < sizeof(tag) - 1; i++)
		tag[i] = (char)toupper((unsigned char)u.machine[i]);
	tag[i] = '\0';
	say("SCMPC-%s: %u passed, %u failed, %u skipped (Linux %s)\n", tag, t.passed, t.failed,
	    t.skipped, u.release);
	sync();
	reboot(RB_POWER_OFF);
	/* Should power-off fail, init's exit panics the kernel, and with
	 * panic=-1 and -no-reboot QEMU ends too. */
	say("init: power off failed: %s\n", strerror(errno));
	return 1;
}
