"""What a task's audit context costs on Dask, and what the preload costs a worker.

    PYTHONPATH=BUILD/pyhook:SRC/pyhook python bench/bench_dask.py [--rounds N]

Prints, from one run (not a test):

1. per task, in one worker process (one thread, the shim loaded through
   FastauditPlugin): the same task submitted unannotated and annotated with
   fastaudit_roots, for a 1 ms and a 100 ms task (a busy loop), as the
   client sees it (submit to result, one task at a time); the median of
   paired rounds, and the overhead per task in microseconds;
2. the same pair inside the worker with the Dask round trip taken out: the
   task function called plainly and through audited() (the policy cached);
3. worker start-up: client.restart() of a 2-worker LocalCluster without
   the shim and with it (the nanny preloading libfashim.so), median of
   paired rounds.
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


def in_worker(seconds, n, root):
    """Seconds per call of spin(seconds), plain and audited, in this worker."""
    audited = fastaudit.audited([root])(spin)
    audited(0)                     # the policy is made once, outside the timing
    out = {}
    for name, fn, kw in (('plain', spin, {}), ('audited', audited, {})):
        t = time.perf_counter()
        for _ in range(n):
            fn(seconds, **kw)
        out[name] = (time.perf_counter() - t) / n
    return out


def per_task(client, seconds, n, root):
    """Seconds per task, one task at a time, unannotated then annotated."""
    out = {}
    for name in ('plain', 'audited'):
        t = time.perf_counter()
        for _ in range(n):
            if name == 'audited':
                with dask.annotate(fastaudit_roots=[root]):
                    f = client.submit(spin, seconds, pure=False)
            else:
                f = client.submit(spin, seconds, pure=False)
            f.result()
        out[name] = (time.perf_counter() - t) / n
    return out


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
        for seconds, n in ((0.001, 200), (0.1, 10)):
            per_task(client, seconds, 5, root)          # warm up
            plain, aud = [], []
            for _ in range(args.rounds):
                got = per_task(client, seconds, n, root)
                plain.append(got['plain'])
                aud.append(got['audited'])
            ratio = statistics.median(a / p for p, a in zip(plain, aud))
            over = statistics.median(a - p for p, a in zip(plain, aud)) * 1e6
            print(f'task of {seconds * 1e3:g} ms through Dask: unaudited '
                  f'{statistics.median(plain) * 1e3:.3f} ms, audited '
                  f'{statistics.median(aud) * 1e3:.3f} ms: {ratio:.3f}x, {over:+.0f} us/task')
            rows = [client.submit(in_worker, seconds, n, root, pure=False).result()
                    for _ in range(args.rounds)]
            ratio = statistics.median(r['audited'] / r['plain'] for r in rows)
            over = statistics.median(r['audited'] - r['plain'] for r in rows) * 1e6
            print(f'task of {seconds * 1e3:g} ms in the worker:  plain '
                  f'{statistics.median(r["plain"] for r in rows) * 1e3:.3f} ms, audited '
                  f'{statistics.median(r["audited"] for r in rows) * 1e3:.3f} ms: '
                  f'{ratio:.3f}x, {over:+.1f} us/call')
    bare, shim, ratio = restarts(args.rounds)
    print(f'worker restart (2 workers, client.restart()): without the shim {bare:.2f} s, '
          f'with it {shim:.2f} s: {ratio:.2f}x')


if __name__ == '__main__':
    main()
