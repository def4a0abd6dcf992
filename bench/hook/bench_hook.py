"""Cost of the fastaudit audit hook, against no hook, a no-op C hook and the
pure-Python reference implementation, in one run on one Python.

    python bench/hook/bench_hook.py --build BUILDDIR [--ref REF_PYTHON] [--instructions]

BUILDDIR is a configured and built tree (its pyhook/ holds the package).
REF_PYTHON is a Python of the same version with the reference fastaudit
installed (pip install fastaudit), e.g. build/bench-ref-3.12/bin/python.
Every variant runs in a fresh process: audit hooks cannot be removed.
--instructions counts instructions per iteration under valgrind's callgrind
instead of timing: the same code paths, repeatable on a busy machine.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

NOOP_C = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fcntl.h>
#include <unistd.h>

static int hook(const char *event, PyObject *args, void *data) { return 0; }

static PyObject *install(PyObject *m, PyObject *a)
{
    if (PySys_AddAuditHook(hook, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *noop(PyObject *m, PyObject *a) { Py_RETURN_NONE; }

/* n write-opens of one path from native code, as a C library would do them */
static PyObject *write_opens(PyObject *m, PyObject *args)
{
    const char *path;
    long n, i;
    if (!PyArg_ParseTuple(args, "sl", &path, &n))
        return NULL;
    for (i = 0; i < n; i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        close(fd);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS, NULL},
    {"noop", noop, METH_NOARGS, NULL},
    {"write_opens", write_opens, METH_VARARGS, NULL},
    {NULL},
};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "fa_bench_noop", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fa_bench_noop(void) { return PyModule_Create(&def); }
'''


def build_noop(out):
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext
    src = os.path.join(out, 'noop.c')
    with open(src, 'w') as f:
        f.write(NOOP_C)
    dist = Distribution({'name': 'fa-bench-noop',
                         'ext_modules': [Extension('fa_bench_noop', [src])]})
    cmd = build_ext(dist)
    cmd.build_lib, cmd.build_temp = out, os.path.join(out, 'tmp')
    cmd.ensure_finalized()
    with open(os.devnull, 'w') as null:
        saved = os.dup(1), os.dup(2)
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            cmd.run()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)


# ---- worker side ----------------------------------------------------------

# (row, n) when a worker runs under callgrind: only that row runs, once.
_COUNT = None


def best(fn, n, repeat=5, row=None):
    """Best per-iteration time in ns of fn(n) over repeat runs."""
    if _COUNT:
        if row == _COUNT[0]:
            fn(_COUNT[1])
        return 0.0
    out = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn(n)
        out.append((time.perf_counter_ns() - t) / n)
    return min(out)


def loop_event(n):
    audit = sys.audit
    for _ in range(n):
        audit('bench.event', 1)


def make_open_loop(path):
    def run(n):
        for _ in range(n):
            open(path, 'w').close()
    return run


def remove_cost(d, n=2000):
    """Time os.remove alone over pre-created files."""
    if _COUNT:
        if _COUNT[0] != 'remove':
            return 0.0
        # as many files whatever the count: only the removals differ
        names = [os.path.join(d, f'r{i}') for i in range(4000)]
        for p in names:
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY))
        for p in names[:_COUNT[1]]:
            os.remove(p)
        return 0.0
    names = [os.path.join(d, f'r{i}') for i in range(n)]
    res = []
    for _ in range(3):
        for p in names:
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY))
        t = time.perf_counter_ns()
        for p in names:
            os.remove(p)
        res.append((time.perf_counter_ns() - t) / n)
    return min(res)


def dirs(base):
    d1 = os.path.join(base, 'r1')
    d5 = os.path.join(base, 'r5', 'a', 'b', 'c', 'd')
    os.makedirs(d1, exist_ok=True)
    os.makedirs(d5, exist_ok=True)
    return d1, d5


def native_worker(base):
    """Native write-opens: outside any context, then inside one (bridge)."""
    import fa_bench_noop
    d1, d5 = dirs(base)
    r = {}
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        r[key + '_free'] = best(lambda n: fa_bench_noop.write_opens(p, n), 5000, row=key + '_free')
    r['py_open_free'] = best(make_open_loop(os.path.join(d1, 'p')), 3000, row='py_open_free')
    r['step_free'] = best(task_steps, 20000, row='step_free')
    try:
        from fastaudit import mk_audit, audit_state
    except ImportError:
        return r
    r['native'] = audit_state()['native']
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        ap = mk_audit([d], monitor_calls=False)
        with ap():
            r[key + '_ctx'] = best(lambda n: fa_bench_noop.write_opens(p, n), 5000, row=key + '_ctx')
    # with an entry alive and the shim loaded every coroutine start and
    # resume is observed (3.12+)
    with mk_audit([d1], monitor_calls=False)():
        r['step_ctx'] = best(task_steps, 20000, row='step_ctx')
    return r


def task_steps(n):
    """n asyncio task steps (two tasks, each awaiting sleep(0) n/2 times)."""
    import asyncio

    async def one():
        for _ in range(n // 2):
            await asyncio.sleep(0)

    async def both():
        await asyncio.gather(one(), one())
    asyncio.run(both())


def worker(mode, base):
    import fa_bench_noop
    if mode == 'native':
        return native_worker(base)
    r = {}
    d1, d5 = dirs(base)
    if mode == 'bare':
        r['event'] = best(loop_event, 200000, row='event')
        r['open1'] = best(make_open_loop(os.path.join(d1, 'f')), 3000, row='open1')
        r['open5'] = best(make_open_loop(os.path.join(d5, 'f')), 3000, row='open5')
        r['remove'] = remove_cost(d1)

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                f()
        r['native'] = best(native, 200000, row='native')
        if sys.version_info >= (3, 12):
            # the floor of a monitoring entry + exit: the seed's set_events()
            # on the first entry and off on the last exit, at the same depth
            m = sys.monitoring
            m.use_tool_id(5, 'bench')
            m.register_callback(5, m.events.CALL, lambda *a: None)

            def set_pair(n):
                for _ in range(n):
                    m.set_events(5, m.events.CALL)
                    m.set_events(5, 0)
            r['enter_on'] = best(set_pair, 5000, row='enter_on')
        return r
    if mode == 'noop':
        fa_bench_noop.install()
        r['event'] = best(loop_event, 200000, row='event')
        return r
    # ours or the reference: the same public API
    from fastaudit import mk_audit
    mon = sys.version_info >= (3, 12)
    ap1 = mk_audit([d1], monitor_calls=mon)
    ap5 = mk_audit([os.path.join(base, 'r5')], monitor_calls=mon)
    off = mk_audit([d1], monitor_calls=False)
    r['event'] = best(loop_event, 200000, row='event')
    with ap1():
        r['open1'] = best(make_open_loop(os.path.join(d1, 'f')), 3000, row='open1')
        r['remove'] = remove_cost(d1)
    with ap5():
        r['open5'] = best(make_open_loop(os.path.join(d5, 'f')), 3000, row='open5')

    def deny_event(n):
        audit = sys.audit
        for _ in range(n):
            try:
                audit('bench.denied', 1)
            except PermissionError:
                pass
    with off():
        r['deny'] = best(deny_event, 20000, row='deny')
    outside = os.path.join(base, 'outside')

    def deny_open(n):
        for _ in range(n):
            try:
                open(outside, 'w')
            except PermissionError:
                pass
    with off():
        r['deny_open'] = best(deny_open, 20000, row='deny_open')

    def enter_leave(ap):
        def run(n):
            for _ in range(n):
                with ap():
                    pass
        return run
    r['enter_off'] = best(enter_leave(off), 20000, row='enter_off')
    if mon:
        r['enter_on'] = best(enter_leave(ap1), 5000, row='enter_on')

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                try:
                    f()
                except PermissionError:
                    pass
        with ap1():
            r['native'] = best(native, 20000, row='native')
    return r


# ---- driver side ------------------------------------------------------------

def run_worker(python, mode, env, base):
    out = subprocess.run([python, os.path.abspath(__file__), '--worker', mode, '--base', base],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f'{mode} worker failed:\n{out.stderr}')
    return json.loads(out.stdout)


ROWS_BY_MODE = {
    'bare': ('event', 'open1', 'open5', 'remove', 'native', 'enter_on'),
    'noop': ('event',),
    'ours': ('event', 'open1', 'open5', 'remove', 'deny', 'deny_open', 'enter_on', 'enter_off',
             'native'),
}
ROWS_BY_MODE['ref'] = ROWS_BY_MODE['ours']


def count_row(python, mode, env, base, row, n):
    """Instructions valgrind's callgrind counts for one run of row with n iterations."""
    out = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null',
                          python, os.path.abspath(__file__), '--worker', mode, '--base', base,
                          '--count', f'{row}:{n}'],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f'{mode} {row} under callgrind failed:\n{out.stderr[-2000:]}')
    for line in out.stderr.splitlines():
        if 'refs:' in line:
            return int(line.split('refs:')[1].replace(',', ''))
    raise SystemExit(f'no instruction count from callgrind:\n{out.stderr[-2000:]}')


