# SPDX-License-Identifier: Apache-2.0
"""The tenants' task that test_dask.py and test_ray.py run on real clusters.

It is written as a model might write it: it knows nothing of fastaudit. It
writes through Python's open (seen by the audit hook), pyarrow (C++) and
sqlite (C, VACUUM INTO), the last two seen only by libfashim.so, into its
own root, another tenant's and a directory no tenant has.
"""
import os

TENANTS = 4
TASKS = 16
METHODS = ('open', 'pyarrow', 'sqlite')
TARGETS = ('own', 'other', 'outside')


def write(method, path):
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
    """Per (target, method): 'landed', or how the write failed; and the pid."""
    out = {'pid': os.getpid()}
    for target in TARGETS:
        for method in METHODS:
            path = os.path.join(dirs[target], f'task{task}.{method}')
            try:
                write(method, path)
                out[target, method] = 'landed'
            except Exception as e:
                out[target, method] = {'type': type(e).__name__,
                                       'errno': getattr(e, 'errno', None),
                                       'rule': getattr(e, 'rule', None),
                                       'fastaudit': getattr(e, 'fastaudit', None),
                                       'notes': getattr(e, '__notes__', [])}
    return out


def layout(top):
    """TOP/tenants/t0..t3, TOP/outside and TOP/common, made; (roots, outside, common)."""
    roots = [os.path.join(top, 'tenants', f't{i}') for i in range(TENANTS)]
    outside, common = os.path.join(top, 'outside'), os.path.join(top, 'common')
    for d in roots + [outside, common]:
        os.makedirs(d)
    return roots, outside, common


def specs(roots, outside):
    """(task, tenant, dirs) for the 16 tasks."""
    got = []
    for task in range(TASKS):
        t = task % TENANTS
        got.append((task, t, {'own': roots[t], 'other': roots[(t + 1) % TENANTS],
                              'outside': outside}))
    return got


def check_landed(results):
    """Every write of every task landed: nothing confined them."""
    for task, t, dirs, r in results:
        for target in TARGETS:
            for method in METHODS:
                assert r[target, method] == 'landed', (task, target, method, r)
                assert os.path.exists(os.path.join(dirs[target], f'task{task}.{method}'))


def clear(dirs):
    for d in dirs:
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))


def check_confined(results, roots, outside):
    """Own writes landed; every other one was refused and created nothing.
    Returns the paths the shim refused (pyarrow's and sqlite's)."""
    refused_native = set()
    for task, t, dirs, r in results:
        for method in METHODS:
            assert r['own', method] == 'landed', (task, method, r)
            assert os.path.getsize(os.path.join(dirs['own'], f'task{task}.{method}')) > 0
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
                    # present is checked here (the callers count the
                    # shim's refusals themselves).
                    if got['fastaudit'] is not None:
                        assert got['fastaudit']['layer'] == 'libc', got
                        assert got['fastaudit']['rule'] == 'outside-roots', got
    assert len(refused_native) == len(results) * 2 * 2
    # Nothing else was created anywhere.
    for i, d in enumerate(roots):
        mine = {f'task{task}.{m}' for task, t, _, _ in results if t == i for m in METHODS}
        assert set(os.listdir(d)) == mine
    assert os.listdir(outside) == []
    return refused_native
