# SPDX-License-Identifier: Apache-2.0
"""Thread pools write on behalf of whichever task handed them the work.

A native pool (pyarrow's) has threads that run no Python code of their own:
while contexts are alive they are judged under all of them at once. A
ThreadPoolExecutor's work submitted inside a context runs in a copy of the
submitter's Context. Each case runs in a fresh interpreter with libfashim.so
preloaded (test_native.run) and compares the disk afterwards.
"""
import os
import sys
from textwrap import dedent

import pytest

from test_native import SHIM, run

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')

ARROW = '''
    import threading
    import pyarrow as pa, pyarrow.parquet as pq
    t = pa.table({'k': [1, 2, 1], 'v': [1, 2, 3]})
    def write(key, where):
        try:
            pq.write_to_dataset(t, where, partition_cols=['k'])
            res[key] = 'ok'
        except OSError as e:
            res[key] = 'refused'
            notes = getattr(e, '__notes__', ())
            res[key + '_noted'] = any(where in n and 'denied' in n for n in notes)
    def held_elsewhere(audit):
        """audit's context, entered by another thread until the returned call."""
        entered, done = threading.Event(), threading.Event()
        def other():
            with audit():
                entered.set()
                done.wait()
        th = threading.Thread(target=other)
        th.start()
        entered.wait()
        def release():
            done.set()
            th.join()
        return release
'''


def arrow(native_mods, root, outside, body):
    pytest.importorskip('pyarrow.parquet')
    return run(native_mods, root, outside, dedent(ARROW) + dedent(body))


def notes_ok(r):
    # notes come from sys.monitoring RAISE (3.12+); every refusal has one
    return all(v is True for k, v in r.items() if k.endswith('_noted')) or sys.version_info < (3, 12)


def results(r):
    return {k: v for k, v in r.items() if not k.endswith('_noted')}


def test_arrow_pool_started_before_a_context(native_mods, root, outside, tmp_path):
    b = tmp_path / 'b'
    b.mkdir()
    r = arrow(native_mods, root, outside, f'''
        b = {str(b)!r}
        write('warm', b + '/warm')            # the pool's threads start here, outside
        with mk_audit([root], monitor_calls=False)():
            write('a_in', root + '/ds')
            write('a_out', out + '/ds')
        with mk_audit([b], monitor_calls=False)():
            write('b_in', b + '/ds')
            write('b_into_a', root + '/ds2')
        write('after', out + '/after')
    ''')
    assert results(r) == {'warm': 'ok', 'a_in': 'ok', 'a_out': 'refused', 'b_in': 'ok',
                          'b_into_a': 'refused', 'after': 'ok'}
    assert notes_ok(r), r
    assert os.listdir(outside) == ['after']
    assert os.listdir(root) == ['ds'] and sorted(os.listdir(b)) == ['ds', 'warm']


def test_arrow_pool_started_inside_a_context_that_ended(native_mods, root, outside, tmp_path):
    """Threads the pool starts inside context A do not keep A's policy."""
    b = tmp_path / 'b'
    b.mkdir()
    r = arrow(native_mods, root, outside, f'''
        b = {str(b)!r}
        with mk_audit([root], monitor_calls=False)():
            write('a_in', root + '/ds')       # the pool's threads start here
        with mk_audit([b], monitor_calls=False)():
            write('b_in', b + '/ds')
            write('b_into_a', root + '/ds2')
        write('after', out + '/after')
    ''')
    assert results(r) == {'a_in': 'ok', 'b_in': 'ok', 'b_into_a': 'refused', 'after': 'ok'}
    assert notes_ok(r), r
    assert os.listdir(outside) == ['after'] and os.listdir(root) == ['ds']


