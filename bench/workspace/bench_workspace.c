/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Workspace C API against openat2 beneath the root directly and plain
 * openat by absolute path: write-open (O_CREAT|O_TRUNC) + close, for a
 * relative path of depth 1 and 5. One run, best of several rounds.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workspace/fa_workspace.h"

#define N 100000
#define ROUNDS 5

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

enum { PLAIN, OPENAT2, API };

static double run(int how, fa_ws *ws, int rootfd, const char *abs, const char *rel)
{
	struct open_how oh = {.flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, .mode = 0644,
			      .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	double bestt = 1e9;

	for (int r = 0; r < ROUNDS; r++) {
		double t = now();

		for (int i = 0; i < N; i++) {
			int fd;

			if (how == PLAIN)
				fd = open(abs, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			else if (how == OPENAT2)
				fd = (int)syscall(SYS_openat2, rootfd, rel, &oh, sizeof oh);
			else
				fd = fa_ws_openat(ws, rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0) {
				perror(rel);
				exit(1);
			}
			close(fd);
		}
		t = now() - t;
		if (t < bestt)
			bestt = t;
	}
	return bestt / N * 1e9;
}

int main(void)
{
	char tmpl[] = "/tmp/fa-ws-bench-XXXXXX", abs[PATH_MAX], cmd[PATH_MAX];
	const char *rels[] = {"f", "a/b/c/d/f"};
	struct fa_ws_error err;
	fa_ws *ws;
	int rootfd;

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(cmd, sizeof cmd, "mkdir -p %s/a/b/c/d", tmpl);
	if (system(cmd) != 0 || fa_ws_open(tmpl, NULL, FA_SYM_BENEATH, 0, &ws, &err) < 0)
		return 1;
	rootfd = open(tmpl, O_PATH | O_DIRECTORY | O_CLOEXEC);
	printf("%-6s %-26s %9s %8s\n", "depth", "method", "ns/open", "ratio");
	for (int d = 0; d < 2; d++) {
		double plain, o2, api;

		snprintf(abs, sizeof abs, "%s/%s", tmpl, rels[d]);
		plain = run(PLAIN, ws, rootfd, abs, rels[d]);
		o2 = run(OPENAT2, ws, rootfd, abs, rels[d]);
		api = run(API, ws, rootfd, abs, rels[d]);
		printf("%-6d %-26s %9.0f %7.2fx\n", d ? 5 : 1, "open(abs)", plain, 1.0);
		printf("%-6d %-26s %9.0f %7.2fx\n", d ? 5 : 1, "openat2(root, BENEATH)", o2, o2 / plain);
		printf("%-6d %-26s %9.0f %7.2fx  (%.2fx openat2)\n", d ? 5 : 1, "fa_ws_openat", api,
		       api / plain, api / o2);
	}
	printf("N=%d, best of %d, resolver: %s\n", N, ROUNDS,
	       fa_ws_uses_openat2() ? "openat2" : "walk");
	fa_ws_close(ws);
	close(rootfd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
	return system(cmd) != 0;
}
