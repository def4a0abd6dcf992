/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seqfuzz.c - a differential fuzzer of operation sequences: a program's
 * file operations must act under fa-run exactly as they act bare, also
 * when a process outside the run renames directories between its calls.
 *
 * For each seed the driver (this program) runs a worker (this program
 * with --worker) on identical fresh trees: bare, under
 * `fa-run -w ROOT --landlock=off` and under `fa-run -w ROOT --landlock=on`.
 * The worker performs one file operation per line it reads on its stdin
 * (create, write, truncate, mkdir, rename, unlink, rmdir, chmod, utime,
 * symlink, link, chdir, fchdir, and the *at variants on directory
 * descriptors it opened earlier in the sequence and keeps), answers with
 * the call's result, and waits for the next line. Between two operations
 * the driver, which runs under no fa-run, may rename a directory and make
 * a new one by its name, swap two directories, move one into another,
 * replace one by a file, or remove one.
 *
 * The sequence is drawn during the bare run, where the driver can read in
 * /proc which directories the worker's cwd and kept descriptors are: the
 * outside changes are aimed at what the next operation resolves (the
 * directory of a kept descriptor, the cwd, the parent of a path, which
 * the operation before often used too), and the worker's paths are drawn
 * from the tree as it is, so that they hit existing and missing names.
 * The other runs replay it. After every step the driver takes the whole
 * tree (names, types, modes, sizes, contents, link counts, symlink
 * targets, and the modification times the sequence sets, which are fixed
 * values); a result or a tree that differs from the bare run's is a
 * failure. Everything stays inside ROOT, so there is nothing for fa-run
 * to refuse: confined must equal bare exactly. A sequence that differs is
 * replayed bare once more first; one that differs from itself bare is a
 * fault of the fuzzer (exit 2), not of what it tests. Differences are of
 * two kinds: the trees differ (an operation acted on other objects than
 * bare, or was not done), or the results alone (another errno). The run
 * goes on to its budget; the first difference of each kind is printed in
 * full (the seed, the sequence up to the step that differs, both results,
 * the lines of the trees that differ, what fa-run said), the others in a
 * line each, and the last line counts them.
 *
 *   seqfuzz [OPTION]...           sequences until the budget is spent
 *   seqfuzz --seed N [OPTION]...  the one sequence of seed N
 *   seqfuzz --worker ROOT         the worker, as the driver runs it
 *
 *   --seconds S       start no sequence after S seconds (default 20; 0: no
 *                     limit)
 *   --iterations N    stop after N sequences (default: no limit); the
 *                     first limit reached stops
 *   --first N         the first seed of a budgeted run (default: from the
 *                     clock); the next sequences take N+1, N+2, ...
 *   --steps N         operations per sequence (default 20, at most 60)
 *   --landlock=MODE   both (default): floor off and on; on; off. Where
 *                     fa-run --landlock=on cannot run, the floor variant
 *                     is skipped with a message
 *   --fa-run PATH     fa-run to run the worker under (default: $FA_RUN,
 *                     else ../../fa-run from this program's directory)
 *   --dir DIR         work in DIR, and leave in it the last run's tree and
 *                     the workers' stderr (default: a new directory in
 *                     $TMPDIR, removed at the end)
 *   --changes P       the share of steps, in percent, that a change from
 *                     outside comes before (default 50; 0: none)
 *   --failures N      stop after N sequences that differ (default: only
 *                     the budget stops)
 *   --reports N       print in full the first N differences of each kind
 *                     (the trees differ; the results alone) (default 1);
 *                     the others in one line each, up to 40
 *   --verbose         print every sequence and its results
 *
 * Exit status: 0 no difference; 1 a difference; 2 the fuzzer could not run.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "../libc_compat.h"

#define NSLOT 4
#define RELMAX 96
#define MAXENT 400
#define MAXSTEPS 60
#define MAXPRIM 16
#define LINEMAX 1024
/*
 * A worker that says nothing for this long is reported as hung: a net for
 * a run that would never end, not a measure (no step takes a second).
 */
#define HANG_MS 300000

#define DIR_NONE (-2) /* a plain call: no directory descriptor */
#define DIR_CWD (-1)  /* AT_FDCWD */

/* The times utime calls set: the only modification times compared. */
static const time_t fixed_time[2] = {1000000000, 1234567890};

/* ------------------------------------------------------------------ */
/* Operations, as the driver sends them and the worker performs them.  */

enum call {
	C_OPEN_CREAT, C_OPENAT_CREAT, C_CREAT, C_FOPEN,
	C_OPEN_WRITE, C_OPENAT_WRITE, C_TRUNCATE,
	C_MKDIR, C_MKDIRAT,
	C_RENAME, C_RENAMEAT, C_RENAMEAT2,
	C_UNLINK, C_UNLINKAT, C_REMOVE,
	C_RMDIR, C_UNLINKAT_DIR,
	C_CHMOD, C_FCHMODAT,
	C_UTIME, C_UTIMES, C_UTIMENSAT,
	C_SYMLINK, C_SYMLINKAT,
	C_LINK, C_LINKAT,
	C_CHDIR, C_FCHDIR,
	C_SLOT_OPEN, C_SLOT_OPENAT, C_SLOT_OPENDIR, C_SLOT_CLOSE,
	NCALL
};

static const char *const wire_name[NCALL] = {
	"open-creat", "openat-creat", "creat", "fopen",
	"open-write", "openat-write", "truncate",
	"mkdir", "mkdirat",
	"rename", "renameat", "renameat2",
	"unlink", "unlinkat", "remove",
	"rmdir", "unlinkat-dir",
	"chmod", "fchmodat",
	"utime", "utimes", "utimensat",
	"symlink", "symlinkat",
	"link", "linkat",
	"chdir", "fchdir",
	"slot-open", "slot-openat", "slot-opendir", "slot-close",
};

/*
 * Paths starting with '/' are under ROOT (the worker puts ROOT before
 * them); others are relative to the directory argument or the cwd.
 */
struct op {
	int call;
	int d1, d2;		/* DIR_NONE, DIR_CWD or a slot */
	char p1[RELMAX], p2[RELMAX];	/* "" when not used */
	long n;			/* flags, mode, size, slot or time, by call */
	char t[16];		/* a symlink's target; "path" for O_PATH */
};

/* SRC into DST of LEN bytes, cut if need be. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memmove(dst, src, n);
	dst[n] = '\0';
}

static const char *errname(int e)
{
	static char other[24];

	switch (e) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case ELOOP: return "ELOOP";
	case EXDEV: return "EXDEV";
	case EMLINK: return "EMLINK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EROFS: return "EROFS";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case ENOSPC: return "ENOSPC";
	case EIO: return "EIO";
	case EFAULT: return "EFAULT";
	case EAGAIN: return "EAGAIN";
	case EMFILE: return "EMFILE";
	}
	snprintf(other, sizeof other, "E%d", e);
	return other;
}

/* "d2", "AT_FDCWD" */
static const char *dirname_of(int d, char *buf, size_t len)
{
	if (d == DIR_CWD)
		copy(buf, len, "AT_FDCWD");
	else
		snprintf(buf, len, "d%d", d);
	return buf;
}

static void fmt_path(char *buf, size_t len, const char *p)
{
	snprintf(buf, len, p[0] == '/' ? "\"ROOT%s\"" : "\"%s\"", p);
}

