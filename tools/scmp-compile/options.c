/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile: the command line's options, and each command's --help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

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
	OPT_PID,
	OPT_HOT,
	OPT_SPLIT,
	OPT_LAYOUT,
	OPT_JSON,
	OPT_IGNORE_DATA,
	OPT_CANARY,
	OPT_TAP,
	OPT_ARGS,
	OPT_DEFAULT,
	OPT_FROM,
	OPT_CHECK,
	OPT_TAIL,
	OPT_SAVE,
	OPT_OVERHEAD,
	OPT_MERGE,
	OPT_VIA,
	OPT_AUDIT,
	OPT_DOT,
	OPT_VERBOSE,
	OPT_ANY_ABI,
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
	{ "any-abi", no_argument, NULL, OPT_ANY_ABI },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "hot", required_argument, NULL, OPT_HOT },
	{ "split", no_argument, NULL, OPT_SPLIT },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "ignore-data", no_argument, NULL, OPT_IGNORE_DATA },
	{ "canary", no_argument, NULL, OPT_CANARY },
	{ "tap", no_argument, NULL, OPT_TAP },
	{ "args", required_argument, NULL, OPT_ARGS },
	{ "default", required_argument, NULL, OPT_DEFAULT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "check", required_argument, NULL, OPT_CHECK },
	{ "tail", no_argument, NULL, OPT_TAIL },
	{ "save", required_argument, NULL, OPT_SAVE },
	{ "overhead", no_argument, NULL, OPT_OVERHEAD },
	{ "merge", required_argument, NULL, OPT_MERGE },
	{ "via", required_argument, NULL, OPT_VIA },
	{ "audit", required_argument, NULL, OPT_AUDIT },
	{ "dot", no_argument, NULL, OPT_DOT },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ NULL, 0, NULL, 0 },
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

void free_caps(char **caps)
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

/* A set name of --caps: the default set of the profile's engine, or of
 * the engine named; -1 for any other word. */
static int caps_set_name(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum scmpc_json_caps set;
	} sets[] = {
		{ "default", SCMPC_JSON_CAPS_AUTO },
		{ "docker", SCMPC_JSON_CAPS_DOCKER },
		{ "podman", SCMPC_JSON_CAPS_PODMAN },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		if (len == strlen(sets[i].name) && !strncasecmp(s, sets[i].name, len))
			return (int)sets[i].set;
	return -1;
}

/* "default", "docker", "podman", "all", "none"/"" or a comma list; CAP_
 * and case are optional so that "net_admin,sys_ptrace" works too.  In a
 * list, a set name stands for that set, which the library resolves
 * ("default,CAP_SYS_ADMIN" is --cap-add SYS_ADMIN for the profile's
 * engine), and "all" for every capability. */
static int parse_caps(const char *s, struct cli *c)
{
	size_t n = 0, cap = ARRAY_SIZE(all_caps) + 1;
	int base = -1, set;
	bool all = false;
	char **list;

	free_caps(c->caps);
	free_caps(c->caps_add);
	c->caps = c->caps_add = NULL;
	c->caps_from = SCMPC_JSON_CAPS_AUTO;
	if ((set = caps_set_name(s, strlen(s))) >= 0) {
		c->caps_from = (enum scmpc_json_caps)set;
		return 0;
	}
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
		if ((set = caps_set_name(s, len)) >= 0) {
			if (base >= 0 && base != set) {
				usage_error("--caps names two default sets");
				return 1;
			}
			base = set;
		} else if (len == 3 && !strncasecmp(s, "all", 3)) {
			all = true;
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
	/* a default set and additions: the library picks the set */
	if (base >= 0 && !all) {
		c->caps_from = (enum scmpc_json_caps)base;
		c->caps_add = c->caps;
		c->caps = NULL;
	}
	return 0;
}

bool parse_uint(const char *s, unsigned max, unsigned *out, const char **end)
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
bool parse_kernel(const char *s, unsigned *major, unsigned *minor)
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
int parse_u64(const char *s, uint64_t *out)
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
	if (!strcmp(s, "oci"))
		return FORMAT_OCI;
	return -1;
}

/* exec --flags: SECCOMP_FILTER_FLAG_* names as the OCI "flags" field spells
 * them, or without the prefix, in any case, '-' for '_'. */
