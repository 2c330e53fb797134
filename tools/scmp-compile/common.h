/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmp-compile: what its subcommands share.  The CLI is a client of
 * libscmpc's public API (scmpc.h) and nothing else: the analyses live in
 * the library, the files here read arguments and files, and print.
 *
 * Exit status: 0 success, 1 bad policy or input, 2 usage error.  diff is the
 * exception, as with cmp(1): 0 equivalent, 1 different, 2 any failure, so a
 * script can tell "they differ" from "could not compare".  exec follows
 * env(1) once the filter is in place: 126 when the command cannot run, 127
 * when it is not found, else whatever the command exits with.
 */
#ifndef SCMP_COMPILE_COMMON_H
#define SCMP_COMPILE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scmpc.h"

#define PROG_NAME "scmp-compile"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 126, EXIT_NOT_FOUND = 127 };

/* The kernel's cache bitmap size on Linux 6.18 for every ABI we handle:
 * NR_syscalls (x86_64, aarch64) and the compat tables (i386, arm) all end
 * at 469 there, file_setattr.  explain, inspect and dump report against it. */
#define CACHE_NR 470U

#define NO_CACHE_NOTE "the kernel has no action cache before Linux 5.11"

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
	F_SPLIT = 1 << 22,
	F_PID = 1 << 15,
	F_HOT = 1 << 20,
	F_LAYOUT = 1 << 23,
	F_JSON = 1 << 16,
	F_IGNORE_DATA = 1 << 17,
	F_CANARY = 1 << 18,
	F_TAP = 1 << 19,
	F_RECORD = 1 << 26,		/* record's own options */
	F_ANY_ABI = 1 << 27,		/* exec --any-abi */
	F_AUDIT = 1 << 24,
	/* Not an option: the command takes negative numbers as operands
	 * (explain's arguments, -100 for AT_FDCWD), never as options. */
	F_NEGATIVE = 1 << 25,
	F_DOT = 1 << 21,
	F_POLICY = F_CAPS | F_KERNEL | F_STRICT | F_NO_ENOSYS | F_RESTRICTIVE | F_QUIET | F_RUNTIME |
		   F_BAD_ARCH,
};

struct cli;

/* A subcommand: what it runs, the options it takes (the option parser
 * refuses the others) and the text of its --help.  Each command's file
 * defines its own. */
struct command {
	const char *name;
	int (*fn)(struct cli *);
	unsigned allowed;
	const char *usage, *about, *exits;
};

extern const struct command compile_command, explain_command, inspect_command, diff_command,
	subset_command, test_command, record_command, exec_command, dump_command,
	optimize_command, merge_command, lint_command, intersect_command;

#define EXIT_HELP "Exit status: 0 success, 1 invalid policy or input, 2 usage error.\n"

/* The command line, parsed. */
struct cli {
	const struct command *command;	/* the subcommand being run */
	const char *cmd;		/* its name */
	unsigned seen;			/* F_* given on the command line */
	const char *output;
	int format;			/* enum scmpc_format, or -1 */
	enum scmpc_arch arch;		/* SCMPC_ARCH_NONE unless --arch */
	char **caps;			/* NULL-terminated; NULL = a default set */
	enum scmpc_json_caps caps_from;	/* with caps NULL: whose default set */
	char **caps_add;		/* with caps NULL: added to the default set */
	unsigned kernel_major, kernel_minor;
	unsigned json_flags;
	enum scmpc_runtime runtime;
	uint32_t bad_arch;
	bool stats;
	bool quiet;
	const char *c_name;
	unsigned seccomp_flags;		/* exec --flags */
	bool keep_nnp;
	bool any_abi;			/* exec: install a filter without a program for this ABI */
	bool split;			/* compile, exec: a set of programs */
	char **pos;
	int npos;
	char **cmd_argv;		/* exec: the command, NULL-terminated */
	unsigned pid;			/* --pid: a live process's stack */
	const char *hot;		/* compile --hot: the workload file */
	unsigned layout;		/* compile --layout: SCMPC_COMPILE_SMALLEST/SHORTEST */
	bool json;			/* diff, subset --json */
	bool ignore_data;		/* subset --ignore-data */
	bool canary;			/* merge --canary */
	bool tap;			/* test --tap */
	/* record */
	bool args_auto;			/* --args auto */
	uint32_t default_action;	/* --default; 0: ERRNO(EPERM) */
	const char *from, *check, *save;	/* --from, --check, --save */
	bool tail, overhead;		/* --tail, --overhead */
	const char *merge;		/* record --merge BASE */
	unsigned via;			/* record --via: SCMPC_RECORD_PTRACE or _NOTIFY */
	bool runtime_exec;		/* record --runtime exec: scmp-compile exec's tail */
	const char *audit;		/* explain --audit: a SECCOMP audit record */
	bool dot;			/* inspect, dump --dot */
};

