/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor_darwin.c - the floor's entry points on macOS.
 *
 * No kernel floor: macOS has no Landlock, and the Seatbelt profile that
 * would take its place is designed, not built (doc/platforms.md), so a
 * floor asked for is "off" under auto and "cannot be had" otherwise.
 *
 * Which programs the shim cannot follow: dyld ignores DYLD_INSERT_LIBRARIES
 * for a set-user/group-ID program and for the programs System Integrity
 * Protection guards (/System, /usr but /usr/local, /bin, /sbin), as ld.so
 * ignores LD_PRELOAD for set-ID ones; a #! script is judged with its
 * interpreter, which is what the kernel starts (macOS runs no script as an
 * interpreter). Such an exec is refused unless allowed, like a static
 * binary on Linux.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floor/elf.h"
#include "floor/landlock.h"

int fa_floor_build(struct fa_floor *f, enum fa_floor_mode mode, const fa_policy *p, int exec,
		   const char *command, const char *allow, const char *log, char *why,
		   size_t len)
{
	f->ruleset = -1;
	why[0] = '\0';
	if (mode == FA_FLOOR_OFF)
		return 0;
	snprintf(why, len, "macOS has no Landlock, and the Seatbelt floor is not built");
	return mode == FA_FLOOR_AUTO ? 0 : -1;
}

int fa_floor_enforce(struct fa_floor *f, char *msg, size_t len)
{
	snprintf(msg, len, "macOS has no kernel floor here");
	return -1;
}

int fa_floor_decides_entries(const fa_policy *p)
{
	return 0;
}

int fa_prog_runnable(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* Under System Integrity Protection: the system's own directories, not /usr/local. */
static int protected_path(const char *path)
{
	static const char *const dirs[] = { "/System/", "/usr/", "/bin/", "/sbin/" };
	size_t i;

	if (strncmp(path, "/usr/local/", 11) == 0)
		return 0;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return 1;
	return 0;
}

/* One file the kernel would start: may dyld load the shim into it? */
static enum fa_prog_kind one(int fd, char *culprit, size_t len)
{
	char real[MAXPATHLEN];
	struct stat st;

	if (fstat(fd, &st) < 0 || fcntl(fd, F_GETPATH, real) < 0)
		return FA_PROG_OK;	/* what cannot be read is left to the kernel */
	if (st.st_mode & (S_ISUID | S_ISGID) || protected_path(real)) {
		if (culprit && len)
			snprintf(culprit, len, "%s", real);
		return st.st_mode & (S_ISUID | S_ISGID) ? FA_PROG_SETID : FA_PROG_PROTECTED;
	}
	return FA_PROG_OK;
}

enum fa_prog_kind fa_prog_check(int fd, const char *path, char *const argv[], int cwd,
				char *culprit, size_t len)
{
	char line[MAXPATHLEN + 3];
	enum fa_prog_kind k;
	ssize_t n;
	char *end;
	int ifd;

	if (culprit && len)
		culprit[0] = '\0';
	k = one(fd, culprit, len);
	if (k != FA_PROG_OK)
		return k;
	n = pread(fd, line, sizeof(line) - 1, 0);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return FA_PROG_OK;
	line[n] = '\0';
	/* "#! /bin/sh -e": the interpreter, an absolute name here as the kernel wants. */
	end = line + 2;
	while (*end == ' ' || *end == '\t')
		end++;
	memmove(line, end, strlen(end) + 1);
	line[strcspn(line, " \t\n")] = '\0';
	if (line[0] != '/')
		return FA_PROG_OK;
	ifd = openat(cwd, line, O_RDONLY | O_CLOEXEC);
	if (ifd < 0)
		return FA_PROG_OK;
	k = one(ifd, culprit, len);
	close(ifd);
	return k;
}

static const struct {
	const char *rule;
	const char *text;
} refused[] = {
	[FA_PROG_SETID] = { "setid-binary",
			    "set-user/group-ID program: dyld drops DYLD_INSERT_LIBRARIES (--allow-static runs it unconfined)" },
	[FA_PROG_PROTECTED] = { "protected-binary",
				"a program System Integrity Protection guards: dyld drops DYLD_INSERT_LIBRARIES (--allow-static runs it unconfined)" },
};

const char *fa_prog_rule(enum fa_prog_kind k)
{
	return (size_t)k < sizeof(refused) / sizeof(refused[0]) ? refused[k].rule : NULL;
}

const char *fa_prog_text(enum fa_prog_kind k)
{
	return (size_t)k < sizeof(refused) / sizeof(refused[0]) ? refused[k].text : NULL;
}
