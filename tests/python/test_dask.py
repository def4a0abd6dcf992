"""Dask: tenants' tasks on shared workers, each confined to its own roots.

A real LocalCluster (two worker processes started by nannies, two threads
each) runs one graph of 16 tasks of 4 tenants, half through client.submit
and half through delayed + compute, each task annotated with its tenant's
root. Every task writes through Python's open, pyarrow (C++) and sqlite
(C, VACUUM INTO) into its own root, another tenant's and a directory no
tenant has. Without the plugin every write lands: the graph itself stops
nothing. With FastauditPlugin registered the own writes land and every
other one is refused with nothing created, by the audit hook (open) and by
the shim in the worker (pyarrow, sqlite).
"""
import asyncio
import os
import sys

import pytest

distributed = pytest.importorskip('distributed', reason='distributed is not installed '
                                  '(pip install fastaudit-native[dask])')
dask = pytest.importorskip('dask')
pytest.importorskip('pyarrow')

import fastaudit  # noqa: E402
from fastaudit.dask import FastauditPlugin, worker_report  # noqa: E402

TENANTS = 4
TASKS = 16
METHODS = ('open', 'pyarrow', 'sqlite')
TARGETS = ('own', 'other', 'outside')
pytestmark = pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux only')


def _write(method, path):
    if method == 'open':
        with open(path, 'w') as f:
            f.write('open')
    elif method == 'pyarrow':
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({'x': [1, 2, 3]}), path)
    else:
        import sqlite3
        db = sqlite3.connect(':memory:')
        db.execute('create table t(x)')
        db.execute('insert into t values (42)')
        db.commit()
        db.execute(f"vacuum into '{path}'")
        db.close()


def tenant_task(task, dirs):
    """A tenant's task as a model might write it: it knows nothing of fastaudit.
    Returns, per target and method, 'landed' or how the write failed."""
    out = {'pid': os.getpid()}
    for target in TARGETS:
        for method in METHODS:
            path = os.path.join(dirs[target], f'task{task}.{method}')
            try:
                _write(method, path)
                out[target, method] = 'landed'
            except Exception as e:
                out[target, method] = {'type': type(e).__name__,
                                       'errno': getattr(e, 'errno', None),
                                       'rule': getattr(e, 'rule', None),
                                       'fastaudit': getattr(e, 'fastaudit', None),
                                       'notes': getattr(e, '__notes__', [])}
    return out


def raising_task(path):
    with open(path, 'w') as f:
        f.write('x')


async def async_task(path):
    await asyncio.sleep(0)
    with open(path, 'w') as f:
        f.write('async')
    return 'written'


def native_in_worker():
    return fastaudit.audit_state()['native']


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=2,
                                  dashboard_address=None) as cl:
        with distributed.Client(cl) as client:
            yield client


def _layout(top):
    roots = [os.path.join(top, 'tenants', f't{i}') for i in range(TENANTS)]
    for d in roots + [os.path.join(top, 'outside'), os.path.join(top, 'common')]:
        os.makedirs(d)
    return roots, os.path.join(top, 'outside'), os.path.join(top, 'common')


def _run_graph(client, roots, outside):
    """16 tasks of 4 tenants, 8 through submit (pinned to both workers in
    turn), 8 through delayed + compute; (task, tenant, dirs, result) each."""
    workers = sorted(client.scheduler_info()['workers'])
    specs = []
    for task in range(TASKS):
        t = task % TENANTS
        dirs = {'own': roots[t], 'other': roots[(t + 1) % TENANTS], 'outside': outside}
        specs.append((task, t, dirs))
    futures, lazy = [], []
    for task, t, dirs in specs:
        with dask.annotate(fastaudit_roots=[roots[t]]):
            if task < TASKS // 2:
                futures.append(client.submit(tenant_task, task, dirs, pure=False,
                                             workers=[workers[task % len(workers)]]))
            else:
                lazy.append(dask.delayed(tenant_task, pure=False)(task, dirs))
    results = client.gather(futures) + list(dask.compute(*lazy))
    return [(task, t, dirs, r) for (task, t, dirs), r in zip(specs, results)]


