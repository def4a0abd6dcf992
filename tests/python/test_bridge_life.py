# SPDX-License-Identifier: Apache-2.0
"""What crosses the bridge to libfashim.so lives as long as anyone reads it.

Native threads the Python side does not know (a C library's pool) judge
their writes under the policy the extension published for them, while the
main thread enters and leaves contexts and the extension retires policies.
Each case runs a fresh interpreter with libfashim.so preloaded; the native
threads come from a small C library built here and called through ctypes.
Nothing here waits for time to pass: every wait is for a state the test
can see (a counter, the system call a thread sleeps in).
"""
import json
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest

from test_native import SHIM

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')

WORKERS_C = r'''
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int sys_openat = SYS_openat;

/* One write-open, made by a thread of its own. */
static struct { const char *path; int tid, err; pthread_t t; } one;

static void *one_main(void *a)
{
    int fd;

    (void)a;
    __atomic_store_n(&one.tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
    fd = open(one.path, O_WRONLY | O_CREAT, 0644);
    one.err = fd < 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    return NULL;
}

int one_start(const char *path)
{
    one.path = path;
    return pthread_create(&one.t, NULL, one_main, NULL);
}

int one_tid(void) { return __atomic_load_n(&one.tid, __ATOMIC_ACQUIRE); }

int one_join(void)
{
    pthread_join(one.t, NULL);
    return one.err;
}

/* Threads writing in a loop, into a place every context allows and one none does. */
struct loop {
    pthread_t t;
    const char *in, *out;
    long rounds, in_ok, in_bad, out_denied, out_bad;
};
static struct loop loops[8];
static int nloops, stop;

static void *loop_main(void *a)
{
    struct loop *l = a;
    char p[4096];
    int fd;

    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        snprintf(p, sizeof p, "%s/w%ld", l->in, l->rounds % 4);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            close(fd);
            l->in_ok++;
        } else {
            l->in_bad++;
        }
        snprintf(p, sizeof p, "%s/w%ld", l->out, l->rounds % 4);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 && errno == EACCES) {
            l->out_denied++;
        } else {
            l->out_bad++;
            if (fd >= 0)
                close(fd);
        }
        if (mkdir(p, 0755) < 0 && errno == EACCES)
            l->out_denied++;
        else
            l->out_bad++;
        __atomic_store_n(&l->rounds, l->rounds + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int loops_start(int n, const char *in, const char *out)
{
    int i;

    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    for (i = 0; i < n && i < 8; i++) {
        loops[i].in = in;
        loops[i].out = out;
        if (pthread_create(&loops[i].t, NULL, loop_main, &loops[i]))
            return -1;
        nloops = i + 1;
    }
    return 0;
}

/* the fewest rounds any looping thread has done */
long loops_rounds(void)
{
    long low = -1, r;
    int i;

    for (i = 0; i < nloops; i++) {
        r = __atomic_load_n(&loops[i].rounds, __ATOMIC_ACQUIRE);
        if (low < 0 || r < low)
            low = r;
    }
    return low;
}

/* n write-opens of dir/<tag><k>, in the calling thread: how many succeeded */
int write_many(const char *dir, const char *tag, int n)
{
    char p[8192];
    int k, fd, ok = 0;

    for (k = 0; k < n; k++) {
        snprintf(p, sizeof p, "%s/%s%d", dir, tag, k);
        fd = open(p, O_WRONLY | O_CREAT, 0644);
        if (fd >= 0) {
            close(fd);
            ok++;
        }
    }
    return ok;
}

/* the same from nthreads threads of their own, tags t0_, t1_, ...: the total */
struct many { pthread_t t; const char *dir; char tag[16]; int n, ok; };

static void *many_main(void *a)
{
    struct many *m = a;

    m->ok = write_many(m->dir, m->tag, m->n);
    return NULL;
}

int threads_write_many(const char *dir, int nthreads, int n)
{
    struct many m[8];
    int i, ok = 0;

    for (i = 0; i < nthreads && i < 8; i++) {
        m[i].dir = dir;
        m[i].n = n;
        snprintf(m[i].tag, sizeof m[i].tag, "t%d_", i);
        pthread_create(&m[i].t, NULL, many_main, &m[i]);
    }
    for (i = 0; i < nthreads && i < 8; i++) {
        pthread_join(m[i].t, NULL);
        ok += m[i].ok;
    }
    return ok;
}

/* stop and join; out[]: rounds, in_ok, in_bad, out_denied, out_bad summed */
void loops_stop(long *out)
{
    int i;

    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < nloops; i++) {
        pthread_join(loops[i].t, NULL);
        out[0] += loops[i].rounds;
        out[1] += loops[i].in_ok;
        out[2] += loops[i].in_bad;
        out[3] += loops[i].out_denied;
        out[4] += loops[i].out_bad;
    }
    nloops = 0;
}
'''

PRELUDE = '''
import ctypes, json, os, sys
from fastaudit import mk_audit
lib = ctypes.CDLL(sys.argv[1])
# looked up now: a context refuses ctypes' symbol lookups
for name in ('one_start', 'one_tid', 'one_join', 'loops_start', 'loops_rounds', 'loops_stop'):
    setattr(lib, name, getattr(lib, name))
lib.loops_rounds.restype = ctypes.c_long
sys_openat = ctypes.c_int.in_dll(lib, 'sys_openat').value
root, out, scratch = sys.argv[2], sys.argv[3], sys.argv[4]
res = {}

def places(n, tag):
    """n new directories, made before any context refuses making them."""
    ds = [os.path.join(scratch, '%s%d' % (tag, i)) for i in range(n)]
    for d in ds:
        os.mkdir(d)
    return ds

def churn(ds, keep=()):
    """Enter and leave a context of a distinct policy (a new root) for each of ds."""
    for d in ds:
        with mk_audit(list(keep) + [d], monitor_calls=False)():
            pass

def open_fds():
    return len(os.listdir('/proc/self/fd'))
'''


