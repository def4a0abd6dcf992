"""Policy files in Python (mk_audit(policy=FILE)) and learning contexts
(mk_audit(learn=True)): the file read by fa-run's parser, with its errors
at FILE:LINE:COL; a learning context that refuses nothing, records what it
would have refused, and suggests roots by fa-run --learn's rule.
"""
import os
import pytest

from fastaudit import Learner, audit_state, mk_audit, suggest_roots
from test_native import run


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
