# SPDX-License-Identifier: Apache-2.0
"""Ray: tenants' tasks and an actor's methods, each call confined to its roots.

ray.init(num_cpus=2) starts a local Ray with the runtime_env of
fastaudit.ray.runtime_env(): every worker starts with the shim preloaded.
The tenants' task of tenant_tasks.py runs 16 times for 4 tenants as a plain
@ray.remote function (every write lands: nothing confines it) and as an
@audited one whose roots each call gives (fastaudit_roots=[...]): then its
own writes land and the others are refused with nothing created, by the
audit hook and by the shim in the worker. An actor's @audited method is
confined the same way, and a refusal is the task's exception in the driver.
"""
import os
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith('linux'), reason='Linux only')
ray = pytest.importorskip('ray', reason='ray is not installed: no wheel of ray for this '
                          'Python or platform (pip install fastaudit-native[ray])')
pytest.importorskip('pyarrow')

import fastaudit  # noqa: E402
import fastaudit.ray  # noqa: E402
from tenant_tasks import check_confined, check_landed, clear, layout, specs, tenant_task  # noqa: E402,E501

HERE = os.path.dirname(os.path.abspath(__file__))


def in_worker():
    s = fastaudit.audit_state()
    return os.getpid(), s['native'], s['native_denial_count']


class Store:
    """An actor that writes what it is given under the roots of each call."""

    @fastaudit.audited()
    def put(self, path, text):
        with open(path, 'w') as f:
            f.write(text)
        return fastaudit.audit_state()['roots']


@pytest.fixture(scope='module')
def local_ray(tmp_path_factory):
    # The workers import this directory's tenant_tasks, and the fastaudit
    # the tests import (the build tree's, through PYTHONPATH, or the
    # installed one).
    path = os.pathsep.join(p for p in (HERE, os.environ.get('PYTHONPATH')) if p)
    env = fastaudit.ray.runtime_env({'env_vars': {'PYTHONPATH': path}})
    before = os.environ.get('LD_PRELOAD')
    ray.init(num_cpus=2, runtime_env=env, include_dashboard=False, log_to_driver=False,
             _temp_dir=str(tmp_path_factory.mktemp('ray')))
    # The driver keeps its own environment.
    assert os.environ.get('LD_PRELOAD') == before
    try:
        yield
    finally:
        ray.shutdown()


def test_runtime_env_composes_a_preload():
    env = fastaudit.ray.runtime_env({'env_vars': {'LD_PRELOAD': '/x/libother.so', 'A': 1},
                                     'pip': ['six']})
    shim = fastaudit.shim_path()
    assert env['env_vars'] == {'LD_PRELOAD': shim + ':/x/libother.so', 'A': '1'}
    assert env['pip'] == ['six']
    assert env['worker_process_setup_hook'] == 'fastaudit.ray.check_worker'
    with pytest.raises(ValueError, match='setup_hook=False'):
        fastaudit.ray.runtime_env({'worker_process_setup_hook': 'x.y'})


def test_tenants_land_plain_and_are_confined_audited(local_ray, tmp_path):
    roots, outside, _ = layout(os.path.realpath(str(tmp_path)))
    plain = ray.remote(tenant_task)
    confined = ray.remote(fastaudit.audited(tenant_task))
    tasks = specs(roots, outside)

    refs = [plain.remote(task, dirs) for task, _, dirs in tasks]
    check_landed([(task, t, dirs, r) for (task, t, dirs), r in zip(tasks, ray.get(refs))])
    clear(roots + [outside])

    refs = [confined.remote(task, dirs, fastaudit_roots=[roots[t]]) for task, t, dirs in tasks]
    results = [(task, t, dirs, r) for (task, t, dirs), r in zip(tasks, ray.get(refs))]
    refused_native = check_confined(results, roots, outside)

    # Every worker that ran a task has the shim, and between them the shims
    # counted each native refusal (the plain tasks' writes were in no context).
    probe = ray.remote(in_worker)
    pids = {r['pid'] for _, _, _, r in results}
    seen = {}
    for _ in range(20):
        for pid, native, n in ray.get([probe.remote() for _ in range(8)]):
            assert native, pid
            seen[pid] = n
        if pids <= set(seen):
            break
    assert pids <= set(seen), (pids, seen)
    assert sum(seen[p] for p in pids) == len(refused_native)


def test_an_actor_method_is_confined_per_call(local_ray, tmp_path):
    top = os.path.realpath(str(tmp_path))
    a, b = os.path.join(top, 'a'), os.path.join(top, 'b')
    os.makedirs(a)
    os.makedirs(b)
    store = ray.remote(Store).remote()
    assert ray.get(store.put.remote(os.path.join(a, 'x'), 'a', fastaudit_roots=[a])) == (a,)
    with pytest.raises(fastaudit.AuditDenied) as info:    # Ray's RayTaskError(AuditDenied)
        ray.get(store.put.remote(os.path.join(b, 'x'), 'b', fastaudit_roots=[a]))
    cause = info.value.cause                              # the worker's AuditDenied
    assert isinstance(cause, fastaudit.AuditDenied) and cause.rule == 'outside-roots'
    assert any('to allow: add' in n for n in cause.__notes__)
    assert os.listdir(b) == []
    with open(os.path.join(a, 'x')) as f:
        assert f.read() == 'a'


def test_a_worker_without_the_shim_says_so(local_ray):
    # A task's own runtime_env that preloads nothing: its worker starts
    # without the shim, and the job's setup hook, check_worker, says why.
    @ray.remote(runtime_env={'env_vars': {'LD_PRELOAD': ''}})
    def without():
        import warnings
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter('always')
            loaded = fastaudit.ray.check_worker()
        return loaded, fastaudit.audit_state()['native'], [str(w.message) for w in seen]
    loaded, native, msgs = ray.get(without.remote())
    assert not loaded and not native
    assert len(msgs) == 1 and 'LD_PRELOAD does not name it' in msgs[0], msgs


def _array():
    import numpy as np
    return np.ones(2 ** 20)


@fastaudit.audited()
def _object_store_work():
    """Inside a context: put an 8 MiB array in the object store, get another
    from a nested task; what the shim refused meanwhile in this worker."""
    import numpy as np
    before = fastaudit.audit_state()['native_denial_count']
    ref = ray.put(np.zeros(2 ** 20))
    total = float(ray.get(ref).sum() + ray.get(ray.remote(_array).remote()).sum())
    return total, fastaudit.audit_state()['native_denial_count'] - before


def test_a_worker_needs_no_roots_of_its_own_for_the_object_store(local_ray, tmp_path):
    # The task's only root is its own directory: neither the session
    # directory nor /dev/shm.
    root = os.path.realpath(str(tmp_path))
    total, refused = ray.get(ray.remote(_object_store_work).remote(fastaudit_roots=[root]))
    assert total == 2 ** 20 and refused == 0
    assert os.listdir(root) == []