/* ---- common.c: messages, numbers, ABIs, the cache */

/* The subcommand being run, once main() knows it: its usage errors point
 * to its own --help. */
extern const char *usage_cmd;
/* --verbose: every warning printed, none grouped. */
extern bool verbose_warnings;
/* -q: no progress line either (for calls that have no struct cli). */
extern bool quiet_progress;

void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and where to get help; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "scmp-compile: NAME: where: message"; RC supplies a message when the
 * library left none. */
void report_diag(const char *name, const scmpc_diag *d, int rc);
void report_warnings(const char *name, const scmpc_diag *d, bool quiet);
/* An analysis failed with RC: out of memory (said, and FAILED returned) or
 * a library bug (said as one, and EXIT_USAGE returned). */
int report_failure(int rc, int failed);

const char *display_name(const char *path);
double now_ms(void);
const char *fmt_u64(uint64_t v, char *buf, size_t len);
const char *action_name(uint32_t act, char *buf, size_t len);
/* "59 execve", or the number alone when the ABI has no such call. */
const char *syscall_label(enum scmpc_arch a, uint32_t nr, char *buf, size_t len);
/* "x86_64, i386, ..." for a usage message. */
const char *abi_names(char *buf, size_t len);

/* This machine's ABI; x86_64 on one scmpc has none for. */
enum scmpc_arch native_arch(void);
struct scmpc_arch_info abi_info(enum scmpc_arch a);
/* The host whose container runtime would load a filter serving ABI A:
 * Docker resolves a profile for the host and adds its compat ABIs. */
enum scmpc_arch host_of(enum scmpc_arch a);

struct abi_list {
	enum scmpc_arch a[SCMPC_ARCH_COUNT];
	size_t n;
};
void abi_add(struct abi_list *l, enum scmpc_arch a);
/* HOST and the ABIs its kernels also run. */
void abi_add_host_group(struct abi_list *l, enum scmpc_arch host);
/* The ABIs a raw filter dispatches on (seccomp_data.arch tested against
 * their AUDIT_ARCH), not every constant that happens to equal one. */
void abi_add_from_prog(struct abi_list *l, const struct sock_filter *f, size_t len);

/* The action cache arrived in Linux 5.11; --kernel may name an older one. */
bool kernel_has_cache(const struct cli *c);
/* The kernel's cache bitmap for ABI A with INSNS as the only filter;
 * returns the number of cached calls or a negative errno. */
int cache_bits(const struct cli *c, const struct sock_filter *insns, size_t len,
	       enum scmpc_arch a, uint8_t bits[(CACHE_NR + 7) / 8]);
/* Instruction PC of INSNS as `compile -f text` shows it, for ABI A. */
int insn_text(const struct sock_filter *insns, size_t len, size_t pc, enum scmpc_arch a, char *buf,
	      size_t size);

/* ---- constants.c: the kernel headers' constants a test line may name */
bool constant_value(const char *name, size_t len, uint64_t *out);

/* ---- tails.c: what a runtime does between its filter and the exec */
/* Add to REC the calls the runtime C names (--runtime) makes after
 * installing the filter and before exec'ing the command: none without
 * --runtime.  0 or -ENOMEM. */
int runtime_tail(const struct cli *c, scmpc_recording *rec);

/* ---- load.c: a policy or a .bpf file as a program */

struct filter {
	const char *name;		/* for messages */
	scmpc_policy *policy;		/* NULL for a raw .bpf */
	scmpc_prog *prog;		/* the compiled policy */
	struct sock_filter *raw;	/* the .bpf (owned) */
	const struct sock_filter *insns;
	size_t len;
};

