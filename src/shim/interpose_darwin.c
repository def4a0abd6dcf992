/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interpose_darwin.c - how libfashim.dylib takes the place of libSystem's
 * functions on macOS, from the rows of symbols.def.
 *
 * dyld reads the __DATA,__interpose section of every image inserted with
 * DYLD_INSERT_LIBRARIES: each pair (replacement, original) makes every
 * other image's binding of the original point at the replacement. The
 * replacement is the row's wrapper, defined as fa_dyld_<name> (shim_internal.h,
 * FA_WRAPPER); the original is the name itself, as this file's system
 * headers declare it, so that their asm labels (fopen$DARWIN_EXTSN,
 * opendir$INODE64 on x86_64) name the entry points programs really call.
 *
 * dyld leaves the interposing image's own references alone, so the shim
 * reaches an original by its own name: the real-function table Linux fills
 * with dlsym(RTLD_NEXT) is filled from here (fa_next()).
 */
#include "config.h"

#include <dirent.h>
#include <mach-o/dyld.h>
#include <fcntl.h>
#include <ftw.h>
#include <fts.h>
#include <pthread.h>
#include <semaphore.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>
#include <utmpx.h>
#include <wordexp.h>

#include "wrap.h"

struct fa_interpose {
	const void *replacement;
	const void *original;
};

/*
 * A name newer than the deployment target (mknodat: macOS 13) is a weak
 * import, NULL on an older macOS, whose programs cannot call it either
 * (dyld is expected to pass a pair with no original by: untested);
 * daemon() is deprecated, and programs still call it.
 */
#pragma clang diagnostic ignored "-Wunguarded-availability-new"
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

#define FA_SYM(name, ...) { (const void *)&FA_WRAPPER(name), (const void *)&name },
__attribute__((used, section("__DATA,__interpose"))) static struct fa_interpose fa_interposed[] = {
#include "symbols.def"
};
#undef FA_SYM

static const struct {
	const char *name;
	void *original;
} originals[] = {
#define FA_SYM(name, ...) { #name, (void *)&name },
#include "symbols.def"
#undef FA_SYM
};

void *fa_next(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(originals) / sizeof(originals[0]); i++)
		if (strcmp(originals[i].name, name) == 0)
			return originals[i].original;
	return NULL;
}

void fa_dyld_main(char *exe, size_t len, void **base)
{
	uint32_t n = (uint32_t)len;

	/* Image 0 is the program; the shim and libSystem come after it. */
	*base = (void *)_dyld_get_image_header(0);
	if (_NSGetExecutablePath(exe, &n) != 0)
		exe[0] = '\0';
}
