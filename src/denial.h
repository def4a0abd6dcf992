/* SPDX-License-Identifier: Apache-2.0 */
/*
 * denial.h - what a denial says, rendered the same way wherever it goes:
 * the line on standard error, the --log JSON line, the record the Python
 * extension turns into a dict, and the note on a Python exception.
 *
 * A denial is described once, as a struct fa_denial_view (strings in full,
 * never cut); the shim builds one per denial, and the host rebuilds one
 * from the struct fa_denial record the bridge hands it. The field names of the JSON
 * line and of the Python dict come from one table, fa_denial_fields.
 */
#ifndef FA_DENIAL_H
#define FA_DENIAL_H

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "fa_policy.h"
#include "json.h"

/*
 * A denial as a fixed-size record: the shim keeps them in a small ring
 * that a host reads back through the bridge (src/shim/fa_bridge.h). The
 * strings are those of the log line (denial.h renders both from the same
 * fields); "" stands for an absent value. A string longer than its field
 * is cut, and its bit (1 << FA_DENIAL_CUT_*) set in 'cut'.
 */
struct fa_denial {
	uint64_t seq;              /* 1, 2, ... in the order denials happened */
	struct timespec when;      /* CLOCK_REALTIME */
	int pid, tid;
	int from_context;          /* 1: context policy; 0: process policy */
	int enforced;              /* 0: report-only (fa-run --report), the call went through */
	int flags;                 /* open flags, or -1 */
	int mode;                  /* mode of a creation, or -1 */
	int has_roots;             /* roots holds the denying policy's roots */
	uint32_t cut;
	char call[32];             /* the libc function: "openat", "unlink", ... */
	char op[16];               /* fa_op_name() */
	char why[32];              /* the rule: fa_why_name() or an exec/spawn rule name */
	char reason[256];          /* the rule as a sentence */
	char path[PATH_MAX];       /* the path as the caller gave it */
	char resolved[PATH_MAX];   /* what the engine judged for path, if known */
	char path2[PATH_MAX];      /* second path (rename, link, symlink), as given */
	char resolved2[PATH_MAX];  /* what the engine judged for path2, if known */
	char caller[PATH_MAX];     /* the object that made the call (the executable's real path for the program) */
	char roots[PATH_MAX];      /* each root and its NUL, then an empty string */
	char fix[PATH_MAX + 256];  /* the smallest change that would allow it, or "" */
};

enum { FA_DENIAL_CUT_PATH, FA_DENIAL_CUT_RESOLVED, FA_DENIAL_CUT_PATH2,
       FA_DENIAL_CUT_RESOLVED2, FA_DENIAL_CUT_CALLER, FA_DENIAL_CUT_REASON,
       FA_DENIAL_CUT_ROOTS, FA_DENIAL_CUT_FIX };

struct fa_denial_view {
	uint64_t seq;
	struct timespec when;
	int pid, tid;
	const char *call, *op;
	const char *path, *resolved;     /* NULL: absent */
	const char *path2, *resolved2;
	int flags, mode;                 /* -1: none */
	const char *rule, *reason;
	int from_context;                /* the audit context's policy, not the process's */
	int enforced;                    /* 0: report-only, the call went through */
	const char *caller;
	const char *fix;                 /* the smallest change that would allow it, or NULL */
	const char *approved_by;         /* not a denial: what let it through ("allow-exec", "host") */
	/*
	 * The roots of the policy that denied, when they say something (a
	 * path was judged, the policy has a path restriction): taken from the
	 * policy itself, or else from a record's list (each root and its NUL,
	 * then an empty string). Neither: no roots.
	 */
	const fa_policy *policy;
	const char *roots;
	/*
	 * The directory holding the judged path is known to exist (the judge
	 * held it open): the fix names it without looking it up again.
	 */
	int held;
};

/* The i-th root of the view; call with *at = NULL first. NULL after the last. */
const char *fa_denial_root(const struct fa_denial_view *v, int i, const char **at);
/* Whether the view names its roots. */
#define FA_DENIAL_HAS_ROOTS(v) ((v)->policy || (v)->roots)

/* How a field of the view is written: one table for JSON and Python. */
enum fa_field_kind {
	FA_FIELD_STR,     /* const char *, null when absent */
	FA_FIELD_PATH,    /* a path: the same, decoded as a file name in Python */
	FA_FIELD_U64,
	FA_FIELD_INT,
	FA_FIELD_TIME,    /* "2026-01-02T03:04:05.678Z", UTC */
	FA_FIELD_FLAGS,   /* "O_WRONLY|O_CREAT", null for -1 */
	FA_FIELD_MODE,    /* "0644", null for -1 */
	FA_FIELD_POLICY,  /* "context" or "process" */
	FA_FIELD_BOOL,
	FA_FIELD_ROOTS,   /* a list of paths, null when not known */
};

struct fa_denial_field {
	const char *name;
	const char *key;  /* the name as a JSON key: "\"name\":" */
	size_t keylen;
	enum fa_field_kind kind;
	size_t off;       /* offset in struct fa_denial_view */
};

extern const struct fa_denial_field fa_denial_fields[];
extern const int fa_denial_nfields;

/* A field's value as text into b (TIME, FLAGS, MODE, POLICY); 0 if it is null or not text. */
int fa_denial_field_text(struct fa_buf *b, const struct fa_denial_view *v,
			 const struct fa_denial_field *f);

/* One JSON object, no newline. */
void fa_denial_json(struct fa_buf *b, const struct fa_denial_view *v);

/*
 * The human line, without its newline:
 *   fa-run: denied openat("x", O_WRONLY|O_CREAT, 0644): /r/x: REASON (roots: /a) [RULE]
 * "fastaudit:" and ", audit context" for a context's policy, "would deny"
 * for report-only. Every string is shown through fa_put_shown().
 */
void fa_denial_text(struct fa_buf *b, const struct fa_denial_view *v);

/*
 * The smallest change that would have allowed v, in the terms of whoever
 * set the policy: fa-run's options for the process policy, mk_audit()'s
 * arguments for a context's. Write roots are suggested as the nearest
 * existing directory holding the judged path (never /), and called out
 * when they lie in a place that is rarely meant to be writable ($HOME
 * itself or its dotfiles, /etc, a .git). Writes into b; 0 when no change
 * of policy allows it (a path that escapes, a magic link).
 */
int fa_denial_fix(struct fa_buf *b, const struct fa_denial_view *v);

/* The view of a bridge record (its strings are borrowed). */
void fa_denial_view_of(struct fa_denial_view *v, const struct fa_denial *d);
/* The record of a view: strings longer than their field are cut and flagged. */
void fa_denial_record(struct fa_denial *d, const struct fa_denial_view *v);
/*
 * Copy a record that may be changing under the copy (a seqlock reader
 * checks afterwards): strings up to their NUL only, each still terminated.
 */
void fa_denial_copy(struct fa_denial *o, const struct fa_denial *d);

/* Open flags by name: "O_WRONLY|O_CREAT|O_TRUNC". */
void fa_put_oflags(struct fa_buf *b, int flags);

/* UTC, ISO 8601 with milliseconds, without gmtime (which may take the tz lock). */
void fa_put_time(struct fa_buf *b, const struct timespec *ts);

#endif
