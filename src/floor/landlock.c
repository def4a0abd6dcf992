/* SPDX-License-Identifier: Apache-2.0 */
/*
 * landlock.c - the kernel floor: what the preload cannot see (static
 * programs, system calls made without libc, set-ID programs) still cannot
 * write outside the roots, because the kernel refuses it.
 *
 * Built into fa-run (applied in its child before the exec) and into the
 * shim (applied by its constructor in the approved child of an audit
 * context, env.c).
 *
 * Landlock is an allowlist of rights beneath directories, so the ruleset
 * handles the write-class rights the running kernel knows and allows them
 * only beneath the write roots and on the few files writing to which
 * changes nothing on disk (devices, inherited descriptors). Reads are not
 * handled, so never restricted, and by default neither are the two rights
 * the kernel asks for on every open, reads included: truncate and device
 * ioctls. Handling them makes every open walk from the file up to / in
 * search of a rule; without them a read-only open asks for no handled
 * right and costs what it costs bare. A truncate(2) made without libc
 * (and an O_RDONLY|O_TRUNC open) outside the roots is then left to the
 * preload, as are device ioctls; the strict floor handles them too.
 * Deny subtrees inside a root cannot be expressed: the preload keeps
 * enforcing them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floor/elf.h"
#include "floor/landlock.h"
#include "floor/landlock_abi.h"

int fa_floor_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, FA_LL_CREATE_RULESET_VERSION);

	if (v < 0)
		return -errno;
	return v > 0 ? (int)v : -EOPNOTSUPP;
}

/*
 * The write-class rights of an ABI version; strict, also the ones every
 * open asks for (truncate, device ioctls).
 */
static uint64_t write_rights(int abi, int strict)
{
	uint64_t r = FA_LL_FS_WRITE_FILE | FA_LL_FS_REMOVE_DIR | FA_LL_FS_REMOVE_FILE |
		     FA_LL_FS_MAKE_CHAR | FA_LL_FS_MAKE_DIR | FA_LL_FS_MAKE_REG |
		     FA_LL_FS_MAKE_SOCK | FA_LL_FS_MAKE_FIFO | FA_LL_FS_MAKE_BLOCK |
		     FA_LL_FS_MAKE_SYM;

	if (abi >= 2)
		r |= FA_LL_FS_REFER;
	if (strict && abi >= 3)
		r |= FA_LL_FS_TRUNCATE;
	if (strict && abi >= 5)
		r |= FA_LL_FS_IOCTL_DEV;
	return r;
}