/* The call as C would spell it, for the reports. */
static void fmt_op(const struct op *o, char *buf, size_t len)
{
	char a[RELMAX + 8], b[RELMAX + 8], d1[16], d2[16];
	const char *fl;

	fmt_path(a, sizeof a, o->p1);
	fmt_path(b, sizeof b, o->p2);
	dirname_of(o->d1, d1, sizeof d1);
	dirname_of(o->d2, d2, sizeof d2);
	fl = o->n == 1 ? "|O_EXCL" : o->n == 2 ? "|O_TRUNC" : "";
	switch (o->call) {
	case C_OPEN_CREAT:
		snprintf(buf, len, "open(%s, O_WRONLY|O_CREAT%s, 0644)", a, fl);
		break;
	case C_OPENAT_CREAT:
		snprintf(buf, len, "openat(%s, %s, O_WRONLY|O_CREAT%s, 0644)", d1, a, fl);
		break;
	case C_CREAT:
		snprintf(buf, len, "creat(%s, 0644)", a);
		break;
	case C_FOPEN:
		snprintf(buf, len, "fopen(%s, \"%s\") and a line", a, o->n ? "a" : "w");
		break;
	case C_OPEN_WRITE:
		snprintf(buf, len, "open(%s, O_WRONLY|%s) and a line", a,
			 o->n ? "O_TRUNC" : "O_APPEND");
		break;
	case C_OPENAT_WRITE:
		snprintf(buf, len, "openat(%s, %s, O_WRONLY|%s) and a line", d1, a,
			 o->n ? "O_TRUNC" : "O_APPEND");
		break;
	case C_TRUNCATE:
		snprintf(buf, len, "truncate(%s, %ld)", a, o->n);
		break;
	case C_MKDIR:
		snprintf(buf, len, "mkdir(%s, 0%lo)", a, (unsigned long)o->n);
		break;
	case C_MKDIRAT:
		snprintf(buf, len, "mkdirat(%s, %s, 0%lo)", d1, a, (unsigned long)o->n);
		break;
	case C_RENAME:
		snprintf(buf, len, "rename(%s, %s)", a, b);
		break;
	case C_RENAMEAT:
		snprintf(buf, len, "renameat(%s, %s, %s, %s)", d1, a, d2, b);
		break;
	case C_RENAMEAT2:
		snprintf(buf, len, "renameat2(%s, %s, %s, %s, %s)", d1, a, d2, b,
			 o->n == RENAME_EXCHANGE ? "RENAME_EXCHANGE" :
			 o->n == RENAME_NOREPLACE ? "RENAME_NOREPLACE" : "0");
		break;
	case C_UNLINK:
		snprintf(buf, len, "unlink(%s)", a);
		break;
	case C_UNLINKAT:
		snprintf(buf, len, "unlinkat(%s, %s, 0)", d1, a);
		break;
	case C_REMOVE:
		snprintf(buf, len, "remove(%s)", a);
		break;
	case C_RMDIR:
		snprintf(buf, len, "rmdir(%s)", a);
		break;
	case C_UNLINKAT_DIR:
		snprintf(buf, len, "unlinkat(%s, %s, AT_REMOVEDIR)", d1, a);
		break;
	case C_CHMOD:
		snprintf(buf, len, "chmod(%s, 0%lo)", a, (unsigned long)o->n);
		break;
	case C_FCHMODAT:
		snprintf(buf, len, "fchmodat(%s, %s, 0%lo, 0)", d1, a, (unsigned long)o->n);
		break;
	case C_UTIME:
		snprintf(buf, len, "utime(%s, {%lld})", a, (long long)fixed_time[o->n]);
		break;
	case C_UTIMES:
		snprintf(buf, len, "utimes(%s, {%lld})", a, (long long)fixed_time[o->n]);
		break;
	case C_UTIMENSAT:
		snprintf(buf, len, "utimensat(%s, %s, {%lld}, 0)", d1, a,
			 (long long)fixed_time[o->n]);
		break;
	case C_SYMLINK:
		snprintf(buf, len, "symlink(\"%s\", %s)", o->t, a);
		break;
	case C_SYMLINKAT:
		snprintf(buf, len, "symlinkat(\"%s\", %s, %s)", o->t, d1, a);
		break;
	case C_LINK:
		snprintf(buf, len, "link(%s, %s)", a, b);
		break;
	case C_LINKAT:
		snprintf(buf, len, "linkat(%s, %s, %s, %s, 0)", d1, a, d2, b);
		break;
	case C_CHDIR:
		snprintf(buf, len, "chdir(%s)", a);
		break;
	case C_FCHDIR:
		snprintf(buf, len, "fchdir(d%ld)", o->n);
		break;
	case C_SLOT_OPEN:
		snprintf(buf, len, "d%ld = open(%s, O_RDONLY|O_DIRECTORY%s)", o->n, a,
			 strcmp(o->t, "path") ? "" : "|O_PATH");
		break;
	case C_SLOT_OPENAT:
		snprintf(buf, len, "d%ld = openat(%s, %s, O_RDONLY|O_DIRECTORY)", o->n, d1, a);
		break;
	case C_SLOT_OPENDIR:
		snprintf(buf, len, "d%ld = dirfd(opendir(%s))", o->n, a);
		break;
	case C_SLOT_CLOSE:
		snprintf(buf, len, "close(d%ld)", o->n);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

static void wire_dir(char *buf, size_t len, int d)
{
	if (d == DIR_NONE)
		snprintf(buf, len, "-");
	else if (d == DIR_CWD)
		snprintf(buf, len, "cwd");
	else
		snprintf(buf, len, "%d", d);
}

static int unwire_dir(const char *s)
{
	if (!strcmp(s, "-"))
		return DIR_NONE;
	if (!strcmp(s, "cwd"))
		return DIR_CWD;
	return atoi(s);
}

/* "STEP CALL D1 P1 D2 P2 N T\n", "-" for what is not used. */
static int wire_op(char *buf, size_t len, int step, const struct op *o)
{
	char d1[8], d2[8];

	wire_dir(d1, sizeof d1, o->d1);
	wire_dir(d2, sizeof d2, o->d2);
	return snprintf(buf, len, "%d %s %s %s %s %s %ld %s\n", step, wire_name[o->call], d1,
			o->p1[0] ? o->p1 : "-", d2, o->p2[0] ? o->p2 : "-", o->n,
			o->t[0] ? o->t : "-");
}

/* ------------------------------------------------------------------ */
/* The worker.                                                          */

static int slot_fd[NSLOT] = {-1, -1, -1, -1};
static DIR *slot_dir[NSLOT];
static const char *worker_root;

static int dirarg(int d)
{
	if (d == DIR_CWD || d == DIR_NONE)
		return AT_FDCWD;
	return slot_fd[d];
}

/* The path the call is given: ROOT's own for the '/' ones. */
static const char *full(const char *p, char *buf, size_t len)
{
	if (p[0] != '/')
		return p;
	snprintf(buf, len, "%s%s", worker_root, p);
	return buf;
}

static void slot_close(int k)
{
	if (slot_dir[k])
		closedir(slot_dir[k]);
	else if (slot_fd[k] >= 0)
		close(slot_fd[k]);
	slot_dir[k] = NULL;
	slot_fd[k] = -1;
}

/* Write LINE to fd and close it: 0, or -1 with errno. */
static int write_close(int fd, const char *line)
{
	size_t len = strlen(line);
	ssize_t w = write(fd, line, len);
	int e = errno;

	if (close(fd) < 0 && w >= 0)
		return -1;
	if (w < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)w != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Perform O; its result ("ok" or the errno's name) into RES, a note into AUX. */
static void perform(int step, const struct op *o, char *res, size_t rlen, char *aux, size_t alen)
{
	char b1[PATH_MAX], b2[PATH_MAX], line[32];
	const char *p1 = full(o->p1, b1, sizeof b1), *p2 = full(o->p2, b2, sizeof b2);
	int fd1 = dirarg(o->d1), fd2 = dirarg(o->d2);
	int rc = 0, fd, k;
	struct timeval tv[2];
	struct timespec ts[2];
	struct utimbuf ub;
	FILE *f;
	DIR *d;

	snprintf(line, sizeof line, "s%d\n", step);
	snprintf(aux, alen, "-");
	errno = 0;
	switch (o->call) {
	case C_OPEN_CREAT:
	case C_OPENAT_CREAT:
		k = O_WRONLY | O_CREAT | (o->n == 1 ? O_EXCL : o->n == 2 ? O_TRUNC : 0);
		fd = o->call == C_OPEN_CREAT ? open(p1, k, 0644) : openat(fd1, p1, k, 0644);
		rc = fd < 0 ? -1 : close(fd);
		break;
	case C_CREAT:
		fd = creat(p1, 0644);
		rc = fd < 0 ? -1 : close(fd);
		break;
	case C_FOPEN:
		f = fopen(p1, o->n ? "a" : "w");
		if (!f) {
			rc = -1;
			break;
		}
		rc = fputs(line, f) < 0 ? -1 : 0;
		if (fclose(f) != 0)
			rc = -1;
		break;
	case C_OPEN_WRITE:
	case C_OPENAT_WRITE:
		k = O_WRONLY | (o->n ? O_TRUNC : O_APPEND);
		fd = o->call == C_OPEN_WRITE ? open(p1, k) : openat(fd1, p1, k);
		rc = fd < 0 ? -1 : write_close(fd, line);
		break;
	case C_TRUNCATE:
		rc = truncate(p1, (off_t)o->n);
		break;
	case C_MKDIR:
		rc = mkdir(p1, (mode_t)o->n);
		break;
	case C_MKDIRAT:
		rc = mkdirat(fd1, p1, (mode_t)o->n);
		break;
	case C_RENAME:
		rc = rename(p1, p2);
		break;
	case C_RENAMEAT:
		rc = renameat(fd1, p1, fd2, p2);
		break;
	case C_RENAMEAT2:
		rc = renameat2(fd1, p1, fd2, p2, (unsigned)o->n);
		break;
	case C_UNLINK:
		rc = unlink(p1);
		break;
	case C_UNLINKAT:
		rc = unlinkat(fd1, p1, 0);
		break;
	case C_REMOVE:
		rc = remove(p1);
		break;
	case C_RMDIR:
		rc = rmdir(p1);
		break;
	case C_UNLINKAT_DIR:
		rc = unlinkat(fd1, p1, AT_REMOVEDIR);
		break;
	case C_CHMOD:
		rc = chmod(p1, (mode_t)o->n);
		break;
	case C_FCHMODAT:
		rc = fchmodat(fd1, p1, (mode_t)o->n, 0);
		break;
	case C_UTIME:
		ub.actime = ub.modtime = fixed_time[o->n];
		rc = utime(p1, &ub);
		break;
	case C_UTIMES:
		tv[0].tv_sec = tv[1].tv_sec = fixed_time[o->n];
		tv[0].tv_usec = tv[1].tv_usec = 0;
		rc = utimes(p1, tv);
		break;
	case C_UTIMENSAT:
		ts[0].tv_sec = ts[1].tv_sec = fixed_time[o->n];
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		rc = utimensat(fd1, p1, ts, 0);
		break;
	case C_SYMLINK:
		rc = symlink(o->t, p1);
		break;
	case C_SYMLINKAT:
		rc = symlinkat(o->t, fd1, p1);
		break;
	case C_LINK:
		rc = link(p1, p2);
		break;
	case C_LINKAT:
		rc = linkat(fd1, p1, fd2, p2, 0);
		break;
	case C_CHDIR:
		rc = chdir(p1);
		break;
	case C_FCHDIR:
		rc = fchdir(slot_fd[o->n]);
		break;
	case C_SLOT_OPEN:
	case C_SLOT_OPENAT:
		slot_close((int)o->n);
		k = O_RDONLY | O_DIRECTORY | (strcmp(o->t, "path") ? 0 : O_PATH);
		fd = o->call == C_SLOT_OPEN ? open(p1, k) : openat(fd1, p1, k);
		rc = fd < 0 ? -1 : 0;
		slot_fd[o->n] = fd;
		snprintf(aux, alen, "%d", fd);
		break;
	case C_SLOT_OPENDIR:
		slot_close((int)o->n);
		d = opendir(p1);
		rc = d ? 0 : -1;
		slot_dir[o->n] = d;
		slot_fd[o->n] = d ? dirfd(d) : -1;
		snprintf(aux, alen, "%d", slot_fd[o->n]);
		break;
	case C_SLOT_CLOSE:
		rc = slot_fd[o->n] < 0 ? (errno = EBADF, -1) : 0;
		slot_close((int)o->n);
		break;
	default:
		rc = -1;
		errno = EINVAL;
	}
	copy(res, rlen, rc < 0 ? errname(errno ? errno : EIO) : "ok");
}

static int parse_op(char *line, int *step, struct op *o)
{
	char *tok[8], *save = NULL, *s;
	int n = 0, i;

	for (s = strtok_r(line, " \n", &save); s && n < 8; s = strtok_r(NULL, " \n", &save))
		tok[n++] = s;
	if (n != 8)
		return -1;
	memset(o, 0, sizeof *o);
	*step = atoi(tok[0]);
	o->call = -1;
	for (i = 0; i < NCALL; i++)
		if (!strcmp(tok[1], wire_name[i]))
			o->call = i;
	o->d1 = unwire_dir(tok[2]);
	o->d2 = unwire_dir(tok[4]);
	if (o->call < 0 || o->d1 >= NSLOT || o->d2 >= NSLOT || o->d1 < DIR_NONE || o->d2 < DIR_NONE)
		return -1;
	snprintf(o->p1, sizeof o->p1, "%s", strcmp(tok[3], "-") ? tok[3] : "");
	snprintf(o->p2, sizeof o->p2, "%s", strcmp(tok[5], "-") ? tok[5] : "");
	o->n = strtol(tok[6], NULL, 10);
	snprintf(o->t, sizeof o->t, "%s", strcmp(tok[7], "-") ? tok[7] : "");
	if ((o->call == C_FCHDIR || o->call == C_SLOT_OPEN || o->call == C_SLOT_OPENAT ||
	     o->call == C_SLOT_OPENDIR || o->call == C_SLOT_CLOSE) && (o->n < 0 || o->n >= NSLOT))
		return -1;
	if ((o->call == C_UTIME || o->call == C_UTIMES || o->call == C_UTIMENSAT) &&
	    (o->n < 0 || o->n > 1))
		return -1;
	return 0;
}

static int say_to(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	ssize_t w;

	while (off < len) {
		w = write(fd, s + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

static int worker(const char *root)
{
	char line[LINEMAX], res[64], aux[32], out[128];
	struct op o;
	int step, k;

	worker_root = root;
	signal(SIGPIPE, SIG_IGN);
	snprintf(out, sizeof out, "hello|%ld\n", (long)getpid());
	if (say_to(1, out) < 0)
		return 1;
	while (fgets(line, sizeof line, stdin)) {
		if (parse_op(line, &step, &o) < 0) {
			fprintf(stderr, "seqfuzz worker: cannot read: %s", line);
			return 2;
		}
		perform(step, &o, res, sizeof res, aux, sizeof aux);
		snprintf(out, sizeof out, "%s|%s\n", res, aux);
		if (say_to(1, out) < 0)
			return 1;
	}
	for (k = 0; k < NSLOT; k++)
		slot_close(k);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Trees: what the driver compares after every step.                    */

struct ent {
	char path[RELMAX];	/* under ROOT, no leading '/' */
	char type;		/* 'd', 'f', 'l', '?' */
};

struct tree {
	struct ent e[MAXENT];
	int n;
	char *text;		/* one line per entry, sorted */
	size_t len, cap;
};

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("seqfuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

__attribute__((format(printf, 2, 3))) static void tappend(struct tree *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->text + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf failed");
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->text = realloc(t->text, t->cap);
		if (!t->text)
			die("out of memory");
	}
	t->len += (size_t)n;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Bytes as text: printable ones as they are, others as \xHH. */
static void tquote(struct tree *t, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > ' ' && c < 127 && c != '\\')
			tappend(t, "%c", c);
		else
			tappend(t, "\\x%02x", c);
	}
}

static void walk(struct tree *t, int dfd, const char *rel)
{
	char **names = NULL, path[PATH_MAX], buf[256];
	size_t nn = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, j;
	ssize_t r;

	fd = dup(dfd);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		tappend(t, "%s unreadable\n", rel[0] ? rel : ".");
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (nn == cap) {
			cap = cap * 2 + 16;
			names = realloc(names, cap * sizeof *names);
			if (!names)
				die("out of memory");
		}
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof *names, cmpstr);
	for (i = 0; i < nn; i++) {
		snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			tappend(t, "%s gone\n", path);
			continue;
		}
		char type = S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' :
			    S_ISLNK(st.st_mode) ? 'l' : '?';
		tappend(t, "%s %c %04o", path, type, (unsigned)(st.st_mode & 07777));
		if (type == 'f') {
			tappend(t, " size=%lld nlink=%lu data=", (long long)st.st_size,
				(unsigned long)st.st_nlink);
			fd = openat(dfd, names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			r = fd < 0 ? -1 : read(fd, buf, sizeof buf);
			if (fd >= 0)
				close(fd);
			if (r < 0)
				tappend(t, "unreadable");
			else
				tquote(t, buf, (size_t)r);
		} else if (type == 'l') {
			r = readlinkat(dfd, names[i], buf, sizeof buf);
			tappend(t, " -> ");
			tquote(t, buf, r < 0 ? 0 : (size_t)r);
		}
		if (type != 'l')
			for (j = 0; j < 2; j++)
				if (st.st_mtim.tv_sec == fixed_time[j] && st.st_mtim.tv_nsec == 0)
					tappend(t, " mtime=%lld", (long long)fixed_time[j]);
		tappend(t, "\n");
		if (t->n < MAXENT && strlen(path) < RELMAX) {
			copy(t->e[t->n].path, RELMAX, path);
			t->e[t->n].type = type;
			t->n++;
		}
		if (type == 'd') {
			fd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				tappend(t, "%s unreadable\n", path);
			} else {
				walk(t, fd, path);
				close(fd);
			}
		}
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
}

static void snapshot(struct tree *t, const char *root)
{
	struct stat st;
	int fd;

	t->n = 0;
	t->len = 0;
	if (!t->text) {
		t->cap = 4096;
		t->text = xmalloc(t->cap);
	}
	t->text[0] = '\0';
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot read %s: %s", root, strerror(errno));
	tappend(t, ". d %04o\n", (unsigned)(st.st_mode & 07777));
	walk(t, fd, "");
	close(fd);
}

static char tree_type(const struct tree *t, const char *path)
{
	int i;

	if (!path[0])
		return 'd';
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].path, path))
			return t->e[i].type;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The driver's changes of the tree, made from outside the run.         */

enum prim_kind { P_RENAME, P_EXCHANGE, P_MKDIR, P_FILE, P_RMTREE };

struct prim {
	int kind;
	char a[RELMAX], b[RELMAX];
};

struct step {
	struct op op;
	int nprim;
	struct prim prim[MAXPRIM];
};

/* One run's record of one step. */
struct outcome {
	char res[64];
	char mres[MAXPRIM * 12];
	char *tree;
};

static const char *root_path;	/* the tree's root, resolved */

static void abs_of(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", root_path, rel);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int apply_prim(const struct prim *p)
{
	char a[PATH_MAX], b[PATH_MAX];
	int fd;

	abs_of(a, sizeof a, p->a);
	abs_of(b, sizeof b, p->b);
	switch (p->kind) {
	case P_RENAME:
		return rename(a, b);
	case P_EXCHANGE:
		return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	case P_MKDIR:
		return mkdir(a, 0755);
	case P_FILE:
		fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		return fd < 0 ? -1 : write_close(fd, "outside\n");
	case P_RMTREE:
		return rmtree(a);
	}
	errno = EINVAL;
	return -1;
}

static void fmt_prims(const struct step *s, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < s->nprim && off < len; i++) {
		const struct prim *p = &s->prim[i];
		const char *sep = i ? "; " : "";
		int n = 0;

		switch (p->kind) {
		case P_RENAME:
			n = snprintf(buf + off, len - off, "%smv %s %s", sep, p->a, p->b);
			break;
		case P_EXCHANGE:
			n = snprintf(buf + off, len - off, "%sexchange %s %s", sep, p->a, p->b);
			break;
		case P_MKDIR:
			n = snprintf(buf + off, len - off, "%smkdir %s", sep, p->a);
			break;
		case P_FILE:
			n = snprintf(buf + off, len - off, "%swrite %s", sep, p->a);
			break;
		case P_RMTREE:
			n = snprintf(buf + off, len - off, "%srm -r %s", sep, p->a);
			break;
		}
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* ------------------------------------------------------------------ */
/* Drawing a sequence, during the bare run.                             */

static uint64_t rng_state;
/* How often a step starts with a change from outside. */
static int change_percent = 50;

static uint64_t rnd64(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rnd(int n)
{
	return n <= 1 ? 0 : (int)(rnd64() % (uint64_t)n);
}

static int chance(int percent)
{
	return rnd(100) < percent;
}

static const char *const alphabet[] = {"a", "b", "c", "x", "y"};
#define NALPHA ((int)(sizeof alphabet / sizeof alphabet[0]))

/* What the driver knows of the bare worker before a step. */
struct view {
	const struct tree *tree;
	pid_t pid;
	int cwd_known;
	char cwd[RELMAX];	/* under ROOT; "" for ROOT */
	int slot_fd[NSLOT];	/* -1: closed */
	int slot_known[NSLOT];
	char slot[NSLOT][RELMAX];
	int prev_known;		/* the directory the last operation used */
	char prev[RELMAX];
};

/* Where /proc says LINK is, under ROOT: 1, or 0 when it is elsewhere or gone. */
static int proc_where(const char *link, char *out, size_t len)
{
	char buf[PATH_MAX];
	size_t rl = strlen(root_path);
	ssize_t r = readlink(link, buf, sizeof buf - 1);

	if (r < 0)
		return 0;
	buf[r] = '\0';
	if (strstr(buf, " (deleted)"))
		return 0;
	if (!strcmp(buf, root_path)) {
		copy(out, len, "");
		return 1;
	}
	if (strncmp(buf, root_path, rl) || buf[rl] != '/' || strlen(buf + rl + 1) >= len)
		return 0;
	copy(out, len, buf + rl + 1);
	return 1;
}

static void view_refresh(struct view *v)
{
	char link[64];
	int k;

	snprintf(link, sizeof link, "/proc/%ld/cwd", (long)v->pid);
	v->cwd_known = proc_where(link, v->cwd, sizeof v->cwd);
	for (k = 0; k < NSLOT; k++) {
		v->slot_known[k] = 0;
		if (v->slot_fd[k] < 0)
			continue;
		snprintf(link, sizeof link, "/proc/%ld/fd/%d", (long)v->pid, v->slot_fd[k]);
		v->slot_known[k] = proc_where(link, v->slot[k], sizeof v->slot[k]);
	}
}

static int any_slot(const struct view *v)
{
	int k;

	for (k = 0; k < NSLOT; k++)
		if (v->slot_fd[k] >= 0)
			return 1;
	return 0;
}

static int pick_slot(const struct view *v)
{
	int k, open[NSLOT], n = 0;

	for (k = 0; k < NSLOT; k++)
		if (v->slot_fd[k] >= 0)
			open[n++] = k;
	return n ? open[rnd(n)] : -1;
}

/* "a/b" + "c" */
static void join(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s%s%s", dir, dir[0] && name[0] ? "/" : "", name);
}

static void parent_of(char *out, size_t len, const char *path)
{
	const char *s = strrchr(path, '/');

	snprintf(out, len, "%.*s", s ? (int)(s - path) : 0, path);
}

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!n)
		return path[0] != '\0';
	return !strncmp(path, dir, n) && path[n] == '/';
}

static int depth_of(const char *rel)
{
	int d = 1;

	for (; *rel; rel++)
		d += *rel == '/';
	return d;
}

enum want { W_NEW, W_FILE, W_DIR, W_ANY };

static int wanted(char type, enum want w)
{
	switch (w) {
	case W_FILE: return type == 'f' || type == 'l';
	case W_DIR: return type == 'd';
	default: return 1;
	}
}

/*
 * How a path argument is given: the base directory it is resolved from
 * (known or not), the directory argument, and whether it is written as
 * ROOT/... .
 */
struct base {
	int dir;		/* DIR_NONE, DIR_CWD or a slot */
	int absolute;
	int known;
	char at[RELMAX];	/* what it is resolved from, under ROOT */
};

enum form { F_ABS, F_REL, F_ATCWD, F_ATSLOT, F_ATABS };

static void base_of(const struct view *v, enum form f, struct base *b)
{
	memset(b, 0, sizeof *b);
	b->known = 1;
	switch (f) {
	case F_ABS:
		b->dir = DIR_NONE;
		b->absolute = 1;
		break;
	case F_REL:
	case F_ATCWD:
		b->dir = f == F_REL ? DIR_NONE : DIR_CWD;
		b->known = v->cwd_known;
		copy(b->at, sizeof b->at, v->cwd);
		break;
	case F_ATSLOT:
		b->dir = pick_slot(v);
		b->known = v->slot_known[b->dir];
		copy(b->at, sizeof b->at, v->slot[b->dir]);
		break;
	case F_ATABS:
		b->dir = chance(50) && any_slot(v) ? pick_slot(v) : DIR_CWD;
		b->absolute = 1;
		break;
	}
}

/* A form for a call that has an *at variant (AT) or not. */
static enum form pick_form(const struct view *v, int at)
{
	int r = rnd(100);

	if (!at)
		return r < 55 ? F_ABS : F_REL;
	if (!any_slot(v))
		return r < 50 ? F_ABS : r < 85 ? F_REL : F_ATCWD;
	return r < 30 ? F_ABS : r < 52 ? F_REL : r < 64 ? F_ATCWD : r < 95 ? F_ATSLOT : F_ATABS;
}

static int is_at(enum form f)
{
	return f == F_ATCWD || f == F_ATSLOT || f == F_ATABS;
}

/*
 * A path from B for what W wants: often a name in the directory the last
 * operation used, else an entry of the tree under B, else made up. Its
 * place under ROOT goes to RESOLVED (and *known) when B's place is known.
 */
static void pick_path(const struct view *v, const struct base *b, enum want w, char *out,
		      size_t len, char *resolved, int *known)
{
	const struct tree *t = v->tree;
	char rel[RELMAX] = "", dir[RELMAX], tmp[RELMAX * 2];
	int cand[MAXENT], n = 0, i, r = rnd(100);
	size_t blen = strlen(b->at);
	const char *name;

	if (b->known && v->prev_known && r < 45 &&
	    (!strcmp(v->prev, b->at) || under(v->prev, b->at))) {
		/* the last operation's directory, as seen from B */
		copy(dir, sizeof dir, v->prev + (blen ? blen + (v->prev[blen] == '/') : 0));
		if (!v->prev[blen])
			dir[0] = '\0';
		for (i = 0; i < t->n; i++) {
			const char *p = t->e[i].path;
			char par[RELMAX];

			parent_of(par, sizeof par, p);
			if (!strcmp(par, v->prev) && w != W_NEW && wanted(t->e[i].type, w))
				cand[n++] = i;
		}
		if (n && chance(65)) {
			const char *p = t->e[cand[rnd(n)]].path;

			name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		} else {
			name = alphabet[rnd(NALPHA)];
		}
		join(tmp, sizeof tmp, dir, name);
		copy(rel, sizeof rel, tmp);
	} else if (b->known && r < 85) {
		/* an entry under B, or a new name in a directory under B */
		for (i = 0; i < t->n; i++) {
			const char *p = t->e[i].path;

			if (!under(p, b->at) || depth_of(p + (blen ? blen + 1 : 0)) > 3)
				continue;
			if (w == W_NEW ? t->e[i].type == 'd' : wanted(t->e[i].type, w))
				cand[n++] = i;
		}
		if (w == W_NEW) {
			/* B itself is a directory to make something in, too */
			i = n ? rnd(n + 1) : -1;
			snprintf(dir, sizeof dir, "%s",
				 i >= 0 && i < n ? t->e[cand[i]].path + (blen ? blen + 1 : 0) : "");
			join(tmp, sizeof tmp, dir, alphabet[rnd(NALPHA)]);
			copy(rel, sizeof rel, tmp);
		} else if (n) {
			copy(rel, sizeof rel, t->e[cand[rnd(n)]].path + (blen ? blen + 1 : 0));
		}
	}
	if (!rel[0]) {
		/* made up: one or two names of the alphabet */
		copy(rel, sizeof rel, alphabet[rnd(NALPHA)]);
		if (chance(40)) {
			join(tmp, sizeof tmp, rel, alphabet[rnd(NALPHA)]);
			copy(rel, sizeof rel, tmp);
		}
	}
	if (b->absolute) {
		out[0] = '/';
		copy(out + 1, len - 1, rel);
	} else {
		copy(out, len, rel);
	}
	*known = b->absolute || b->known;
	if (*known) {
		join(tmp, sizeof tmp, b->absolute ? "" : b->at, rel);
		copy(resolved, RELMAX, tmp);
	}
}

/*
 * The directories an operation resolves through, for the driver to aim
 * at: first the directory of its descriptor or the cwd (when it is not
 * ROOT) and their ancestors, then the parent of its path and theirs.
 */
struct aims {
	int n;
	char dir[16][RELMAX];
};

static void aim(struct aims *a, const char *dir)
{
	char d[RELMAX], up[RELMAX];
	int i;

	copy(d, sizeof d, dir);
	while (d[0] && a->n < 16) {
		for (i = 0; i < a->n; i++)
			if (!strcmp(a->dir[i], d))
				break;
		if (i == a->n)
			copy(a->dir[a->n++], RELMAX, d);
		parent_of(up, sizeof up, d);
		copy(d, sizeof d, up);
	}
}

/* One path argument: the form, the base, the path; the directory it resolves in is aimed at. */
static void arg(struct view *v, enum form f, enum want w, int *dir, char *p, struct aims *a,
		int first)
{
	struct base b;
	char res[RELMAX], par[RELMAX];
	int known;

	base_of(v, f, &b);
	*dir = b.dir;
	pick_path(v, &b, w, p, RELMAX, res, &known);
	if (!known)
		return;
	parent_of(par, sizeof par, res);
	/* the directory a kept descriptor or the cwd is: the first aim */
	if (!b.absolute && b.at[0])
		aim(a, b.at);
	aim(a, par);
	if (w == W_DIR && tree_type(v->tree, res) == 'd')
		aim(a, res);
	if (first) {
		v->prev_known = 1;
		copy(v->prev, sizeof v->prev, par);
	}
}

enum kind {
	K_CREATE, K_WRITE, K_TRUNC, K_MKDIR, K_RENAME, K_UNLINK, K_RMDIR, K_CHMOD, K_UTIME,
	K_SYMLINK, K_LINK, K_CHDIR, K_SLOT, K_CLOSE, NKIND
};
static const int kind_weight[NKIND] = {13, 8, 2, 12, 10, 9, 6, 5, 5, 3, 3, 9, 7, 1};

static const long dir_modes[] = {0755, 0700, 0750, 0711, 0775};

static void gen_op(struct view *v, struct op *o, struct aims *a)
{
	int total = 0, r, k, at;
	enum form f, f2;
	enum kind kind = K_CREATE;

	memset(o, 0, sizeof *o);
	memset(a, 0, sizeof *a);
	o->d1 = o->d2 = DIR_NONE;
	for (k = 0; k < NKIND; k++)
		total += kind_weight[k];
	/* a sequence without kept descriptors is soon given some */
	if (!any_slot(v) && chance(35)) {
		kind = K_SLOT;
	} else {
		r = rnd(total);
		for (k = 0; k < NKIND; k++) {
			if (r < kind_weight[k]) {
				kind = (enum kind)k;
				break;
			}
			r -= kind_weight[k];
		}
	}
	if ((kind == K_CLOSE) && !any_slot(v))
		kind = K_SLOT;
	switch (kind) {
	case K_CREATE:
		f = pick_form(v, 1);
		if (!is_at(f))
			o->call = chance(60) ? C_OPEN_CREAT : chance(50) ? C_CREAT : C_FOPEN;
		else
			o->call = C_OPENAT_CREAT;
		arg(v, f, chance(65) ? W_NEW : W_FILE, &o->d1, o->p1, a, 1);
		/* 0, O_EXCL or O_TRUNC; creat and fopen "w" truncate */
		o->n = o->call == C_OPEN_CREAT || o->call == C_OPENAT_CREAT ? rnd(3) : 0;
		break;
	case K_WRITE:
		f = pick_form(v, 1);
		if (!is_at(f))
			o->call = chance(70) ? C_OPEN_WRITE : C_FOPEN;
		else
			o->call = C_OPENAT_WRITE;
		arg(v, f, chance(80) ? W_FILE : W_NEW, &o->d1, o->p1, a, 1);
		o->n = o->call == C_FOPEN ? 1 : rnd(2);
		break;
	case K_TRUNC:
		o->call = C_TRUNCATE;
		arg(v, pick_form(v, 0), W_FILE, &o->d1, o->p1, a, 1);
		o->n = (long[]){0, 2, 9}[rnd(3)];
		break;
	case K_MKDIR:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_MKDIRAT : C_MKDIR;
		arg(v, f, W_NEW, &o->d1, o->p1, a, 1);
		o->n = dir_modes[rnd(5)];
		break;
	case K_RENAME:
		f = pick_form(v, 1);
		at = is_at(f);
		o->call = !at ? C_RENAME : chance(50) ? C_RENAMEAT : C_RENAMEAT2;
		f2 = at ? pick_form(v, 1) : pick_form(v, 0);
		if (at && !is_at(f2))
			f2 = f2 == F_ABS ? F_ATABS : F_ATCWD;
		if (o->call == C_RENAMEAT2)
			o->n = (long[]){0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE}[rnd(4)];
		arg(v, f, W_ANY, &o->d1, o->p1, a, 1);
		arg(v, f2, o->n == RENAME_EXCHANGE ? W_ANY : W_NEW, &o->d2, o->p2, a, 0);
		break;
	case K_UNLINK:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_UNLINKAT : chance(70) ? C_UNLINK : C_REMOVE;
		arg(v, f, chance(85) ? W_FILE : W_ANY, &o->d1, o->p1, a, 1);
		break;
	case K_RMDIR:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_UNLINKAT_DIR : chance(70) ? C_RMDIR : C_REMOVE;
		arg(v, f, W_DIR, &o->d1, o->p1, a, 1);
		break;
	case K_CHMOD:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_FCHMODAT : C_CHMOD;
		arg(v, f, W_ANY, &o->d1, o->p1, a, 1);
		o->n = dir_modes[rnd(5)];
		break;
	case K_UTIME:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_UTIMENSAT : chance(50) ? C_UTIME : C_UTIMES;
		arg(v, f, W_ANY, &o->d1, o->p1, a, 1);
		o->n = rnd(2);
		break;
	case K_SYMLINK:
		f = pick_form(v, 1);
		o->call = is_at(f) ? C_SYMLINKAT : C_SYMLINK;
		arg(v, f, W_NEW, &o->d1, o->p1, a, 1);
		/* one name, resolved beside the link: it never leaves ROOT */
		copy(o->t, sizeof o->t, alphabet[rnd(NALPHA)]);
		break;
	case K_LINK:
		f = pick_form(v, 1);
		at = is_at(f);
		o->call = at ? C_LINKAT : C_LINK;
		f2 = at ? pick_form(v, 1) : pick_form(v, 0);
		if (at && !is_at(f2))
			f2 = f2 == F_ABS ? F_ATABS : F_ATCWD;
		arg(v, f, W_FILE, &o->d1, o->p1, a, 1);
		arg(v, f2, W_NEW, &o->d2, o->p2, a, 0);
		break;
	case K_CHDIR:
		if (any_slot(v) && chance(40)) {
			o->call = C_FCHDIR;
			o->n = pick_slot(v);
			if (v->slot_known[o->n])
				aim(a, v->slot[o->n]);
			break;
		}
		o->call = C_CHDIR;
		arg(v, pick_form(v, 0), W_DIR, &o->d1, o->p1, a, 1);
		break;
	case K_SLOT:
		f = pick_form(v, 1);
		if (is_at(f)) {
			o->call = C_SLOT_OPENAT;
		} else {
			r = rnd(100);
			o->call = r < 60 ? C_SLOT_OPEN : C_SLOT_OPENDIR;
			if (r < 20)
				snprintf(o->t, sizeof o->t, "path");
		}
		/* the new descriptor may take the place of one in use */
		o->n = rnd(NSLOT);
		arg(v, f, W_DIR, &o->d1, o->p1, a, 1);
		break;
	case K_CLOSE:
	case NKIND:
		o->call = C_SLOT_CLOSE;
		o->n = pick_slot(v);
		break;
	}
}

/* A name in DIR that the tree does not have, or a made-up one. */
static void fresh_name(const struct tree *t, const char *dir, int step, char *out, size_t len)
{
	char p[RELMAX * 2];
	int i, start = rnd(NALPHA);

	for (i = 0; i < NALPHA; i++) {
		join(p, sizeof p, dir, alphabet[(start + i) % NALPHA]);
		if (!tree_type(t, p) && strlen(p) < len) {
			copy(out, len, p);
			return;
		}
	}
	snprintf(out, len, "%s%sm%d", dir, dir[0] ? "/" : "", step);
}

static void add_prim(struct step *s, int kind, const char *a, const char *b)
{
	struct prim *p;

	if (s->nprim >= MAXPRIM)
		return;
	p = &s->prim[s->nprim++];
	p->kind = kind;
	copy(p->a, sizeof p->a, a);
	copy(p->b, sizeof p->b, b ? b : "");
}

/*
 * Before the step's operation, perhaps a change from outside aimed at a
 * directory it resolves through (the first aim, most often): renamed and
 * made again, swapped with another, moved into another, removed.
 */
static void gen_change(const struct view *v, const struct aims *a, int step, struct step *s)
{
	const struct tree *t = v->tree;
	char target[RELMAX], par[RELMAX], other[RELMAX], tmp[RELMAX * 2];
	int cand[16], n = 0, i, r;

	s->nprim = 0;
	if (!chance(change_percent))
		return;
	for (i = 0; i < a->n; i++)
		if (tree_type(t, a->dir[i]) == 'd')
			cand[n++] = i;
	if (n) {
		i = chance(55) ? cand[0] : cand[rnd(n)];
		copy(target, sizeof target, a->dir[i]);
	} else {
		/* nothing aimed at is a directory below ROOT: any directory */
		for (i = 0; i < t->n && n < 16; i++)
			if (t->e[i].type == 'd' && chance(50))
				cand[n++] = i;
		if (!n)
			return;
		copy(target, sizeof target, t->e[cand[rnd(n)]].path);
	}
	parent_of(par, sizeof par, target);
	r = rnd(100);
	if (r < 50) {
		/* mv T N; mkdir T, sometimes with T's names made again in it */
		fresh_name(t, par, step, other, sizeof other);
		add_prim(s, P_RENAME, target, other);
		add_prim(s, P_MKDIR, target, NULL);
		if (chance(40))
			for (i = 0; i < t->n; i++) {
				parent_of(tmp, sizeof tmp, t->e[i].path);
				if (strcmp(tmp, target))
					continue;
				add_prim(s, t->e[i].type == 'd' ? P_MKDIR : P_FILE, t->e[i].path, NULL);
			}
	} else if (r < 68) {
		/* swap T with a sibling directory, made for it if need be */
		n = 0;
		for (i = 0; i < t->n && n < 16; i++) {
			parent_of(tmp, sizeof tmp, t->e[i].path);
			if (t->e[i].type == 'd' && !strcmp(tmp, par) && strcmp(t->e[i].path, target))
				cand[n++] = i;
		}
		if (n) {
			copy(other, sizeof other, t->e[cand[rnd(n)]].path);
		} else {
			fresh_name(t, par, step, other, sizeof other);
			add_prim(s, P_MKDIR, other, NULL);
		}
		add_prim(s, P_EXCHANGE, target, other);
	} else if (r < 80) {
		/* mv T N, nothing in its place */
		fresh_name(t, par, step, other, sizeof other);
		add_prim(s, P_RENAME, target, other);
	} else if (r < 90) {
		/* mv T into another directory; mkdir T */
		n = 0;
		for (i = 0; i < t->n && n < 16; i++)
			if (t->e[i].type == 'd' && strcmp(t->e[i].path, target) &&
			    !under(t->e[i].path, target) && depth_of(t->e[i].path) < 3)
				cand[n++] = i;
		if (n) {
			fresh_name(t, t->e[cand[rnd(n)]].path, step, other, sizeof other);
		} else {
			fresh_name(t, "", step, other, sizeof other);
			add_prim(s, P_MKDIR, other, NULL);
			join(tmp, sizeof tmp, other, "in");
			copy(other, sizeof other, tmp);
		}
		add_prim(s, P_RENAME, target, other);
		add_prim(s, P_MKDIR, target, NULL);
	} else if (r < 95) {
		/* mv T N; a file by T's name */
		fresh_name(t, par, step, other, sizeof other);
		add_prim(s, P_RENAME, target, other);
		add_prim(s, P_FILE, target, NULL);
	} else {
		add_prim(s, P_RMTREE, target, NULL);
	}
}

/* ------------------------------------------------------------------ */
/* Runs.                                                                */

enum variant { V_BARE, V_OFF, V_ON, NVARIANT };
static const char *const variant_name[NVARIANT] = {
	"bare", "fa-run --landlock=off", "fa-run --landlock=on",
};

struct run {
	struct outcome out[MAXSTEPS];
	int nout;		/* steps done */
	char status[64];	/* how the worker ended */
	int diverged;		/* the first step that differs from bare's, or -1 */
	int status_differs;
};

struct ctx {
	char *self;
	const char *fa_run;
	char *work;
	char *root;
	int steps;
	int verbose;
};

struct worker_io {
	pid_t pid;
	int to, from;
	char buf[LINEMAX];
	size_t have;
};

static void fresh_tree(const char *root)
{
	static const char *const dirs[] = {"a", "a/x", "b", "b/y"};
	static const char *const files[] = {"a/f", "a/gone", "b/f", "c"};
	char p[PATH_MAX];
	size_t i;
	int fd;

	if (rmtree(root) < 0 && errno != ENOENT)
		die("cannot remove %s: %s", root, strerror(errno));
	if (mkdir(root, 0755) < 0)
		die("cannot make %s: %s", root, strerror(errno));
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		abs_of(p, sizeof p, dirs[i]);
		if (mkdir(p, 0755) < 0)
			die("cannot make %s: %s", p, strerror(errno));
	}
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		abs_of(p, sizeof p, files[i]);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write_close(fd, "first\n") < 0)
			die("cannot write %s: %s", p, strerror(errno));
	}
}

static void log_path(const struct ctx *c, int variant, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.log", c->work, variant == V_BARE ? "bare" :
		 variant == V_OFF ? "landlock-off" : "landlock-on");
}

static void start_worker(const struct ctx *c, int variant, struct worker_io *w)
{
	int in[2], out[2], logfd;
	char logp[PATH_MAX];
	const char *argv[12];
	int n = 0;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	log_path(c, variant, logp, sizeof logp);
	logfd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0)
		die("cannot write %s: %s", logp, strerror(errno));
	if (variant != V_BARE) {
		argv[n++] = c->fa_run;
		argv[n++] = "-w";
		argv[n++] = c->root;
		argv[n++] = variant == V_ON ? "--landlock=on" : "--landlock=off";
		argv[n++] = "--";
	}
	argv[n++] = c->self;
	argv[n++] = "--worker";
	argv[n++] = c->root;
	argv[n] = NULL;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0)
		die("fork: %s", strerror(errno));
	if (w->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(logfd, 2) < 0 ||
		    chdir(c->root) < 0)
			_exit(125);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "seqfuzz: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(logfd);
	w->to = in[1];
	w->from = out[0];
	w->have = 0;
}

