# SPDX-License-Identifier: Apache-2.0
"""What a host sees after its contexts: no entry kept alive by finished
tasks, and a native denial's note on the exception for that call alone.

Each case runs a fresh interpreter with libfashim.so preloaded
(test_native.run) and reports what happened as JSON.
"""
import os
import sys
from textwrap import dedent

import pytest

from test_native import SHIM, run

pytestmark = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')


def test_finished_tasks_keep_no_entry_alive(native_mods, root, outside):
    """Audited tasks gathered on a loop that lives on: once they are done,
    nothing counts as live, and the host's own native pool writes where it
    likes, in the same step (3.12+: a task names its Context) and later."""
    pytest.importorskip('pyarrow.parquet')
    r = run(native_mods, root, outside, '''
        import pyarrow as pa, pyarrow.parquet as pq
        audit = mk_audit([root], monitor_calls=False, native_calls='libc')
        table = pa.table({'k': [1, 2, 1], 'v': [1, 2, 3]})
        def host_write(key):
            try:
                pq.write_to_dataset(table, out + '/' + key, partition_cols=['k'])
                res[key] = 'ok'
            except OSError as e:
                res[key] = str(e).splitlines()[0]
        async def task(i):
            with open(root + '/t%d' % i, 'w') as f:
                f.write('x')
            await asyncio.sleep(0)
            return i
        async def main():
            with audit():
                res['inside'] = audit_state()['live_entries'] > 0
                res['got'] = await asyncio.gather(*(task(i) for i in range(5)))
            res['active'] = audit_state()['active']
            res['same_step'] = audit_state()['live_entries']
            if sys.version_info >= (3, 12):
                host_write('same')
            await asyncio.sleep(0)
            res['next_step'] = audit_state()['live_entries']
            host_write('later')
        loop = asyncio.new_event_loop()      # a host's loop: it stays open
        loop.run_until_complete(main())
    ''')
    assert r['inside'] is True and r['got'] == [0, 1, 2, 3, 4] and r['active'] is False
    assert r['next_step'] == 0 and r['later'] == 'ok', r
    if sys.version_info >= (3, 12):
        assert r['same_step'] == 0 and r['same'] == 'ok', r
    assert sorted(os.listdir(root)) == ['t%d' % i for i in range(5)]
    assert 'later' in os.listdir(outside)


def test_workers_done_keep_no_entry_alive(native_mods, root, outside):
    """Work run in a copy of the context on a pool's thread: the copy is
    gone when the work is, and so is the entry."""
    r = run(native_mods, root, outside, '''
        from concurrent.futures import ThreadPoolExecutor
        ex = ThreadPoolExecutor(2)
        ex.submit(int).result()          # the threads exist before the context
        with mk_audit([root], monitor_calls=False)():
            attempt('in', ex.submit(fa_probe.write_file, root + '/w', 'x').result)
        res['live'] = audit_state()['live_entries']
        attempt('host', fa_probe.write_file_nogil, out + '/h', 'x')
    ''')
    assert r == {'in': 'ok', 'live': 0, 'host': 'ok'}
    assert os.listdir(outside) == ['h']


@pytest.mark.skipif(sys.version_info < (3, 11), reason='create_task(context=) is 3.11+')
def test_a_context_shared_by_tasks_stays_audited(native_mods, root, outside):
    """A task that finishes gives up its entry only where its Context is its
    own: another task running in the same Context stays audited."""
    r = run(native_mods, root, outside, """
        import contextvars
        audit = mk_audit([root], monitor_calls=False)
        async def quick():
            return 1
        async def slow(gate):
            await gate.wait()
            attempt('slow_out', lambda: open(out + '/x', 'w').close())
            attempt('slow_native', fa_probe.write_file_nogil, out + '/n', 'x')
        async def main():
            with audit():
                ctx = contextvars.copy_context()
            loop = asyncio.get_running_loop()
            gate = asyncio.Event()
            first = loop.create_task(quick(), context=ctx)
            second = loop.create_task(slow(gate), context=ctx)
            del ctx
            await first
            await asyncio.sleep(0)
            gate.set()
            await second
        asyncio.run(main())
    """)
    assert r == {'slow_out': 'PermissionError', 'slow_native': 'errno 13'}
    assert os.listdir(outside) == []


