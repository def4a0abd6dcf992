/* SPDX-License-Identifier: Apache-2.0 */
/*
 * generated.c - every wrapper whose shape symbols.def names: the open
 * family, one-path entry changes run on the pinned parent, changes made
 * through an fd, and functions that open a named file by themselves.
 *
 * Built with _FILE_OFFSET_BITS unset, so that "open" is open and not a
 * redirect to open64.
 */
#include "config.h"
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrap.h"

#define FA_SYM(name, ret, fail, params, args, shape, ...) \
	FA_GEN_##shape(name, ret, fail, params, args, __VA_ARGS__)
#include "symbols.def"
#undef FA_SYM

/*
 * The pre-2.33 names are compatibility symbols a newer libc may lack: old
 * binaries calling them get mknodat (generated above), checked like any
 * other mknodat.
 */
int fa_xmknodat(void *ra, const char *call, int ver, int dirfd, const char *path, mode_t mode,
		dev_t *dev)
{
	(void)ver;
	return fa_w_mknodat(ra, call, dirfd, path, mode, *dev);
}
