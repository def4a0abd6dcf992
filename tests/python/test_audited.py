# SPDX-License-Identifier: Apache-2.0
"""fastaudit.audited: functions, coroutines and generators run in a context.

Each test writes inside and outside the roots and counts what landed; the
context is the audit hook's (no shim is needed for open()), per thread and
per asyncio task.
"""
import asyncio
import inspect
import os
import pickle
import threading

import pytest

import fastaudit
from fastaudit import AuditDenied, audit_state, audited
from fastaudit._audited import policy


@pytest.fixture
def dirs(tmp_path):
    top = os.path.realpath(str(tmp_path))
    a, b = os.path.join(top, 'a'), os.path.join(top, 'b')
    os.makedirs(a)
    os.makedirs(b)
    return a, b


def touch(path):
    with open(path, 'w') as f:
        f.write('x')
    return path


def test_function_runs_in_its_roots_and_returns_unchanged(dirs):
    a, b = dirs

    @audited([a])
    def job(path, value):
        touch(path)
        assert audit_state()['preset'] == 'data'    # the host mode by default
        return value

    marker = object()
    assert job(os.path.join(a, '1'), marker) is marker
    with pytest.raises(AuditDenied) as info:
        job(os.path.join(b, '1'), marker)
    assert info.value.rule == 'outside-roots'
    assert os.listdir(b) == [] and os.listdir(a) == ['1']
    assert not audit_state()['active']               # left after each call
    touch(os.path.join(b, 'after'))

    err = ValueError('mine')

    @audited([a])
    def fails():
        raise err
    with pytest.raises(ValueError) as info:
        fails()
    assert info.value is err


def test_roots_per_call_and_the_signature(dirs):
    a, b = dirs

    @audited
    def job(path, *, n=1):
        return touch(path), audit_state()['roots']
    assert job(os.path.join(b, '1'), fastaudit_roots=[b]) == (os.path.join(b, '1'), (b,))
    with pytest.raises(AuditDenied):
        job(os.path.join(a, '1'), fastaudit_roots=[b])
    assert os.listdir(a) == []
    with pytest.raises(TypeError, match='no roots'):
        job(os.path.join(a, '2'))
    assert os.listdir(a) == []
    # Per-call roots replace the decorator's.
    fixed = audited([a])(lambda path: touch(path))
    fixed(os.path.join(b, '3'), fastaudit_roots=[b])
    with pytest.raises(AuditDenied):
        fixed(os.path.join(a, '3'), fastaudit_roots=[b])
    assert str(inspect.signature(job)) == '(path, *, n=1, fastaudit_roots=None)'
    assert job.fastaudit_function.__name__ == 'job'
    with pytest.raises(TypeError, match='fastaudit_roots'):
        audited([a])(lambda fastaudit_roots: None)
    with pytest.raises(TypeError, match='list of directories'):
        audited(a)


def test_one_policy_per_distinct_policy_made_once_across_threads(dirs):
    a, b = dirs
    got = []
    start = threading.Barrier(8)

    def make():
        start.wait()
        got.append(policy([a], preset='data', allow_imports=['json']))
    threads = [threading.Thread(target=make) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len({id(p) for p in got}) == 1
    assert policy([a], preset='data', allow_imports=('json',)) is got[0]
    assert policy([b], preset='data', allow_imports=['json']) is not got[0]
    assert policy([a], preset='data') is not got[0]


def test_coroutines_are_confined_per_task(dirs):
    a, b = dirs

    @audited([a])
    async def confined(path, started, go):
        started.set()
        await go.wait()
        touch(path)

    async def free(path, started, go):
        await started.wait()
        touch(path)          # while the audited task waits: not in its context
        go.set()

    async def main():
        started, go = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(confined(os.path.join(b, 'c'), started, go),
                                    free(os.path.join(b, 'f'), started, go),
                                    return_exceptions=True)
    res = asyncio.run(main())
    assert isinstance(res[0], AuditDenied) and res[1] is None
    assert os.listdir(b) == ['f']


def test_generator_steps_are_confined_not_the_consumer(dirs):
    a, b = dirs

    @audited([a])
    def gen(n):
        got = yield 'first'
        assert got == 'sent'
        for i in range(n):
            yield touch(os.path.join(a, str(i)))
        try:
            yield 'last'
        except KeyError:
            touch(os.path.join(b, 'from-gen'))
        return 'done'

    g = gen(2)
    assert next(g) == 'first'
    touch(os.path.join(b, 'consumer'))             # between steps: free
    assert g.send('sent') == os.path.join(a, '0')
    assert next(g) == os.path.join(a, '1')
    assert next(g) == 'last'
    with pytest.raises(AuditDenied):
        g.throw(KeyError('x'))
    assert sorted(os.listdir(b)) == ['consumer']
    assert sorted(os.listdir(a)) == ['0', '1']

    @audited([a])
    def returns():
        yield 1
        return 'value'

    def outer():
        return (yield from returns())
    o = outer()
    assert next(o) == 1
    with pytest.raises(StopIteration) as info:
        next(o)
    assert info.value.value == 'value'


def test_async_generator_steps_are_confined(dirs):
    a, b = dirs

    @audited([a])
    async def agen():
        yield touch(os.path.join(a, 'in'))
        yield touch(os.path.join(b, 'out'))

    async def main():
        seen = []
        with pytest.raises(AuditDenied):
            async for v in agen():
                seen.append(v)
                touch(os.path.join(b, 'consumer'))
        return seen
    assert asyncio.run(main()) == [os.path.join(a, 'in')]
    assert os.listdir(b) == ['consumer']


def test_with_block_and_pickling(dirs):
    a, b = dirs
    guard = audited([a])
    with guard:
        touch(os.path.join(a, 'w'))
        with pytest.raises(AuditDenied):
            touch(os.path.join(b, 'w'))
    touch(os.path.join(b, 'after'))
    assert os.listdir(b) == ['after']
    copy = pickle.loads(pickle.dumps(guard))
    assert copy.roots == [a] and copy.mk_audit_kwargs == {'preset': 'data'}
    with copy:
        with pytest.raises(AuditDenied):
            touch(os.path.join(b, 'again'))
    assert fastaudit.audited is audited


def test_the_package_imports_without_dask_or_ray():
    import subprocess
    import sys
    code = ('import sys\n'
            "sys.modules['distributed'] = sys.modules['ray'] = None\n"
            'import fastaudit, fastaudit.ray\n'
            'assert fastaudit.audited\n'
            'try:\n'
            '    import fastaudit.dask\n'
            'except ImportError as e:\n'
            '    print(e)\n')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert 'pip install fastaudit-native[dask]' in r.stdout, r.stdout
