/* SPDX-License-Identifier: Apache-2.0 */
/* native-writer FILE: create FILE from native code with fopen(3). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2)
		return 2;
	mkdir("out", 0755);
	f = fopen(argv[1], "wb");
	if (!f) {
		fprintf(stderr, "native-writer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fputs("bytes from native code\n", f);
	return fclose(f) != 0;
}
