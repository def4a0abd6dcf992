# SPDX-License-Identifier: Apache-2.0
"""mk_audit(deny=..., deny_read=...): deny subtrees and patterns for writes,
read patterns for reads.

Every write a pattern names is refused with PermissionError and changes
nothing, however the path is spelt (relative, '..', a symlinked
directory); names no pattern matches are written as before. Read patterns
refuse opening the files they name for reading, and leave directories
listable. The same in a process with libfashim.so loaded, where native
code's calls are judged at libc.
"""
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import textwrap

import pytest

from fastaudit import mk_audit

from disk import snapshot

SHIM = os.environ.get('FA_SHIM') or os.path.join(
    os.environ.get('FA_BUILDDIR', ''), 'src', '.libs', 'libfashim.so')
PATTERNS = ['**/.env', '**/*.pem', 'keep/**', '**/.git/**']


@pytest.fixture
def tree(root):
    (root / 'd').mkdir()
    (root / 'keep').mkdir()
    (root / '.git').mkdir()
    (root / 'f').write_text('data')
    (root / 'keep' / 'k').write_text('kept')
    (root / '.git' / 'config').write_text('cfg')
    (root / 'd' / 'old.pem').write_text('pem')
    os.symlink('d', root / 'dlink')
    return root


def _write(p):
    with open(p, 'w') as f:
        f.write('x')


