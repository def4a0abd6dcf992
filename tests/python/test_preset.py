# SPDX-License-Identifier: Apache-2.0
"""mk_audit(roots, preset='data'): the mode a host runs data snippets in.

Native calls judged at libc by libfashim.so (the call monitor's refusals
stay without it), threads that run in a copy of the context, modules of
the standard library and installed distributions trusted while they
initialise; the strict default unchanged. Each case runs a fresh
interpreter, so that imports are really cold, with libfashim.so preloaded
unless it says otherwise, and reports what happened as JSON.
"""
import inspect
import json
import os
import subprocess
import sys
from textwrap import dedent

import pytest

from test_native import SHIM

MON = sys.version_info >= (3, 12)
needs_shim = pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')

PRELUDE = '''
import json, os, sys
from fastaudit import mk_audit, audit_state
root, out = sys.argv[1], sys.argv[2]
res = {}
def attempt(key, fn, *a):
    try:
        fn(*a)
        res[key] = 'ok'
    except PermissionError as e:
        # the hook's refusal carries no errno; libc's carries EACCES
        res[key] = 'refused' if e.errno is None else 'errno %d' % e.errno
    except Exception as e:
        res[key] = '%s: %s' % (type(e).__name__, str(e).splitlines()[0][:200])
'''


def run(root, outside, body, preload=True, probe=None, env=None):
    e = dict(os.environ)
    e['PYTHONPATH'] = os.pathsep.join(([probe] if probe else []) + sys.path)
    e['MPLBACKEND'] = 'Agg'
    e.update(env or {})
    if preload:
        e['LD_PRELOAD'] = SHIM
    else:
        e.pop('LD_PRELOAD', None)
    code = PRELUDE + dedent(body) + '\nprint(json.dumps(res))\n'
    p = subprocess.run([sys.executable, '-c', code, str(root), str(outside)], env=e,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def probe_dir(native_mods):
    return os.path.dirname(native_mods[0].__file__)


COLD_IMPORTS = '''
    res['cold'] = 'asyncio' not in sys.modules and 'matplotlib' not in sys.modules
    with mk_audit([root], preset=PRESET, monitor_calls=sys.version_info >= (3, 12))():
        attempt('asyncio', __import__, 'asyncio')
        if HAVE_MPL:
            attempt('pyplot', __import__, 'matplotlib.pyplot')
'''


@needs_shim
@pytest.mark.parametrize('preset', ['data', None])
def test_cold_imports_of_installed_code(root, outside, tmp_path, preset):
    """asyncio sets __code__ (types.coroutine) and pyparsing __kwdefaults__
    while they initialise: both trusted under the preset; by default the
    standard library is trusted, pyparsing (installed) is not."""
    have_mpl = True
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        have_mpl = False
    cache = tmp_path / 'mplconfig'      # a cold font cache, written at import
    r = run(root, outside, 'PRESET = %r\nHAVE_MPL = %r\n' % (preset, have_mpl) + dedent(COLD_IMPORTS),
            env={'MPLCONFIGDIR': str(cache)})
    assert r['cold'] is True
    if preset:
        assert r['asyncio'] == 'ok', r
        assert r.get('pyplot', 'ok') == 'ok', r
    else:
        assert r['asyncio'] == 'ok', r
        assert r.get('pyplot', 'refused') == 'refused', r
    assert os.listdir(root) == [] and os.listdir(outside) == []


OWN_MODULES = '''
    import site
    SIDE_EFFECT = 'def f():\\n    return 1\\nf.__code__ = (lambda: 2).__code__\\n'
    with open(root + '/snippet_mod.py', 'w') as f:
        f.write(SIDE_EFFECT)
    # a directory installed code lives in, written to since the process started
    user_site = site.getusersitepackages()
    os.makedirs(user_site, exist_ok=True)
    with open(user_site + '/fresh_mod.py', 'w') as f:
        f.write(SIDE_EFFECT)
    sys.path[:0] = [root, user_site]
    with mk_audit([root], preset='data')():
        attempt('snippet_mod', __import__, 'snippet_mod')
        attempt('fresh_mod', __import__, 'fresh_mod')
        attempt('json', __import__, 'json.tool')
'''


@needs_shim
def test_modules_written_by_the_snippet_are_audited(root, outside, tmp_path):
    r = run(root, outside, OWN_MODULES, env={'PYTHONUSERBASE': str(tmp_path / 'userbase')})
    assert r == {'snippet_mod': 'refused', 'fresh_mod': 'refused', 'json': 'ok'}


DATA = '''
    import pandas as pd, numpy as np
    import matplotlib.pyplot as plt
    import h5py
    from lxml import etree
    csv = root + '/big.csv'
    with open(csv, 'w') as f:
        f.write('a,b,c\\n')
        f.writelines('%d,%d,x%d\\n' % (i, i * 2, i % 7) for i in range(50000))
    with open(out + '/kept.csv', 'w') as f:
        f.write('old')
    frames = {}
    def read():
        frames['df'] = pd.read_csv(csv)
    def writes(where, tag):
        df = frames['df']
        attempt('parquet_' + tag, df.to_parquet, where + '/d.parquet')
        attempt('csv_' + tag, df.to_csv, where + '/d.csv')
        attempt('truncate_' + tag, df.to_csv, where + '/kept.csv')
        def fig():
            plt.plot(df['a'][:100], df['b'][:100])
            try:
                plt.savefig(where + '/f.png')
            finally:
                plt.close('all')
        attempt('savefig_' + tag, fig)
        def h5():
            with h5py.File(where + '/d.h5', 'w') as f:
                f['a'] = df['a'].to_numpy()
        attempt('h5py_' + tag, h5)
        attempt('lxml_' + tag, etree.ElementTree(etree.fromstring('<a/>')).write, where + '/d.xml')
    with mk_audit([root], preset='data')():
        res['native_calls'] = audit_state()['native_calls']
        attempt('read_csv', read)
        res['rows'] = len(frames.get('df', ()))
        writes(root, 'in')
        writes(out, 'out')
'''


@needs_shim
def test_data_work_inside_the_roots_and_not_outside(root, outside):
    for mod in ('pandas', 'pyarrow.parquet', 'matplotlib', 'h5py', 'lxml'):
        pytest.importorskip(mod)
    r = run(root, outside, DATA)
    assert r['native_calls'] == 'libc'
    assert r['read_csv'] == 'ok' and r['rows'] == 50000, r
    kinds = ('parquet', 'csv', 'truncate', 'savefig', 'h5py', 'lxml')
    assert {k: r[k + '_in'] for k in kinds} == dict.fromkeys(kinds, 'ok'), r
    refused = {k: r[k + '_out'] for k in kinds}
    assert all(v in ('refused', 'errno 13') for v in refused.values()), refused
    # nothing created or truncated outside
    assert os.listdir(outside) == ['kept.csv']
    assert (outside / 'kept.csv').read_text() == 'old'
    assert {'d.parquet', 'd.csv', 'kept.csv', 'f.png', 'd.h5', 'd.xml'} <= set(os.listdir(root))


THREADS = '''
    import threading
    import fa_probe
    from concurrent.futures import ThreadPoolExecutor
    def in_thread(key, fn, *a):
        t = threading.Thread(target=attempt, args=(key, fn) + a)
        t.start()
        t.join()
    def py_write(path):
        with open(path, 'w') as f:
            f.write('x')
    with mk_audit([root], preset=PRESET, monitor_calls=False)():
        try:
            in_thread('py_in', py_write, root + '/t')
            in_thread('py_out', py_write, out + '/t')
            in_thread('native_in', fa_probe.write_file_nogil, root + '/n', 'x')
            in_thread('native_out', fa_probe.write_file_nogil, out + '/n', 'x')
        except PermissionError:
            res['start'] = 'refused'
        ex = ThreadPoolExecutor(2)
        try:
            attempt('pool_in', lambda: ex.submit(py_write, root + '/p').result())
            attempt('pool_out', lambda: ex.submit(py_write, out + '/p').result())
            attempt('pool_native_out',
                    lambda: ex.submit(fa_probe.write_file_nogil, out + '/q', 'x').result())
        except PermissionError:
            res['pool_start'] = 'refused'
    if 'pool_start' not in res:
        # the pool's threads carry no context: the host's work after it is its own
        attempt('pool_after', lambda: ex.submit(py_write, out + '/after').result())
        ex.shutdown()
        del ex
    res['live'] = audit_state()['live_entries']
'''


@needs_shim
def test_threads_run_in_a_copy_of_the_context(native_mods, root, outside):
    r = run(root, outside, 'PRESET = "data"\n' + dedent(THREADS), probe=probe_dir(native_mods))
    assert r == {'py_in': 'ok', 'py_out': 'refused', 'native_in': 'ok',
                 'native_out': 'errno 13', 'pool_in': 'ok', 'pool_out': 'refused',
                 'pool_native_out': 'errno 13', 'pool_after': 'ok', 'live': 0}, r
    assert sorted(os.listdir(root)) == ['n', 'p', 't']
    assert os.listdir(outside) == ['after']


@needs_shim
@pytest.mark.skipif(sys.version_info < (3, 12), reason='thread starts raise an audit event from 3.12')
def test_threads_refused_by_default_and_when_the_keyword_says(native_mods, root, outside):
    for preset in ('None', '"data"'):
        body = 'PRESET = %s\n' % preset + dedent(THREADS).replace(
            'preset=PRESET,', 'preset=PRESET, threads="deny",' if preset != 'None' else 'preset=PRESET,')
        r = run(root, outside, body, probe=probe_dir(native_mods))
        assert r['start'] == r['pool_in'] == r['pool_out'] == 'refused', r
        assert r['pool_after'] == 'ok' and r['live'] == 0, r
    # the work queued when the pool's thread start was refused runs with the
    # host's later work, each item in its own context: inside the roots only
    assert os.listdir(outside) == ['after'] and set(os.listdir(root)) <= {'p'}


NATIVE = '''
    import fa_probe
    with mk_audit([root], preset='data', **KW)():
        st = audit_state()
        res['state'] = [st['preset'], st['native_calls'], st['threads'], st['trust_imports']]
        res['why'] = st['native_calls_why']
        attempt('in', fa_probe.write_file, root + '/a', 'x')
        attempt('out', fa_probe.write_file, out + '/b', 'x')
'''


@needs_shim
def test_native_calls_at_libc_with_the_shim(native_mods, root, outside):
    r = run(root, outside, 'KW = {}\n' + dedent(NATIVE), probe=probe_dir(native_mods))
    assert r['state'] == ['data', 'libc', 'context', 'installed']
    assert r['in'] == 'ok' and r['out'] == 'errno 13', r
    assert os.listdir(outside) == []
    if MON:
        # a keyword given decides over the preset
        r = run(root, outside, 'KW = {"native_calls": "audit"}\n' + dedent(NATIVE),
                probe=probe_dir(native_mods))
        assert r['state'] == ['data', 'audit', 'context', 'installed']
        assert r['in'] == r['out'] == 'refused', r


def test_native_writers_refused_without_the_shim(native_mods, root, outside):
    """Fail closed: with no libfashim.so the call monitor refuses native
    calls (3.12+), and audit_state() says so and why."""
    r = run(root, outside, 'KW = {}\n' + dedent(NATIVE), preload=False, probe=probe_dir(native_mods))
    assert 'libfashim.so' in r['why'], r
    if MON:
        assert r['state'] == ['data', 'audit', 'context', 'installed']
        assert r['in'] == r['out'] == 'refused', r
        assert os.listdir(outside) == [] and os.listdir(root) == []
    else:
        # no call monitor before 3.12: nothing can see them, and it says so
        assert r['state'][1] == 'unchecked', r


def test_strict_default_unchanged(root):
    from fastaudit import audit_state, mk_audit
    ap = mk_audit([str(root)], monitor_calls=MON)
    with ap():
        st = audit_state()
    # the reference's keys, and no more
    assert 'preset' not in st and 'native_calls' not in st and 'threads' not in st


@pytest.mark.parametrize('kw, msg', [
    ({'preset': 'nonsense'}, "preset must be 'data' or None, not 'nonsense'"),
    ({'preset': 3}, "preset must be 'data' or None, not 3"),
    ({'preset': 'data', 'threads': 'all'}, "threads must be 'deny' or 'context', not 'all'"),
    ({'preset': 'data', 'trust_imports': 'every'},
     "trust_imports must be 'named', 'stdlib' or 'installed', not 'every'"),
    ({'preset': 'data', 'native_calls': 'shim'}, "native_calls must be 'audit' or 'libc', not 'shim'"),
])
def test_bad_modes_fail_closed(root, kw, msg):
    from fastaudit import mk_audit
    with pytest.raises(ValueError) as ei:
        mk_audit([str(root)], **kw)
    assert str(ei.value) == msg


def test_preset_on_every_python(root):
    """monitor_calls follows what the Python has under the preset: the
    notebook's mk_audit(roots, preset='data') works on 3.10 and 3.11 too."""
    from fastaudit import audit_state, mk_audit
    with mk_audit([str(root)], preset='data')():
        st = audit_state()
    assert st['monitor_calls'] is MON and st['preset'] == 'data'
    if not MON:
        with pytest.raises(RuntimeError):
            mk_audit([str(root)], preset='data', monitor_calls=True)


def test_signatures_name_every_parameter():
    import fastaudit
    from fastaudit import _fastaudit
    sig = inspect.signature(fastaudit.mk_audit)
    kwonly = [n for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY]
    assert list(sig.parameters)[:7] == ['roots', 'before_deny', 'on_call', 'data', 'tool_id',
                                        'monitor_calls', 'allow_imports']
    assert {'native', 'native_calls', 'policy', 'learn', 'symlinks', 'preset', 'threads',
            'trust_imports', 'allow_outside_symlinks', 'deny', 'deny_read'} == set(kwonly)
    assert sig.parameters['preset'].default is None
    for name in ('audit_state', 'recent_denials', 'native_denials'):
        assert str(inspect.signature(getattr(_fastaudit, name))) == '()'
    assert str(inspect.signature(_fastaudit.suggest_roots)) == '(paths, project=None)'
    assert 'preset' in fastaudit.mk_audit.__doc__
