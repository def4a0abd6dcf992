/* SPDX-License-Identifier: Apache-2.0 */
/*
 * moves.c - the count of moves the hook keeps its proofs by, where no
 * libfashim.so is loaded to count them at libc.
 *
 * A write-open the hook allows is proved free of links beneath its root
 * by one system call (src/judge.c, linkfree_way()); the proof is kept
 * while the count given to fa_trust_moves() stays put (src/
 * linkfree_cache.c). Here the count grows with every audit event that can
 * put a link on a path or move a directory: os.rename (os.replace too),
 * os.symlink, os.link, shutil.move, a ctypes call (3.14 audits them).
 *
 * The event comes before the operation, so the count is taken up at once
 * and a move stays "unsettled" until the thread that announced it raises
 * its next event or ends: until then nothing is kept or trusted, by any
 * thread, since a proof made while the move is under way would outlive it.
 *
 * A child process (os.fork, os.system, subprocess, os.posix_spawn) can
 * move anything while it runs: while the process may have children
 * (waitid() finds one, reaped or not), nothing is kept; once it has none,
 * the count is taken up and proofs are kept again. Children from before
 * the hook, or started while no context was live (no event is looked at
 * then), are looked for the same way.
 *
 * What this cannot see: native code (a C extension's rename(), ctypes
 * before 3.14) and other processes moving a directory of a kept path, and
 * processes started by native code while they run. README, "The hook's
 * kept proofs".
 */
#include "parts.h"

#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>

static uint64_t count = 1;          /* never 0: 0 keeps nothing */
static unsigned long unsettled;     /* threads with a move announced */
static uint64_t spawned = 1, reaped; /* 1: children from before us */
static int watching;

/* the thread has a move announced: settled at its next event, or its end */
static pthread_key_t mine;
static pthread_once_t mine_once = PTHREAD_ONCE_INIT;

static void
settle(void *v)
{
    (void)v;
    __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
    __atomic_sub_fetch(&unsettled, 1, __ATOMIC_SEQ_CST);
}

static void
forked(void)
{
    /* in the child, only this thread's announcement is still under way */
    __atomic_store_n(&unsettled, pthread_getspecific(mine) ? 1 : 0,
                     __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
}

static void
make_key(void)
{
    if (pthread_key_create(&mine, settle) == 0) {
        pthread_atfork(NULL, NULL, forked);
        watching = 1;
    }
}

static uint64_t
hook_moves(void)
{
    uint64_t s = __atomic_load_n(&spawned, __ATOMIC_SEQ_CST);
    uint64_t r = __atomic_load_n(&reaped, __ATOMIC_SEQ_CST);

    if (s != r) {
        siginfo_t si;
        int e = errno, none;

        /* WNOWAIT: the host reaps its own children; a zombie is one still */
        none = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0
            && errno == ECHILD;
        errno = e;
        if (!none || __atomic_load_n(&unsettled, __ATOMIC_SEQ_CST)
            || __atomic_load_n(&spawned, __ATOMIC_SEQ_CST) != s)
        {
            return 0;
        }
        /* what the children did is behind us: forget what was kept before */
        if (__atomic_compare_exchange_n(&reaped, &r, s, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
        {
            __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
        }
    }
    if (__atomic_load_n(&unsettled, __ATOMIC_SEQ_CST)) {
        return 0;
    }
    return __atomic_load_n(&count, __ATOMIC_SEQ_CST);
}

void
fa_moves_watch(void)
{
    pthread_once(&mine_once, make_key);
    if (watching) {
        fa_trust_moves(hook_moves);
    }
}

void
fa_moves_unwatched(void)
{
    /* a process may have been started unseen too */
    __atomic_add_fetch(&spawned, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
}

int
fa_moves_on(void)
{
    return watching;
}

void
fa_moves_announce(int how)
{
    if (!watching) {
        return;
    }
    /*
     * announced first: a check that sees the new child sees this too. A
     * thread that cannot be marked keeps it unsettled for good.
     */
    if (!pthread_getspecific(mine)) {
        __atomic_add_fetch(&unsettled, 1, __ATOMIC_SEQ_CST);
        (void)pthread_setspecific(mine, (void *)1);
    }
    if (how & FA_MOVES_START) {
        __atomic_add_fetch(&spawned, 1, __ATOMIC_SEQ_CST);
    }
    __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
}

void
fa_moves_settle(void)
{
    /* one load on every event while nothing is under way */
    if (__atomic_load_n(&unsettled, __ATOMIC_RELAXED)
        && pthread_getspecific(mine))
    {
        pthread_setspecific(mine, NULL);
        settle(NULL);
    }
}
