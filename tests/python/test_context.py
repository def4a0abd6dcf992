# SPDX-License-Identifier: Apache-2.0
"""Contexts follow tasks, not threads or scheduling order; origins are reported."""
import asyncio
import contextvars
import os
import sys
import threading

import pytest

from conftest import MON
from fastaudit import audit_state




def test_interleaved_tasks_with_and_without_context(mk, root, outside):
    ap = mk([root])
    log = []

    async def audited():
        with ap():
            for i in range(5):
                with pytest.raises(PermissionError):
                    open(outside / f'a{i}', 'w')
                open(root / f'a{i}', 'w').close()
                log.append(('audited', i))
                await asyncio.sleep(0)

    async def free():
        for i in range(5):
            open(outside / f'f{i}', 'w').close()
            log.append(('free', i))
            await asyncio.sleep(0)

    async def main():
        await asyncio.gather(audited(), free(), free())
    asyncio.run(main())
    kinds = [k for k, _ in log]
    assert kinds[:3] == ['audited', 'free', 'free']   # they really interleaved
    assert sorted(os.listdir(outside)) == [f'f{i}' for i in range(5)]
    assert sorted(os.listdir(root)) == [f'a{i}' for i in range(5)]


def test_child_task_inherits_context(mk, root, outside):
    ap = mk([root])

    async def child():
        await asyncio.sleep(0)
        open(outside / 'x', 'w')

    async def main():
        with ap():
            task = asyncio.ensure_future(child())
        # the entering block is gone, the child's copy still audits
        with pytest.raises(PermissionError) as ei:
            await task
        return str(ei.value)
    msg = asyncio.run(main())
    assert 'Audit context entered in thread ' in msg
    assert "'MainThread'" in msg and 'test_child_task_inherits_context' in msg
    assert not (outside / 'x').exists()


def test_context_copied_into_thread(mk, root, outside):
    ap = mk([root], monitor_calls=False)
    out = {}
    with ap():
        ctx = contextvars.copy_context()

    def worker():
        try:
            ctx.run(open, outside / 't', 'w')
        except PermissionError as e:
            out['msg'] = str(e)
        out['plain'] = audit_state()['active']
    # the thread is started outside the context (threads are denied inside)
    t = threading.Thread(target=worker, name='copier')
    t.start()
    t.join()
    assert out['plain'] is False
    msg = out['msg']
    assert msg.startswith(f"open {str(outside / 't')!r} not in")
    assert "\nAudit context entered in thread 'MainThread' by: " in msg
    assert msg.rstrip().endswith('test_context.test_context_copied_into_thread')
    assert not (outside / 't').exists()


def test_origin_names_the_entering_thread_after_it_ended(mk, root, outside):
    ap = mk([root], monitor_calls=False)
    got = {}

    def enter():
        with ap():
            got['ctx'] = contextvars.copy_context()
    t = threading.Thread(target=enter, name='entering-thread')
    t.start()
    t.join()
    with pytest.raises(PermissionError) as ei:
        got['ctx'].run(open, outside / 'o', 'w')
    msg = str(ei.value)
    assert "\nAudit context entered in thread 'entering-thread' by: " in msg
    assert msg.rstrip().endswith('.enter')
    assert not (outside / 'o').exists()


def test_thread_outside_context_unaffected(mk, root, outside):
    ap = mk([root], monitor_calls=False)
    done = threading.Event()
    go = threading.Event()

    def worker():
        go.wait()
        open(outside / 'w', 'w').close()
        done.set()
    t = threading.Thread(target=worker)
    t.start()
    with ap():
        go.set()
        done.wait(5)
    t.join()
    assert (outside / 'w').exists()


def test_nested_contexts_restore(mk, root, outside):
    outer = mk([root])
    wide = mk(None)
    with wide():
        open(outside / 'a', 'w').close()
        assert audit_state()['active']
    with outer():
        with pytest.raises(PermissionError):
            open(outside / 'b', 'w')
        # a context nested inside another one is a policy change: denied
        with pytest.raises(PermissionError):
            with wide():
                pass
        with outer():
            with pytest.raises(PermissionError):
                open(outside / 'c', 'w')
        with pytest.raises(PermissionError):
            open(outside / 'c', 'w')
    assert audit_state()['active'] is False
    open(outside / 'd', 'w').close()


def test_nested_context_allowed_by_host(mk, root, outside):
    outer = mk([root], before_deny=lambda ev, *a: ev == 'audit_perms.set_config')
    wide = mk(None)
    with outer():
        with wide():
            open(outside / 'ok', 'w').close()
        with pytest.raises(PermissionError):
            open(outside / 'no', 'w')


def test_exit_from_other_context_is_an_error(mk, root):
    ap = mk([root], monitor_calls=False)
    cm = ap()
    ctx = contextvars.copy_context()
    ctx.run(cm.__enter__)
    with pytest.raises(ValueError):
        cm.__exit__(None, None, None)
    assert audit_state()['active'] is False


def test_stray_exit_from_another_thread_keeps_the_context(mk, root, outside):
    ap = mk([root])
    cm = ap()
    errors = []
    go = threading.Event()

    def stray():
        go.wait()
        try:
            cm.__exit__(None, None, None)
        except Exception as e:
            errors.append(e)
    # threads cannot be started inside a context
    t = threading.Thread(target=stray)
    t.start()
    with cm:
        go.set()
        t.join()
        # the context is still in force for the thread that entered it
        assert audit_state()['active'] is True
        with pytest.raises(PermissionError):
            open(outside / 'x', 'w')
        if MON:
            assert sys.monitoring.get_events(audit_state()['tool_id']) == sys.monitoring.events.CALL
    assert len(errors) == 1 and isinstance(errors[0], ValueError)
    assert audit_state()['active'] is False
    if MON:
        assert sys.monitoring.get_events(audit_state()['tool_id']) == 0
    open(outside / 'y', 'w').close()


def test_set_data_seen_by_next_entry(mk, root):
    seen = []
    ap = mk([root], before_deny=lambda ev, a, f, m, data, c: seen.append(data), data='one')
    with ap():
        with pytest.raises(PermissionError):
            os.system('true')
    ap.set_data('two')
    with ap():
        with pytest.raises(PermissionError):
            os.system('true')
    assert seen == ['one', 'two']