def instructions(python, mode, env, base):
    """Per-iteration instructions of each row: (count at 3n - count at n) / 2n."""
    from concurrent.futures import ThreadPoolExecutor
    r = {}

    def one(row):
        n = 10000 if row == 'event' else 1000
        lo = count_row(python, mode, env, base, row, n)
        hi = count_row(python, mode, env, base, row, 3 * n)
        return row, (hi - lo) / (2 * n)
    rows = [row for row in ROWS_BY_MODE[mode] if row != 'enter_on' or sys.version_info >= (3, 12)]
    with ThreadPoolExecutor(2) as ex:
        for row, v in ex.map(one, rows):
            r[row] = v
    return r


def fmt(ns):
    if ns is None:
        return '-'
    return f'{ns:.0f} ns' if ns < 1000 else f'{ns / 1000:.2f} us'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', help='configured build tree with pyhook/')
    ap.add_argument('--ref', help='Python with the reference fastaudit installed')
    ap.add_argument('--shim', help='libfashim.so, for the native rows')
    ap.add_argument('--instructions', action='store_true',
                    help='count instructions per iteration with callgrind instead of timing')
    ap.add_argument('--worker')
    ap.add_argument('--base')
    ap.add_argument('--count', help='row:n (worker side of --instructions)')
    a = ap.parse_args()
    if a.worker:
        global _COUNT
        if a.count:
            row, n = a.count.split(':')
            _COUNT = (row, int(n))
        print(json.dumps(worker(a.worker, a.base)))
        return
    tmp = tempfile.mkdtemp(prefix='fa-bench-')
    build_noop(tmp)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    plain = dict(env, PYTHONPATH=tmp)
    ours_env = dict(env, PYTHONPATH=os.pathsep.join(
        [os.path.join(os.path.abspath(a.build), 'pyhook'), tmp]))
    res = {}
    runs = [('bare', sys.executable, plain), ('noop', sys.executable, plain),
            ('ours', sys.executable, ours_env)]
    if a.ref:
        runs.append(('ref', a.ref, plain))
    if a.instructions:
        for mode, py, e in runs:
            res[mode] = instructions(py, mode, e, os.path.join(tmp, mode))
        print_instructions(res)
        return
    for mode, py, e in runs:
        res[mode] = run_worker(py, mode, e, os.path.join(tmp, mode))
    if a.shim:
        res['n_bare'] = run_worker(sys.executable, 'native', plain, os.path.join(tmp, 'nb'))
        res['n_shim'] = run_worker(sys.executable, 'native', dict(ours_env, LD_PRELOAD=a.shim),
                                   os.path.join(tmp, 'ns'))
    b, n, o, r = res['bare'], res['noop'], res['ours'], res.get('ref', {})
    print(f'fastaudit hook benchmark, Python {sys.version.split()[0]}, best of 5')
    rows = [
        ('sys.audit event, no context active', 'event', n['event'], '<= 1.2x no-op C hook'),
        ('write-open inside a context, root depth 1', 'open1', b['open1'], '<= 1.15x bare'),
        ('write-open inside a context, root depth 5', 'open5', b['open5'], '<= 1.15x bare'),
        ('os.remove inside a context', 'remove', b['remove'], '<= 1.25x bare'),
        ('a denial (event, with call chain)', 'deny', None, '<= 2 us'),
        ('a denial (open outside the roots)', 'deny_open', None, None),
        # bare: the seed's set_events() on + off alone, at the same stack depth
        ('enter + leave, monitoring on', 'enter_on', b.get('enter_on'), '<= 5 us'),
        ('enter + leave, monitoring off', 'enter_off', None, '<= 1 us'),
        ('denied native call (monitor)', 'native', b['native'], '<= 3 us'),
    ]
    print(f"{'what':44} {'bare':>10} {'no-op hook':>11} {'reference':>11} {'ours':>10} "
          f"{'ours/base':>10} {'ref/ours':>9}")
    print(f'  (no hook at all: {fmt(b["event"])} per event)')
    for label, key, base, target in rows:
        ov, rv = o.get(key), r.get(key)
        ratio = f'{ov / base:.2f}x' if ov and base else '-'
        vs = f'{rv / ov:.1f}x' if ov and rv else '-'
        bare = b.get(key) if key != 'event' else None
        print(f'{label:44} {fmt(bare):>10} {fmt(n.get(key)):>11} {fmt(rv):>11} {fmt(ov):>10} '
              f'{ratio:>10} {vs:>9}' + (f'   (target {target})' if target else ''))

    if a.shim:
        nb, ns = res['n_bare'], res['n_shim']
        print(f"\nnative write-open (open+close from C), shim {'active' if ns.get('native') else 'NOT active'}")
        print(f"{'what':44} {'no shim':>10} {'shim, no ctx':>13} {'shim, ctx':>10} "
              f"{'loaded/no':>10} {'ctx/no':>8}")
        for label, key in (('root depth 1', 'n_open1'), ('root depth 5', 'n_open5')):
            b0, f0, c0 = nb[key + '_free'], ns[key + '_free'], ns.get(key + '_ctx')
            print(f'{label:44} {fmt(b0):>10} {fmt(f0):>13} {fmt(c0):>10} {f0 / b0:>9.2f}x '
                  f'{(c0 / b0 if c0 else 0):>7.2f}x   (targets <= 1.02x / <= 1.10x)')
        b0, f0 = nb['py_open_free'], ns['py_open_free']
        print(f"{'Python open() write, no context':44} {fmt(b0):>10} {fmt(f0):>13} {'-':>10} "
              f'{f0 / b0:>9.2f}x')
        if 'step_ctx' in ns:
            b0, f0, c0 = nb['step_free'], ns['step_free'], ns['step_ctx']
            print(f"{'asyncio task step (an entry alive: ctx)':44} {fmt(b0):>10} {fmt(f0):>13} "
                  f'{fmt(c0):>10} {f0 / b0:>9.2f}x {c0 / b0:>7.2f}x   (task switches observed)')


