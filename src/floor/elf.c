/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf.c - can a preload follow this program?
 *
 * Not if the file the kernel finally maps is a static ELF (no PT_INTERP:
 * no dynamic loader reads LD_PRELOAD), nor if exec raises privilege: a
 * set-user/group-ID file or one with file capabilities makes the exec
 * "secure" and the loader then ignores LD_PRELOAD. The walk follows what
 * the kernel does: a #! script runs its interpreter (a relative one from
 * the current directory), possibly another script, up to the kernel's
 * depth; the dynamic loader run as a command (ld.so PROG, as ldd does)
 * reads LD_PRELOAD itself, and what it is asked to run is judged in turn.
 *
 * Only open/pread/fstat and friends on fds of its own, stack memory and
 * no shared state but a constant computed once: this also runs in vfork
 * children and in fa-run.
 */
#include "config.h"

#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include "linux_abi.h"
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "floor/elf.h"

/* glibc exports it without a header of its own. */
extern int capget(cap_user_header_t hdr, cap_user_data_t data);

/* The kernel gives up (ELOOP) on #! chains deeper than this. */
#define DEPTH 6
/* The kernel reads no more of a #! line than this (BINPRM_BUF_SIZE). */
#define LINE 256

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

/*
 * The dynamic loader this process runs under, named by the PT_INTERP of
 * its own executable: the loader a command line names is recognised by
 * being that same file. 0: not known yet; 1: known; -1: none found.
 */
static int loader_known;
static dev_t loader_dev;
static ino_t loader_ino;

const char *fa_prog_loader(void)
{
	const unsigned char *phdr = (const unsigned char *)getauxval(AT_PHDR);
	unsigned long phnum = getauxval(AT_PHNUM), phent = getauxval(AT_PHENT), i;
	uintptr_t bias = 0;
	const char *interp = NULL;
	int have_bias = 0;

	if (phdr && phent == sizeof(ElfW(Phdr))) {
		for (i = 0; i < phnum; i++) {
			const ElfW(Phdr) *p = (const ElfW(Phdr) *)(phdr + i * phent);

			if (p->p_type == PT_PHDR) {
				bias = (uintptr_t)phdr - p->p_vaddr;
				have_bias = 1;
			}
		}
		/* Without PT_PHDR the load address is unknown: no loader is recognised. */
		for (i = 0; have_bias && i < phnum; i++) {
			const ElfW(Phdr) *p = (const ElfW(Phdr) *)(phdr + i * phent);

			if (p->p_type == PT_INTERP)
				interp = (const char *)(bias + p->p_vaddr);
		}
	}
	return interp;
}

static void find_loader(void)
{
	const char *interp = fa_prog_loader();
	struct stat st;
	int known = -1;

	if (interp && stat(interp, &st) == 0) {
		loader_dev = st.st_dev;
		loader_ino = st.st_ino;
		known = 1;
	}
	/* Every caller computes the same values; a race only repeats the work. */
	__atomic_store_n(&loader_known, known, __ATOMIC_RELEASE);
}

static int is_loader(const struct stat *st)
{
	int k = __atomic_load_n(&loader_known, __ATOMIC_ACQUIRE);

	if (!k) {
		find_loader();
		k = __atomic_load_n(&loader_known, __ATOMIC_ACQUIRE);
	}
	return k > 0 && st->st_dev == loader_dev && st->st_ino == loader_ino;
}

/* Exec ignores set-ID bits and file capabilities on nosuid mounts and under no_new_privs. */
static int privilege_ignored(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_NOSUID))
		return 1;
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/*
 * File capabilities that make the exec secure: the kernel does so for a
 * non-root real user when the file's effective bit is set or the new
 * permitted set is not empty ((fP & bounding) | (fI & pI); the bounding
 * set is taken as full, which can only make this answer "yes" more often).
 */
static int raises_caps(int fd)
{
	struct vfs_ns_cap_data c;
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct mine[_LINUX_CAPABILITY_U32S_3];
	ssize_t n;
	int i, words;
	uint32_t rev;

	memset(&c, 0, sizeof(c));
	n = fgetxattr(fd, "security.capability", &c, sizeof(c));
	if (n < (ssize_t)(sizeof(uint32_t) * 3) || getuid() == 0)
		return 0;
	rev = c.magic_etc & VFS_CAP_REVISION_MASK;
	words = rev == VFS_CAP_REVISION_1 ? 1 : 2;
	if (c.magic_etc & VFS_CAP_FLAGS_EFFECTIVE)
		return 1;
	memset(mine, 0, sizeof(mine));
	(void)capget(&hdr, mine);
	for (i = 0; i < words && (size_t)(3 + 2 * i) * sizeof(uint32_t) <= (size_t)n; i++)
		if (c.data[i].permitted || (c.data[i].inheritable & mine[i].inheritable))
			return 1;
	return 0;
}

