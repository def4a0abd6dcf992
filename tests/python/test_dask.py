# SPDX-License-Identifier: Apache-2.0
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
from fastaudit.dask import FastauditPlugin, FastauditWorkerWarning, worker_report  # noqa: E402
from tenant_tasks import (TASKS, check_confined, check_landed, clear, layout,  # noqa: E402
                          specs, tenant_task)

pytestmark = pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux only')
HERE = os.path.dirname(os.path.abspath(__file__))


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


def _run_graph(client, roots, outside):
    """16 tasks of 4 tenants, 8 through submit (pinned to both workers in
    turn), 8 through delayed + compute; (task, tenant, dirs, result) each."""
    workers = sorted(client.scheduler_info()['workers'])
    tasks = specs(roots, outside)
    futures, lazy = [], []
    for task, t, dirs in tasks:
        with dask.annotate(fastaudit_roots=[roots[t]]):
            if task < TASKS // 2:
                futures.append(client.submit(tenant_task, task, dirs, pure=False,
                                             workers=[workers[task % len(workers)]]))
            else:
                lazy.append(dask.delayed(tenant_task, pure=False)(task, dirs))
    results = client.gather(futures) + list(dask.compute(*lazy))
    return [(task, t, dirs, r) for (task, t, dirs), r in zip(tasks, results)]


def test_tenants_land_without_the_plugin_and_are_confined_with_it(cluster, tmp_path):
    client = cluster
    roots, outside, common = layout(os.path.realpath(str(tmp_path)))
    env_before = os.environ.get('LD_PRELOAD')

    # Without the plugin: the annotation alone confines nothing.
    check_landed(_run_graph(client, roots, outside))
    assert not any(client.run(native_in_worker).values())
    clear(roots + [outside])

    client.register_plugin(FastauditPlugin(roots=[common]))
    # The nannies live in this process: its environment is as it was.
    assert os.environ.get('LD_PRELOAD') == env_before
    native = client.run(native_in_worker)
    assert len(native) == 2 and all(native.values()), native

    results = _run_graph(client, roots, outside)
    assert len(results) == TASKS
    assert len({r['pid'] for _, _, _, r in results[:TASKS // 2]}) == 2
    refused_native = check_confined(results, roots, outside)

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

    # Roots given as one string are refused, as the task's error.
    with dask.annotate(fastaudit_roots=roots[1]):
        fut = client.submit(raising_task, os.path.join(roots[1], 'string'), pure=False)
    with pytest.raises(TypeError, match='list of directories'):
        fut.result()
    assert not os.path.exists(os.path.join(roots[1], 'string'))

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
        # The worker runs in this process: its warning is seen here.
        with pytest.warns(FastauditWorkerWarning, match='no nanny'):
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


def test_the_readme_recipe_prints_what_it_shows(tmp_path):
    """README.md's Dask block, run verbatim in TMP/home/me/proj as the
    README's runs are shown, prints the ```text block right after it."""
    import re
    import subprocess
    src = os.environ.get('FA_SRCDIR') or os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(src, 'README.md'), encoding='utf-8') as f:
        text = f.read()
    (block,) = [b for b in re.findall(r'^```python\n(.*?)^```$', text, re.S | re.M)
                if 'FastauditPlugin' in b]
    rest = text[text.index(block) + len(block) + 4:]
    shown = re.search(r'```text\n(.*?)^```$', rest, re.S | re.M).group(1)
    assert 'Run in `/home/me/proj`' in rest[:rest.index('```text')]
    top = os.path.realpath(str(tmp_path))
    proj = os.path.join(top, 'home', 'me', 'proj')
    os.makedirs(proj)
    with open(os.path.join(proj, 'recipe.py'), 'w') as f:
        f.write(block)
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    r = subprocess.run([sys.executable, 'recipe.py'], cwd=proj, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.replace(top, '') == shown, (r.stdout, r.stderr[-2000:])
    assert os.listdir(os.path.join(proj, 'tenants', 'a')) == ['out.txt']
    assert os.listdir(os.path.join(proj, 'tenants', 'b')) == []
