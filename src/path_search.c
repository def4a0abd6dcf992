/* SPDX-License-Identifier: Apache-2.0 */
/* The $PATH search of execvp and posix_spawnp (see path_search.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path_search.h"

void fa_path_search_init(struct fa_path_search *s, const char *file)
{
	s->next = getenv("PATH");
	/* What glibc searches when PATH is unset. */
	if (!s->next)
		s->next = "/bin:/usr/bin";
	s->file = file;
	s->flen = strlen(file);
}

int fa_path_search_next(struct fa_path_search *s, char *buf, size_t len)
{
	const char *p = s->next, *end;
	size_t dl;

	if (!p)
		return 0;
	end = p + strcspn(p, ":");
	s->next = *end ? end + 1 : NULL;
	dl = (size_t)(end - p);
	if (dl + s->flen + 2 > len)
		return -ENAMETOOLONG;
	memcpy(buf, p, dl);
	if (dl)
		buf[dl++] = '/';
	memcpy(buf + dl, s->file, s->flen + 1);
	return 1;
}