# name -> what it does, given the root
REFUSED = {
    'open .env': lambda r: _write(r / '.env'),
    'open through ..': lambda r: _write(os.path.join(r, 'd', '..', '.env')),
    'open through a symlinked dir': lambda r: _write(r / 'dlink' / 'x.pem'),
    'open relative': lambda r: _write('keep/new'),
    'append': lambda r: open(r / 'd' / 'old.pem', 'a').close(),
    'pathlib write_text': lambda r: (r / 'dlink' / '.env').write_text('x'),
    'os.open O_CREAT': lambda r: os.close(os.open(r / 'keep' / 'n', os.O_WRONLY | os.O_CREAT)),
    'truncate': lambda r: os.truncate(r / 'keep' / 'k', 0),
    'rename onto': lambda r: os.rename(r / 'f', r / '.env'),
    'rename away': lambda r: os.rename(r / 'keep' / 'k', r / 'k2'),
    'rename a matched dir': lambda r: os.rename(r / '.git', r / 'git2'),
    'replace onto': lambda r: os.replace(r / 'f', r / 'dlink' / 'x.pem'),
    'link a new name': lambda r: os.link(r / 'f', r / 'd' / 'x.pem'),
    'link a matched file': lambda r: os.link(r / 'keep' / 'k', r / 'k3'),
    'symlink': lambda r: os.symlink('f', r / '.env'),
    'remove': lambda r: os.remove(r / 'keep' / 'k'),
    'pathlib unlink': lambda r: (r / 'dlink' / 'old.pem').unlink(),
    'chmod': lambda r: os.chmod(r / '.git' / 'config', 0o600),
    'utime': lambda r: os.utime(r / 'keep' / 'k', (0, 0)),
    'mkdir': lambda r: os.mkdir(r / '.git' / 'refs'),
    'pathlib mkdir': lambda r: (r / 'd' / '.env').mkdir(),
    'sqlite': lambda r: sqlite3.connect(str(r / 'keep' / 'db')).close(),
    'NamedTemporaryFile': lambda r: tempfile.NamedTemporaryFile(dir=r / 'keep').close(),
    'TemporaryFile': lambda r: tempfile.TemporaryFile(dir=r / '.git').close(),
}
ALLOWED = {
    'open': lambda r: _write(r / 'd' / 'new'),
    'open a near name': lambda r: _write(r / 'dlink' / 'x.pem.txt'),
    'a keep elsewhere': lambda r: (os.makedirs(r / 'd' / 'keep'), _write(r / 'd' / 'keep' / 'f')),
    'rename': lambda r: os.rename(r / 'f', r / 'g'),
    'rename a dir holding a .pem': lambda r: os.rename(r / 'd', r / 'd2'),
    'link': lambda r: os.link(r / 'f', r / 'f2'),
    'chmod': lambda r: os.chmod(r / 'f', 0o600),
    'mkdir': lambda r: os.mkdir(r / 'd' / 'sub'),
    'sqlite': lambda r: sqlite3.connect(str(r / 'd' / 'db')).close(),
    'NamedTemporaryFile': lambda r: tempfile.NamedTemporaryFile(dir=r / 'd').close(),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_every_write_a_pattern_names_is_refused_and_changes_nothing(tree, case, monkeypatch):
    monkeypatch.chdir(tree)
    ap = mk_audit([str(tree)], deny=PATTERNS, monitor_calls=False)
    before = snapshot(tree)
    with pytest.raises(PermissionError) as e:
        with ap():
            REFUSED[case](tree)
    assert snapshot(tree) == before
    assert 'deny pattern' in str(e.value) or 'deny-pattern' in str(e.value), str(e.value)


@pytest.mark.parametrize('case', sorted(ALLOWED))
def test_names_no_pattern_matches_are_written(tree, case, monkeypatch):
    monkeypatch.chdir(tree)
    with mk_audit([str(tree)], deny=PATTERNS, monitor_calls=False)():
        ALLOWED[case](tree)


def test_the_refusal_names_the_pattern_and_the_file(tree):
    with pytest.raises(PermissionError) as e:
        with mk_audit([str(tree)], deny=['**/.env'], monitor_calls=False)():
            _write(tree / 'dlink' / '.env')
    text = str(e.value) + ''.join(getattr(e.value, '__notes__', []))
    assert "'**/.env'" in text
    assert str(tree / 'd' / '.env') in text
    assert 'mk_audit(deny=' in text


def test_an_exact_subtree_and_a_pattern_together(tree):
    ap = mk_audit([str(tree)], deny=[str(tree / 'd'), '**/*.key'], monitor_calls=False)
    with pytest.raises(PermissionError):
        with ap():
            _write(tree / 'd' / 'plain')
    with pytest.raises(PermissionError):
        with ap():
            _write(tree / 'k.key')
    with ap():
        _write(tree / 'plain')


@pytest.mark.parametrize('bad', ['!x', 'a/../b', ''])
def test_a_bad_pattern_is_a_value_error(root, bad):
    with pytest.raises(ValueError):
        mk_audit([str(root)], deny=['*', bad] if bad else [''], monitor_calls=False)


def test_a_single_string_is_refused(root):
    with pytest.raises(TypeError):
        mk_audit([str(root)], deny='**/.env', monitor_calls=False)
    with pytest.raises(TypeError):
        mk_audit([str(root)], deny_read='secrets', monitor_calls=False)


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / 'home'
    (h / '.ssh').mkdir(parents=True)
    (h / '.aws').mkdir()
    (h / '.ssh' / 'id_ed25519').write_text('private')
    (h / '.ssh' / 'id_ed25519.pub').write_text('public')
    (h / '.aws' / 'credentials').write_text('creds')
    monkeypatch.setenv('HOME', str(h))
    return h


def test_secrets_are_kept_from_reads_and_listing_still_works(root, home):
    (root / '.env').write_text('TOKEN=x')
    (root / 'sub').mkdir()
    os.symlink(home / '.ssh', root / 'keys')
    ap = mk_audit([str(root)], deny_read=['secrets'], monitor_calls=False)
    for p in (os.path.expanduser('~/.aws/credentials'), home / '.ssh' / 'id_ed25519',
              root / 'keys' / 'id_ed25519', os.path.join(root, 'sub', '..', '.env')):
        with pytest.raises(PermissionError) as e:
            with ap():
                open(p).read()
        assert 'deny-read' in str(e.value) or 'kept from reading' in str(e.value)
    with pytest.raises(PermissionError):
        with ap():
            pathlib.Path(home / '.aws' / 'credentials').read_text()
    with ap():
        assert sorted(os.listdir(home / '.ssh')) == ['id_ed25519', 'id_ed25519.pub']
        assert open(home / '.ssh' / 'id_ed25519.pub').read() == 'public'
        assert [e.name for e in os.scandir(home / '.aws')] == ['credentials']
    # writes are not what read patterns judge
    with ap():
        _write(root / 'out')


def test_reads_are_free_without_a_read_pattern(root, home):
    with mk_audit([str(root)], deny=['**/.env'], monitor_calls=False)():
        assert open(home / '.ssh' / 'id_ed25519').read() == 'private'


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
def test_native_calls_in_the_context_are_judged_at_libc(native_mods, tree, home):
    probe_dir = os.path.dirname(native_mods[0].__file__)
    code = textwrap.dedent('''
        import json, os, sys
        import fa_probe
        from fastaudit import mk_audit
        root = sys.argv[1]
        ap = mk_audit([root], deny=['**/.env', 'keep/**'], deny_read=['secrets', '**/old.pem'],
                      monitor_calls=False, native_calls='libc')
        res = {}
        for name, p in (('env', os.path.join(root, 'dlink', '.env')),
                        ('keep', os.path.join(root, 'd', '..', 'keep', 'n')),
                        ('plain', os.path.join(root, 'd', 'n'))):
            try:
                with ap():
                    fa_probe.write_file(p, 'x')
                res[name] = True
            except PermissionError:
                res[name] = False
        # a dir_fd, which Python's open event does not carry: the shim judges openat
        fd = os.open(os.path.join(root, 'dlink'), os.O_RDONLY | os.O_DIRECTORY)
        for name, call in (('dirfd-env', lambda: os.close(os.open('.env', os.O_WRONLY | os.O_CREAT,
                                                                     dir_fd=fd))),
                           ('dirfd-keep', lambda: os.mkdir('../keep/sub', dir_fd=fd)),
                           ('dirfd-read', lambda: os.close(os.open('old.pem', os.O_RDONLY,
                                                                      dir_fd=fd)))):
            try:
                with ap():
                    call()
                res[name] = True
            except PermissionError:
                res[name] = False
        print(json.dumps(res))
    ''')
    env = dict(os.environ, LD_PRELOAD=SHIM,
               PYTHONPATH=os.pathsep.join([probe_dir] + sys.path))
    before = snapshot(tree)
    p = subprocess.run([sys.executable, '-c', code, str(tree)],
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1]) == {
        'env': False, 'keep': False, 'plain': True,
        'dirfd-env': False, 'dirfd-keep': False, 'dirfd-read': False}
    after = snapshot(tree)
    assert set(after) - set(before) == {'d/n'}