def test_arrow_pool_judged_under_every_live_context(native_mods, root, outside, tmp_path):
    """Two threads in two contexts at once: a pool write must be allowed by
    both (root is in both, b only in the second, outside in neither)."""
    b = tmp_path / 'b'
    b.mkdir()
    r = arrow(native_mods, root, outside, f'''
        b = {str(b)!r}
        write('warm', b + '/warm')
        release = held_elsewhere(mk_audit([root, b], monitor_calls=False))
        with mk_audit([root], monitor_calls=False)():
            write('both', root + '/ds')
            write('only_other', b + '/ds')
            write('neither', out + '/ds')
        release()
        write('after', b + '/after')
    ''')
    assert results(r) == {'warm': 'ok', 'both': 'ok', 'only_other': 'refused',
                          'neither': 'refused', 'after': 'ok'}
    assert notes_ok(r), r
    assert os.listdir(outside) == [] and os.listdir(root) == ['ds']
    assert sorted(os.listdir(b)) == ['after', 'warm']


def test_arrow_pool_keeps_every_live_contexts_deny_subtrees(native_mods, root, outside, tmp_path):
    """The other context's deny subtree (from its policy file) holds for the
    pool though the writing context's own roots allow it."""
    (root / 'keep').mkdir()
    pol = tmp_path / 'fa.policy'
    pol.write_text(f'root {root}\ndeny {root}/keep\n')
    r = arrow(native_mods, root, outside, f'''
        write('warm', out + '/warm')
        release = held_elsewhere(mk_audit(policy={str(pol)!r}, monitor_calls=False))
        with mk_audit([root], monitor_calls=False)():
            write('root', root + '/ds')
            write('kept', root + '/keep/ds')
        release()
    ''')
    assert results(r) == {'warm': 'ok', 'root': 'ok', 'kept': 'refused'}
    assert notes_ok(r), r
    assert os.listdir(root / 'keep') == [] and sorted(os.listdir(root)) == ['ds', 'keep']


POOL = '''
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(2)
    def py_write(path, data):
        with open(path, 'w') as f:
            f.write(data)
    def submit(key, fn, path):
        try:
            r = pool.submit(fn, path, 'x').result()
            res[key] = 'ok' if r is None else repr(r)
        except OSError as e:
            res[key] = 'PermissionError' if e.errno is None else 'errno %d' % e.errno
    # both of the pool's threads start here, outside any context (a thread
    # start inside one is refused): two items that wait for each other
    import threading
    both = threading.Barrier(2)
    [f.result() for f in [pool.submit(both.wait), pool.submit(both.wait)]]
'''


@pytest.mark.parametrize('how', ['py_write', 'fa_probe.write_file', 'fa_probe.write_file_nogil'])
def test_executor_work_runs_in_the_submitters_context(native_mods, root, outside, tmp_path, how):
    b = tmp_path / 'b'
    b.mkdir()
    r = run(native_mods, root, outside, dedent(POOL) + dedent(f'''
        b = {str(b)!r}
        fn = {how}
        submit('before', fn, out + '/before')
        with mk_audit([root], monitor_calls=False)():
            submit('a_in', fn, root + '/a')
            submit('a_out', fn, out + '/a')
        with mk_audit([b], monitor_calls=False)():
            submit('b_in', fn, b + '/b')
            submit('b_into_a', fn, root + '/b')
        submit('after', fn, out + '/after')
    '''))
    refused = 'PermissionError' if how == 'py_write' else 'errno 13'
    assert r == {'before': 'ok', 'a_in': 'ok', 'a_out': refused, 'b_in': 'ok',
                 'b_into_a': refused, 'after': 'ok'}
    assert sorted(os.listdir(outside)) == ['after', 'before']
    assert os.listdir(root) == ['a'] and os.listdir(b) == ['b']


