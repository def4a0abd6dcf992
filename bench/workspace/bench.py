# SPDX-License-Identifier: Apache-2.0
"""Workspace.open and safe_open against plain open() by absolute path and the
naive realpath + prefix + open pattern, for a relative path of depth 1 and 5.
One run; each figure is the best of several rounds. Not a test."""
import os
import sys
import tempfile
import time

from fastaudit.workspace import Workspace, safe_open

N = int(os.environ.get('BENCH_N', '20000'))
ROUNDS = 5


def best(fn):
    times = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) / N * 1e6


def naive_open(root, rel, mode):
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root, rel))
    if not target.startswith(real_root + os.sep):
        raise PermissionError(rel)
    return open(target, mode)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, 'root')
        os.makedirs(os.path.join(root, 'a', 'b', 'c', 'd'))
        ws = Workspace(root)
        print('%-8s %-22s %9s %8s' % ('depth', 'method', 'us/open', 'ratio'))
        for rel in ('f', 'a/b/c/d/f'):
            depth = rel.count('/') + 1
            path = os.path.join(root, rel)
            rng = range(N)

            def plain():
                for _ in rng:
                    open(path, 'wb').close()

            def naive():
                for _ in rng:
                    naive_open(root, rel, 'wb').close()

            def safe():
                for _ in rng:
                    safe_open(root, rel, 'wb').close()

            def wsopen():
                for _ in rng:
                    ws.open(rel, 'wb').close()

            base = best(plain)
            for name, fn in (('open(abs)', None), ('realpath+prefix+open', naive),
                             ('safe_open', safe), ('Workspace.open', wsopen)):
                us = base if fn is None else best(fn)
                print('%-8d %-22s %9.2f %7.2fx' % (depth, name, us, us / base))
        ws.close()
    print('python %s, N=%d, best of %d' % (sys.version.split()[0], N, ROUNDS))


if __name__ == '__main__':
    main()
