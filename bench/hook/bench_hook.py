# SPDX-License-Identifier: Apache-2.0
"""Cost of the fastaudit audit hook, against no hook, a no-op C hook and the
pure-Python reference implementation, in one run on one Python.

    python bench/hook/bench_hook.py --build BUILDDIR [--ref REF_PYTHON] [--shim LIBFASHIM]
                                    [--rounds N] [--rows ROW,...] [--instructions]

BUILDDIR is a configured and built tree (its pyhook/ holds the package).
REF_PYTHON is a Python of the same version with the reference fastaudit
installed (pip install fastaudit), e.g. build/bench-ref-3.12/bin/python.
Every variant runs in a process of its own (audit hooks cannot be removed),
started once and kept: the driver asks the variants for one round of a row
in turn, so every ratio is a pair measured side by side, and reports the
best time and the median of the paired ratios over the rounds. All the
variants run on one CPU, so a busy machine slows both sides of a pair alike.
--instructions counts instructions per iteration under valgrind's callgrind
instead of timing: the same code paths, repeatable on a busy machine
(user space only: system calls are not counted, and valgrind 3.19 does not
know openat2, so the engine takes its O_PATH walk there).
"""
import argparse
import json
import os
import shutil
import statistics
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

def timed(fn, n):
    """Per-iteration time in ns of fn(n)."""
    t = time.perf_counter_ns()
    fn(n)
    return (time.perf_counter_ns() - t) / n


def loop_event(n):
    audit = sys.audit
    for _ in range(n):
        audit('bench.event', 1)


def make_open_loop(path):
    def run(n):
        for _ in range(n):
            open(path, 'w').close()
    return run


def make_remove(d):
    """n os.remove of files created first, untimed. Under callgrind as many
    files are created whatever n (made): only the removals differ."""
    def run(n, made=0):
        names = [os.path.join(d, f'r{i}') for i in range(max(n, made))]
        for p in names:
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY))
        t = time.perf_counter_ns()
        for p in names[:n]:
            os.remove(p)
        return (time.perf_counter_ns() - t) / n
    return run


def dirs(base):
    d1 = os.path.join(base, 'r1')
    d5 = os.path.join(base, 'r5', 'a', 'b', 'c', 'd')
    os.makedirs(d1, exist_ok=True)
    os.makedirs(d5, exist_ok=True)
    return d1, d5


