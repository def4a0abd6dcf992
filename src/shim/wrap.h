/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wrap.h - the invariants every wrapper keeps, written once, and the
 * templates that generate the wrappers of symbols.def by their shape.
 *
 *  - The fast path is one load and one predictable branch (FA_GATE_OPEN),
 *    then the real function: no syscall, no TLS, errno untouched.
 *  - The slow path leaves errno to the checking helpers (shim_judge.c): the
 *    real call sees the caller's errno, a denial is the type's failure
 *    value with EACCES.
 *  - A real function needed before the constructor ran is resolved on the
 *    spot; a missing one aborts with a message, never a NULL call.
 *  - fa_tls.guard is set around the few places where the shim calls code
 *    that may come back into a wrapper (the dynamic loader, fdopen, the
 *    host's resolver), and never around a call that can block; a wrapper
 *    reached under it goes straight through.
 */
#ifndef FA_WRAP_H
#define FA_WRAP_H

#include <errno.h>
#include <stdarg.h>

#include "shim_internal.h"

/*
 * The shim is built with hidden visibility; on Linux the wrapped names are
 * the exceptions (the version script then lists exactly these); on macOS
 * the wrappers stay hidden, reached through the __interpose pairs.
 */
#define FA_SYM(name, ret, fail, params, args, ...) \
	extern FA_WRAPPER_EXPORT ret FA_WRAPPER(name) params;
#include "symbols.def"
#undef FA_SYM

/* The real function, resolved now if the constructor has not run. */
#define FA_REAL(name) \
	(__extension__({ \
		if (FA_UNLIKELY(fa_real_##name == NULL)) \
			fa_real_##name = (fa_real_t_##name)fa_resolve(#name); \
		fa_real_##name; \
	}))

#define FA_RA() __builtin_return_address(0)

#define FA_GUARDED() FA_UNLIKELY(fa_tls.guard)

/* What the 'call' column of symbols.def is given: see struct fa_spin. */
#define P_FD (fa_s.fd)
#define P_NAME (fa_s.name)

/* fa_w_<name>(ra, call, ...): the caller's return address and the name its reports give. */
#define FA_PREPEND_RA(...) (void *fa_ra, const char *fa_call, __VA_ARGS__)
#define FA_PASS_RA(...) (FA_RA(), fa_name, __VA_ARGS__)
#define FA_EXPORT FA_WRAPPER_EXPORT

/*
 * One wrapper for every shape that prepares, calls and releases: 'prep'
 * judges and pins (or opens), 'call' is the real call on what it left in
 * fa_s. The errno contract is the helpers' (shim_internal.h): nothing here
 * saves or restores it. syscall() reaches the same code through
 * fa_w_<name>(), under its own name.
 */
#define FA_GEN_PREP(name, ret, fail, params, args, prep, call) \
	FA_HIDDEN ret fa_w_##name FA_PREPEND_RA params; \
	ret fa_w_##name FA_PREPEND_RA params \
	{ \
		struct fa_spin fa_s; \
		ret fa_v; \
		if (prep) \
			return fail; \
		fa_v = call; \
		fa_unpin_after(&fa_s, fa_v == (fail)); \
		return fa_v; \
	} \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		static const char fa_name[] = #name; \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		return fa_w_##name FA_PASS_RA args; \
	}

/* One path naming an entry to change: run as the *at() call on the pinned parent. */
#define FA_GEN_AT1(name, ret, fail, params, args, op, dirfd, path, call) \
	FA_GEN_PREP(name, ret, fail, params, args, \
		    fa_pin_entry_call(fa_call, op, dirfd, path, &fa_s, fa_ra), call)

/* AT1, but when 'onfd' holds the call acts on dirfd itself, judged like FD. */
#define FA_GEN_ATFD(name, ret, fail, params, args, op, dirfd, path, onfd, call) \
	FA_GEN_PREP(name, ret, fail, params, args, \
		    (onfd) ? (fa_spin_init(&fa_s), fa_fd_call(fa_call, dirfd, fa_ra)) \
			   : fa_pin_call(fa_call, op, dirfd, path, NULL, &fa_s, fa_ra), \
		    (onfd) ? FA_REAL(name) args : call)

/* A change to what an open fd names (fchmod, futimens): judged by that entry. */
#define FA_GEN_FD(name, ret, fail, params, args, fd) \
	FA_GEN_PREP(name, ret, fail, params, args, \
		    (fa_spin_init(&fa_s), fa_fd_call(fa_call, fd, fa_ra)), FA_REAL(name) args)

/*
 * A function that opens a named file by itself, inside libc or the kernel
 * (setmntent, acct): when 'cond' holds, the engine opens path with flags
 * and the real call gets P_NAME, /proc/self/fd/N of that very file.
 */
#define FA_GEN_REOPEN(name, ret, fail, params, args, cond, path, flags, call) \
	FA_GEN_PREP(name, ret, fail, params, args, \
		    (cond) ? fa_reopen_call(fa_call, path, flags, &fa_s, fa_ra) \
			   : fa_spin_by_name(&fa_s, path), \
		    call)

/*
 * One call of a shared internal entry point, which syscall() uses too:
 * fn(ra, name, fnargs...).
 */
#define FA_GEN_VIA(name, ret, fail, params, args, fn, fnargs) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		static const char fa_name[] = #name; \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		return fn FA_PASS_RA fnargs; \
	}

/*
 * What the shim opened for writing under the process policy (fd.c): the
 * number is forgotten whenever the shim sees it closed, replaced or handed
 * out by another open. One byte per fd below FA_FD_MARKS. The same events
 * tell the engine that the number may name another directory now
 * (fa_fd_moved(), dirfd_cache.c), which it needs to know only while a
 * policy may apply: with the gate open a close costs no more than before.
 */
#define FA_FD_MOVED(fd) \
	do { \
		if (!FA_GATE_OPEN()) \
			fa_fd_moved(fd); \
	} while (0)
#define FA_FD_MARKS 4096
extern FA_HIDDEN unsigned char fa_fd_marks[FA_FD_MARKS];
static inline void fa_fd_mark(int fd)
{
	FA_FD_MOVED(fd);
	if ((unsigned)fd < FA_FD_MARKS)
		__atomic_store_n(&fa_fd_marks[fd], 1, __ATOMIC_RELAXED);
}
static inline void fa_fd_forget(int fd)
{
	FA_FD_MOVED(fd);
	if ((unsigned)fd < FA_FD_MARKS && __atomic_load_n(&fa_fd_marks[fd], __ATOMIC_RELAXED))
		__atomic_store_n(&fa_fd_marks[fd], 0, __ATOMIC_RELAXED);
}
static inline int fa_fd_marked(int fd)
{
	return (unsigned)fd < FA_FD_MARKS && __atomic_load_n(&fa_fd_marks[fd], __ATOMIC_RELAXED);
}

/*
 * close/dup2 onto a root fd the process policy pinned: EBADF, as for a
 * closed fd (fd.c says why); one compare on a range otherwise. The number
 * loses its mark either way, and is told moved once more after the call:
 * a dirfd's name read by another thread meanwhile is not kept.
 */
#define FA_GEN_KEEPFD(name, ret, fail, params, args, fd, cond) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		ret fa_v; \
		if (FA_UNLIKELY(fa_pinned_range(fd)) && fa_is_root_fd(fd) && (cond)) { \
			errno = EBADF; \
			return -1; \
		} \
		if (cond) \
			fa_fd_forget(fd); \
		fa_v = FA_REAL(name) args; \
		if (cond) \
			FA_FD_MOVED(fd); \
		return fa_v; \
	}

