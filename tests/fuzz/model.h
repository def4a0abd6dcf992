/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.h - the path rules written the obvious way, for the fuzz targets
 * to compare the engine against.
 *
 * Nothing here is fast or clever: paths are split into an array of
 * components, '..' pops, and lengths are counted from the array. If the
 * engine and this model disagree, one of them is wrong; the model is
 * short enough to check by reading.
 */
#ifndef FA_FUZZ_MODEL_H
#define FA_FUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* libFuzzer's entry points, which each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Fold '.', empty components and 'a/..' out of 'in'. absolute: the result
 * starts with '/', and '..' at the top stays there; otherwise the result is
 * relative and '..' above the start is -EXDEV. The output buffer holds
 * 'len' bytes; every intermediate state of the fold must fit (with its
 * NUL), or the answer is -ENAMETOOLONG. Returns the length written.
 */
ssize_t model_fold(const char *in, int absolute, char *out, size_t len);

/* 1 if 'path' is 'base' or lies beneath it, by whole components. */
int model_within(const char *path, const char *base);

/*
 * A deny pattern as the engine keeps it: "~/" from $HOME, '.' and empty
 * components dropped, a final '/' as a final "**"; -1 for what is refused
 * ('!', a '..' component, a '\' escaping nothing or a '/', nothing left).
 */
int model_pattern(const char *in, char *out, size_t len);

#endif
