/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_log.h - the kernel's own account of what the floor refused: the
 * Landlock records of the audit log (ABI 7), read by fa-run while its
 * command runs, so that a refusal of code the preload did not see is
 * named like the preload's own.
 */
#ifndef FA_RUN_AUDIT_LOG_H
#define FA_RUN_AUDIT_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FA_AUDIT_NDOMAINS 16

struct fa_audit {
	int fd;                     /* NETLINK_AUDIT, in the read-only log group; -1: none */
	pid_t child;                /* the command: domains it (or a descendant) made are ours */
	uint64_t domains[FA_AUDIT_NDOMAINS];
	int ndomains, live;         /* domains seen, and not yet deallocated */
	unsigned long named;        /* refusals named so far */
	int enabled;                /* the audit subsystem is on: 1, off: 0, not known yet: -1 */
	int barrier;                /* fa-run's own marker record has come */
	int armed, asked;           /* the marker is awaited; the kernel was asked */
	int verbose;                /* --verbose: the answer is wanted in any case */
	char why[160];              /* when the records cannot be read: why */
	int quiet;                  /* no stderr lines (the log still gets them) */
	const char *log;            /* the --log file, or NULL */
};

/*
 * Start listening, before the command starts (a record it causes at once
 * must not be missed). 1: listening; 0: the records cannot be read here,
 * and why says why (Landlock ABI before 7, no CAP_AUDIT_READ).
 */
int fa_audit_open(struct fa_audit *a, int abi, char *why, size_t len);

/*
 * Wait for pid like waitpid(pid, status, 0), naming on stderr and in the
 * log each refusal the floor makes in the command meanwhile; then read
 * what the kernel still has queued for it. Returns 0, or -1 with errno.
 * Afterwards enabled says whether the records could be read (why, if not;
 * -1: not known, the command succeeded and nothing was recorded).
 */
int fa_audit_wait(struct fa_audit *a, pid_t pid, int *status);

/* One audit record's text: take what it says about the floor (exposed for the tests). */
void fa_audit_record(struct fa_audit *a, int type, const char *text, size_t len);

#endif
