/* SPDX-License-Identifier: Apache-2.0 */
/*
 * learn.h - fa-run --learn: the policy a run needed, said at its end.
 */
#ifndef FA_RUN_LEARN_H
#define FA_RUN_LEARN_H

#include "fa_policy.h"

struct fa_learn {
	int on;
	const char *out;            /* --learn=FILE, or NULL */
	const fa_policy *policy;    /* the policy in force (sealed) */
	/*
	 * Its patterns below this index are the user's; the rest are the
	 * common secret patterns (fa_secret_write_patterns), added only to
	 * see the run's writes they name (nothing is enforced under --learn).
	 */
	int user_globs;
	enum fa_exec_mode exec;     /* the exec rule in force */
	const char *allow;          /* its allow list, newline-separated, or NULL */
	char *const *argv;          /* the command, for the file's header */
	int fd;                     /* the record (a memfd), kept open by fa-run */
	int nested;                 /* inside fa-run --learn, whose record takes the command's */
	char project[PATH_MAX];     /* fa-run's directory at start */
};

/* Make the record and name it to the command in FA_LEARN: 0, or -1 with why. */
int fa_learn_start(struct fa_learn *l, char *why, size_t len);
/* 1 if this fa-run runs inside fa-run --learn, which learns for it too (its floor stays off). */
int fa_learn_nested(void);
/* After the command: read the record, print the learned policy and the diff, write FILE. */
void fa_learn_report(struct fa_learn *l);

#endif