int fa_floor_open(struct fa_floor *f, int abi, int exec, int strict, char *msg, size_t len)
{
	struct fa_ll_ruleset_attr attr;

	memset(&attr, 0, sizeof(attr));
	f->abi = abi;
	f->nskipped = 0;
	f->exec = exec;
	f->strict = strict;
	f->log_same_exec = 0;
	f->handled = write_rights(abi, strict) | (exec ? FA_LL_FS_EXECUTE : 0);
	attr.handled_access_fs = f->handled;
	/* Only the first field: older kernels know no other. */
	f->ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr,
				  sizeof(attr.handled_access_fs), 0);
	if (f->ruleset < 0) {
		snprintf(msg, len, "cannot create a Landlock ruleset: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int add_rule(struct fa_floor *f, int fd, uint64_t rights)
{
	struct fa_ll_path_beneath_attr pb;

	pb.allowed_access = rights & f->handled;
	pb.parent_fd = fd;
	if (!pb.allowed_access)
		return 0;
	return (int)syscall(SYS_landlock_add_rule, f->ruleset, FA_LL_RULE_PATH_BENEATH, &pb, 0);
}

int fa_floor_allow_root(struct fa_floor *f, int fd, const char *shown, char *msg, size_t len)
{
	if (add_rule(f, fd, write_rights(f->abi, 1)) < 0) {
		snprintf(msg, len, "%s: cannot add it to the Landlock ruleset: %s", shown,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* A rule for what path names now, if it exists; the rights a file may carry. */
static int allow_path(struct fa_floor *f, const char *path, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC), r, err;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= FA_LL_FS_FILE_RIGHTS;
	r = add_rule(f, fd, rights);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

#define DEV_RIGHTS (FA_LL_FS_WRITE_FILE | FA_LL_FS_TRUNCATE | FA_LL_FS_IOCTL_DEV)

/*
 * What the preload allows a process to write without a root: devices that
 * store nothing, and the terminal. /dev/pts holds only pseudo-terminals
 * (a devpts mount), so a rule there covers the ones opened later. Not the
 * whole of /dev: /dev/shm lies beneath it.
 */
static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts",
};

void fa_floor_allow_devices(struct fa_floor *f)
{
	const char *log;
	char link[64];
	struct dirent *e;
	struct stat st;
	size_t i;
	DIR *d;

	for (i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
		(void)allow_path(f, devices[i], DEV_RIGHTS);
	/*
	 * The --log file of an enclosing fa-run: every process's shim appends
	 * its denials there, this one's too. Appending needs no truncate right.
	 */
	log = getenv("FA_LOG");
	if (log && *log == '/')
		(void)allow_path(f, log, FA_LL_FS_WRITE_FILE);
	/*
	 * Descriptors inherited open for writing: re-opening them by name
	 * (/dev/stderr, /proc/self/fd/N) checks the file behind them. Pipes and
	 * sockets are never checked by the kernel there, and cannot be added.
	 */
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	/* cppcheck-suppress readdirCalled ; this stream is ours alone (readdir_r is deprecated) */
	while ((e = readdir(d))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);
		int fl;

		if (*end || end == e->d_name || n == dirfd(d))
			continue;
		fl = fcntl((int)n, F_GETFL);
		if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
			continue;
		if (fstat((int)n, &st) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		      S_ISFIFO(st.st_mode)))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%ld", n);
		/* EBADFD: an internal mount (memfd), which the kernel never checks. */
		if (allow_path(f, link, FA_LL_FS_WRITE_FILE | FA_LL_FS_TRUNCATE |
				   (S_ISREG(st.st_mode) ? 0 : FA_LL_FS_IOCTL_DEV)) < 0 &&
		    errno != EBADFD)
			f->nskipped++;
	}
	closedir(d);
}

int fa_floor_allow_program(struct fa_floor *f, const char *path, char *msg, size_t len)
{
	char cur[PATH_MAX], next[PATH_MAX];
	int depth, fd, r;

	if (!(f->handled & FA_LL_FS_EXECUTE))
		return 0;
	snprintf(cur, sizeof(cur), "%s", path);
	/* The kernel follows at most four levels of #! (binfmt_script). */
	for (depth = 0; depth < 5 && cur[0]; depth++) {
		fd = open(cur, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = open(cur, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (depth)
				return 0; /* a missing interpreter fails the exec anyway */
			snprintf(msg, len, "%s: %s", cur, strerror(errno));
			return -1;
		}
		r = add_rule(f, fd, FA_LL_FS_EXECUTE);
		if (r < 0) {
			snprintf(msg, len, "%s: cannot add it to the Landlock ruleset: %s", cur,
				 strerror(errno));
			close(fd);
			return -1;
		}
		fa_prog_interp(fd, next, sizeof(next));
		close(fd);
		if (next[0] != '/')
			break;
		memcpy(cur, next, sizeof(cur));
	}
	return 0;
}

/*
 * The loader the kernel opens for every dynamic program needs execute
 * too. The one fa-run itself was started through is the one programs
 * built for this system name; others (32-bit, musl) are not added.
 */
void fa_floor_allow_loader(struct fa_floor *f)
{
	const char *interp = fa_prog_loader();

	if (!(f->handled & FA_LL_FS_EXECUTE))
		return;
	if (interp)
		(void)allow_path(f, interp, FA_LL_FS_EXECUTE);
}

int fa_floor_enforce(struct fa_floor *f, char *msg, size_t len)
{
	unsigned flags = 0;
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(msg, len, "cannot set no_new_privs: %s", strerror(errno));
		close(f->ruleset);
		f->ruleset = -1;
		return -1;
	}
	/* Record the command's refusals in the audit log, not fa-run's own. */
	if (f->abi >= 7)
		flags = (f->log_same_exec ? 0 : FA_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF) |
			FA_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	r = (int)syscall(SYS_landlock_restrict_self, f->ruleset, flags);
	if (r < 0) {
		snprintf(msg, len, "cannot apply the Landlock ruleset: %s", strerror(errno));
	}
	close(f->ruleset);
	f->ruleset = -1;
	return r < 0 ? -1 : 0;
}

static const char *const mode_names[] = {
	[FA_FLOOR_AUTO] = "auto", [FA_FLOOR_ON] = "on", [FA_FLOOR_STRICT] = "strict",
	[FA_FLOOR_OFF] = "off",
};

int fa_floor_mode_parse(const char *s, enum fa_floor_mode *m)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i])) {
			*m = (enum fa_floor_mode)i;
			return 0;
		}
	return -1;
}

