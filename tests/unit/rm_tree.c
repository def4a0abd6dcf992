/* SPDX-License-Identifier: Apache-2.0 */
/* Removing a test's scratch tree (see rm_tree.h). */
#include "config.h"

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "rm_tree.h"

static int failed;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		failed = 1;
	return 0;
}

int rm_tree(const char *path)
{
	failed = 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return -1;
	return failed ? -1 : 0;
}