static int parse_seccomp_flags(const char *s, unsigned *out)
{
	while (*s) {
		size_t len = strcspn(s, ",");
		const char *next = s + len + (s[len] == ',');
		char name[64];

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
		memcpy(name, s, len);
		name[len] = '\0';
		unsigned bit = scmpc_filter_flag(name, NULL);
		if (!bit)
			return usage_error("unknown seccomp flag '%.*s' (tsync, log, spec_allow or "
					   "tsync_esrch)", (int)len, s);
		/* The listener fd would be closed by the exec it is meant to
		 * survive, leaving notifying calls to fail with ENOSYS. */
		if (bit & (SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))
			return usage_error("%s needs a supervisor to answer notifications, and exec "
					   "has none", scmpc_filter_flag_name(bit));
		*out |= bit;
		s = next;
	}
	return EXIT_OK;
}

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
	{ F_OUTPUT, "inspect",
	  "  -o, --output FILE   with --dot: write the graph to FILE (replaced\n"
	  "                      atomically; default and '-': stdout)\n" },
	{ F_OUTPUT, NULL,
	  "  -o, --output FILE   write to FILE (replaced atomically; '-' = stdout)\n" },
	{ F_FORMAT, "inspect",
	  "  -f, --format text   disassemble the whole program first\n" },
	{ F_PID, "inspect",
	  "      --pid PID       the stack of filters process PID holds, instead of a\n"
	  "                      FILE (needs CAP_SYS_ADMIN)\n" },
	{ F_PID, "explain",
	  "      --pid PID       the stack of filters process PID holds, instead of a\n"
	  "                      POLICY (needs CAP_SYS_ADMIN)\n" },
	{ F_AUDIT, NULL,
	  "      --audit RECORD  the call of a kernel audit record (type=SECCOMP, or\n"
	  "                      the syslog line): its arch= and syscall=; arguments\n"
	  "                      are not in it (0 unless given)\n" },
	{ F_PID, NULL,
	  "      --pid PID       the filters process PID holds, instead of FILEs\n"
	  "                      (needs CAP_SYS_ADMIN)\n" },
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
	{ F_ARCH, "optimize",
	  "  -a, --arch ABI      keep this ABI only (the others get the bad-arch\n"
	  "                      action); needed for a program that never tests\n"
	  "                      seccomp_data.arch\n" },
	{ F_ARCH, "merge",
	  "  -a, --arch ABI      the target of POLICY inputs: x86_64, i386, s390x, ...\n"
	  "                      (every libseccomp ABI); default: this machine's\n" },
	{ F_ARCH, "lint",
	  "  -a, --arch ABI      the host the profile is read for: x86_64, aarch64,\n"
	  "                      s390x, ... (its compat ABIs come with it); default:\n"
	  "                      this machine's\n" },
	{ F_ARCH, "exec",
	  "  -a, --arch ABI      this machine's ABI, the only one exec can load\n" },
	{ F_ARCH, NULL,
	  "  -a, --arch ABI      the ABI to examine: x86_64, i386, s390x, ... (every\n"
	  "                      libseccomp ABI); default: this machine's ABIs and\n"
	  "                      those the inputs serve\n" },
	{ F_STATS, NULL,
	  "  -s, --stats         print size, path length and cache figures (to stderr,\n"
	  "                      or stdout when the filter goes to a file)\n" },
	{ F_DOT, "inspect",
	  "      --dot           write the program (with --pid, each filter of the\n"
	  "                      stack) as a Graphviz graph instead: the ABI test, the\n"
	  "                      number dispatch, argument tests and actions, each\n"
	  "                      action with the numbers that reach it (dot -Tsvg)\n" },
	{ F_DOT, "dump",
	  "      --dot           also write each filter as a Graphviz graph,\n"
	  "                      DIR/PID-N.dot beside DIR/PID-N.bpf (dot -Tsvg)\n" },
	{ F_HOT, "inspect dump",
	  "      --hot FILE      with --dot: draw the paths a workload's calls take\n"
	  "                      (arguments 0) in red, with their counts; FILE as\n"
	  "                      compile --hot reads it (names, strace -f -c, perf\n"
	  "                      trace -s); calls of no ABI are -a's (default: this\n"
	  "                      machine's)\n" },
	{ F_HOT, NULL,
	  "      --hot FILE      lay the dispatch out for a workload: system call names\n"
	  "                      (NAME [COUNT] per line or comma-separated), or the\n"
	  "                      output of strace -f -c or perf trace -s\n" },
	{ F_LAYOUT, NULL,
	  "      --layout HOW    argument checks laid out for 'size' or for the shortest\n"
	  "                      'path' always; default: for the path unless that makes\n"
	  "                      the program larger than libseccomp's would be\n" },
	{ F_NAME, NULL,
	  "      --name NAME     array name for --format c (default scmpc_filter)\n" },
	{ F_FLAGS, NULL,
	  "      --flags LIST    seccomp(2) flags added to the policy's own: tsync, log,\n"
	  "                      spec_allow, tsync_esrch (comma-separated)\n" },
	{ F_KEEP_NNP, NULL,
	  "      --keep-nnp      do not set no_new_privs, so that set-user-ID programs\n"
	  "                      keep their privileges (needs CAP_SYS_ADMIN)\n" },
	{ F_ANY_ABI, NULL,
	  "      --any-abi       install a filter that has no program for this ABI\n"
	  "                      (every call, execve first, gets its bad-arch action)\n" },
	{ F_CAPS, NULL,
	  "      --caps LIST     capabilities for Docker includes/excludes: CAP_X,CAP_Y,\n"
	  "                      'default' (Podman's set for containers/common's profile,\n"
	  "                      else Docker's), 'docker', 'podman', 'all' or 'none';\n"
	  "                      'default,CAP_X' is the default set plus CAP_X\n" },
	{ F_KERNEL, "inspect",
	  "      --kernel X.Y    the kernel whose action cache to predict (default:\n"
	  "                      running)\n" },
	{ F_KERNEL, "compile",
	  "      --kernel X.Y    kernel version for Docker minKernel and for the cache\n"
	  "                      figures of --stats (default: running)\n" },
	{ F_KERNEL, "optimize",
	  "      --kernel X.Y    the kernel whose action cache to predict (default:\n"
	  "                      running)\n" },
	{ F_KERNEL, "merge",
	  "      --kernel X.Y    kernel version for Docker minKernel of POLICY inputs\n"
	  "                      and for the cache figures (default: running)\n" },
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
	{ F_BAD_ARCH, "optimize",
	  "      --bad-arch ACT  action for calls of the ABIs not kept (default: what\n"
	  "                      the program returns for an unknown AUDIT_ARCH)\n" },
	{ F_BAD_ARCH, NULL,
	  "      --bad-arch ACT  action for ABIs the filter does not serve (default\n"
	  "                      the runtime's: KILL_THREAD)\n" },
	{ F_SPLIT, "compile",
	  "      --split         a policy too big for one program as the fewest that\n"
	  "                      stack to decide as it: -o PREFIX writes PREFIX-1.bpf,\n"
	  "                      PREFIX-2.bpf, ... (install them in that order)\n" },
	{ F_SPLIT, "exec",
	  "      --split         install a set: POLICY compiled as compile --split does,\n"
	  "                      or PREFIX (or PREFIX-1.bpf) for PREFIX-1.bpf, ... as\n"
	  "                      compile --split wrote them\n" },
	{ F_JSON, "lint",
	  "      --json          the findings as a JSON array\n" },
	{ F_JSON, NULL,
	  "      --json          the regions as a JSON array\n" },
	{ F_IGNORE_DATA, NULL,
	  "      --ignore-data   the same action with other data (ERRNO(1), ERRNO(13))\n"
	  "                      counts as alike\n" },
	{ F_CANARY, NULL,
	  "      --canary        ENFORCED CANDIDATE: decide as ENFORCED, log what\n"
	  "                      CANDIDATE would stop\n" },
	{ F_TAP, NULL,
	  "      --tap           the results in the Test Anything Protocol\n" },
	{ F_RECORD, NULL,
	  "      --args HOW      auto: condition arguments that are flags or\n"
	  "                      enumerations with few values seen; none (default)\n"
	  "      --default ACT   the profile's default action (default ERRNO(EPERM))\n"
	  "      --from FILE     read calls from FILE (strace -f or perf trace output,\n"
	  "                      or --save's)\n"
	  "                      instead of running a command\n"
	  "      --save FILE     also write the calls, one per line, for --from/--check\n"
	  "      --check FILE    with a PROFILE: does it allow every call FILE recorded?\n"
	  "      --tail          keep only what each process does after installing a\n"
	  "                      filter of its own and before it execs (a runtime's tail)\n"
	  "      --overhead      run the command once more without the recorder and\n"
	  "                      say what recording cost\n"
	  "      --merge BASE    write BASE with rules added for the calls it does not\n"
	  "                      allow: the union, read as --runtime reads BASE\n"
	  "      --via HOW       notify: seccomp user notification only; ptrace: ptrace\n"
	  "                      (default: notification, ptrace where it is unavailable)\n" },
	{ F_QUIET, NULL,
	  "  -q, --quiet         do not print warnings\n"
	  "      --verbose       print every warning (default: past 3 of a kind,\n"
	  "                      counted)\n" },
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
void print_command_help(const struct command *cmd, FILE *f)
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
		{ OPT_VERBOSE, F_QUIET, "--verbose" },
		{ OPT_FLAGS, F_FLAGS, "--flags" }, { OPT_KEEP_NNP, F_KEEP_NNP, "--keep-nnp" },
		{ OPT_PID, F_PID, "--pid" }, { OPT_ANY_ABI, F_ANY_ABI, "--any-abi" },
		{ OPT_HOT, F_HOT, "--hot" },
		{ OPT_SPLIT, F_SPLIT, "--split" },
		{ OPT_LAYOUT, F_LAYOUT, "--layout" },
		{ OPT_JSON, F_JSON, "--json" },
		{ OPT_IGNORE_DATA, F_IGNORE_DATA, "--ignore-data" },
		{ OPT_CANARY, F_CANARY, "--canary" },
		{ OPT_TAP, F_TAP, "--tap" },
		{ OPT_ARGS, F_RECORD, "--args" },
		{ OPT_DEFAULT, F_RECORD, "--default" },
		{ OPT_FROM, F_RECORD, "--from" },
		{ OPT_CHECK, F_RECORD, "--check" },
		{ OPT_TAIL, F_RECORD, "--tail" },
		{ OPT_SAVE, F_RECORD, "--save" },
		{ OPT_OVERHEAD, F_RECORD, "--overhead" },
		{ OPT_MERGE, F_RECORD, "--merge" },
		{ OPT_VIA, F_RECORD, "--via" },
		{ OPT_AUDIT, F_AUDIT, "--audit" },
		{ OPT_DOT, F_DOT, "--dot" },
	};
	int opt;

	opterr = 0;
	optind = 0;	/* glibc: a full restart, so a second pass sees its own '+' */
	while ((opt = getopt_long(argc, argv, optstring, long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			print_command_help(c->command, stdout);
			return OPTS_ANSWERED;
		case 'V':
			printf(PROG_NAME " %s\n", scmpc_version());
			return OPTS_ANSWERED;
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
			if (!strcmp(optarg, "exec") && (allowed & F_RECORD)) {
				c->runtime_exec = true;	/* record: scmp-compile exec's tail */
				break;
			}
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
			c->quiet = quiet_progress = true;
			break;
		case OPT_VERBOSE:
			verbose_warnings = true;
			break;
		case OPT_FLAGS:
			if (parse_seccomp_flags(optarg, &c->seccomp_flags))
				return EXIT_USAGE;
			break;
		case OPT_KEEP_NNP:
			c->keep_nnp = true;
			break;
		case OPT_ANY_ABI:
			c->any_abi = true;
			break;
		case OPT_SPLIT:
			c->split = true;
			break;
		case OPT_HOT:
			c->hot = optarg;
			break;
		case OPT_JSON:
			c->json = true;
			break;
		case OPT_IGNORE_DATA:
			c->ignore_data = true;
			break;
		case OPT_CANARY:
			c->canary = true;
			break;
		case OPT_TAP:
			c->tap = true;
			break;
		case OPT_ARGS:
			if (!strcmp(optarg, "auto") || !strcmp(optarg, "none"))
				c->args_auto = !strcmp(optarg, "auto");
			else
				return usage_error("--args %s: auto or none", optarg);
			break;
		case OPT_DEFAULT:
			if (scmpc_action_parse(optarg, &c->default_action) < 0)
				return usage_error("unknown action '%s' (KILL_PROCESS, KILL_THREAD, TRAP, "
						   "ERRNO(N), TRACE(N) or LOG)", optarg);
			break;
		case OPT_FROM:
			c->from = optarg;
			break;
		case OPT_CHECK:
			c->check = optarg;
			break;
		case OPT_TAIL:
			c->tail = true;
			break;
		case OPT_SAVE:
			c->save = optarg;
			break;
		case OPT_OVERHEAD:
			c->overhead = true;
			break;
		case OPT_MERGE:
			c->merge = optarg;
			break;
		case OPT_VIA:
			if (!strcmp(optarg, "ptrace"))
				c->via = SCMPC_RECORD_PTRACE;
			else if (!strcmp(optarg, "notify"))
				c->via = SCMPC_RECORD_NOTIFY;
			else
				return usage_error("--via %s: ptrace or notify", optarg);
			break;
		case OPT_AUDIT:
			c->audit = optarg;
			break;
		case OPT_DOT:
			c->dot = true;
			break;
		case OPT_LAYOUT:
			if (!strcmp(optarg, "size"))
				c->layout = SCMPC_COMPILE_SMALLEST;
			else if (!strcmp(optarg, "path"))
				c->layout = SCMPC_COMPILE_SHORTEST;
			else if (!strcmp(optarg, "default"))
				c->layout = 0;
			else
				return usage_error("invalid layout '%s' (size, path or default)", optarg);
			break;
		case OPT_PID: {
			const char *end;

			if (!parse_uint(optarg, INT_MAX, &c->pid, &end) || *end || !c->pid)
				return usage_error("invalid process id '%s'", optarg);
			break;
		}
		}
	}
	*end = optind;
	return EXIT_OK;
}