/*
 * A directory, a file without execute permission or on a noexec mount:
 * the kernel refuses it with its own EACCES.
 */
int fa_prog_runnable(int fd)
{
	struct stat st;
	struct statvfs sv;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (faccessat(fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) < 0 && errno == EACCES)
		return 0;
	return !(fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_NOEXEC));
}

enum what { IS_OTHER, IS_SCRIPT, IS_DYNAMIC, IS_LOADER };

/*
 * One file as the kernel loads it. A script's #! line is left in 'line'
 * (NUL-terminated interpreter, then its optional argument or "").
 */
static enum fa_prog_kind inspect(int fd, enum what *what, char *line)
{
	unsigned char head[LINE + 1];
	struct stat st;
	ssize_t n;
	size_t i, k;
	int setid;

	*what = IS_OTHER;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return FA_PROG_UNKNOWN;
	/* A set-group-ID bit without group execute is mandatory locking, not set-ID. */
	setid = ((st.st_mode & S_ISUID) && st.st_uid != getuid()) ||
		((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getgid());
	n = pread(fd, head, LINE, 0);
	/*
	 * An execute-only file cannot be read: a set-ID one is taken for the
	 * ELF it must be (an interpreter could not read a script either).
	 */
	if (n < 0)
		return setid && !privilege_ignored(fd) ? FA_PROG_SETID : FA_PROG_UNKNOWN;
	if (n < 4)
		return FA_PROG_UNKNOWN;
	head[n] = '\0';
	if (head[0] == '#' && head[1] == '!') {
		/* As binfmt_script: the interpreter, then one argument to the end of the line. */
		for (i = 2; i < (size_t)n && (head[i] == ' ' || head[i] == '\t'); i++)
			;
		for (k = 0; i < (size_t)n && head[i] != ' ' && head[i] != '\t' && head[i] != '\n'; i++)
			line[k++] = (char)head[i];
		line[k++] = '\0';
		if (k == 1)
			return FA_PROG_UNKNOWN;
		for (; i < (size_t)n && (head[i] == ' ' || head[i] == '\t'); i++)
			;
		{
			size_t a = k;

			for (; i < (size_t)n && head[i] != '\n'; i++)
				line[k++] = (char)head[i];
			while (k > a && (line[k - 1] == ' ' || line[k - 1] == '\t'))
				k--;
			line[k] = '\0';
		}
		*what = IS_SCRIPT;
		return FA_PROG_OK;
	}
	if (memcmp(head, ELFMAG, SELFMAG))
		return FA_PROG_UNKNOWN;
	if (setid && !privilege_ignored(fd))
		return FA_PROG_SETID;
	if (raises_caps(fd) && !privilege_ignored(fd))
		return FA_PROG_CAPS;
	switch (has_interp(fd, head)) {
	case 1:
		*what = IS_DYNAMIC;
		return FA_PROG_OK;
	case 0:
		if (is_loader(&st)) {
			*what = IS_LOADER;
			return FA_PROG_OK;
		}
		return FA_PROG_STATIC;
	default:
		return FA_PROG_UNKNOWN;
	}
}

/*
 * The argument vector the kernel or the loader hands to the next file:
 * pre[0..npre) then rest[0..]. Scripts prepend, the loader drops.
 */
struct args {
	const char *pre[3 * DEPTH + 3];
	int npre;
	char *const *rest;
};

static const char *arg_at(const struct args *a, int i)
{
	int k;

	if (i < a->npre)
		return a->pre[i];
	if (!a->rest)
		return NULL;
	for (k = a->npre; k < i; k++)
		if (!a->rest[k - a->npre])
			return NULL;
	return a->rest[i - a->npre];
}

/* Drop the first n arguments. */
static void arg_drop(struct args *a, int n)
{
	while (n-- > 0) {
		if (a->npre) {
			memmove(a->pre, a->pre + 1, sizeof(a->pre[0]) * (size_t)--a->npre);
		} else if (a->rest && a->rest[0]) {
			a->rest++;
		}
	}
}

static void arg_push(struct args *a, const char *s)
{
	if (a->npre == (int)(sizeof(a->pre) / sizeof(a->pre[0])))
		return;
	memmove(a->pre + 1, a->pre, sizeof(a->pre[0]) * (size_t)a->npre);
	a->pre[0] = s;
	a->npre++;
}

/*
 * The program a command line of the loader runs, or NULL when it runs
 * none: --list and --verify only look at it, and a name without a slash
 * is a shared object looked up on the library path, not a program file.
 * Returns its index in the argument vector.
 */
static int loader_program(const struct args *a)
{
	static const char *const with_arg[] = {
		"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
		"--glibc-hwcaps-prepend", "--glibc-hwcaps-mask",
	};
	const char *s;
	size_t j;
	int i = 1;

	while ((s = arg_at(a, i)) != NULL) {
		if (!strcmp(s, "--list") || !strcmp(s, "--verify"))
			return -1;
		for (j = 0; j < sizeof(with_arg) / sizeof(with_arg[0]); j++)
			if (!strcmp(s, with_arg[j]) && arg_at(a, i + 1))
				break;
		if (j < sizeof(with_arg) / sizeof(with_arg[0])) {
			i += 2;
			continue;
		}
		if (s[0] == '-' && s[1] == '-') {
			i++;
			continue;
		}
		return strchr(s, '/') ? i : -1;
	}
	return -1;
}

static void name(char *out, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

enum fa_prog_kind fa_prog_check(int fd, const char *path, char *const argv[], int cwd,
				char *culprit, size_t len)
{
	char lines[DEPTH][LINE + 2];
	struct args a;
	const char *file = path;
	enum fa_prog_kind k;
	enum what what;
	int depth = 0, loads = 0, cur = fd, own = 0, idx;

	a.npre = 0;
	a.rest = argv;
	if (culprit && len)
		culprit[0] = '\0';
	for (;;) {
		k = inspect(cur, &what, depth < DEPTH ? lines[depth] : lines[DEPTH - 1]);
		if (k != FA_PROG_OK || what == IS_DYNAMIC || what == IS_OTHER)
			break;
		if (what == IS_SCRIPT) {
			char *interp = lines[depth];
			char *opt = interp + strlen(interp) + 1;

			/* Past the kernel's depth the exec fails (ELOOP) by itself. */
			if (++depth >= DEPTH || loads) {
				k = FA_PROG_OK;
				break;
			}
			arg_drop(&a, 1);
			arg_push(&a, file);
			if (*opt)
				arg_push(&a, opt);
			arg_push(&a, interp);
			file = interp;
		} else {
			/* The loader maps ELF files only: a script there fails by itself. */
			idx = loader_program(&a);
			if (idx < 0 || ++loads > DEPTH) {
				k = FA_PROG_OK;
				break;
			}
			file = arg_at(&a, idx);
			arg_drop(&a, idx);
		}
		if (own)
			close(cur);
		/* Relative interpreters and programs: from the cwd, as the kernel and the loader open them. */
		cur = openat(cwd, file, O_RDONLY | O_CLOEXEC);
		if (cur < 0 && errno == EACCES)
			cur = openat(cwd, file, O_PATH | O_CLOEXEC);
		own = cur >= 0;
		/* An interpreter the kernel will not start: the exec fails on its own. */
		if (cur < 0 || (!loads && !fa_prog_runnable(cur))) {
			k = FA_PROG_OK;
			break;
		}
	}
	if (own)
		close(cur);
	if (k == FA_PROG_UNKNOWN)
		k = FA_PROG_OK;
	if (k != FA_PROG_OK && culprit && file)
		name(culprit, len, file);
	return k;
}

/* Rule name and reason of each refused kind, by enum fa_prog_kind. */
static const struct {
	const char *rule, *text;
} refused[] = {
	[FA_PROG_STATIC] = { "static-binary",
			     "static binary: a preload cannot follow it (--allow-static runs it unconfined)" },
	[FA_PROG_SETID] = { "setid-binary",
			    "set-user/group-ID binary: the loader drops the preload (--allow-static runs it unconfined)" },
	[FA_PROG_CAPS] = { "file-caps-binary",
			   "binary with file capabilities: the loader drops the preload (--allow-static runs it unconfined)" },
};

const char *fa_prog_rule(enum fa_prog_kind k)
{
	return (size_t)k < sizeof(refused) / sizeof(refused[0]) ? refused[k].rule : NULL;
}

const char *fa_prog_text(enum fa_prog_kind k)
{
	return (size_t)k < sizeof(refused) / sizeof(refused[0]) ? refused[k].text : NULL;
}

/* The #! interpreter of the script open on fd, or "" (the kernel floor's exec rules). */
void fa_prog_interp(int fd, char *out, size_t len)
{
	char line[LINE + 2];
	enum what what;

	if (!len)
		return;
	out[0] = '\0';
	if (inspect(fd, &what, line) == FA_PROG_OK && what == IS_SCRIPT && strlen(line) < len)
		memcpy(out, line, strlen(line) + 1);
}