def print_instructions(res):
    b, n, o, r = res['bare'], res['noop'], res['ours'], res.get('ref', {})
    print(f'fastaudit hook benchmark, Python {sys.version.split()[0]}, '
          'instructions per iteration (callgrind, (3n - n) / 2n)')
    print(f"{'what':44} {'bare':>9} {'no-op hook':>11} {'reference':>10} {'ours':>9} "
          f"{'ours/base':>10} {'ref/ours':>9}")
    rows = [('sys.audit event, no context active', 'event', n.get('event')),
            ('write-open inside a context, root depth 1', 'open1', b.get('open1')),
            ('write-open inside a context, root depth 5', 'open5', b.get('open5')),
            ('os.remove inside a context', 'remove', b.get('remove')),
            ('a denial (event, with call chain)', 'deny', None),
            ('a denial (open outside the roots)', 'deny_open', None),
            ('enter + leave, monitoring on', 'enter_on', b.get('enter_on')),
            ('enter + leave, monitoring off', 'enter_off', None),
            ('denied native call (monitor)', 'native', b.get('native'))]

    def f(v):
        return '-' if v is None else f'{v:.0f}'
    for label, key, base in rows:
        ov, rv = o.get(key), r.get(key)
        print(f"{label:44} {f(b.get(key) if key != 'event' else b.get('event')):>9} "
              f"{f(n.get(key)):>11} {f(rv):>10} {f(ov):>9} "
              f"{(f'{ov / base:.2f}x' if ov and base else '-'):>10} "
              f"{(f'{rv / ov:.1f}x' if ov and rv else '-'):>9}")
    print('(user-space instructions only: the system calls a write-open or a remove makes '
          'are not counted)')


if __name__ == '__main__':
    main()
