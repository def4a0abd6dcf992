/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path_search.h - the $PATH search of execvp and posix_spawnp, as one
 * iterator for fa-run and the shim. It writes candidates into the
 * caller's buffer: no allocation, nothing but getenv and memcpy, so the
 * shim may run it wherever libc's own search runs.
 */
#ifndef FA_PATH_SEARCH_H
#define FA_PATH_SEARCH_H

#include <stddef.h>

struct fa_path_search {
	const char *next;	/* the rest of $PATH; NULL once it is used up */
	const char *file;
	size_t flen;
};

/* A search for file (which holds no '/') along $PATH, or glibc's default. */
void fa_path_search_init(struct fa_path_search *s, const char *file);

/*
 * The next candidate, in $PATH's order ("dir/file", or "file" for an
 * empty entry, as libc tries it) written into buf: 1; -ENAMETOOLONG for
 * an entry whose candidate does not fit in len bytes (skipped); 0 at the
 * end.
 */
int fa_path_search_next(struct fa_path_search *s, char *buf, size_t len);

#endif
