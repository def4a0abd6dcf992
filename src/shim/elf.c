/*
 * elf.c - can a preload follow this program?
 *
 * Not if it is a static ELF (no PT_INTERP: no dynamic loader reads
 * LD_PRELOAD) or if exec changes the user or group (the loader then
 * ignores LD_PRELOAD). A script is judged by its #! interpreter, which
 * the caller inspects in turn. Only pread/fstat on an fd the caller owns:
 * this also runs in vfork children and in fa-run.
 */
#include "config.h"

#include <elf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim_internal.h"

static int has_interp(int fd, const unsigned char *id)
{
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	unsigned char ph[64 * sizeof(Elf64_Phdr)];
	size_t phsz, phnum, i;
	off_t phoff;

	if (pread(fd, &h, sizeof(h), 0) < (ssize_t)sizeof(h.e32))
		return -1;
	if (id[EI_CLASS] == ELFCLASS64) {
		phoff = (off_t)h.e64.e_phoff;
		phnum = h.e64.e_phnum;
		phsz = sizeof(Elf64_Phdr);
	} else if (id[EI_CLASS] == ELFCLASS32) {
		phoff = (off_t)h.e32.e_phoff;
		phnum = h.e32.e_phnum;
		phsz = sizeof(Elf32_Phdr);
	} else {
		return -1;
	}
	if (phnum > 64)
		phnum = 64;
	if (pread(fd, ph, phsz * phnum, phoff) != (ssize_t)(phsz * phnum))
		return -1;
	for (i = 0; i < phnum; i++) {
		uint32_t type;

		memcpy(&type, ph + i * phsz, sizeof(type));
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

enum fa_prog_kind fa_prog_inspect(int fd, char *interp, size_t len)
{
	unsigned char head[256];
	struct stat st;
	ssize_t n;
	size_t i, k;

	if (interp && len)
		interp[0] = '\0';
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return FA_PROG_UNKNOWN;
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
		return FA_PROG_SETID;
	n = pread(fd, head, sizeof(head) - 1, 0);
	if (n < 4)
		return FA_PROG_UNKNOWN;
	head[n] = '\0';
	if (head[0] == '#' && head[1] == '!') {
		for (i = 2; i < (size_t)n && (head[i] == ' ' || head[i] == '\t'); i++)
			;
		for (k = 0; i < (size_t)n && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
			    k + 1 < len; i++)
			interp[k++] = (char)head[i];
		if (interp && len)
			interp[k] = '\0';
		return FA_PROG_OK;
	}
	if (memcmp(head, ELFMAG, SELFMAG))
		return FA_PROG_UNKNOWN;
	switch (has_interp(fd, head)) {
	case 1:
		return FA_PROG_OK;
	case 0:
		return FA_PROG_STATIC;
	default:
		return FA_PROG_UNKNOWN;
	}
}
