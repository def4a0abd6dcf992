/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Atomic replacement of a file's content.
 *
 * The new content is written to a file that has no name yet (O_TMPFILE) in
 * the destination's own directory, which the engine pinned: a kill at any
 * point before it is linked leaves nothing behind. It is fsync'd, given a
 * temporary name with linkat(), moved over the destination with one
 * renameat() (atomic on POSIX file systems), and the directory is fsync'd
 * so the rename itself survives a crash. Where O_TMPFILE is missing, a
 * randomly named O_EXCL file in the same directory takes its place. At no
 * moment does the destination hold anything but the old or the new bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws_internal.h"

#define WS_TMP_TRIES 64

static void tmp_name(char *buf, size_t len, const char *name)
{
	static _Thread_local uint64_t counter;
	uint64_t r = 0;
	struct timespec ts;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
	}
	r ^= ++counter * 0x9e3779b97f4a7c15ull;
	snprintf(buf, len, ".%.*s.%016llx.tmp", 200, name, (unsigned long long)r);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Give the unnamed file a temporary name beside the destination. */
static int link_tmpfile(int fd, const struct fa_pin *pin, char *tmp, size_t len)
{
	char proc[64];
	int i, rc;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (i = 0; i < WS_TMP_TRIES; i++) {
		tmp_name(tmp, len, pin->name);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc works for anyone */
		rc = linkat(fd, "", pin->fd, tmp, AT_EMPTY_PATH);
		if (rc < 0 && (errno == EPERM || errno == ENOENT))
			rc = linkat(AT_FDCWD, proc, pin->fd, tmp, AT_SYMLINK_FOLLOW);
		if (rc == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int named_tmpfile(const struct fa_pin *pin, char *tmp, size_t len, mode_t mode)
{
	int i, fd;

	for (i = 0; i < WS_TMP_TRIES; i++) {
		tmp_name(tmp, len, pin->name);
		fd = openat(pin->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

static int sync_dir(const struct fa_pin *pin)
{
	int dfd = openat(pin->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (dfd < 0)
		return -errno;
	if (fsync(dfd) < 0 && errno != EINVAL)
		rc = -errno;
	close(dfd);
	return rc;
}

int fa_ws_atomic_write(fa_ws *ws, const char *rel, const void *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	struct ws_path wp;
	struct fa_pin pin;
	struct stat st;
	int fd, rc, named = 0, keep_mode = 0;

	if ((rc = fa__ws_lex(ws, "atomic_write", rel, &wp)) < 0)
		return rc;
	if (!wp.len || wp.slash)
		return fa__ws_fail(ws, "atomic_write", rel, EISDIR, FA_WHY_NONE);
	if ((rc = fa__ws_pin(ws, "atomic_write", FA_OP_REMOVE, &wp, &pin)) < 0)
		return rc;
	tmp[0] = 0;
	if (fstatat(pin.fd, pin.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			rc = -EISDIR;
			goto out;
		}
		/* a replaced file keeps its mode; a new one gets mode & ~umask */
		if (S_ISREG(st.st_mode)) {
			mode = st.st_mode & 07777;
			keep_mode = 1;
		}
	}
	fd = openat(pin.fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, keep_mode ? 0600 : mode);
	if (fd < 0) {
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
			rc = -errno;
			goto out;
		}
		fd = named_tmpfile(&pin, tmp, sizeof tmp, keep_mode ? 0600 : mode);
		if (fd < 0) {
			rc = fd;
			goto out;
		}
		named = 1;
	}
	rc = write_all(fd, data, len);
	if (rc == 0 && keep_mode && fchmod(fd, mode) < 0)
		rc = -errno;
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (rc == 0 && !named) {
		rc = link_tmpfile(fd, &pin, tmp, sizeof tmp);
		named = rc == 0;
	}
	close(fd);
	if (rc == 0 && renameat(pin.fd, tmp, pin.fd, pin.name) < 0)
		rc = -errno;
	if (rc == 0) {
		named = 0;
		rc = sync_dir(&pin);
	}
	if (named)
		unlinkat(pin.fd, tmp, 0);
out:
	fa_unpin(&pin);
	if (rc < 0)
		return fa__ws_fail(ws, "atomic_write", rel, -rc, FA_WHY_NONE);
	return fa__ws_ok();
}
