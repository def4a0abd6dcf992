# SPDX-License-Identifier: Apache-2.0
"""Policy files in Python (mk_audit(policy=FILE)) and learning contexts
(mk_audit(learn=True)): the file read by fa-run's parser, with its errors
at FILE:LINE:COL; a learning context that refuses nothing, records what it
would have refused, and suggests roots by fa-run --learn's rule.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from fastaudit import Learner, audit_state, mk_audit, suggest_roots
from test_native import PRELUDE, SHIM, run


def write_policy(path, text):
    path.write_text(text)
    return str(path)


def test_policy_file_roots_and_deny(mk, tmp_path, root, outside):
    (root / 'keep').mkdir()
    extra = tmp_path / 'extra'
    extra.mkdir()
    # relative to the file's directory, wherever the process stands
    pol = write_policy(tmp_path / 'fa.policy', '# the project\nroot root\ndeny root/keep\n')
    ap = mk_audit([str(extra)], policy=pol, monitor_calls=False)
    with ap():
        assert set(audit_state()['roots']) == {str(root), str(extra)}
        open(root / 'a', 'w').close()
        open(extra / 'b', 'w').close()
        with pytest.raises(PermissionError) as ei:
            open(root / 'keep' / 'c', 'w')
        assert ei.value.rule == 'deny-subtree'
        with pytest.raises(PermissionError):
            open(outside / 'd', 'w')
    assert os.listdir(root / 'keep') == [] and os.listdir(outside) == []


def test_policy_file_alone_gives_the_roots(tmp_path, root, outside):
    pol = write_policy(tmp_path / 'p', 'root %s\nsymlinks nofollow\n' % root)
    ap = mk_audit(policy=pol, monitor_calls=False)
    with ap():
        assert audit_state()['roots'] == (str(root),)
        open(root / 'x', 'w').close()
        with pytest.raises(PermissionError):
            os.symlink(str(outside), root / 'out')
    # the file's outside-symlinks stays, allow_outside_symlinks=False takes nothing away
    pol = write_policy(tmp_path / 'q', 'root %s\noutside-symlinks allow\n' % root)
    with mk_audit(policy=pol, allow_outside_symlinks=False, monitor_calls=False)():
        os.symlink(str(outside), root / 'out')
    assert os.readlink(root / 'out') == str(outside)


@pytest.mark.parametrize('text,where,says', [
    ('root .\nwrite x\n', ':2:1: ', "unknown key 'write'"),
    ('root .\nsymlinks sideways\n', ':2:10: ', "unknown symlink mode 'sideways'"),
    ('root a\ndeny b\n', ':2:6: ', 'not inside any root of the file'),
    ('exec allow\nallow-exec sh\n', ':2:1: ', "contradicts 'exec allow'"),
])
def test_policy_file_errors_name_line_and_column(tmp_path, text, where, says):
    (tmp_path / 'a').mkdir()
    pol = write_policy(tmp_path / 'bad.policy', text)
    with pytest.raises(ValueError) as ei:
        mk_audit(policy=pol, monitor_calls=False)
    msg = str(ei.value)
    assert pol + where in msg and says in msg, msg


def test_policy_file_unreadable_and_roots_none(tmp_path):
    with pytest.raises(ValueError, match='cannot read the policy file'):
        mk_audit(policy=str(tmp_path / 'none'), monitor_calls=False)
    pol = write_policy(tmp_path / 'p', 'root %s\n' % tmp_path)
    with pytest.raises(ValueError, match='contradicts a policy file'):
        mk_audit(None, policy=pol, monitor_calls=False)
    with pytest.raises(TypeError, match="missing required argument 'roots'"):
        mk_audit(monitor_calls=False)


def test_learn_refuses_nothing_and_records(tmp_path, root, outside):
    (outside / 'sub').mkdir()
    ap = mk_audit([str(root)], learn=True, monitor_calls=False)
    with ap():
        with open(outside / 'sub' / 'a', 'w') as f:
            f.write('x')
        os.mkdir(outside / 'sub' / 'd')
        os.rename(outside / 'sub' / 'a', outside / 'sub' / 'd' / 'a')
        with open(root / 'inside', 'w'):
            pass
        inside = audit_state()['suggested_roots']
    assert (outside / 'sub' / 'd' / 'a').read_text() == 'x'
    lrn = ap.learned()
    assert isinstance(lrn, Learner)
    rules = {(r.event, r.rule) for r in lrn.records}
    assert ('open', 'outside-roots') in rules and ('os.mkdir', 'outside-roots') in rules
    assert all(r.path.startswith(str(outside)) for r in lrn.records)
    assert lrn.suggested_roots() == [(str(outside / 'sub'), None)] == inside


def test_the_learner_the_package_handed_over_stays(root):
    # fastaudit.core gave the extension its Learner as it loaded; a later
    # caller of _package() changes nothing
    from fastaudit import _fastaudit

    def boom(*args):
        raise AssertionError('a replaced part was called')
    _fastaudit._package(boom, boom)
    ap = mk_audit([str(root)], learn=True, monitor_calls=False)
    with ap():
        pass
    assert type(ap.learned()) is Learner


def test_learn_is_off_by_default(root, outside):
    ap = mk_audit([str(root)], monitor_calls=False)
    with ap():
        with pytest.raises(PermissionError):
            open(outside / 'a', 'w')
    with pytest.raises(ValueError, match='learn=True'):
        ap.learned()
    assert 'suggested_roots' not in audit_state()
    with pytest.raises(ValueError, match='before_deny would never be asked'):
        mk_audit([str(root)], learn=True, before_deny=lambda *a: False)


def test_learn_names_sensitive_places(tmp_path, monkeypatch):
    home = tmp_path / 'home'
    (home / '.ssh').mkdir(parents=True)
    (home / 'proj' / 'a').mkdir(parents=True)
    (home / 'proj' / 'b').mkdir(parents=True)
    monkeypatch.setenv('HOME', str(home))
    got = suggest_roots([str(home / '.ssh' / 'k'), str(home / 'proj' / 'a' / 'f'),
                         str(home / 'proj' / 'b' / 'g')], project=str(home / 'proj'))
    assert got == [(str(home / '.ssh'), 'it holds keys'), (str(home / 'proj'), None)]
    # never collapsed above the project, nor into $HOME
    got = suggest_roots([str(home / 'proj' / 'a' / 'f'), str(home / 'proj' / 'b' / 'g')],
                        project=str(home / 'proj' / 'a'))
    assert [r for r, _ in got] == [str(home / 'proj' / 'a'), str(home / 'proj' / 'b')]
    with pytest.raises(ValueError, match='not an absolute path'):
        suggest_roots(['relative'])


def test_learn_lets_the_shim_through(native_mods, root, outside):
    """Under libfashim.so a write the hook approved reaches the disk, and a process starts."""
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], learn=True, monitor_calls=False)
        with ap():
            attempt('w', lambda: open(out + '/f', 'w').close())
            attempt('p', lambda: subprocess.run(['true'], check=True) and None)
        res['roots'] = ap.learned().suggested_roots()
        res['events'] = ap.learned().events()
    ''')
    assert r['w'] == 'ok' and r['p'] == 'ok', r
    assert r['roots'] == [[str(outside), None]]
    assert 'subprocess.Popen' in r['events']
    assert os.path.exists(outside / 'f')


NATIVE_WRITES = '''
    import ctypes, sqlite3
    libc_open = ctypes.CDLL(None, use_errno=True).open   # found before the context
    libc_system = ctypes.CDLL(None).system
    def c_open(path):
        fd = libc_open(path.encode(), os.O_WRONLY | os.O_CREAT, 0o644)
        return os.close(fd) if fd >= 0 else 'refused'
    def vacuum_into(path):
        db = sqlite3.connect(root + '/db')
        db.execute('create table if not exists t(x)')
        db.commit()
        try:
            db.execute('vacuum into ?', (path,))
        except sqlite3.OperationalError as e:
            return 'refused: %s' % e
        finally:
            db.close()
    ap = mk_audit([root], learn=LEARN, monitor_calls=False)
    with ap():
        res['ctypes'] = repr(c_open(out + '/c/made'))
        res['vacuum'] = repr(vacuum_into(out + '/v/copy.db'))
        res['system'] = libc_system(b'true')
    if LEARN:
        lrn = ap.learned()
        res['records'] = [list(r) for r in lrn.records]
        res['roots'] = lrn.suggested_roots()
        res['lost'] = lrn.lost
        res['events'] = lrn.events()
'''


@pytest.mark.parametrize('learn', [True, False])
def test_learn_native_writes_the_hook_never_sees(native_mods, root, outside, learn):
    """A C library's own open() (ctypes, sqlite's VACUUM INTO) and system() are let
    through and learned; without learn=True the shim refuses them."""
    (outside / 'c').mkdir()
    (outside / 'v').mkdir()
    r = run(native_mods, root, outside, textwrap.dedent(NATIVE_WRITES).replace('LEARN', repr(learn)))
    if not learn:
        assert r['ctypes'] == "'refused'", r
        assert r['vacuum'].startswith("'refused"), r
        assert r['system'] != 0, r
        assert os.listdir(outside / 'c') == [] and os.listdir(outside / 'v') == []
        return
    assert r['ctypes'] == r['vacuum'] == 'None' and r['system'] == 0, r
    assert 'libc.system' in r['events'], r
    assert os.listdir(outside / 'c') == ['made'] and 'copy.db' in os.listdir(outside / 'v')
    native = {(e, p, rule) for e, p, op, rule in r['records'] if e.startswith('libc.')}
    assert ('libc.open', str(outside / 'c' / 'made'), 'outside-roots') in native, r
    assert any(p == str(outside / 'v' / 'copy.db') and rule == 'outside-roots'
               for e, p, rule in native), r
    assert r['roots'] == [[str(outside), None]], r
    assert r['lost'] == 0


def test_learning_context_never_widens_fa_run(native_mods, root, outside):
    """Under fa-run, a learning context lets through only what fa-run's own policy allows."""
    fa_run = os.path.join(os.environ.get('FA_BUILDDIR', ''), 'fa-run')
    if not os.path.exists(fa_run):
        pytest.skip('fa-run not built')
    (root / 'sub').mkdir()
    body = textwrap.dedent('''
        import ctypes
        libc_open = ctypes.CDLL(None).open
        def c_open(path):
            fd = libc_open(path.encode(), os.O_WRONLY | os.O_CREAT, 0o644)
            return os.close(fd) if fd >= 0 else 'refused'
        ap = mk_audit([root + '/sub'], learn=True, monitor_calls=False)
        with ap():
            attempt('in_fa_run', c_open, root + '/x')
            attempt('outside_both', c_open, out + '/y')
        res['paths'] = [r.path for r in ap.learned().records]
    ''')
    code = PRELUDE + body + '\nprint(json.dumps(res))\n'
    env = dict(os.environ, LD_PRELOAD=SHIM)
    env['PYTHONPATH'] = os.pathsep.join([os.path.dirname(native_mods[0].__file__)] + sys.path)
    # without the kernel floor, which would refuse the second write on its own
    p = subprocess.run([fa_run, '--landlock=off', '-w', str(root), '--', sys.executable, '-c',
                        code, str(root), str(outside)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.splitlines()[-1])
    assert r['in_fa_run'] == 'ok' and r['outside_both'] == "'refused'", r
    assert r['paths'] == [str(root / 'x'), str(outside / 'y')], r
    assert os.listdir(outside) == [] and (root / 'x').exists()


LEARN_MANY = '''
    import ctypes
    lib = ctypes.CDLL(WORKERS)
    write_many, threads_write_many = lib.write_many, lib.threads_write_many
    ap = mk_audit([root], learn=True, monitor_calls=False)
    with ap():
        res['main'] = write_many(os.fsencode(MANY), b'm', N_MAIN)
        res['threads'] = threads_write_many(os.fsencode(MANY), 3, N_THREAD)
    lrn = ap.learned()
    native = [r for r in lrn.records if r.event.startswith('libc.')]
    res['paths'] = sorted({r.path for r in native})
    res['n'] = len(native)
    res['rules'] = sorted({r.rule for r in native})
    res['lost'] = lrn.lost
    res['events'] = lrn.events()
'''


def learn_many(native_mods, root, outside, many, n_main, n_thread):
    from test_bridge_life import WORKERS_C
    src = many.parent / 'workers.c'
    lib = many.parent / 'libfaworkers.so'
    src.write_text(WORKERS_C)
    import sysconfig
    cc = (sysconfig.get_config_var('CC') or 'cc').split()
    subprocess.run(cc + ['-shared', '-fPIC', '-O1', '-pthread', '-o', str(lib), str(src)],
                   check=True)
    body = (textwrap.dedent(LEARN_MANY).replace('WORKERS', repr(str(lib)))
            .replace('MANY', repr(str(many))).replace('N_MAIN', str(n_main))
            .replace('N_THREAD', str(n_thread)))
    return run(native_mods, root, outside, body)


def test_learning_keeps_every_native_refusal(native_mods, root, outside):
    """More than a thousand write-opens in one learning context, from the thread
    that entered it and from native threads it never heard of: every one is
    let through and every one reaches the Learner."""
    many = outside / 'many'
    many.mkdir()
    r = learn_many(native_mods, root, outside, many, 1200, 300)
    assert r['main'] == 1200 and r['threads'] == 900, r
    want = sorted([str(many / ('m%d' % k)) for k in range(1200)]
                  + [str(many / ('t%d_%d' % (i, k))) for i in range(3) for k in range(300)])
    assert r['paths'] == want
    assert r['n'] == 2100 and r['rules'] == ['outside-roots'] and r['lost'] == 0
    assert len(os.listdir(many)) == 2100


def test_learning_record_is_bounded_and_says_so(native_mods, root, outside):
    """Long paths fill the record: past its bound a would-be denial is counted,
    not recorded, and the Learner says how many."""
    deep = outside
    for i in range(20):
        deep = deep / (('d%02d' % i) * 60)
    deep.mkdir(parents=True)
    many = deep / ('x' * 200)
    many.mkdir()
    r = learn_many(native_mods, root, outside, many, 1200, 0)
    assert r['main'] == 1200, r
    assert r['lost'] > 0 and r['n'] + r['lost'] == 1200, (r['n'], r['lost'])
    assert any(e.startswith('%d more not recorded' % r['lost']) for e in r['events']), r['events']


def test_learning_context_child_learns(native_mods, root, outside):
    """A program a learning context starts denies nothing and its would-be
    denials reach the same Learner, as fa-run --learn's command's do."""
    r = run(native_mods, root, outside, '''
        ap = mk_audit([root], learn=True, monitor_calls=False)
        with ap():
            p = subprocess.run(['sh', '-c', 'echo x > "$1"/child && mkdir "$1"/cdir', 'sh', out])
            res['rc'] = p.returncode
        res['records'] = sorted({(r.path, r.rule) for r in ap.learned().records
                                 if r.event.startswith('libc.')})
        res['roots'] = ap.learned().suggested_roots()
    ''')
    assert r['rc'] == 0, r
    assert [str(outside / 'child'), 'outside-roots'] in r['records'], r
    assert [str(outside / 'cdir'), 'outside-roots'] in r['records'], r
    assert r['roots'] == [[str(outside), None]], r
    assert sorted(os.listdir(outside)) == ['cdir', 'child']