def test_executor_work_of_an_unaudited_task_stays_free(native_mods, root, outside):
    """Interleaved submissions from an audited and an unaudited asyncio task
    through run_in_executor: each work item gets its submitter's answer,
    also for a GIL-released first write on a worker that ran the other's."""
    r = run(native_mods, root, outside, dedent(POOL) + dedent('''
        ap = mk_audit([root], monitor_calls=False)
        async def audited(i):
            loop = asyncio.get_running_loop()
            with ap():
                for k in range(3):
                    try:
                        await loop.run_in_executor(pool, fa_probe.write_file_nogil, out + f'/aud{i}{k}', 'x')
                        res[f'aud{i}{k}'] = 'ok'
                    except OSError as e:
                        res[f'aud{i}{k}'] = 'errno %d' % e.errno
        async def free(i):
            loop = asyncio.get_running_loop()
            for k in range(3):
                await loop.run_in_executor(pool, fa_probe.write_file_nogil, out + f'/free{i}{k}', 'x')
                res[f'free{i}{k}'] = 'ok'
        async def main():
            await asyncio.gather(audited(0), free(0), audited(1), free(1))
        asyncio.run(main())
    '''))
    wrong = {k: v for k, v in r.items() if v != ('errno 13' if k.startswith('aud') else 'ok')}
    assert wrong == {} and len(r) == 12
    assert sorted(os.listdir(outside)) == sorted(k for k in r if k.startswith('free'))


def test_executor_follows_contexts_without_the_shim(native_mods, root, outside):
    r = run(native_mods, root, outside, dedent(POOL) + dedent('''
        with mk_audit([root], monitor_calls=False)():
            submit('a_in', py_write, root + '/a')
            submit('a_out', py_write, out + '/a')
    '''), preload=False)
    assert r == {'a_in': 'ok', 'a_out': 'PermissionError'}
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_note_when_a_later_denial_is_not_readable_yet(native_mods, root, outside):
    """A native worker's denial is readable; another worker's denial is
    numbered after it but held before its record is written (the loader's
    lock, which the shim takes to name the caller, is held by a dlopen()).
    The exception raised meanwhile still carries the first one's note."""
    probe_dir = os.path.dirname(native_mods[0].__file__)
    blocker = [f for f in os.listdir(probe_dir) if f.startswith('fa_blocker')][0]
    r = run(native_mods, root, outside, f'''
        fa_probe.prepare_hold({os.path.join(probe_dir, blocker)!r})
        with mk_audit([root], monitor_calls=False)():
            attempt('first', fa_probe.thread_write, out + '/first')
            n = audit_state()['native_denial_count']
            attempt('held', fa_probe.hold_loader_lock, out + '/second')
            while audit_state()['native_denial_count'] == n:
                pass                          # the second denial is numbered
            try:
                raise PermissionError(13, 'Permission denied', out + '/first')
            except OSError as e:
                res['notes'] = getattr(e, '__notes__', [])
            attempt('released', fa_probe.release_loader_lock)
    ''')
    assert r['first'] == 'False' and r['held'] == 'ok' and r['released'] == 'ok'
    assert len(r['notes']) == 1 and str(outside / 'first') in r['notes'][0], r
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='call monitoring is 3.12+')
@pytest.mark.parametrize('preload', [True, False])
def test_executor_work_meets_the_call_monitor(native_mods, root, outside, preload):
    """An undeclared native function handed to a pool from a monitored
    context is refused like a direct call to it (the seed's fastaudit.call),
    though no CALL event announces it in the worker."""
    r = run(native_mods, root, outside, dedent(POOL) + dedent('''
        with mk_audit([root])():
            attempt('direct', fa_probe.write_file, root + '/direct', 'x')
            submit('pooled', fa_probe.write_file, root + '/pooled')
            submit('python', py_write, root + '/python')
        with mk_audit([root], on_call=lambda *a: False)():
            submit('allowed', fa_probe.write_file, root + '/allowed')
    '''), preload=preload)
    assert r == {'direct': 'PermissionError', 'pooled': 'PermissionError', 'python': 'ok',
                 'allowed': 'ok'}
    assert sorted(os.listdir(root)) == ['allowed', 'python'] and os.listdir(outside) == []
