/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel floor's refusals named from Landlock's audit records: the
 * records of one event (as a kernel with ABI 7 sends them) become one
 * stderr line and one --log line with layer "landlock"; records of a
 * domain the command did not make are left alone. The records are fed
 * as text, so this runs wherever the audit log cannot be read.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/audit_log.h"

static char dir[64], logpath[96];

__attribute__((format(printf, 3, 4))) static void feed(struct fa_audit *a, int type, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fa_audit_record(a, type, text, strlen(text));
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/* One refused event: access, the domain's first record, the system call, the end. */
static void event(struct fa_audit *a, int serial, const char *domain, long pid,
		  const char *blockers, const char *path_field)
{
	feed(a, 1423, "audit(1796194287.033:%d): domain=%s blockers=%s %s dev=\"vda\" ino=2",
	     serial, domain, blockers, path_field);
	feed(a, 1424, "audit(1796194287.033:%d): domain=%s status=allocated mode=enforcing "
	     "pid=%ld uid=0 exe=\"/usr/bin/fa-run\" comm=\"fa-run\"", serial, domain, pid);
	feed(a, 1300, "audit(1796194287.033:%d): arch=c000003e syscall=257 success=no exit=-13 "
	     "ppid=1 pid=%ld comm=\"floor\" exe=\"/opt/t/floor\" key=(null)", serial, pid);
	feed(a, 1320, "audit(1796194287.033:%d): ", serial);
}

static void names_the_command_refusals(void **state)
{
	struct fa_audit a;
	char want[256], hex[128];
	const char *log;
	size_t i;

	(void)state;
	memset(&a, 0, sizeof a);
	a.fd = -1;
	a.child = getpid();
	a.quiet = 1;
	a.log = logpath;
	/* a file made in the directory: the fix is that directory */
	snprintf(want, sizeof want, "path=\"%s\"", dir);
	event(&a, 11, "147b3117a", (long)getpid(), "fs.make_reg", want);
	assert_int_equal(a.named, 1);
	assert_int_equal(a.ndomains, 1);
	log = slurp(logpath);
	assert_non_null(strstr(log, "{\"layer\":\"landlock\",\"time\":\"2026-"));
	assert_non_null(strstr(log, "\"call\":\"fs.make_reg\""));
	snprintf(want, sizeof want, "\"path\":\"%s\"", dir);
	assert_non_null(strstr(log, want));
	assert_non_null(strstr(log, "\"rule\":\"landlock\""));
	assert_non_null(strstr(log, "\"caller\":\"/opt/t/floor\""));
	snprintf(want, sizeof want, "\"fix\":\"add -w %s to fa-run\"", dir);
	assert_non_null(strstr(log, want));
	assert_int_equal(strchr(log, '\n') - log + 1, (long)strlen(log));

	/* another program's domain on the same machine: not named */
	event(&a, 12, "99", 1, "fs.write_file", "path=\"/etc/passwd\"");
	assert_int_equal(a.named, 1);

	/* a check the kernel ignored (O_CREAT of a file that exists): the call succeeded */
	feed(&a, 1423, "audit(1796194287.500:15): domain=147b3117a blockers=fs.make_reg "
	     "path=\"/proc/1/fd\" dev=\"proc\" ino=4");
	feed(&a, 1300, "audit(1796194287.500:15): arch=c000003e syscall=257 success=yes exit=3 "
	     "pid=%ld comm=\"sh\" exe=\"/bin/sh\"", (long)getpid());
	feed(&a, 1320, "audit(1796194287.500:15): ");
	assert_int_equal(a.named, 1);

	/* a path with unusual bytes comes hex-encoded; the known domain needs no new record */
	snprintf(want, sizeof want, "%s/a b", dir);
	for (i = 0; want[i]; i++)
		sprintf(hex + 2 * i, "%02X", (unsigned char)want[i]);
	feed(&a, 1423, "audit(1796194288.000:13): domain=147b3117a blockers=fs.write_file path=%s "
	     "dev=\"vda\" ino=3", hex);
	feed(&a, 1320, "audit(1796194288.000:13): ");
	assert_int_equal(a.named, 2);
	snprintf(want, sizeof want, "\"path\":\"%s/a b\"", dir);
	assert_non_null(strstr(slurp(logpath), want));

	/* the domain's end is seen */
	assert_int_equal(a.live, 1);
	feed(&a, 1424, "audit(1796194288.100:14): domain=147b3117a status=deallocated denials=2");
	assert_int_equal(a.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_the_command_refusals),
	};
	int rc;

	snprintf(dir, sizeof dir, "/tmp/fa-audit-XXXXXX");
	if (!mkdtemp(dir))
		return 99;
	snprintf(logpath, sizeof logpath, "%s/log", dir);
	fclose(fopen(logpath, "w"));
	cmocka_set_message_output(CM_OUTPUT_TAP);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(logpath);
	rmdir(dir);
	return rc;
}