NOTES = '''
    import sqlite3
    def noted(e):
        return sum('denied' in n for n in getattr(e, '__notes__', ()))
    def attempt_noted(key, fn, *a):
        try:
            fn(*a)
            res[key] = 'ok'
        except Exception as e:
            res[key] = [type(e).__name__, noted(e)]
    con = sqlite3.connect(root + '/db.sqlite')
    con.execute('create table t(x)')
    con.commit()
    audit = mk_audit([root], monitor_calls=False)
'''


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_native_note_goes_to_the_refused_call_alone(native_mods, root, outside):
    r = run(native_mods, root, outside, dedent(NOTES) + dedent('''
        with audit():
            try:
                con.execute("VACUUM INTO '%s/copy.db'" % out)
            except sqlite3.Error as e:
                res['vacuum'] = [type(e).__name__, noted(e)]
            for i in range(3):
                try:
                    int('x')
                except ValueError as e:
                    res['int%d' % i] = noted(e)
        with mk_audit([root], monitor_calls=False)():
            try:
                open(out + '/other', 'w')
            except PermissionError as e:
                res['other_context'] = noted(e)
        # the same helper frame, at the same instruction, for the refused
        # call and for the ones after it
        with audit():
            attempt_noted('helper_vacuum', con.execute, "VACUUM INTO '%s/copy2.db'" % out)
            attempt_noted('helper_int', int, 'x')
            attempt_noted('helper_int2', int, 'y')
            attempt_noted('helper_native', fa_probe.write_file, out + '/n', 'x')
            attempt_noted('helper_after', int, 'z')
    '''))
    assert r['vacuum'] == ['OperationalError', 1], r
    assert [r['int0'], r['int1'], r['int2'], r['other_context']] == [0, 0, 0, 0], r
    assert r['helper_vacuum'] == ['OperationalError', 1], r
    assert r['helper_int'] == r['helper_int2'] == ['ValueError', 0], r
    assert r['helper_native'] == ['PermissionError', 1] and r['helper_after'] == ['ValueError', 0], r
    assert os.listdir(outside) == []


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_native_note_reaches_a_library_reraise(native_mods, root, outside):
    """A library that turns the refusal into its own exception while handling
    the first (raise ... from, or in an except block) keeps the note."""
    r = run(native_mods, root, outside, dedent(NOTES) + dedent('''
        class LibError(Exception):
            pass
        def library_write(path):
            try:
                con.execute("VACUUM INTO '%s'" % path)
            except sqlite3.Error as e:
                raise LibError('could not copy') from e
        with audit():
            attempt_noted('reraised', library_write, out + '/copy.db')
            attempt_noted('next', int, 'x')
    '''))
    assert r == {'reraised': ['LibError', 1], 'next': ['ValueError', 0]}


@pytest.mark.skipif(sys.version_info < (3, 12), reason='notes come from sys.monitoring RAISE (3.12+)')
def test_a_noted_call_keeps_no_frame_alive(native_mods, root, outside):
    """Where the note was given is kept to know the refused call's later
    exceptions, but not the locals of frames that returned since."""
    r = run(native_mods, root, outside, dedent(NOTES) + dedent('''
        import weakref
        class Big:
            pass
        def copy_out():
            big = Big()
            try:
                con.execute("VACUUM INTO '%s/copy.db'" % out)
            except sqlite3.Error as e:
                res['noted'] = noted(e)
            return weakref.ref(big)
        with audit():
            ref = copy_out()
            try:
                int('x')
            except ValueError as e:
                res['int'] = noted(e)
            res['freed'] = ref() is None
    '''))
    assert r == {'noted': 1, 'int': 0, 'freed': True}
