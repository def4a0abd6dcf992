/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc.c - the shim's process state, at the bottom of the shim: the gate,
 * the process policy's record, the thread's record, and the table of
 * libc's real functions.
 *
 * Everything here is data a wrapper may read before the constructor has
 * run (another library's constructor writing a file): it starts out in a
 * state that sends every call down the slow path, and nothing in this
 * file calls upward. Start-up (env.c) fills it in.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrap.h"

/* Not initialised yet: every call takes the slow path until fa_init(). */
int fa_gate = 1;
/* Set once any policy has a read pattern: read-opens are judged from then on. */
int fa_read_guard;
int fa_init_state;
struct fa_proc fa_proc = { .pin_lo = 0x80000000u };
__thread struct fa_tls fa_tls __attribute__((tls_model("initial-exec")));

#define FA_SYM(name, ret, fail, params, args, ...) fa_real_t_##name fa_real_##name;
#include "symbols.def"
#undef FA_SYM

static const char *const sym_names[] = {
#define FA_SYM(name, ret, fail, params, args, ...) #name,
#include "symbols.def"
#undef FA_SYM
};

static void **const sym_slots[] = {
#define FA_SYM(name, ret, fail, params, args, ...) (void **)&fa_real_##name,
#include "symbols.def"
#undef FA_SYM
};

static void say(const char *a, const char *b, const char *c)
{
	struct fa_buf m;
	char buf[1024];

	m.p = buf;
	m.len = 0;
	m.cap = sizeof(buf);
	fa_puts(&m, a);
	fa_puts(&m, b);
	fa_puts(&m, c);
	fa_putc(&m, '\n');
	(void)!write(2, m.p, strlen(m.p));
}

void *fa_resolve(const char *name)
{
	void *p;

	fa_tls.guard++;
	p = fa_next(name);
	fa_tls.guard--;
	if (!p) {
		say("libfashim: cannot find the real ", name, "() in the libraries after the shim");
		abort();
	}
	return p;
}

/*
 * The one place the whole table is filled (fa_resolve() fills one slot
 * when a wrapper needs it earlier). Names libc may lack (__xmknod is a
 * compatibility symbol since 2.33) stay NULL here; their wrappers never
 * call them directly.
 */
void fa_resolve_all(void)
{
	size_t i;

	fa_tls.guard++;
	for (i = 0; i < sizeof(sym_names) / sizeof(sym_names[0]); i++)
		if (!*sym_slots[i])
			*sym_slots[i] = fa_next(sym_names[i]);
	fa_tls.guard--;
}
