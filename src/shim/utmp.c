/*
 * utmp.c - the login records libc writes by name, by itself: utmp
 * (pututline, login, logout) and wtmp (updwtmp, logwtmp, login), and the
 * password-file lock.
 *
 * libc opens these files inside its own code, so they are judged by name
 * as write-opens and then written by libc: a check, not check = use. The
 * utmp file is whatever utmpname() last named, which is recorded here.
 */
#include "config.h"

#include <errno.h>
#include <paths.h>
#include <shadow.h>
#include <string.h>

#include "wrap.h"

/* utmpname()'s file, as libc keeps it: replaced whole, read by pututline. */
static char utmp_file[PATH_MAX];

static const char *utmp_path(void)
{
	return utmp_file[0] ? utmp_file : _PATH_UTMP;
}

static int judge(void *ra, const char *call, const char *path)
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

int utmpname(const char *file)
{
	return record_name(file, FA_REAL(utmpname));
}

int utmpxname(const char *file)
{
	return record_name(file, FA_REAL(utmpxname));
}

struct utmp *pututline(const struct utmp *ut)
{
	if (FA_GATE_OPEN())
		return fa_real_pututline(ut);
	if (judge(FA_RA(), "pututline", utmp_path()))
		return NULL;
	return FA_REAL(pututline)(ut);
}

struct utmpx *pututxline(const struct utmpx *ut)
{
	if (FA_GATE_OPEN())
		return fa_real_pututxline(ut);
	if (judge(FA_RA(), "pututxline", utmp_path()))
		return NULL;
	return FA_REAL(pututxline)(ut);
}

void updwtmp(const char *file, const struct utmp *ut)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "updwtmp", file))
		FA_REAL(updwtmp)(file, ut);
}

void updwtmpx(const char *file, const struct utmpx *ut)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "updwtmpx", file))
		FA_REAL(updwtmpx)(file, ut);
}

void logwtmp(const char *line, const char *name, const char *host)
{
	if (FA_GATE_OPEN() || !judge(FA_RA(), "logwtmp", _PATH_WTMP))
		FA_REAL(logwtmp)(line, name, host);
}

void login(const struct utmp *ut)
{
	void *ra = FA_RA();

	if (FA_GATE_OPEN() || (!judge(ra, "login", utmp_path()) && !judge(ra, "login", _PATH_WTMP)))
		FA_REAL(login)(ut);
}

int logout(const char *line)
{
	if (FA_GATE_OPEN())
		return fa_real_logout(line);
	if (judge(FA_RA(), "logout", utmp_path()))
		return 0;
	return FA_REAL(logout)(line);
}

/* lckpwdf creates and locks /etc/.pwd.lock. */
int lckpwdf(void)
{
	if (FA_GATE_OPEN())
		return fa_real_lckpwdf();
	if (fa_check_call("lckpwdf", FA_OP_WRITE, AT_FDCWD, "/etc/.pwd.lock", O_WRONLY | O_CREAT,
			  FA_RA()))
		return -1;
	return FA_REAL(lckpwdf)();
}