#define OPTSTRING ":ho:f:a:sqV"

/* Whether word W, an option, takes the next word as its argument. */
static bool takes_next(const char *w)
{
	if (w[0] != '-' || !w[1] || !strcmp(w, "--"))
		return false;
	if (w[1] == '-') {
		size_t n = strcspn(w + 2, "=");
		bool any = false, all = true;

		if (w[2 + n] == '=')
			return false;
		/* getopt_long takes unambiguous prefixes */
		for (const struct option *o = long_opts; o->name; o++)
			if (!strncmp(o->name, w + 2, n)) {
				any = true;
				all &= o->has_arg == required_argument;
			}
		return any && all;
	}
	for (const char *s = w + 1; *s; s++) {
		const char *at = strchr(OPTSTRING, *s);
		if (at && *s != ':' && at[1] == ':')
			return !s[1];	/* -ofile carries its own */
	}
	return false;
}

/* A negative number is an operand, never an option: getopt would take
 * -100 for the options -1, -0, -0.  Each is shown to getopt without its
 * '-' and given back once the operands are known, found by its address
 * (a positive number parses the same, so nothing else can change). */
#define MAX_NEGATIVE 16

int parse_args(int argc, char **argv, unsigned allowed, struct cli *c)
{
	char *negs[MAX_NEGATIVE];
	int nnegs = 0;

	for (int i = 1; (allowed & F_NEGATIVE) && i < argc && nnegs < MAX_NEGATIVE; i++) {
		uint64_t v;

		if (!strcmp(argv[i], "--"))
			break;
		if (argv[i][0] != '-' || argv[i][1] < '0' || argv[i][1] > '9' ||
		    !parse_u64(argv[i], &v) || takes_next(argv[i - 1]))
			continue;
		negs[nnegs++] = argv[i];
		argv[i]++;
	}
	int end = 0, rc = parse_opts(argc, argv, OPTSTRING, allowed, c, &end);

	c->pos = argv + end;
	c->npos = argc - end;
	for (int i = 0; i < argc; i++)
		for (int k = 0; k < nnegs; k++)
			if (argv[i] == negs[k] + 1)
				argv[i] = negs[k];
	return rc;
}

/* exec's command line is ours up to the command and the command's after
 * it, as for env(1): options are taken before and after POLICY, but
 * scanning stops at the first word after POLICY (or after '--'), so CMD's
 * own options are never read as ours. */
int parse_exec_args(int argc, char **argv, unsigned allowed, struct cli *c)
{
	int end = 0, rc = parse_opts(argc, argv, "+" OPTSTRING, allowed, c, &end);

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
