/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* scmp-compile: command-line front end of libscmpc.  main() finds the
 * subcommand, parses its options and runs it; each subcommand is a file of
 * its own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static void print_help(FILE *f)
{
	fputs(
"Usage: " PROG_NAME " compile POLICY [-o FILE] [-f bpf|c|text] [-a ABI] [--stats]\n"
"                    [--caps LIST] [--kernel X.Y] [--strict] [--no-enosys] [--restrictive]\n"
"                    [--runtime RT] [--bad-arch ACT] [--name NAME] [-q]\n"
"       " PROG_NAME " explain POLICY|FILE.bpf|--pid PID SYSCALL [ARG...] [-a ABI]\n"
"                    [POLICY OPTIONS]\n"
"       " PROG_NAME " explain [POLICY|FILE.bpf|--pid PID] --audit RECORD [ARG...]\n"
"       " PROG_NAME " lint PROFILE [-a ABI] [--json] [POLICY OPTIONS]\n"
"       " PROG_NAME " inspect FILE.bpf|--pid PID [-a ABI] [-f text] [--kernel X.Y]\n"
"       " PROG_NAME " diff A B [-a ABI] [--json] [POLICY OPTIONS]\n"
"       " PROG_NAME " subset BASE CANDIDATE [-a ABI] [--ignore-data] [--json] [POLICY OPTIONS]\n"
"       " PROG_NAME " test PROFILE|FILE.bpf TESTS [--tap] [-a ABI] [POLICY OPTIONS]\n"
"       " PROG_NAME " record [-o PROFILE] [--runtime RT] [--args auto|none] -- CMD [ARG...]\n"
"       " PROG_NAME " exec [--flags LIST] [--keep-nnp] [-a ABI] [POLICY OPTIONS]\n"
"                    POLICY|FILE.bpf [--] CMD [ARG...]\n"
"       " PROG_NAME " dump PID [-o DIR]\n"
"       " PROG_NAME " optimize FILE.bpf [-o FILE] [-f bpf|c|text] [-a ABI] [--bad-arch ACT]\n"
"       " PROG_NAME " merge FILE...|--pid PID [-o FILE] [-f bpf|c|text] [POLICY OPTIONS]\n"
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
"  explain   show which rule decides one call and why (libseccomp's order\n"
"            included), the instructions the filter runs for it and whether\n"
"            the kernel caches it; or each filter of a .bpf or a process\n"
"  lint      the rules of a profile the runtime makes more permissive, that\n"
"            never decide anything or repeat the default, and names missing\n"
"            on some of its ABIs, each with a call that shows it\n"
"  inspect   check a raw .bpf filter against the kernel's rules and list what\n"
"            it decides for each syscall number, and what it lets the kernel cache\n"
"  diff      every set of calls on which two filters (policies or .bpf files)\n"
"            decide differently, each with a witness call; none is a proof\n"
"  subset    whether CANDIDATE is at least as restrictive as BASE on every\n"
"            call (a proof), or where it is not\n"
"  test      check lines such as 'x86_64 openat(AT_FDCWD, *, O_RDONLY) ->\n"
"            ALLOW' against a profile, each for every call it covers\n"
"  record    run CMD and write the smallest profile allowing what it did\n"
"  exec      compile POLICY (or take FILE.bpf), install it in this process\n"
"            with seccomp(2) and execute CMD under it\n"
"  dump      write each filter of process PID (oldest first) to DIR/PID-N.bpf\n"
"            and say what each costs and lets the kernel cache; needs\n"
"            CAP_SYS_ADMIN and a caller not under seccomp\n"
"  optimize  lift a .bpf filter to the decision it makes, compile that again\n"
"            (proven to decide alike) and compare the two programs' figures\n"
"  merge     one program deciding every call as a stack of filters does (.bpf\n"
"            files or policies, oldest first, or the filters of process PID)\n"
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
"                      'default' (Podman's set for containers/common's profile,\n"
"                      else Docker's), 'docker', 'podman', 'all' or 'none';\n"
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
"      --any-abi       exec: install a filter with no program for this ABI\n"
"      --pid PID       inspect, merge, explain: the filters process PID holds\n"
"                      (needs CAP_SYS_ADMIN and a caller not under seccomp)\n"
"      --audit RECORD  explain: the call of a type=SECCOMP audit record\n"
"  -h, --help          print this help; after COMMAND, that command's usage\n"
"                      and options only\n"
"  -V, --version       print the version\n"
"\n"
"SYSCALL is a name or a number; ARGs are integers (decimal, 0x hex, or\n"
"negative: -100).  POLICY, A or B may be '-' for standard input.\n"
"\n"
"Exit status: 0 success, 1 invalid policy or input, 2 usage error.\n"
"diff: 0 equivalent, 1 different, 2 error; subset: 0 subset, 1 not, 2 error;\n"
"lint: 0 nothing found, 1 findings, 2 error.\n"
"exec: 1 when the filter cannot be installed, 126 when CMD cannot be run,\n"
"127 when it is not found, else CMD's own status.\n", f);
}

static const struct command *const commands[] = {
	&compile_command, &explain_command, &inspect_command, &diff_command, &subset_command,
	&test_command, &record_command, &exec_command, &dump_command, &optimize_command,
	&merge_command, &lint_command, &intersect_command,
};

#define COMMANDS "compile, explain, inspect, diff, subset, test, record, exec, dump, optimize, merge, lint or intersect"

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
		if (!strcmp(argv[1], commands[i]->name))
			cmd = commands[i];
	if (!cmd) {
		if (argv[1][0] == '-')
			return usage_error("unknown option '%s'", argv[1]);
		return usage_error("unknown command '%s' (" COMMANDS ")", argv[1]);
	}
	c.command = cmd;
	c.cmd = cmd->name;
	usage_cmd = cmd->name;
	install_signal_cleanup();
	if (cmd == &exec_command)
		status = parse_exec_args(argc - 1, argv + 1, cmd->allowed, &c);
	else
		status = parse_args(argc - 1, argv + 1, cmd->allowed, &c);
	if (status == OPTS_ANSWERED) {
		/* as exit() leaves it: no check of what --help wrote */
		free_caps(c.caps);
		free_caps(c.caps_add);
		return EXIT_OK;
	}
	if (status == EXIT_OK)
		status = cmd->fn(&c);
	free_caps(c.caps);
	free_caps(c.caps_add);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("standard output: %s", strerror(errno));
		if (status == EXIT_OK)
			status = EXIT_INPUT;
	}
	return status;
}