void filter_free(struct filter *f);
/* Parse policy TEXT for TARGET with the command line's options, printing
 * warnings and errors; 0 or -1. */
int load_policy_text(const struct cli *c, const char *name, const char *text, size_t len,
		     enum scmpc_arch target, scmpc_policy **out);
int compile_policy(const char *name, const scmpc_policy *p, unsigned flags, scmpc_prog **out);
/* A .bpf file's bytes as a program, or -1 after printing why not. */
int load_raw(const char *name, const char *buf, size_t size, struct filter *f);
/* POLICY or .bpf, told apart by content. */
int load_filter(const struct cli *c, const char *path, enum scmpc_arch target, struct filter *f);
void make_data(struct seccomp_data *sd, enum scmpc_arch a, uint32_t nr, const uint64_t *args);
/* What F returns for call NR of ABI A with ARGS (NULL: all zero). */
int filter_run(const struct filter *f, enum scmpc_arch a, uint32_t nr, const uint64_t *args,
	       uint32_t *ret);
/* How F's decision for (A, NR) reads the arguments. */
int filter_arg_use(const struct filter *f, enum scmpc_arch a, uint32_t nr,
		   struct scmpc_arg_use *out);

/* A policy split into programs (compile --split), or the files it wrote. */
struct filter_set {
	const char *name;		/* for messages */
	scmpc_policy *policy;		/* NULL for .bpf files */
	scmpc_prog **progs;		/* installation order */
	size_t n;
};
void filter_set_free(struct filter_set *s);
/* HOT: the workload every program is laid out for, or NULL. */
int compile_policy_split(const char *name, const scmpc_policy *p, bool quiet,
			 const scmpc_workload *hot, unsigned flags, scmpc_prog ***out, size_t *n);
/* PATH: a policy, compiled with --split; PREFIX or PREFIX-1.bpf: the
 * files PREFIX-1.bpf, PREFIX-2.bpf, ... up to the first missing one. */
int load_filter_set(const struct cli *c, const char *path, enum scmpc_arch target,
		    struct filter_set *s);

/* ---- files.c: reading inputs, writing outputs */

/* Whole file or standard input ("-"), NUL-terminated; 0 or -1 after
 * printing why not. */
int read_input(const char *path, char **out, size_t *out_len);
/* Write BUF to PATH, the file -o names and no other (NULL or "-":
 * standard output); 0 or -1 after printing why not. */
int write_output(const char *path, const void *buf, size_t len);
/* Create NAME in directory DFD (PATH in messages) holding BUF, never over
 * anything already there; 0 or -1 after printing why not. */
int create_new(int dfd, const char *path, const char *name, const void *buf, size_t len);
/* A signal removes the file being written. */
void install_signal_cleanup(void);

/* ---- optimize.c: what optimize and merge share */

/* The output format -f or -o's suffix asks for, into *OUT; EXIT_OK or the
 * status of a usage error (printed). */
int output_format(const struct cli *c, int *out);
/* -f oci, intersect's own (no enum scmpc_format). */
#define FORMAT_OCI 100
/* Render PROG (compiled from P) in FORMAT and write it where -o says; 0 or
 * -1 after printing why not. */
int write_program(const struct cli *c, const char *name, const scmpc_policy *p,
		  const scmpc_prog *prog, int format);
/* Why a lift or merge of PROGS (named NAMES) failed, with the instruction
 * that stops it shown as `compile -f text` lists it. */
void report_lift_error(const char *const *names, const struct sock_filter *const *progs,
		       const size_t *lens, size_t n, const scmpc_diag *d, int rc);
/* Lift options from -a (the one ABI to keep, stored in *KEEP) and
 * --bad-arch. */
void lift_opts_init(const struct cli *c, struct scmpc_lift_opts *lo, enum scmpc_arch *keep);

/* ---- merge.c: stacks of filters */

/* The FILEs of C (c->npos of them) as merge and intersect take them: a
 * policy compiled for -a's ABI, a .bpf as it is; '-' at most once and no
 * output that is an input.  *FS and *PROGS get c->npos entries (the
 * caller frees them, also on failure).  EXIT_OK, or the exit status after
 * printing why. */