const char *fa_floor_mode_name(enum fa_floor_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "?";
}

static void no_landlock(int err, char *why, size_t len)
{
	switch (err) {
	case ENOSYS:
		snprintf(why, len, "this kernel has no Landlock");
		break;
	case EOPNOTSUPP:
		snprintf(why, len, "Landlock is disabled in this kernel (boot with lsm=...,landlock)");
		break;
	default:
		snprintf(why, len, "Landlock is refused here: %s", strerror(err));
	}
}

int fa_floor_decides_entries(const fa_policy *p)
{
	int i;

	if (!p || fa_policy_unrestricted(p) || fa_policy_learning(p) || fa_policy_ndeny(p) ||
	    fa_policy_write_globs(p) ||
	    fa_policy_symlinks(p) != FA_SYM_TRUST || fa_policy_nroots(p) == 0)
		return 0;
	for (i = 0; i < fa_policy_nroots(p); i++)
		if (fa_policy_root_fd(p, i) < 0)
			return 0;
	return 1;
}

int fa_floor_build(struct fa_floor *f, enum fa_floor_mode mode, const fa_policy *p, int exec,
		   const char *command, const char *allow, const char *log, char *why,
		   size_t len)
{
	char msg[PATH_MAX + 128];
	int abi, i, fd, r;

	f->ruleset = -1;
	why[0] = '\0';
	if (mode == FA_FLOOR_OFF)
		return 0;
	abi = fa_floor_abi();
	if (abi < 0) {
		no_landlock(-abi, why, len);
		return mode == FA_FLOOR_AUTO ? 0 : -1;
	}
	if (mode == FA_FLOOR_STRICT && abi < FA_FLOOR_STRICT_ABI) {
		snprintf(why, len, "this kernel's Landlock (ABI %d) cannot refuse truncate "
			 "(ABI %d)", abi, FA_FLOOR_STRICT_ABI);
		return -1;
	}
	if (fa_floor_open(f, abi, exec, mode == FA_FLOOR_STRICT, msg, sizeof(msg)) < 0)
		goto fail;
	for (i = 0; i < fa_policy_nroots(p); i++) {
		const char *root = fa_policy_root(p, i);

		fd = fa_policy_root_fd(p, i);
		if (fd >= 0) {
			r = fa_floor_allow_root(f, fd, root, msg, sizeof(msg));
		} else {
			fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0) {
				snprintf(msg, sizeof(msg), "%s: %s", root, strerror(errno));
				goto fail;
			}
			r = fa_floor_allow_root(f, fd, root, msg, sizeof(msg));
			close(fd);
		}
		if (r < 0)
			goto fail;
	}
	fa_floor_allow_devices(f);
	/* Appended to, never truncated (fa-run made it already). */
	if (log && allow_path(f, log, FA_LL_FS_WRITE_FILE) < 0) {
		snprintf(msg, sizeof(msg), "--log %s: cannot add it to the Landlock ruleset: %s", log,
			 strerror(errno));
		goto fail;
	}
	if (exec) {
		const char *s = allow, *e;

		if (fa_floor_allow_program(f, command, msg, sizeof(msg)) < 0)
			goto fail;
		for (; s && *s; s = *e ? e + 1 : e) {
			char one[PATH_MAX];

			e = strchrnul(s, '\n');
			snprintf(one, sizeof(one), "%.*s", (int)(e - s), s);
			if (fa_floor_allow_program(f, one, msg, sizeof(msg)) < 0)
				goto fail;
		}
		fa_floor_allow_loader(f);
	}
	return 1;
fail:
	if (f->ruleset >= 0)
		close(f->ruleset);
	f->ruleset = -1;
	snprintf(why, len, "%s", msg);
	return -1;
}
