/* SPDX-License-Identifier: Apache-2.0 */
/* The re-run under the shim and the small helpers the shim's tests share. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/rm_tree.h"
#include "under_shim.h"

#define TREE_ENV "FA_SHIM_TEST_TREE"

char T[PATH_MAX];
const struct fa_bridge *br;


static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

void under_shim(char **argv, const char *(*fixture)(void))
{
	fa_bridge_fn fn = (fa_bridge_fn)dlsym(RTLD_DEFAULT, "fa_bridge_v1");
	const char *shim = getenv("FA_SHIM"), *tree = getenv(TREE_ENV), *pol;
	char preload[PATH_MAX * 2], top[] = "/tmp/fa-shim-test.XXXXXX";
	pid_t pid;
	int st;

	if (fn && tree) {
		snprintf(T, sizeof(T), "%s", tree);
		br = fn();
		return;
	}
	if (!shim) {
		printf("1..0 # SKIP FA_SHIM not set\n");
		exit(0);
	}
	/* T is one level down, so that a sibling of T is also removed at the end. */
	if (!mkdtemp(top))
		bail("mkdtemp");
	snprintf(T, sizeof(T), "%s/t", top);
	if (mkdir(T, 0755) < 0)
		bail("mkdir");
#ifdef FA_ASAN_LIB
	snprintf(preload, sizeof(preload), "%s %s", FA_ASAN_LIB, shim);
	setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
#else
	snprintf(preload, sizeof(preload), "%s", shim);
#endif
	pol = fixture ? fixture() : NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setenv(TREE_ENV, T, 1);
		if (pol)
			setenv("FA_POLICY", pol, 1);
		else
			unsetenv("FA_POLICY");
		setenv("FA_QUIET", "1", 1);
		setenv("LD_PRELOAD", preload, 1);
		execv("/proc/self/exe", argv);
		printf("Bail out! cannot re-run under the shim: %s\n", strerror(errno));
		_exit(1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = 1 << 8;
	if (rm_tree(top) != 0)
		st = 1 << 8;
	exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

const char *at(const char *rel)
{
	static char p[8][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", T, rel);
	return p[k];
}

int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

off_t size_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_size : -1;
}

int create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

fa_policy *context_policy(const char *root)
{
	char msg[256] = "";
	fa_policy *p = fa_policy_new();

	if (!p || fa_policy_add_root(p, root, msg, sizeof(msg)) < 0 ||
	    fa_policy_seal(p, 1, msg, sizeof(msg)) < 0) {
		printf("Bail out! policy %s: %s\n", root, msg);
		exit(1);
	}
	return p;
}

void enter(const fa_policy *p, int exec_allowed)
{
	struct fa_thread_ctx c = { .policy = p, .exec_allowed = exec_allowed };

	br->set_thread(p ? &c : NULL);
}

int no_child(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}