/* The worker's next line, without its newline: 0, or -1 at its end. */
static int read_line(struct worker_io *w, char *line, size_t len)
{
	struct pollfd pfd;
	char *nl;
	ssize_t r;
	int p;

	for (;;) {
		nl = memchr(w->buf, '\n', w->have);
		if (nl) {
			size_t n = (size_t)(nl - w->buf);

			snprintf(line, len, "%.*s", (int)n, w->buf);
			memmove(w->buf, nl + 1, w->have - n - 1);
			w->have -= n + 1;
			return 0;
		}
		if (w->have == sizeof w->buf)
			return -1;
		pfd.fd = w->from;
		pfd.events = POLLIN;
		p = poll(&pfd, 1, HANG_MS);
		if (p < 0 && errno == EINTR)
			continue;
		if (p == 0) {
			snprintf(line, len, "hung");
			return -1;
		}
		r = read(w->from, w->buf + w->have, sizeof w->buf - w->have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(line, len, "ended");
			return -1;
		}
		w->have += (size_t)r;
	}
}

static void stop_worker(struct worker_io *w, char *status, size_t len)
{
	int st;

	if (w->to >= 0)
		close(w->to);
	w->to = -1;
	close(w->from);
	while (waitpid(w->pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(status, len, "waitpid: %s", strerror(errno));
			return;
		}
	if (WIFEXITED(st))
		snprintf(status, len, "exit %d", WEXITSTATUS(st));
	else
		snprintf(status, len, "signal %d", WTERMSIG(st));
}

static void apply_change(const struct step *s, struct outcome *o)
{
	size_t off = 0;
	int i, rc;

	o->mres[0] = '\0';
	for (i = 0; i < s->nprim; i++) {
		errno = 0;
		rc = apply_prim(&s->prim[i]);
		off += (size_t)snprintf(o->mres + off, sizeof o->mres - off, "%s%s", i ? "," : "",
					rc < 0 ? errname(errno ? errno : EIO) : "ok");
		if (off >= sizeof o->mres)
			break;
	}
}

static void free_run(struct run *r)
{
	int i;

	for (i = 0; i < r->nout; i++)
		free(r->out[i].tree);
	r->nout = 0;
}

static int same_outcome(const struct outcome *a, const struct outcome *b)
{
	return !strcmp(a->res, b->res) && !strcmp(a->tree, b->tree);
}

/*
 * One run of the sequence in VARIANT. With GEN (the bare run) the steps
 * are drawn as it goes; otherwise they are replayed, and the run stops at
 * the first step whose outcome differs from REF's.
 */
static void run_sequence(const struct ctx *c, int variant, int gen, struct step *steps,
			 const struct run *ref, struct run *r)
{
	struct worker_io w;
	struct view v;
	struct tree *t = xmalloc(sizeof *t);
	char line[LINEMAX], res[LINEMAX], *bar;
	/* a replay goes as far as the steps drawn */
	int i, k, limit = ref ? ref->nout : c->steps;

	memset(t, 0, sizeof *t);
	memset(&v, 0, sizeof v);
	r->nout = 0;
	r->diverged = -1;
	r->status_differs = 0;
	fresh_tree(c->root);
	start_worker(c, variant, &w);
	if (read_line(&w, line, sizeof line) < 0 || strncmp(line, "hello|", 6)) {
		char logp[PATH_MAX];

		stop_worker(&w, r->status, sizeof r->status);
		log_path(c, variant, logp, sizeof logp);
		die("the worker did not start under %s (%s; see %s)", variant_name[variant],
		    r->status, logp);
	}
	v.pid = w.pid;
	v.tree = t;
	for (k = 0; k < NSLOT; k++)
		v.slot_fd[k] = -1;
	if (gen)
		snapshot(t, c->root);
	for (i = 0; i < limit; i++) {
		struct outcome *o = &r->out[i];
		struct aims a;

		if (gen) {
			view_refresh(&v);
			gen_op(&v, &steps[i].op, &a);
			gen_change(&v, &a, i + 1, &steps[i]);
		}
		apply_change(&steps[i], o);
		res[0] = '\0';
		wire_op(line, sizeof line, i + 1, &steps[i].op);
		if (say_to(w.to, line) < 0 || read_line(&w, res, sizeof res) < 0) {
			copy(o->res, sizeof o->res, strcmp(res, "hung") ? "worker ended" : "worker hung");
			if (!strcmp(res, "hung"))
				kill(w.pid, SIGKILL);
		} else {
			bar = strchr(res, '|');
			if (bar)
				*bar++ = '\0';
			copy(o->res, sizeof o->res, res);
			if (gen) {
				const struct op *op = &steps[i].op;

				if (op->call == C_SLOT_OPEN || op->call == C_SLOT_OPENAT ||
				    op->call == C_SLOT_OPENDIR)
					v.slot_fd[op->n] = bar ? atoi(bar) : -1;
				else if (op->call == C_SLOT_CLOSE)
					v.slot_fd[op->n] = -1;
			}
		}
		snapshot(t, c->root);
		o->tree = xstrdup(t->text);
		r->nout = i + 1;
		if (ref && !same_outcome(o, &ref->out[i])) {
			r->diverged = i;
			break;
		}
		if (!strncmp(o->res, "worker ", 7))
			break;
	}
	stop_worker(&w, r->status, sizeof r->status);
	if (ref && r->diverged < 0) {
		if (r->nout != ref->nout)
			r->diverged = r->nout < ref->nout ? r->nout : ref->nout;
		else if (strcmp(r->status, ref->status))
			r->status_differs = 1;
	}
	free(t->text);
	free(t);
}

/* ------------------------------------------------------------------ */
/* Reports.                                                             */

/* Lines of A that B lacks, each after PREFIX. */
static void lines_missing(const char *a, const char *b, const char *prefix)
{
	const char *s, *e, *f, *g;

	for (s = a; *s; s = *e ? e + 1 : e) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		for (f = b; *f; f = *g ? g + 1 : g) {
			g = strchr(f, '\n');
			if (!g)
				g = f + strlen(f);
			if (g - f == e - s && !memcmp(f, s, (size_t)(e - s)))
				break;
		}
		if (!*f)
			printf("%s%.*s\n", prefix, (int)(e - s), s);
	}
}

