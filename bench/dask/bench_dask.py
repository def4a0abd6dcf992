# SPDX-License-Identifier: Apache-2.0
"""What a task's audit context costs on Dask, and what the preload costs a worker.

    make bench-dask
    PYTHONPATH=BUILD/pyhook:SRC/pyhook python bench/dask/bench_dask.py [--rounds N]

Prints, from one run (not a test):

1. per task, in one worker process (one thread, the shim loaded through
   FastauditPlugin): the same task submitted unannotated and annotated with
   fastaudit_roots, in turn, for a 1 ms and a 100 ms task (a busy loop),
   as the client sees it (submit to result, one task at a time): medians,
   and the median of the paired differences;
2. the same pair inside the worker with the Dask round trip taken out: the
   task function called plainly and through audited() (the policy cached),
   and through audited(monitor_calls=False): on 3.12+ the first entry and
   the last exit of a context set and clear sys.monitoring events, which
   re-instruments the code on every thread's stack;
3. worker start-up: a worker's interpreter (python -c 'import
   distributed.worker') started without and with LD_PRELOAD of the shim,
   in turn; and client.restart() of a 2-worker LocalCluster without the
   shim and with it (the nanny preloading libfashim.so), median of rounds.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import dask
from distributed import Client, LocalCluster

import fastaudit
from fastaudit.dask import FastauditPlugin


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return seconds


def _paired(n, plain, audited):
    """n pairs of (plain, audited) timings, taken alternately so that load
    on the machine falls on both alike; their medians and the median of the
    paired differences, in seconds."""
    ps, auds, diffs = [], [], []
    for _ in range(n):
        t = time.perf_counter()
        plain()
        p = time.perf_counter() - t
        t = time.perf_counter()
        audited()
        a = time.perf_counter() - t
        ps.append(p)
        auds.append(a)
        diffs.append(a - p)
    return statistics.median(ps), statistics.median(auds), statistics.median(diffs)


def in_worker(seconds, n, root, **kw):
    """spin(seconds) called plainly and through audited(), in this worker."""
    audited = fastaudit.audited([root], **kw)(spin)
    audited(0)                     # the policy is made once, outside the timing
    return _paired(n, lambda: spin(seconds), lambda: audited(seconds))


def per_task(client, seconds, n, root):
    """A task submitted and awaited, unannotated and annotated, in turn."""
    def plain():
        client.submit(spin, seconds, pure=False).result()

    def audited():
        with dask.annotate(fastaudit_roots=[root]):
            f = client.submit(spin, seconds, pure=False)
        f.result()
    return _paired(n, plain, audited)


def restarts(rounds):
    def one(plugin):
        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                          dashboard_address=None) as cl, Client(cl) as c:
            if plugin:
                c.register_plugin(FastauditPlugin())
                assert all(c.run(lambda: fastaudit.audit_state()['native']).values())
            times = []
            for _ in range(rounds):
                t = time.perf_counter()
                c.restart()
                times.append(time.perf_counter() - t)
            return times
    bare, shim = one(False), one(True)
    ratios = [s / b for b, s in zip(bare, shim)]
    return statistics.median(bare), statistics.median(shim), statistics.median(ratios)


def startup(n):
    """A worker's interpreter start (python, import distributed.worker), without
    and with LD_PRELOAD of the shim, in turn: medians and the median of the
    paired differences, in seconds."""
    import subprocess
    cmd = [sys.executable, '-c', 'import distributed.worker']
    bare = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
    shim = dict(bare, LD_PRELOAD=fastaudit.shim_path())

    def run(env):
        return lambda: subprocess.run(cmd, env=env, check=True)
    run(bare)()
    return _paired(n, run(bare), run(shim))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=5)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix='fa-bench-dask-')
    print(f'Python {sys.version.split()[0]}, dask {dask.__version__}, {os.cpu_count()} CPUs, '
          f'{args.rounds} rounds')
    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cl, Client(cl) as client:
        client.register_plugin(FastauditPlugin())
        assert all(client.run(lambda: fastaudit.audit_state()['native']).values())
        for seconds, n in ((0.001, 400), (0.1, 20)):
            per_task(client, seconds, 5, root)          # warm up
            for where, got, unit in (
                    ('through Dask', per_task(client, seconds, n * args.rounds // 5, root),
                     'task'),
                    ('in the worker', client.submit(in_worker, seconds, n * args.rounds // 5,
                                                    root, pure=False).result(), 'call'),
                    ('in the worker, monitor_calls=False',
                     client.submit(in_worker, seconds, n * args.rounds // 5, root,
                                   monitor_calls=False, pure=False).result(), 'call')):
                plain, aud, diff = got
                print(f'task of {seconds * 1e3:g} ms {where}: unaudited {plain * 1e3:.3f} ms, '
                      f'audited {aud * 1e3:.3f} ms: {aud / plain:.3f}x, '
                      f'{diff * 1e6:+.0f} us/{unit} (median of paired differences)')
    plain, pre, diff = startup(4 * args.rounds)
    print(f'worker interpreter start (import distributed.worker): without the shim '
          f'{plain * 1e3:.0f} ms, with it {pre * 1e3:.0f} ms: {pre / plain:.3f}x, '
          f'{diff * 1e3:+.1f} ms (median of paired differences)')
    bare, shim, ratio = restarts(args.rounds)
    print(f'worker restart (2 workers, client.restart()): without the shim {bare:.2f} s, '
          f'with it {shim:.2f} s: {ratio:.2f}x')


if __name__ == '__main__':
    main()
