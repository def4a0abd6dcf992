/*
 * wrap.h - the invariants every wrapper keeps, written once.
 *
 *  - The fast path is one load and one predictable branch (FA_GATE_OPEN),
 *    then the real function: no syscall, no TLS, errno untouched.
 *  - The slow path saves errno, lets the real call see the caller's errno
 *    again, and reports a denial as the type's failure value with EACCES.
 *  - A real function needed before the constructor ran is resolved on the
 *    spot; a missing one aborts with a message, never a NULL call.
 *  - fa_tls.guard is set around the few places where the shim calls code
 *    that may come back into a wrapper (the dynamic loader, stdio, the
 *    host's resolver); a wrapper reached under it goes straight through.
 */
#ifndef FA_WRAP_H
#define FA_WRAP_H

#include <errno.h>

#include "shim_internal.h"

/*
 * The shim is built with hidden visibility; the wrapped names are the
 * exceptions (the version script then lists exactly these).
 */
#define FA_SYM(name, ret, fail, params, args, ...) \
	extern __attribute__((visibility("default"))) ret name params;
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

/* Pinned parent as seen by the 'call' column of symbols.def. */
#define P_FD (fa_s.fd)
#define P_NAME (fa_s.name)

#define FA_PREPEND_RA(...) (void *fa_ra, __VA_ARGS__)
#define FA_PASS_RA(...) (FA_RA(), __VA_ARGS__)

/*
 * An AT1 wrapper: exported name, and fa_at1_<name>() with the caller's
 * return address first, which syscall() reuses.
 */
#define FA_GEN_AT1(name, ret, fail, params, args, op, dirfd, path, call) \
	FA_HIDDEN ret fa_at1_##name FA_PREPEND_RA params; \
	ret fa_at1_##name FA_PREPEND_RA params \
	{ \
		struct fa_spin fa_s; \
		int fa_saved = errno, fa_rc; \
		ret fa_v; \
		if (FA_GUARDED()) \
			return FA_REAL(name) args; \
		fa_rc = fa_pin_call(#name, op, dirfd, path, NULL, &fa_s, fa_ra); \
		if (fa_rc < 0) { \
			errno = -fa_rc; \
			return fail; \
		} \
		errno = fa_saved; \
		fa_v = call; \
		fa_saved = errno; \
		fa_unpin_call(&fa_s); \
		errno = fa_saved; \
		return fa_v; \
	} \
	__attribute__((visibility("default"))) ret name params \
	{ \
		if (FA_GATE_OPEN()) \
			return fa_real_##name args; \
		return fa_at1_##name FA_PASS_RA args; \
	}

#define FA_GEN_HAND(...)

#endif