static void print_log(const struct ctx *c, int variant)
{
	char p[PATH_MAX], line[512];
	FILE *f;
	int n = 0;

	log_path(c, variant, p, sizeof p);
	f = fopen(p, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (!n++)
			printf("  what the worker said on stderr under %s:\n", variant_name[variant]);
		if (n > 12) {
			printf("    ... (the rest in %s)\n", p);
			break;
		}
		printf("    %s%s", line, strchr(line, '\n') ? "" : "\n");
	}
	fclose(f);
}

static const char *short_name(int variant)
{
	return variant == V_BARE ? "bare" : variant == V_OFF ? "floor off" : "floor on";
}

static void print_sequence(const struct ctx *c, const struct step *steps, int upto,
			   const struct run *bare, const struct run *r, int variant)
{
	char buf[512], ch[512];
	int i;

	printf("  %4s  %-66s %-10s %s\n", "step", "the outside change, then the worker's call",
	       "bare", r ? short_name(variant) : "");
	for (i = 0; i < upto && i < c->steps; i++) {
		const struct outcome *b = i < bare->nout ? &bare->out[i] : NULL;
		const struct outcome *o = r && i < r->nout ? &r->out[i] : NULL;

		if (steps[i].nprim) {
			fmt_prims(&steps[i], ch, sizeof ch);
			printf("  %4d  outside: %-57s %-10s %s\n", i + 1, ch, b ? b->mres : "",
			       o ? o->mres : "");
		}
		fmt_op(&steps[i].op, buf, sizeof buf);
		if (steps[i].nprim)
			printf("  %4s  %-66s %-10s %s%s\n", "", buf, b ? b->res : "-",
			       o ? o->res : "", r && r->diverged == i ? "   <- differs" : "");
		else
			printf("  %4d  %-66s %-10s %s%s\n", i + 1, buf, b ? b->res : "-",
			       o ? o->res : "", r && r->diverged == i ? "   <- differs" : "");
	}
}

