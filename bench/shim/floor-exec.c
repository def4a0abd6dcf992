/*
 * floor-exec ROOT... -- COMMAND [ARG]... - run COMMAND under the kernel
 * floor alone: the Landlock ruleset fa-run builds for write roots ROOT...
 * (devices and inherited descriptors included), with no preload. For the
 * benchmarks' "floor only" column; not installed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/landlock.h"

int main(int argc, char **argv)
{
	struct fa_floor f;
	char msg[4096];
	int i, abi, fd;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i >= argc - 1) {
		fprintf(stderr, "usage: floor-exec ROOT... -- COMMAND [ARG]...\n");
		return 125;
	}
	abi = fa_floor_abi();
	if (abi < 0) {
		fprintf(stderr, "floor-exec: no Landlock: %s\n", strerror(-abi));
		return 125;
	}
	if (fa_floor_open(&f, abi, 0, msg, sizeof(msg)) < 0)
		goto fail;
	for (int r = 1; r < i; r++) {
		fd = open(argv[r], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(msg, sizeof(msg), "%s: %s", argv[r], strerror(errno));
			goto fail;
		}
		if (fa_floor_allow_root(&f, fd, argv[r], msg, sizeof(msg)) < 0)
			goto fail;
		close(fd);
	}
	fa_floor_allow_devices(&f);
	if (fa_floor_enforce(&f, msg, sizeof(msg)) < 0)
		goto fail;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "floor-exec: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
fail:
	fprintf(stderr, "floor-exec: %s\n", msg);
	return 125;
}
