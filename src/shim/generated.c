/*
 * generated.c - the wrappers symbols.def can generate: one path naming an
 * entry to create, remove or change (shape AT1), run as the *at() call on
 * the parent the engine pinned.
 */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrap.h"

#define FA_SYM(name, ret, fail, params, args, shape, ...) \
	FA_GEN_##shape(name, ret, fail, params, args, __VA_ARGS__)
#include "symbols.def"
#undef FA_SYM
