/* SPDX-License-Identifier: Apache-2.0 */
/*
 * landlock.h - the kernel floor under the preload: one Landlock ruleset,
 * built from a policy and applied just before the exec: by fa-run for its
 * command, by the shim for a context's approved child (FA_FLOOR_APPLY).
 */
#ifndef FA_FLOOR_LANDLOCK_H
#define FA_FLOOR_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "fa_policy.h"

struct fa_floor {
	int abi;            /* the running kernel's Landlock ABI */
	uint64_t handled;   /* the rights the ruleset handles */
	int ruleset;        /* its fd, or -1 */
	int nskipped;       /* inherited descriptors that could not be added */
	int exec;           /* execute is handled too */
	int strict;         /* truncate and device ioctls are handled too */
	/*
	 * The kernel's audit records name refusals of the image that applies
	 * the floor too (the shim in a program), not only of what it execs
	 * (fa-run's child, before its exec).
	 */
	int log_same_exec;
};

/* The running kernel's Landlock ABI (> 0), or -errno when there is none. */
int fa_floor_abi(void);

/*
 * A ruleset handling the write-class rights of ABI abi (and execute when
 * exec is set); nothing is allowed yet. Unless strict, not truncate nor
 * device ioctls: Landlock asks for both on every open, reads included, so
 * a ruleset handling them makes every open walk up to / for its rule.
 * 0, or -1 with msg filled.
 */
int fa_floor_open(struct fa_floor *f, int abi, int exec, int strict, char *msg, size_t len);

/* Every handled write right beneath the directory open as fd (a write root). */
int fa_floor_allow_root(struct fa_floor *f, int fd, const char *shown, char *msg, size_t len);

/*
 * The device files the preload lets a process write (the null, zero and
 * full devices, terminals and pseudo-terminals) and the files behind the
 * descriptors fa-run was started with open for writing, so that
 * "echo x >/dev/stderr" still reaches a log outside the roots.
 */
void fa_floor_allow_devices(struct fa_floor *f);

/*
 * Execute for a program (by path) and the #! interpreters it starts
 * through, up to the kernel's nesting limit. 0, or -1 with msg filled.
 */
int fa_floor_allow_program(struct fa_floor *f, const char *path, char *msg, size_t len);

/* Execute for the dynamic loader programs like fa-run start through. */
void fa_floor_allow_loader(struct fa_floor *f);

/*
 * Confine the calling process for good: no_new_privs, the ruleset, and
 * when the floor does not cover io_uring, a filter refusing it. 0, or -1
 * with msg filled. The ruleset fd is closed either way.
 */
int fa_floor_enforce(struct fa_floor *f, char *msg, size_t len);

/*
 * --landlock=MODE. Strict is on, with truncate and device ioctls handled
 * too; it needs a kernel that can handle truncate (Landlock ABI 3).
 */
enum fa_floor_mode { FA_FLOOR_AUTO, FA_FLOOR_ON, FA_FLOOR_STRICT, FA_FLOOR_OFF };

/* The ABI strict needs: the first that handles truncate. */
#define FA_FLOOR_STRICT_ABI 3

/* 0, or -1 when s names no mode. */
int fa_floor_mode_parse(const char *s, enum fa_floor_mode *m);

/* The name of a mode, as --landlock takes it. */
const char *fa_floor_mode_name(enum fa_floor_mode m);

/* The modes, as a usage message lists them: "auto, on, strict or off". */
#define FA_FLOOR_MODES "auto, on, strict or off"

/*
 * The floor for fa-run's policy p (strict under FA_FLOOR_STRICT): write
 * roots, devices and inherited descriptors; with exec set, execute for the command (its
 * path as found), the programs of the newline-separated allow list (may
 * be NULL) and the loader; the --log file (may be NULL), which the preload
 * in the command appends to. 1: built, in f; 0: off (mode off, or auto
 * where the kernel has no Landlock: why says so); -1: cannot be had (or,
 * strict, not with truncate handled), why says why.
 */
int fa_floor_build(struct fa_floor *f, enum fa_floor_mode mode, const fa_policy *p, int exec,
		   const char *command, const char *allow, const char *log, char *why,
		   size_t len);

/*
 * 1 when the floor fa_floor_build() makes of p refuses exactly the entry
 * changes p refuses: p holds only roots, each resolved and pinned (the
 * ruleset's rules are those directories), with no deny subtree or write
 * pattern (read patterns judge no entry change), symlinks
 * trusted, neither learning nor unrestricted. Landlock grants the make and
 * remove rights beneath the roots alone (devices, inherited descriptors and
 * the log get write rights only), so under such a floor the kernel itself
 * refuses a creation or removal outside the roots, whichever way its path
 * leads there.
 */
int fa_floor_decides_entries(const fa_policy *p);

/* What fa-run watches for while the command runs. */
struct fa_watch {
	int quiet;                 /* no exit notes */
	struct fa_counts *counts;  /* the run's tally (counts.h), or NULL */
	const char *log;           /* the --log file, for the summary, or NULL */
	struct fa_learn *learn;    /* --learn: what to read and say at exit (learn.h), or NULL */
	int verbose;               /* say whether the floor's refusals can be named */
};

/*
 * Start argv[0] (found on PATH), under the floor f unless f is NULL, and
 * wait for it: fa-run stays the parent, outside any floor, passes signals
 * sent to it on, and exits with the command's status (dying of the same
 * signal). Unless quiet, says at exit how many calls were denied in the
 * run, and, when the command failed under a floor and no preload of the
 * run reported a denial, that the floor may have refused calls no preload
 * saw.
 */
__attribute__((noreturn)) void fa_floor_run(struct fa_floor *f, char **argv,
					    const struct fa_watch *w);

#endif