/*
 * mk*stemp: made beneath the pinned parent of the template by
 * fa_make_temp(), libc's letters and attempts; libc's own when no policy
 * applies.
 */
#define FA_GEN_TEMP(name, ret, fail, params, args, suffixlen, flags) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		int fa_fd; \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		if (fa_make_temp(FA_RA(), #name, tmpl, suffixlen, flags, 0, &fa_fd)) \
			return fa_fd; \
		return FA_REAL(name) args; \
	}

/*
 * Written by hand in the file of their class; the table names the class:
 * exec-like (the program judged by the exec rules, the environment
 * re-injected), spawn-like (the same for a child libc starts), the cwd
 * cache, threads that inherit a context.
 */
#define FA_GEN_EXEC(...)
#define FA_GEN_SPAWN(...)
#define FA_GEN_CWD(...)
#define FA_GEN_THREAD(...)

/*
 * Judged by a name the call itself does not take (a file libc keeps
 * open or opens by itself), then the real call: a check, not check = use.
 */
#define FA_GEN_CHECK(name, ret, fail, params, args, op, path, flags) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		if (fa_check_call(#name, op, AT_FDCWD, path, flags, FA_RA())) \
			return fail; \
		return FA_REAL(name) args; \
	}

/*
 * A write-open: one fa_open_call(), which opens through the engine. Any
 * other open hands out a number that may still carry a mark (closed where
 * the shim does not see it, by fclose or closedir): it carries none now.
 */
#define FA_OPEN_BODY(name, args, dirfd, path, flags, mode) \
	do { \
		int fa_fd; \
		if (fa_is_write(flags) ? fa_open_call(#name, dirfd, path, flags, mode, FA_RA(), &fa_fd) \
				       : FA_READS_GUARDED() && \
					 fa_read_call(#name, dirfd, path, flags, mode, FA_RA(), &fa_fd)) \
			return fa_fd; \
		fa_fd = FA_REAL(name) args; \
		fa_fd_forget(fa_fd); \
		return fa_fd; \
	} while (0)

/*
 * open(path, flags, ...): the mode is read only when the flags say there is
 * one. Every OPEN row names its last parameter 'flags', which va_start
 * needs as written (C11 7.16.1.4); the column 'oflags' is what is judged
 * (flags | O_LARGEFILE for the 64-bit names).
 */
#define FA_GEN_OPEN(name, ret, fail, params, args, dirfd, path, oflags) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		mode_t mode = 0; \
		if (fa_needs_mode(flags)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap); \
		} \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		FA_OPEN_BODY(name, args, dirfd, path, oflags, mode); \
	}

/* A fixed-arity open (creat). */
#define FA_GEN_OPENX(name, ret, fail, params, args, dirfd, path, flags, mode) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		FA_OPEN_BODY(name, args, dirfd, path, flags, mode); \
	}

/* Fortified opens take no mode; given O_CREAT, libc's own abort must happen. */
#define FA_GEN_OPEN2(name, ret, fail, params, args, dirfd, path, flags) \
	FA_EXPORT ret FA_WRAPPER(name) params \
	{ \
		if (FA_GATE_OPEN() || fa_needs_mode(flags)) \
			return FA_REAL(name) args; \
		FA_OPEN_BODY(name, args, dirfd, path, flags, 0); \
	}

#define FA_GEN_HAND(...)

#endif
