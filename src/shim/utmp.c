/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utmp.c - the login records libc writes by name, by itself: utmp
 * (pututline, login, logout) and wtmp (updwtmp, logwtmp, login).
 *
 * libc opens these files inside its own code, so they are judged by name
 * as write-opens and then written by libc: a check, not check = use. The
 * utmp file is whatever utmpname() last named, which is recorded here;
 * pututline and logout, which write it, are CHECK lines of symbols.def.
 */
#include "config.h"

#include <errno.h>
#include <paths.h>
#include <string.h>

#include "wrap.h"

/* macOS keeps utmpx records only. */
#ifndef _PATH_UTMP
#define _PATH_UTMP _PATH_UTMPX
#endif

/* utmpname()'s file, as libc keeps it: replaced whole, read by pututline. */
static char utmp_file[PATH_MAX];

const char *fa_utmp_path(void)
{
	return utmp_file[0] ? utmp_file : _PATH_UTMP;
}

/* Unused where libc has no writer of a named utmp file (macOS: utmpx only). */
__attribute__((unused)) static int judge(void *ra, const char *call, const char *path)
{
	return fa_check_call(call, FA_OP_WRITE, AT_FDCWD, path, O_RDWR, ra);
}

static int record_name(const char *file, int (*real)(const char *))
{
	int rc = real(file);

	if (rc == 0 && file) {
		size_t n = strlen(file);

		if (n < sizeof(utmp_file) && strcmp(file, _PATH_UTMP))
			memcpy(utmp_file, file, n + 1);
		else
			utmp_file[0] = '\0';
	}
	return rc;
}

#ifndef FA_DARWIN
int FA_WRAPPER(utmpname)(const char *file)
{
	return record_name(file, FA_REAL(utmpname));
}
#endif

int FA_WRAPPER(utmpxname)(const char *file)
{
	return record_name(file, FA_REAL(utmpxname));
}

#ifndef FA_DARWIN
void FA_WRAPPER(updwtmp)(const char *file, const struct utmp *ut)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "updwtmp", file))
		FA_REAL(updwtmp)(file, ut);
}

void FA_WRAPPER(updwtmpx)(const char *file, const struct utmpx *ut)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "updwtmpx", file))
		FA_REAL(updwtmpx)(file, ut);
}
#endif

#ifdef HAVE_LOGWTMP
void FA_WRAPPER(logwtmp)(const char *line, const char *name, const char *host)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "logwtmp", _PATH_WTMP))
		FA_REAL(logwtmp)(line, name, host);
}
#endif

#ifdef HAVE_LOGIN
void FA_WRAPPER(login)(const struct utmp *ut)
{
	void *ra = FA_RA();

	if (FA_GATE_OPEN() || (!judge(ra, "login", fa_utmp_path()) && !judge(ra, "login", _PATH_WTMP)))
		FA_REAL(login)(ut);
}
#endif
