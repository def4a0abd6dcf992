/* SPDX-License-Identifier: Apache-2.0 */
/*
 * darwin_abi.h - the Linux names the engine speaks, as macOS means them
 * (included by sys.h in a build for macOS; sys_darwin.c is the door).
 *
 * macOS has no O_PATH, O_TMPFILE, AT_EMPTY_PATH or automounter flag. Each
 * gets the value that keeps the engine's decisions safe when a caller's
 * flags are tested against it:
 *
 *  - O_PATH is 0: no open on macOS is path-only, so no caller's flags are
 *    ever taken for "nothing is written". The engine's own look-ups are
 *    read-only opens (sys_darwin.c makes them non-blocking), and its walks
 *    enter directories with O_SEARCH.
 *  - O_TMPFILE asks for both a shared and an exclusive lock of a directory,
 *    which no real caller does; one that did is judged as a write into that
 *    directory, the stricter reading.
 *  - AT_EMPTY_PATH is macOS's AT_FDONLY ("use only the fd"), the same
 *    meaning for fstatat; the door answers a "" path with fstat itself.
 */
#ifndef FA_DARWIN_ABI_H
#define FA_DARWIN_ABI_H

#include <fcntl.h>
#include <limits.h>
#include <sys/param.h>

#ifndef O_PATH
#define O_PATH 0
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (O_DIRECTORY | O_SHLOCK | O_EXLOCK)
#endif
#ifndef AT_EMPTY_PATH
#ifdef AT_FDONLY
#define AT_EMPTY_PATH AT_FDONLY
#else
#define AT_EMPTY_PATH 0x0400
#endif
#endif
#ifndef AT_NO_AUTOMOUNT
#define AT_NO_AUTOMOUNT 0
#endif
/* Flags only Linux knows: no macOS caller sets them. */
#ifndef O_LARGEFILE
#define O_LARGEFILE 0
#endif
#ifndef O_NOATIME
#define O_NOATIME 0
#endif
#ifndef O_DIRECT
#define O_DIRECT 0
#endif

/*
 * macOS's <sys/paths.h> has RESOLVE_* flags of its own, RESOLVE_BENEATH
 * among them; the engine's are openat2's (sys.h), which it never hands to
 * the kernel here. A file that includes <sys/paths.h> after sys.h fails to
 * compile (the macro redefined), never mixes the two.
 */
#undef RESOLVE_BENEATH

/* The walk's way into a directory: search permission, as O_PATH needs. */
#ifdef O_SEARCH
#define FA__O_SEARCH O_SEARCH
#else
#define FA__O_SEARCH (O_RDONLY | O_DIRECTORY)
#endif

#endif
