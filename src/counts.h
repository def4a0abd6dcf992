/* SPDX-License-Identifier: Apache-2.0 */
/*
 * counts.h - the denials of a whole fa-run, counted across processes.
 *
 * fa-run creates one small shared file (a memfd) and names it to the
 * command in FA_COUNTS as /proc/<fa-run's pid>/fd/<n>; the preload in the
 * command and in every process it starts maps it at start-up and closes
 * the descriptor, so no descriptor of ours stays where the program could
 * close or reuse it, and counting costs one atomic add per denial, never
 * the program's allocator. fa-run reads the sums when the command exits.
 *
 * The same page carries what the processes of the run must know of each
 * other: how many directories they renamed or removed (the engine's kept
 * names of directories are read again when it moves, cwd_cache.c).
 */
#ifndef FA_COUNTS_H
#define FA_COUNTS_H

#include <stdint.h>

#define FA_COUNTS_MAGIC 0x6661636f756e7431ull /* "facount1" */

struct fa_counts {
	uint64_t magic;
	uint64_t paths;      /* denials of a path operation */
	uint64_t execs;      /* denials of a program start */
	uint64_t reported;   /* of these, report-only ("would deny") */
	uint64_t moves;      /* directories renamed or removed by any process */
};

#endif
