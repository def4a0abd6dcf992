/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A library whose constructor runs before the shim's (preloaded after
 * it): its first call into the shim is made before the shim has read its
 * environment, and must be judged by the process policy all the same.
 * FA_EARLY names that first call; FA_EARLY_OUT and FA_EARLY_IN are a path
 * outside and one inside the policy's root. One line on stdout says what
 * the call did; the program the library is loaded into then runs as
 * usual.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/fa_bridge.h"

static void said(const char *what, int rc)
{
	printf("%s %s\n", what, rc < 0 ? (errno == EACCES ? "EACCES" : strerror(errno)) : "ok");
	fflush(stdout);
}

__attribute__((constructor)) static void early(void)
{
	const char *how = getenv("FA_EARLY"), *out = getenv("FA_EARLY_OUT");
	const char *in = getenv("FA_EARLY_IN");
	int fd;

	if (!how || !out || !in)
		return;
	if (!strcmp(how, "write")) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		said("write out", fd);
		fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		said("write in", fd);
	} else if (!strcmp(how, "mkdir")) {
		said("mkdir out", mkdir(out, 0755));
	} else if (!strcmp(how, "exec")) {
		char *argv[] = { (char *)in, NULL };

		/* FA_EXEC=deny: refused without a start, so this constructor goes on. */
		said("exec", execv(in, argv));
	} else if (!strcmp(how, "bridge")) {
		fa_bridge_fn fn = (fa_bridge_fn)dlsym(RTLD_DEFAULT, "fa_bridge_v1");
		const struct fa_bridge *b = fn ? fn() : NULL;

		printf("bridge %s\n", b && b->process_policy() ? "policy" : "no policy");
		fflush(stdout);
	}
	/* What a program clearing its environment leaves the shim's constructor. */
	unsetenv("FA_POLICY");
	unsetenv("FA_EXEC");
}
