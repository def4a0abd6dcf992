/* SPDX-License-Identifier: Apache-2.0 */
/*
 * learn_record.h - the record of a learning run: what each would-be
 * denial leaves for whoever learns from it (fa-run --learn, a Python
 * context of mk_audit(learn=True)).
 *
 * The record is a memfd of the learner's, named to writers as
 * /proc/<pid>/fd/<n> (FA_LEARN for fa-run's command and a context's
 * children, the context's descriptor for the shim in the host itself).
 * It starts with a count of the records that did not fit, then holds one
 * record per would-be denial, "call TAB op TAB rule TAB path NUL" (a path
 * may hold a tab or a newline, never a NUL), each appended with one
 * write() to an O_APPEND descriptor, so that records of concurrent
 * threads and processes stay whole.
 *
 * Memory is bounded: past FA_LEARN_MAX bytes a writer appends nothing and
 * adds one to the count instead. The memfd is sealed against shrinking
 * (F_SEAL_SHRINK): a writer appends only to a descriptor that says so, and
 * never to a file that took the number after the learner's was closed.
 */
#ifndef FA_LEARN_RECORD_H
#define FA_LEARN_RECORD_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the count of records that did not fit, a uint64_t at offset 0 */
#define FA_LEARN_HEADER 8
#define FA_LEARN_MAX (4u << 20)

/* A new, empty record: its descriptor (close-on-exec), or -1 with errno. */
static inline int fa_learn_record_new(void)
{
#ifdef HAVE_MEMFD_CREATE
	static const char zero[FA_LEARN_HEADER];
	int fd = memfd_create("fastaudit-learn", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
#else
	errno = ENOSYS;	/* no sealed anonymous file (macOS): nothing to learn into */
	return -1;
#endif
}

/* fd is a learning record (not a file that took its number). */
static inline int fa_learn_record_is(int fd)
{
#ifdef F_GET_SEALS
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & F_SEAL_SHRINK);
#else
	(void)fd;
	return 0;
#endif
}

/*
 * Walk the records in buf[0..len) (the whole file, header included): calls
 * fn for each whole one from *at on and leaves *at after the last; returns
 * the count of records that did not fit.
 */
typedef void fa_learn_record_fn(void *arg, const char *call, const char *op, const char *rule,
				const char *path);

static inline uint64_t fa_learn_record_read(char *buf, size_t len, size_t *at,
					    fa_learn_record_fn *fn, void *arg)
{
	uint64_t lost = 0;
	char *p, *end = buf + len;

	if (len < FA_LEARN_HEADER)
		return 0;
	memcpy(&lost, buf, sizeof(lost));
	if (*at < FA_LEARN_HEADER)
		*at = FA_LEARN_HEADER;
	for (p = buf + *at; p < end;) {
		char *nul = memchr(p, '\0', (size_t)(end - p)), *t[3];
		int i;

		if (!nul)
			break;
		t[0] = memchr(p, '\t', (size_t)(nul - p));
		for (i = 1; i < 3 && t[i - 1]; i++)
			t[i] = memchr(t[i - 1] + 1, '\t', (size_t)(nul - t[i - 1] - 1));
		if (t[0] && t[1] && t[2]) {
			*t[0] = *t[1] = *t[2] = '\0';
			fn(arg, p, t[0] + 1, t[1] + 1, t[2] + 1);
		}
		p = nul + 1;
	}
	*at = (size_t)(p - buf);
	return lost;
}

#endif