int load_stack_files(const struct cli *c, struct filter **fs, scmpc_prog ***progs);
void free_stack_files(struct filter *fs, scmpc_prog **progs, size_t n);

/* The stack PROGS[0..N) (oldest first) merged into one program: *POLICY
 * gets the lifted decision, *OUT its compiled program; NAMES name the
 * filters in messages; a progress line on a terminal unless QUIET.  0 or -1
 * after printing why not. */
int merge_programs(const char *const *names, scmpc_prog *const *progs, size_t n,
		   bool quiet, scmpc_policy **policy, scmpc_prog **out);
/* The stack's figures beside the merged program's, per ABI of P (the
 * merged decision), each filter's own first when PER_FILTER.  0, or a
 * negative errno after printing why. */
int stack_figures(FILE *out, const struct cli *c, scmpc_prog *const *progs, size_t n,
		  const scmpc_policy *p, const scmpc_prog *merged, bool per_filter);

/* ---- dump.c */

/* The filters process PID holds, oldest first (*OUT, for
 * scmpc_prog_array_free()): their count, or -1 after printing why not. */
int read_stack(unsigned pid, scmpc_prog ***out);

/* ---- dot.c: a program as a Graphviz graph (inspect, dump --dot) */

struct dot_prog {
	const char *name;		/* the graph's (or its cluster's) title */
	const struct sock_filter *insns;
	size_t len;
};
/* PROGS[0..N) as one digraph (several: a cluster each, as a stack); HOT
 * (or NULL): the workload whose paths are drawn red, its calls without an
 * ABI taken as HOT_ARCH's, HOT_NAME naming it in the title.  0 or a
 * negative errno. */
int write_dot(FILE *out, const struct dot_prog *progs, size_t n, const scmpc_workload *hot,
	      enum scmpc_arch hot_arch, const char *hot_name);
/* write_dot() into a malloc'ed *BUF of *LEN bytes. */
int dot_text(const struct dot_prog *progs, size_t n, const scmpc_workload *hot,
	     enum scmpc_arch hot_arch, const char *hot_name, char **buf, size_t *len);
/* The workload in file PATH (as compile --hot reads it: names, strace -c or
 * perf trace -s), its calls without an ABI ARCH's; NULL after saying why. */
scmpc_workload *read_workload_file(const char *path, enum scmpc_arch arch, bool quiet);

/* ---- options.c */

void print_command_help(const struct command *cmd, FILE *f);
/* What the parsers return when --help or --version was answered: the
 * command is done, with status 0. */
#define OPTS_ANSWERED (-1)
/* EXIT_OK, OPTS_ANSWERED, or the status of a usage error (printed). */
int parse_args(int argc, char **argv, unsigned allowed, struct cli *c);
/* exec's: options up to the command, whose own options are never read. */
int parse_exec_args(int argc, char **argv, unsigned allowed, struct cli *c);
void free_caps(char **caps);

/* ---- progress.c: one updating line on a terminal */

/* A library call's progress, drawn on standard error once the call has
 * run a second, when that is a terminal and -q is not given. */
struct cli_progress {
	struct scmpc_progress pr;	/* what the options point to */
	double start_ms, after_ms;
	bool on, drawn;
};
void progress_start(struct cli_progress *p, bool quiet);
/* Clears the line, if one was drawn. */
void progress_end(struct cli_progress *p);

/* ---- caps.c: the capability set a profile is read with */

/* Sets O's caps, caps_from, caps_add and podman_caps from --caps and
 * Podman's containers.conf; *PODMAN holds what O points to until the
 * caller frees it with free(). */
void json_caps_opts(const struct cli *c, struct scmpc_json_opts *o, char ***podman);
bool parse_uint(const char *s, unsigned max, unsigned *out, const char **end);
/* X.Y, with a third part ignored, as Docker's minKernel and uname spell it. */
bool parse_kernel(const char *s, unsigned *major, unsigned *minor);
/* Decimal or 0x hex, negative as two's complement: 1, 0 for no number, -1
 * for one no 64-bit register holds. */
int parse_u64(const char *s, uint64_t *out);

#endif