def task_steps(n):
    """n asyncio task steps (two tasks, each awaiting sleep(0) n/2 times)."""
    import asyncio

    async def one():
        for _ in range(n // 2):
            await asyncio.sleep(0)

    async def both():
        await asyncio.gather(one(), one())
    asyncio.run(both())


def inside(ap, fn):
    """fn run inside a fresh entry of ap; the entry and exit are not timed."""
    def run(n):
        with ap():
            return timed(fn, n)
    return run


def plain(fn):
    return lambda n: timed(fn, n)


def native_rows(base):
    """Native write-opens and task steps: outside any context, then inside one."""
    import asyncio  # noqa: F401  imported here: importing it inside a context is refused
    import fa_bench_noop
    d1, d5 = dirs(base)
    rows, info = {}, {}
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        rows[key + '_free'] = plain(lambda n, p=p: fa_bench_noop.write_opens(p, n))
    rows['py_open_free'] = plain(make_open_loop(os.path.join(d1, 'p')))
    rows['py_open5_free'] = plain(make_open_loop(os.path.join(d5, 'p')))
    rows['step_free'] = plain(task_steps)
    try:
        from fastaudit import mk_audit, audit_state
    except ImportError:
        # no context to enter: the "ctx" rows are the free ones, timed in the
        # same rounds as the other side's ctx rows, so each ratio is a pair
        for key in list(rows):
            rows[key[:-len('_free')] + '_ctx'] = rows[key]
        return rows, info
    info['native'] = audit_state()['native']
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        rows[key + '_ctx'] = inside(mk_audit([d], monitor_calls=False),
                                    lambda n, p=p: fa_bench_noop.write_opens(p, n))
    # Python's write-open with everything on: the hook judges, the shim opens
    rows['py_open_ctx'] = inside(mk_audit([d1], monitor_calls=False),
                                 make_open_loop(os.path.join(d1, 'p')))
    rows['py_open5_ctx'] = inside(mk_audit([os.path.join(base, 'r5')], monitor_calls=False),
                                  make_open_loop(os.path.join(d5, 'p')))
    # with an entry alive and the shim loaded every coroutine start and
    # resume is observed (3.12+)
    rows['step_ctx'] = inside(mk_audit([d1], monitor_calls=False), task_steps)
    return rows, info


def hook_rows(mode, base):
    import fa_bench_noop
    d1, d5 = dirs(base)
    rows = {}
    if mode == 'noop':
        fa_bench_noop.install()
    if mode in ('bare', 'noop'):
        rows['event'] = plain(loop_event)
    if mode == 'bare':
        rows['open1'] = plain(make_open_loop(os.path.join(d1, 'f')))
        # what a refused write-open is held against: a successful bare
        # write-open, timed in the same rounds as the refusal
        rows['deny_open'] = plain(make_open_loop(os.path.join(d1, 'g')))
        rows['open5'] = plain(make_open_loop(os.path.join(d5, 'f')))
        rows['remove'] = make_remove(d1)

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                f()
        rows['native'] = plain(native)
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
            rows['enter_on'] = plain(set_pair)
    if mode in ('bare', 'noop'):
        return rows
    # ours or the reference: the same public API
    from fastaudit import mk_audit
    mon = sys.version_info >= (3, 12)
    ap1 = mk_audit([d1], monitor_calls=mon)
    ap5 = mk_audit([os.path.join(base, 'r5')], monitor_calls=mon)
    off = mk_audit([d1], monitor_calls=False)
    rows['event'] = plain(loop_event)
    rows['open1'] = inside(ap1, make_open_loop(os.path.join(d1, 'f')))
    rows['open5'] = inside(ap5, make_open_loop(os.path.join(d5, 'f')))
    remove = make_remove(d1)

    def remove_inside(n, made=0):
        with ap1():
            return remove(n, made)
    rows['remove'] = remove_inside

    def deny_event(n):
        audit = sys.audit
        for _ in range(n):
            try:
                audit('bench.denied', 1)
            except PermissionError:
                pass
    rows['deny'] = inside(off, deny_event)
    outside = os.path.join(base, 'outside')

    def deny_open(n):
        for _ in range(n):
            try:
                open(outside, 'w')
            except PermissionError:
                pass
    rows['deny_open'] = inside(off, deny_open)

    def enter_leave(ap):
        def run(n):
            for _ in range(n):
                with ap():
                    pass
        return run
    rows['enter_off'] = plain(enter_leave(off))
    if mon:
        rows['enter_on'] = plain(enter_leave(ap1))

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                try:
                    f()
                except PermissionError:
                    pass
        rows['native'] = inside(ap1, native)
    return rows


def serve(mode, base, count):
    """Answer "row n" lines with the row's time per iteration, until EOF.
    With count ("row:n", under callgrind) run that row once and stop."""
    if mode == 'native':
        rows, info = native_rows(base)
    else:
        rows, info = hook_rows(mode, base), {}
    if count:
        row, n = count.split(':')
        if row == 'remove':
            rows[row](int(n), made=4000)
        elif row in rows:
            rows[row](int(n))
        print(json.dumps({}))
        return
    print(json.dumps({'rows': sorted(rows), **info}), flush=True)
    for line in sys.stdin:
        row, n = line.split()
        print(json.dumps(rows[row](int(n))), flush=True)


# ---- driver side ------------------------------------------------------------

class Worker:
    """One variant, in a process of its own for the whole run."""

    def __init__(self, python, mode, env, base, cpu=None):
        self.mode = mode
        # every variant on one CPU: a neighbour busy there slows all of them
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        self.p = subprocess.Popen(preexec_fn=pin, args=[python, os.path.abspath(__file__), '--worker', mode,
                                   '--base', base],
                                  env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        hello = self.p.stdout.readline()
        if not hello:
            raise SystemExit(f'{mode} worker failed:\n{self.p.stderr.read()}')
        self.info = json.loads(hello)
        self.rows = set(self.info.pop('rows'))

    def run(self, row, n):
        self.p.stdin.write(f'{row} {n}\n')
        self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out:
            raise SystemExit(f'{self.mode} worker failed in {row}:\n{self.p.stderr.read()}')
        return json.loads(out)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# iterations per round of each row: a round takes a few milliseconds
ITERS = {'event': 20000, 'open1': 300, 'open5': 300, 'remove': 300, 'deny': 2000,
         'deny_open': 300, 'enter_off': 2000, 'enter_on': 300, 'native': 2000,
         'n_open1_free': 1000, 'n_open5_free': 1000, 'n_open1_ctx': 1000,
         'n_open5_ctx': 1000, 'py_open_free': 300, 'py_open5_free': 300, 'py_open_ctx': 300,
         'py_open5_ctx': 300, 'step_free': 2000, 'step_ctx': 2000}


def paired(workers, rounds, only=None):
    """{mode: {row: [time per round]}}: each round asks every worker for each
    row in turn, the order rotating from round to round."""
    res = {w.mode: {} for w in workers}
    rows = sorted(set().union(*(w.rows for w in workers)), key=list(ITERS).index)
    rows = [row for row in rows if not only or row in only]
    for row in rows:
        have = [w for w in workers if row in w.rows]
        for r in range(rounds):
            k = r % len(have)
            for w in have[k:] + have[:k]:
                res[w.mode].setdefault(row, []).append(w.run(row, ITERS[row]))
    return res


def best(v):
    """The fastest round: what the operation costs when nothing else runs."""
    return min(v) if v else None


def ratio(a, b):
    """Median of the paired ratios a[i] / b[i]."""
    if not a or not b:
        return None
    return statistics.median(x / y for x, y in zip(a, b))


ROWS_BY_MODE = {
    'bare': ('event', 'open1', 'open5', 'remove', 'deny_open', 'native', 'enter_on'),
    'noop': ('event',),
    'ours': ('event', 'open1', 'open5', 'remove', 'deny', 'deny_open', 'enter_on', 'enter_off',
             'native'),
    'native': ('step_free', 'step_ctx'),
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


def fx(v):
    return f'{v:.2f}x' if v else '-'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', help='configured build tree with pyhook/')
    ap.add_argument('--ref', help='Python with the reference fastaudit installed')
    ap.add_argument('--shim', help='libfashim.so, for the native rows')
    ap.add_argument('--rounds', type=int, default=41, help='paired rounds per row (timing)')
    ap.add_argument('--rows', help='comma-separated rows to time (default: all)')
    ap.add_argument('--instructions', action='store_true',
                    help='count instructions per iteration with callgrind instead of timing')
    ap.add_argument('--worker')
    ap.add_argument('--base')
    ap.add_argument('--count', help='row:n (worker side of --instructions)')
    a = ap.parse_args()
    if a.worker:
        serve(a.worker, a.base, a.count)
        return
    tmp = tempfile.mkdtemp(prefix='fa-bench-')
    try:
        run(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(a, tmp):
    build_noop(tmp)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    env.pop('LD_PRELOAD', None)
    plain_env = dict(env, PYTHONPATH=tmp)
    ours_env = dict(env, PYTHONPATH=os.pathsep.join(
        [os.path.join(os.path.abspath(a.build), 'pyhook'), tmp]))
    shim_env = dict(ours_env, LD_PRELOAD=a.shim) if a.shim else None
    runs = [('bare', sys.executable, plain_env), ('noop', sys.executable, plain_env),
            ('ours', sys.executable, ours_env)]
    if a.ref:
        runs.append(('ref', a.ref, plain_env))
    if a.instructions:
        res = {}
        for mode, py, e in runs:
            res[mode] = instructions(py, mode, e, os.path.join(tmp, mode))
        if shim_env:
            res['n_bare'] = instructions(sys.executable, 'native', plain_env,
                                         os.path.join(tmp, 'nb'))
            res['n_shim'] = instructions(sys.executable, 'native', shim_env,
                                         os.path.join(tmp, 'ns'))
        print_instructions(res)
        return
    cpu = max(os.sched_getaffinity(0))
    workers = [Worker(py, mode, e, os.path.join(tmp, mode), cpu) for mode, py, e in runs]
    only = set(a.rows.split(',')) if a.rows else None
    res = paired(workers, a.rounds, only)
    for w in workers:
        w.close()
    if shim_env:
        nw = [Worker(sys.executable, 'native', plain_env, os.path.join(tmp, 'nb'), cpu),
              Worker(sys.executable, 'native', shim_env, os.path.join(tmp, 'ns'), cpu)]
        nw[0].mode, nw[1].mode = 'n_bare', 'n_shim'
        res.update(paired(nw, a.rounds, only))
        shim_on = nw[1].info.get('native')
        for w in nw:
            w.close()
    b, n, o, r = res['bare'], res['noop'], res['ours'], res.get('ref', {})
    print(f'fastaudit hook benchmark, Python {sys.version.split()[0]}: times are the best of '
          f'{a.rounds} rounds, ratios the median of {a.rounds} paired ratios')
    rows = [
        ('sys.audit event, no context active', 'event', n, '<= 1.2x no-op C hook'),
        ('write-open inside a context, root depth 1', 'open1', b, '<= 1.15x bare'),
        ('write-open inside a context, root depth 5', 'open5', b, '<= 1.15x bare'),
        ('os.remove inside a context', 'remove', b, '<= 1.25x bare'),
        ('a denial (event, with call chain)', 'deny', None, '<= 2 us'),
        # bare: a successful write-open, the yardstick of a refused one
        ('a denial (open outside the roots)', 'deny_open', b, '<= 0.5x a bare write-open'),
        # bare: the seed's set_events() on + off alone, at the same stack depth
        ('enter + leave, monitoring on', 'enter_on', b, '<= 5 us'),
        ('enter + leave, monitoring off', 'enter_off', None, '<= 1 us'),
        ('denied native call (monitor)', 'native', b, '<= 3 us'),
    ]
    print(f"{'what':44} {'bare':>10} {'no-op hook':>11} {'reference':>11} {'ours':>10} "
          f"{'ours/base':>10} {'ref/ours':>9}")
    if 'event' in b:
        print(f'  (no hook at all: {fmt(best(b["event"]))} per event)')
    for label, key, base, target in rows:
        ov, rv = o.get(key), r.get(key)
        if not ov and not rv:
            continue
        vs = f'{ratio(rv, ov):.1f}x' if ov and rv else '-'
        bare = best(b.get(key)) if key != 'event' else None
        print(f'{label:44} {fmt(bare):>10} {fmt(best(n.get(key))):>11} {fmt(best(rv)):>11} '
              f'{fmt(best(ov)):>10} {fx(ratio(ov, base.get(key)) if base else None):>10} '
              f'{vs:>9}' + (f'   (target {target})' if target else ''))
    if not shim_env:
        return
    nb, ns = res['n_bare'], res['n_shim']
    print(f"\nnative write-open (open+close from C), shim {'active' if shim_on else 'NOT active'}")
    print(f"{'what':44} {'no shim':>10} {'shim, no ctx':>13} {'shim, ctx':>10} "
          f"{'loaded/no':>10} {'ctx/no':>8}")
    for label, key in (('root depth 1', 'n_open1'), ('root depth 5', 'n_open5')):
        if key + '_free' not in nb:
            continue
        b0, f0, c0 = nb[key + '_free'], ns[key + '_free'], ns.get(key + '_ctx')
        print(f'{label:44} {fmt(best(b0)):>10} {fmt(best(f0)):>13} {fmt(best(c0)):>10} '
              f"{fx(ratio(f0, b0)):>10} {fx(ratio(c0, nb.get(key + '_ctx'))):>8}"
              '   (targets <= 1.02x / <= 1.10x)')
    for label, key in (('Python open() write, depth 1', 'py_open'),
                       ('Python open() write, depth 5', 'py_open5')):
        if key + '_free' not in nb:
            continue
        b0, f0, c0 = nb[key + '_free'], ns[key + '_free'], ns.get(key + '_ctx')
        print(f'{label:44} {fmt(best(b0)):>10} {fmt(best(f0)):>13} {fmt(best(c0)):>10} '
              f"{fx(ratio(f0, b0)):>10} {fx(ratio(c0, nb.get(key + '_ctx'))):>8}"
              '   (ctx: the hook and the shim)')
    if 'step_ctx' in ns:
        b0, f0, c0 = nb['step_free'], ns['step_free'], ns['step_ctx']
        print(f"{'asyncio task step (an entry alive: ctx)':44} {fmt(best(b0)):>10} "
              f'{fmt(best(f0)):>13} {fmt(best(c0)):>10} {fx(ratio(f0, b0)):>10} '
              f"{fx(ratio(c0, nb.get('step_ctx'))):>8}   (task switches observed)")


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
            ('a denial (open outside the roots)', 'deny_open', b.get('deny_open')),
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
    if 'n_shim' in res:
        nb, ns = res['n_bare'], res['n_shim']
        s0, s1, s2 = nb.get('step_free'), ns.get('step_free'), ns.get('step_ctx')
        print(f"\n{'asyncio task step':44} {'no shim':>9} {'shim, no ctx':>13} {'shim, ctx':>10} "
              f"{'per step':>9}")
        print(f"{'(two tasks awaiting sleep(0))':44} {f(s0):>9} {f(s1):>13} {f(s2):>10} "
              f"{('+' + f(s2 - s0)) if s0 and s2 else '-':>9}")
    print('(user-space instructions only: the system calls a write-open or a remove makes '
          'are not counted)')


if __name__ == '__main__':
    main()