@pytest.fixture(scope='module')
def workers(tmp_path_factory):
    out = tmp_path_factory.mktemp('workers')
    src, lib = out / 'workers.c', out / 'libfaworkers.so'
    src.write_text(WORKERS_C)
    cc = (sysconfig.get_config_var('CC') or 'cc').split()
    subprocess.run(cc + ['-shared', '-fPIC', '-O1', '-pthread', '-o', str(lib), str(src)],
                   check=True)
    return str(lib)


def child(workers, root, outside, scratch, body, env=None, **kw):
    e = dict(os.environ, LD_PRELOAD=SHIM, FA_QUIET='1', PYTHONPATH=os.pathsep.join(sys.path))
    e.update(env or {})
    code = PRELUDE + textwrap.dedent(body) + '\nprint(json.dumps(res))\n'
    return subprocess.Popen([sys.executable, '-c', code, workers, str(root), str(outside),
                             str(scratch)], env=e, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def test_a_policy_outlives_its_context_while_a_native_thread_judges_with_it(
        workers, root, outside, tmp_path):
    """A native thread is refused under context A's policy and stays inside that
    call (the shim's log is a FIFO nobody reads yet, so its write-open sleeps)
    while the main thread leaves A and enters and leaves many other contexts.
    When it wakes it renders its log line from A's policy: the policy must
    still be there, roots and all."""
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    fifo = str(tmp_path / 'log.fifo')
    os.mkfifo(fifo)
    # a reader while the shim checks at start-up that the log can be opened
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    p = child(workers, root, outside, scratch, '''
        fifo = os.environ['FA_LOG']
        ds = places(40, 'c')
        print('ready', flush=True)
        sys.stdin.readline()
        ap = mk_audit([root], monitor_calls=False)
        with ap():
            target = os.fsencode(os.path.join(out, 'blocked'))   # the thread reads it later
            lib.one_start(target)
            while not lib.one_tid():
                pass
            # asleep in the shim's open of the log: openat(..., fifo, O_WRONLY|O_APPEND|...)
            want = '%d ' % sys_openat
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            while True:
                with open('/proc/self/task/%d/syscall' % lib.one_tid()) as f:
                    s = f.read().split()
                if s and s[0] + ' ' == want and int(s[3], 16) == flags:
                    break
        del ap
        churn(ds)
        fd = os.open(fifo, os.O_RDONLY)
        line = b''
        while not line.endswith(b'\\n'):
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            line += chunk
        os.close(fd)
        res['err'] = lib.one_join()
        res['log'] = json.loads(line)
    ''', env={'FA_LOG': fifo}, stdin=subprocess.PIPE)
    try:
        assert p.stdout.readline() == 'ready\n'
        os.close(rd)
        p.stdin.write('go\n')
        p.stdin.flush()
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, stderr
    r = json.loads(stdout.splitlines()[-1])
    assert r['err'] == 13
    log = r['log']
    assert log['path'] == os.path.join(str(outside), 'blocked')
    assert log['policy'] == 'context' and log['enforced'] is True
    assert log['roots'] == [os.path.realpath(root)], log
    assert os.listdir(outside) == []


def test_native_threads_judge_while_contexts_come_and_go(workers, root, outside, tmp_path):
    """Native threads write in a loop while the main thread, inside context B,
    enters and leaves hundreds of contexts of distinct policies (each
    allowing B's root and one of its own): the workers' answer is B's or the
    intersection of B and the other, both of which allow B's root and refuse
    the outside. Every answer must be one of those; then, with the threads
    stopped, the retired policies are freed (their pinned root descriptors
    are closed) rather than kept."""
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    p = child(workers, root, outside, scratch, '''
        import threading
        ds, warm, more = places(300, 'c'), places(20, 'w'), places(400, 'd')
        # context B stays entered in a thread of its own (a context cannot be
        # entered inside another), so that some context is always alive
        in_b, done = threading.Event(), threading.Event()
        def hold_b():
            with mk_audit([root], monitor_calls=False)():
                in_b.set()
                done.wait()
        t = threading.Thread(target=hold_b)
        t.start()
        in_b.wait()
        places_in, places_out = os.fsencode(root), os.fsencode(out)
        lib.loops_start(3, places_in, places_out)
        while lib.loops_rounds() < 1:
            pass
        churn(ds, keep=[root])
        seen = lib.loops_rounds()
        while lib.loops_rounds() < seen + 2:
            pass
        got = (ctypes.c_long * 5)()
        lib.loops_stop(got)
        done.set()
        t.join()
        res['rounds'], res['in_ok'], res['in_bad'], res['out_denied'], res['out_bad'] = list(got)
        churn(warm)
        before = open_fds()
        churn(more)
        res['fds_grew'] = open_fds() - before
    ''')
    stdout, stderr = p.communicate(timeout=300)
    assert p.returncode == 0, stderr
    r = json.loads(stdout.splitlines()[-1])
    assert r['rounds'] >= 6
    assert r['in_bad'] == 0 and r['out_bad'] == 0, r
    assert r['in_ok'] == r['rounds'] and r['out_denied'] == 2 * r['rounds'], r
    # 400 policies of one pinned root each were retired; a handful may wait for the next look
    assert r['fds_grew'] < 40, r
    assert os.listdir(outside) == []
