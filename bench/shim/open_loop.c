/* SPDX-License-Identifier: Apache-2.0 */
/*
 * open-loop DIR N [read] - N opens of DIR/f0 ... DIR/f99 in turn, each
 * closed at once: a write-open (create, truncate) or with "read" a
 * read-open. No clock: bench/shim/instructions.sh counts its
 * instructions under callgrind at two N, so the difference is what N
 * opens cost whatever the start-up did.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	char path[PATH_MAX];
	long n, i;

	if (argc < 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: open-loop DIR N [read]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "read"))
		flags = O_RDONLY | O_CLOEXEC;
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof path, "%s/f%ld", argv[1], i % 100);
		fd = open(path, flags, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}