static void report(const struct ctx *c, unsigned long seed, const struct step *steps,
		   const struct run *bare, const struct run *r, int variant)
{
	int k = r->diverged;

	printf("seqfuzz: seed %lu: %s differs from bare", seed, variant_name[variant]);
	if (k >= 0)
		printf(" at step %d of %d\n", k + 1, c->steps);
	else
		printf(": the worker ended with %s, bare with %s\n", r->status, bare->status);
	printf("  ROOT is %s, the worker's cwd at its start and the root fa-run is given;\n"
	       "  dN are directory descriptors the worker opened and keeps; the outside\n"
	       "  changes are the driver's, under no fa-run, between two of the worker's calls.\n",
	       c->root);
	print_sequence(c, steps, k >= 0 ? k + 1 : bare->nout, bare, r, variant);
	if (k >= 0 && k < bare->nout && k < r->nout) {
		const struct outcome *b = &bare->out[k], *o = &r->out[k];

		printf("  after step %d:\n", k + 1);
		if (strcmp(b->res, o->res))
			printf("    the call: bare %s, %s %s\n", b->res, short_name(variant), o->res);
		if (strcmp(b->tree, o->tree)) {
			printf("    the tree: lines of bare's that %s lacks, and the other way:\n",
			       short_name(variant));
			lines_missing(b->tree, o->tree, "      bare:      ");
			lines_missing(o->tree, b->tree, variant == V_OFF ? "      floor off: " :
				      "      floor on:  ");
		}
	} else if (k >= 0) {
		printf("  the runs have %d and %d steps\n", bare->nout, r->nout);
	}
	print_log(c, variant);
	printf("  again: %s --seed %lu --steps %d --changes %d --landlock=%s --fa-run %s\n",
	       c->self, seed, c->steps, change_percent, variant == V_OFF ? "off" : "on",
	       c->fa_run);
	fflush(stdout);
}

