/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf.h - whether a preload can follow a program (elf.c). The shim asks
 * before every exec; fa-run asks before it starts the command, and the
 * kernel floor (landlock.c) asks for the interpreters and the loader a
 * program needs. Part of the floor library both link; it uses neither.
 */
#ifndef FA_FLOOR_ELF_H
#define FA_FLOOR_ELF_H

#include <stddef.h>

/* FA_PROG_PROTECTED: macOS, a program System Integrity Protection guards (floor_darwin.c). */
enum fa_prog_kind { FA_PROG_OK, FA_PROG_STATIC, FA_PROG_SETID, FA_PROG_CAPS, FA_PROG_UNKNOWN,
		    FA_PROG_PROTECTED };

/*
 * Can a preload follow the program open on fd, exec'd as 'path' with
 * argv from the directory cwd? Follows #! interpreters and the dynamic
 * loader run as a command (relative names from cwd, as the kernel does);
 * names the file at fault in 'culprit'. Never FA_PROG_UNKNOWN: what
 * cannot be read is left to the kernel.
 */
enum fa_prog_kind fa_prog_check(int fd, const char *path, char *const argv[], int cwd,
				char *culprit, size_t len);
/* Would the kernel start the file open on fd (regular, executable, not on noexec)? */
int fa_prog_runnable(int fd);
/* Rule name and reason for a refused kind (NULL for FA_PROG_OK). */
const char *fa_prog_rule(enum fa_prog_kind k);
const char *fa_prog_text(enum fa_prog_kind k);
/* The #! interpreter of the script open on fd, or "". */
void fa_prog_interp(int fd, char *out, size_t len);
/* The dynamic loader this process runs under (its PT_INTERP), or NULL. */
const char *fa_prog_loader(void);

#endif
