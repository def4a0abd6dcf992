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