/* How a run differs from bare's: not, in results alone, or in the tree. */
enum diff { D_NONE, D_RESULT, D_TREE };

static enum diff diff_of(const struct run *bare, const struct run *r)
{
	int k = r->diverged;

	if (k < 0)
		return r->status_differs ? D_RESULT : D_NONE;
	if (k < bare->nout && k < r->nout && strcmp(bare->out[k].tree, r->out[k].tree))
		return D_TREE;
	return D_RESULT;
}

/* One line for a difference whose whole report another seed's stands for. */
static void report_line(unsigned long seed, const struct step *steps, const struct run *bare,
			const struct run *r, int variant)
{
	char buf[512];
	int k = r->diverged;

	printf("seqfuzz: seed %lu: %s differs", seed, short_name(variant));
	if (k >= 0 && k < bare->nout && k < r->nout) {
		fmt_op(&steps[k].op, buf, sizeof buf);
		printf(" at step %d, %s: bare %s, %s %s%s\n", k + 1, buf, bare->out[k].res,
		       short_name(variant), r->out[k].res,
		       diff_of(bare, r) == D_TREE ? "; the trees differ" : "");
	} else if (k >= 0) {
		printf(": bare ran %d steps, %s %d\n", bare->nout, short_name(variant), r->nout);
	} else {
		printf(": the worker ended with %s, bare with %s\n", r->status, bare->status);
	}
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* The driver.                                                          */

static void usage(FILE *to, int status)
{
	fprintf(to,
		"usage: seqfuzz [--seed N | --first N] [--seconds S] [--iterations N] [--steps N]\n"
		"               [--landlock=both|on|off] [--fa-run PATH] [--dir DIR]\n"
		"               [--changes PERCENT] [--failures N] [--reports N] [--verbose]\n"
		"       seqfuzz --worker ROOT\n"
		"Runs each sequence bare and under fa-run -w ROOT (--landlock=off and on)\n"
		"with directories changed from outside between the calls, and compares the\n"
		"results and the trees. Exit status: 0 no difference, 1 a difference,\n"
		"2 the fuzzer could not run.\n");
	exit(status);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* fa-run --landlock=on -- true: 1 where the floor can be had, else 0 and why. */
static int floor_available(const struct ctx *c, char *why, size_t len)
{
	char logp[PATH_MAX];
	int st, fd;
	pid_t pid;
	ssize_t r;

	snprintf(logp, sizeof logp, "%s/probe.log", c->work);
	fd = open(logp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot write %s: %s", logp, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(c->root) < 0)
			_exit(125);
		execl(c->fa_run, c->fa_run, "--landlock=on", "-w", c->root, "--", "true",
		      (char *)NULL);
		dprintf(2, "cannot run %s: %s", c->fa_run, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	r = pread(fd, why, len - 1, 0);
	close(fd);
	why[r > 0 ? r : 0] = '\0';
	if (strchr(why, '\n'))
		*strchr(why, '\n') = '\0';
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	struct ctx c;
	static struct step steps[MAXSTEPS];
	static struct run bare, other, again;
	char self[PATH_MAX], buf[PATH_MAX], why[512], *own_fa_run = NULL;
	const char *dir = NULL, *mode = "both";
	unsigned long seed = 0, first = 0, iterations = 0, n = 0, changes = 0, s;
	unsigned long failed = 0, trees = 0, lines = 0;
	int one = 0, have_first = 0, failures = 0, reports = 1, made_dir = 0, full[3] = {0, 0, 0};
	enum diff worst, d;
	int variants[NVARIANT], nv = 0, v, i;
	double seconds = 20, start;

	if (argc == 3 && !strcmp(argv[1], "--worker"))
		return worker(argv[2]);
	memset(&c, 0, sizeof c);
	c.steps = 20;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--seed") && val) {
			seed = strtoul(val, NULL, 10);
			one = 1;
			i++;
		} else if (!strcmp(a, "--first") && val) {
			first = strtoul(val, NULL, 10);
			have_first = 1;
			i++;
		} else if (!strcmp(a, "--seconds") && val) {
			seconds = atof(val);
			i++;
		} else if (!strcmp(a, "--iterations") && val) {
			iterations = strtoul(val, NULL, 10);
			i++;
		} else if (!strcmp(a, "--steps") && val) {
			c.steps = atoi(val);
			i++;
		} else if (!strcmp(a, "--fa-run") && val) {
			c.fa_run = val;
			i++;
		} else if (!strcmp(a, "--dir") && val) {
			dir = val;
			i++;
		} else if (!strcmp(a, "--changes") && val) {
			change_percent = atoi(val);
			i++;
		} else if (!strcmp(a, "--failures") && val) {
			failures = atoi(val);
			i++;
		} else if (!strcmp(a, "--reports") && val) {
			reports = atoi(val);
			i++;
		} else if (!strncmp(a, "--landlock=", 11)) {
			mode = a + 11;
		} else if (!strcmp(a, "--verbose")) {
			c.verbose = 1;
		} else if (!strcmp(a, "--help")) {
			usage(stdout, 0);
		} else {
			usage(stderr, 2);
		}
	}
	if (c.steps < 1 || c.steps > MAXSTEPS || failures < 0 || reports < 0 || change_percent < 0 ||
	    change_percent > 100 ||
	    (strcmp(mode, "both") && strcmp(mode, "on") && strcmp(mode, "off")))
		usage(stderr, 2);

	signal(SIGPIPE, SIG_IGN);
	umask(022);
	/* Nothing inherited may confine or change the bare run, nor add to the others. */
	unsetenv("LD_PRELOAD");
	{
		static const char *const fa_vars[] = {
			"FA_POLICY", "FA_EXEC", "FA_EXEC_ALLOW", "FA_REPORT", "FA_LOG", "FA_QUIET",
			"FA_ALLOW_STATIC", "FA_COUNTS", "FA_LEARN",
		};
		for (i = 0; i < (int)(sizeof fa_vars / sizeof fa_vars[0]); i++)
			unsetenv(fa_vars[i]);
	}
	if (!realpath("/proc/self/exe", self))
		die("cannot find myself: %s", strerror(errno));
	c.self = self;
	if (!c.fa_run)
		c.fa_run = getenv("FA_RUN");
	if (!c.fa_run || !*c.fa_run) {
		/* this program's directory is tests/fuzz of a build tree */
		own_fa_run = xmalloc(strlen(self) + sizeof "/../../fa-run");
		strcpy(own_fa_run, self);
		strcpy(strrchr(own_fa_run, '/'), "/../../fa-run");
		c.fa_run = own_fa_run;
	}
	if (access(c.fa_run, X_OK) < 0)
		die("no fa-run at %s (--fa-run or FA_RUN names it)", c.fa_run);

	if (dir) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			die("cannot make %s: %s", dir, strerror(errno));
		copy(buf, sizeof buf, dir);
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(buf, sizeof buf, "%s/seqfuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(buf))
			die("cannot make a directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
			    strerror(errno));
		made_dir = 1;
	}
	c.work = realpath(buf, NULL);
	if (!c.work)
		die("cannot resolve %s: %s", buf, strerror(errno));
	snprintf(buf, sizeof buf, "%s/root", c.work);
	c.root = xstrdup(buf);
	root_path = c.root;
	fresh_tree(c.root);

	variants[nv++] = V_BARE;
	if (strcmp(mode, "on"))
		variants[nv++] = V_OFF;
	if (strcmp(mode, "off")) {
		if (floor_available(&c, why, sizeof why))
			variants[nv++] = V_ON;
		else if (!strcmp(mode, "on"))
			die("fa-run --landlock=on -- true fails here: %s", why);
		else
			printf("seqfuzz: the kernel floor's variant is skipped: "
			       "fa-run --landlock=on -- true fails here: %s\n", why);
	}

	if (!have_first)
		first = ((unsigned long)time(NULL) * 2654435761UL ^ (unsigned long)getpid()) % 1000000000UL;
	if (one) {
		first = seed;
		iterations = 1;
	}
	start = now();
	for (s = first;; s++) {
		if ((iterations && n >= iterations) || (seconds > 0 && now() - start >= seconds))
			break;
		n++;
		rng_state = s * 0x2545f4914f6cdd1dULL + 1;
		free_run(&bare);
		run_sequence(&c, V_BARE, 1, steps, NULL, &bare);
		for (i = 0; i < c.steps; i++)
			changes += steps[i].nprim > 0;
		if (c.verbose) {
			printf("seqfuzz: seed %lu, bare:\n", s);
			print_sequence(&c, steps, bare.nout, &bare, NULL, V_BARE);
		}
		worst = D_NONE;
		for (v = 1; v < nv; v++) {
			free_run(&other);
			run_sequence(&c, variants[v], 0, steps, &bare, &other);
			d = diff_of(&bare, &other);
			if (d == D_NONE)
				continue;
			if (worst == D_NONE) {
				/* the same sequence bare again: it must give what it gave */
				free_run(&again);
				run_sequence(&c, V_BARE, 0, steps, &bare, &again);
				if (diff_of(&bare, &again) != D_NONE) {
					report(&c, s, steps, &bare, &again, V_BARE);
					die("seed %lu: the sequence gives another outcome bare the "
					    "second time: a fault of the fuzzer, not of what it tests", s);
				}
			}
			/* the whole report for the first differences of each kind */
			if (one || full[d] < reports) {
				full[d]++;
				report(&c, s, steps, &bare, &other, variants[v]);
			} else if (lines++ < 40) {
				report_line(s, steps, &bare, &other, variants[v]);
			}
			if (d > worst)
				worst = d;
		}
		if (worst != D_NONE)
			failed++;
		if (worst == D_TREE)
			trees++;
		if (failures && failed >= (unsigned long)failures)
			break;
	}
	free_run(&bare);
	free_run(&other);
	free_run(&again);
	printf("seqfuzz: %lu sequence%s of %d steps (seeds %lu..%lu), %lu outside changes, "
	       "each run bare", n, n == 1 ? "" : "s", c.steps, first, first + (n ? n - 1 : 0),
	       changes);
	for (v = 1; v < nv; v++)
		printf(", under %s", variant_name[variants[v]]);
	if (!failed)
		printf(": no difference\n");
	else
		printf(": %lu differ (above): %lu where the trees differ (an operation acted "
		       "elsewhere, or not at all), %lu in results alone\n", failed, trees,
		       failed - trees);
	if (lines > 40)
		printf("seqfuzz: %lu more differences not shown\n", lines - 40);
	if (made_dir)
		rmtree(c.work);
	free(c.root);
	free(c.work);
	free(own_fa_run);
	return failed ? 1 : 0;
}