def test_tenants_land_without_the_plugin_and_are_confined_with_it(cluster, tmp_path):
    client = cluster
    roots, outside, common = _layout(os.path.realpath(str(tmp_path)))
    env_before = os.environ.get('LD_PRELOAD')

    # Without the plugin: the annotation alone confines nothing.
    for task, t, dirs, r in _run_graph(client, roots, outside):
        for target in TARGETS:
            for method in METHODS:
                assert r[target, method] == 'landed', (task, target, method, r)
                assert os.path.exists(os.path.join(dirs[target], f'task{task}.{method}'))
    assert not any(client.run(native_in_worker).values())
    for d in roots + [outside]:
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))

    client.register_plugin(FastauditPlugin(roots=[common]))
    # The nannies live in this process: its environment is as it was.
    assert os.environ.get('LD_PRELOAD') == env_before
    native = client.run(native_in_worker)
    assert len(native) == 2 and all(native.values()), native

    results = _run_graph(client, roots, outside)
    assert len(results) == TASKS
    assert len({r['pid'] for _, _, _, r in results[:TASKS // 2]}) == 2
    refused_native = set()
    for task, t, dirs, r in results:
        for method in METHODS:
            path = os.path.join(dirs['own'], f'task{task}.{method}')
            assert r['own', method] == 'landed', (task, method, r)
            assert os.path.getsize(path) > 0
        for target in ('other', 'outside'):
            for method in METHODS:
                path = os.path.join(dirs[target], f'task{task}.{method}')
                got = r[target, method]
                assert got != 'landed', (task, target, method)
                assert not os.path.exists(path), path
                if method == 'open':     # the audit hook
                    assert got['type'] == 'AuditDenied' and got['rule'] == 'outside-roots', got
                    assert any('to allow: add' in n for n in got['notes']), got
                else:                    # the shim, in native code
                    assert got['type'] in ('PermissionError', 'OperationalError'), got
                    refused_native.add(path)
                    # On 3.12+ the exception carries the shim's note; the
                    # extension can give it to another thread's exception
                    # when two threads are refused at once, so only a note
                    # present is checked here (the count of refusals below
                    # is the shim's own).
                    if got['fastaudit'] is not None:
                        assert got['fastaudit']['layer'] == 'libc', got
                        assert got['fastaudit']['rule'] == 'outside-roots', got
    assert len(refused_native) == TASKS * 2 * 2
    # Nothing else was created anywhere.
    for i, d in enumerate(roots):
        mine = {f'task{task}.{m}' for task in range(i, TASKS, TENANTS) for m in METHODS}
        assert set(os.listdir(d)) == mine
    assert os.listdir(outside) == []

    # The workers' denials, from the client: the shim counted each native
    # refusal, and those it keeps are the tasks'.
    reports = client.run(worker_report)
    assert sum(rep['native_denial_count'] for rep in reports.values()) == len(refused_native)
    seen = {d['resolved'] for rep in reports.values()
            for d in rep['denials'] if d['layer'] == 'libc'}
    assert seen and seen <= refused_native, seen - refused_native
    assert sum(rep['audited_tasks'] for rep in reports.values()) == TASKS

    # A refusal the task does not catch is the task's exception in the client.
    with dask.annotate(fastaudit_roots=[roots[0]]):
        fut = client.submit(raising_task, os.path.join(roots[1], 'raised'), pure=False)
    with pytest.raises(fastaudit.AuditDenied) as info:
        fut.result()
    assert any('to allow: add' in n for n in info.value.__notes__)
    assert not os.path.exists(os.path.join(roots[1], 'raised'))

    # A task with no annotation runs in the plugin's own roots; a coroutine
    # task too.
    ok = client.submit(async_task, os.path.join(common, 'async'), pure=False)
    assert ok.result() == 'written'
    bad = client.submit(async_task, os.path.join(roots[0], 'async'), pure=False)
    with pytest.raises(fastaudit.AuditDenied):
        bad.result()
    assert not os.path.exists(os.path.join(roots[0], 'async'))

    # Workers the nannies restart get the shim again; this process keeps
    # its environment.
    client.restart()
    assert all(client.run(native_in_worker).values())
    assert os.environ.get('LD_PRELOAD') == env_before


def test_a_worker_without_a_nanny_says_so(tmp_path):
    top = os.path.realpath(str(tmp_path))
    inside, outside = os.path.join(top, 'in'), os.path.join(top, 'out')
    os.makedirs(inside)
    os.makedirs(outside)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cl, distributed.Client(cl) as client:
        client.register_plugin(FastauditPlugin())
        (report,) = client.run(worker_report).values()
        assert report['plugin'] and not report['native']
        assert 'no nanny' in report['native_reason']
        logs = [line for _, line in next(iter(client.get_worker_logs().values()))]
        assert sum('libfashim.so is not loaded' in line for line in logs) == 1, logs
        # Its tasks are still in contexts: the audit hook refuses.
        with dask.annotate(fastaudit_roots=[inside]):
            fut = client.submit(raising_task, os.path.join(outside, 'x'), pure=False)
        with pytest.raises(fastaudit.AuditDenied):
            fut.result()
        assert os.listdir(outside) == []
