# SPDX-License-Identifier: Apache-2.0
"""fastaudit.workspace: the escape table crossed with every operation, with
openat2 and with the O_NOFOLLOW walk forced; natural errors; fa-check
agreement; sub-workspaces; a rename-swap race."""
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from fastaudit import _workspace
from fastaudit.workspace import (REASONS, Workspace, WorkspaceEscapeError,
                                 safe_open)


@pytest.fixture(params=['openat2', 'fallback'], autouse=True)
def resolver(request):
    _workspace._force_fallback(request.param == 'fallback')
    if request.param == 'openat2' and not _workspace._uses_openat2():
        pytest.skip('openat2 is not available here')
    yield request.param
    _workspace._force_fallback(os.environ.get('FA_FORCE_FALLBACK') == '1')


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / 'root'
    out = tmp_path / 'outside'
    (root / 'a' / 'b').mkdir(parents=True)
    (root / 'secret').mkdir()
    (root / 'secret' / 'key').write_text('k')
    (root / 'a' / 'b' / 'f').write_text('inside')
    (root / 'empty').mkdir()
    out.mkdir()
    (out / 'victim').write_text('outside')
    (out / 'vdir').mkdir()
    os.symlink('../../outside', root / 'a' / 'out')            # relative, climbs out
    os.symlink(str(out), root / 'a' / 'abs')                   # absolute, outside
    os.symlink(str(out / 'victim'), root / 'a' / 'absfile')    # final link, outside
    os.symlink('b', root / 'a' / 'inb')                        # inside
    os.symlink('nothere', root / 'a' / 'dangling')              # dangling inside
    os.symlink('../outside/new', root / 'escnew')              # dangling, outside
    os.symlink('/proc/self/cwd', root / 'cwdlink')             # magic link
    os.symlink('/proc/self/fd/0', root / 'fdlink')
    return root, out


def snapshot(path):
    state = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            content = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, 'rb') as f:
                    content = f.read()
            state[os.path.relpath(p, path)] = (st.st_mode, st.st_size, content)
    return state


# A link leading out is refused as a symlink the mode (beneath) forbids.
OUT_LINK = {'symlink'}
DENIED = {'deny-subtree', 'protects-deny'}
# (path, reasons accepted). Relative paths that no operation may follow.
ESCAPES = [
    ('../x', {'escapes'}),
    ('..', {'escapes'}),
    ('a/../../x', {'escapes'}),
    ('a/b/../../../outside/victim', {'escapes'}),
    ('./../outside', {'escapes'}),
    ('a//..//..//x', {'escapes'}),
    ('/etc/passwd', {'absolute'}),
    ('//tmp/x', {'absolute'}),
    ('/', {'absolute'}),
    ('a/out/victim', OUT_LINK),
    ('a/out/newfile', OUT_LINK),
    ('a/abs/victim', OUT_LINK),
    ('a/abs/vdir/x', OUT_LINK),
    ('a/out/../out/victim', OUT_LINK | {'escapes'}),
    ('cwdlink/x', OUT_LINK | {'magic-link'}),
    ('secret/key', DENIED),
    ('secret/new', DENIED),
    ('a/../secret/key', DENIED),
]
# Final-component links to outside: refused by whatever follows them.
FINAL_LINKS = [
    ('a/absfile', OUT_LINK),
    ('escnew', OUT_LINK),
    ('fdlink', {'magic-link'}),
]


def _open_w(ws, p):
    ws.open(p, 'w').close()


OPS = {
    'open_w': _open_w,
    'open_r': lambda ws, p: ws.open(p, 'rb').close(),
    'open_a': lambda ws, p: ws.open(p, 'a').close(),
    'open_x': lambda ws, p: ws.open(p, 'x').close(),
    'mkdir': lambda ws, p: ws.mkdir(p),
    'mkdir_parents': lambda ws, p: ws.mkdir(p, parents=True, exist_ok=True),
    'unlink': lambda ws, p: ws.unlink(p),
    'rmdir': lambda ws, p: ws.rmdir(p),
    'rename_src': lambda ws, p: ws.rename(p, 'a/b/moved'),
    'rename_dst': lambda ws, p: ws.rename('a/b/f', p),
    'rename_noreplace': lambda ws, p: ws.rename('a/b/f', p, replace=False),
    'exchange': lambda ws, p: ws.rename('a/b/f', p, exchange=True),
    'link_src': lambda ws, p: ws.link(p, 'a/b/hard'),
    'link_dst': lambda ws, p: ws.link('a/b/f', p),
    'symlink_at': lambda ws, p: ws.symlink('b/f', p),
    'listdir': lambda ws, p: ws.listdir(p),
    'stat': lambda ws, p: ws.stat(p),
    'lstat': lambda ws, p: ws.stat(p, follow_symlinks=False),
    'read_bytes': lambda ws, p: ws.read_bytes(p),
    'write_bytes': lambda ws, p: ws.write_bytes(p, b'data'),
    'write_text': lambda ws, p: ws.write_text(p, 'data'),
    'atomic_write': lambda ws, p: ws.atomic_write(p, b'data'),
    'subworkspace': lambda ws, p: ws.subworkspace(p).close(),
    'safe_open_w': lambda ws, p: safe_open(ws.root, p, 'wb').close(),
    'safe_open_r': lambda ws, p: safe_open(ws.root, p, 'rb').close(),
}
# Operations that do not follow a final symlink: the link itself is inside.
NOFOLLOW_FINAL = {'unlink', 'rmdir', 'rename_src', 'rename_dst', 'rename_noreplace',
                  'exchange', 'link_src', 'lstat', 'atomic_write', 'symlink_at',
                  'mkdir', 'mkdir_parents', 'link_dst', 'open_x'}


@pytest.mark.parametrize('op', sorted(OPS))
@pytest.mark.parametrize('path,reasons', ESCAPES, ids=[p for p, _ in ESCAPES])
def test_escape_table(tree, op, path, reasons):
    root, out = tree
    if reasons == DENIED and op.startswith('safe_open'):
        pytest.skip('safe_open has no deny subtrees')
    before_out, before_root = snapshot(out), snapshot(root)
    with Workspace(root, deny=['secret']) as ws:
        with pytest.raises(WorkspaceEscapeError) as ei:
            OPS[op](ws, path)
    e = ei.value
    assert isinstance(e, PermissionError) and e.errno == 13
    assert e.reason in reasons, (e.reason, str(e))
    assert e.reason in REASONS
    assert e.root == str(root)
    assert e.path
    assert e.root in str(e) and e.reason in str(e)
    assert snapshot(out) == before_out
    assert snapshot(root) == before_root


@pytest.mark.parametrize('op', sorted(set(OPS) - NOFOLLOW_FINAL))
@pytest.mark.parametrize('path,reasons', FINAL_LINKS, ids=[p for p, _ in FINAL_LINKS])
def test_final_symlink_out(tree, op, path, reasons):
    root, out = tree
    before = snapshot(out)
    with Workspace(root) as ws:
        with pytest.raises(WorkspaceEscapeError) as ei:
            OPS[op](ws, path)
    assert ei.value.reason in reasons
    assert snapshot(out) == before


@pytest.mark.parametrize('op', ['open_w', 'open_r', 'stat', 'listdir', 'read_bytes',
                                'mkdir', 'mkdir_parents', 'subworkspace'])
def test_nofollow_mode_refuses_inside_links(tree, op):
    root, _ = tree
    with Workspace(root, symlinks='nofollow') as ws:
        with pytest.raises(WorkspaceEscapeError) as ei:
            OPS[op](ws, 'a/inb/x' if op in ('mkdir', 'mkdir_parents', 'open_w')
                    else 'a/inb')
    assert ei.value.reason == 'symlink'


def test_beneath_follows_inside_links(tree, resolver):
    root, _ = tree
    with Workspace(root) as ws:
        assert ws.read_text('a/inb/f') == 'inside'
        ws.write_text('a/inb/g', 'new')
        assert (root / 'a' / 'b' / 'g').read_text() == 'new'
        assert sorted(ws.listdir('a/inb')) == ['f', 'g']
        assert ws.stat('a/inb').st_ino == os.stat(root / 'a' / 'b').st_ino
        assert ws.readlink('a/inb') == 'b'
        ws.unlink('a/inb')      # the link itself, not its target
        assert (root / 'a' / 'b' / 'f').exists()


def test_natural_errors(tree):
    root, _ = tree
    with Workspace(root) as ws:
        with pytest.raises(FileNotFoundError):
            ws.open('nothere')
        with pytest.raises(FileNotFoundError):
            ws.open('missing/dir/f', 'w')
        with pytest.raises(FileNotFoundError):
            ws.mkdir('missing/dir')
        with pytest.raises(FileNotFoundError):
            ws.read_bytes('a/dangling')
        with pytest.raises(FileNotFoundError):
            ws.open('')
        with pytest.raises(FileExistsError):
            ws.mkdir('a')
        with pytest.raises(FileExistsError):
            ws.open('a/b/f', 'x')
        with pytest.raises(FileExistsError):
            ws.rename('empty', 'a', replace=False)
        with pytest.raises(IsADirectoryError):
            ws.open('a', 'w')
        with pytest.raises(IsADirectoryError):
            ws.unlink('a')
        with pytest.raises(NotADirectoryError):
            ws.open('a/b/f/x')
        with pytest.raises(NotADirectoryError):
            ws.open('a/b/f/')
        with pytest.raises(NotADirectoryError):
            ws.listdir('a/b/f')
        with pytest.raises(NotADirectoryError):
            ws.rmdir('a/b/f')
        with pytest.raises(OSError):
            ws.rmdir('a')       # not empty
        with pytest.raises(ValueError):
            ws.open('a/b/f', 'rw')
        with pytest.raises(ValueError):
            ws.open('a/b/g', 'wb', encoding='utf-8')
        assert not (root / 'a' / 'b' / 'g').exists()   # refused before opening
    with pytest.raises(FileNotFoundError):
        Workspace(root / 'nothere')
    with pytest.raises(NotADirectoryError):
        Workspace(root / 'a' / 'b' / 'f')
    with pytest.raises(ValueError):
        Workspace(root, symlinks='sometimes')
    with pytest.raises((ValueError, OSError)):
        Workspace(root, deny=[str(root.parent / 'outside')])


def test_lifecycle_and_path_types(tree, resolver):
    root, _ = tree
    ws = Workspace(root)
    assert ws.root == str(root) and ws.symlinks == 'beneath' and not ws.portable
    ws.mkdir(b'p/q/r', parents=True)
    ws.mkdir(pathlib.PurePosixPath('p/q/r'), exist_ok=True)
    assert ws.write_bytes(pathlib.Path('p/q/r/f'), b'abc') == 3
    assert ws.read_bytes(b'p/q/r/f') == b'abc'
    assert ws.listdir(b'p') == [b'q']
    assert ws.listdir('p') == ['q']
    assert 'p' in ws.listdir()
    ws.rename('p/q/r/f', 'p/g')
    ws.link('p/g', 'p/h')
    assert ws.stat('p/h').st_nlink == 2
    ws.symlink('g', 'p/s')
    assert ws.read_bytes('p/s') == b'abc'
    ws.write_text('p/t', 'one')
    ws.rename('p/g', 'p/t', exchange=True)
    assert ws.read_text('p/g') == 'one' and ws.read_bytes('p/t') == b'abc'
    for name in ('p/g', 'p/t', 'p/h', 'p/s'):
        ws.unlink(name)
    ws.rmdir('p/q/r')
    ws.rmdir('p/q/')
    st = ws.stat('.')
    assert st.st_ino == os.stat(root).st_ino
    ws.close()
    assert ws.closed
    for call in (lambda: ws.open('a/b/f'), lambda: ws.listdir(), lambda: ws.mkdir('z'),
                 lambda: ws.stat('a'), lambda: ws.subworkspace('a')):
        with pytest.raises(ValueError):
            call()
    ws.close()
    with pytest.raises(ValueError):
        with ws:
            pass


def test_atomic_write_replaces_and_keeps_mode(tree):
    root, _ = tree
    with Workspace(root) as ws:
        ws.atomic_write('a/b/f', b'new content')
        assert (root / 'a' / 'b' / 'f').read_bytes() == b'new content'
        os.chmod(root / 'a' / 'b' / 'f', 0o600)
        ws.atomic_write('a/b/f', b'again')
        assert os.stat(root / 'a' / 'b' / 'f').st_mode & 0o777 == 0o600
        ws.atomic_write('a/b/new', bytearray(b'x' * 100000))
        assert (root / 'a' / 'b' / 'new').stat().st_size == 100000
        with pytest.raises(IsADirectoryError):
            ws.atomic_write('a/b', b'x')
        with pytest.raises(TypeError):
            ws.atomic_write('a/b/f', 'text')
        assert sorted(os.listdir(root / 'a' / 'b')) == ['f', 'new']   # no temporaries left


def test_portable_names(tree):
    root, _ = tree
    with Workspace(root, portable=True) as ws:
        for bad in ('CON', 'con.txt', 'a/NUL', 'LPT1.log', 'COM9', 'x:y', 'trail.',
                    'trail ', 'a/b:stream'):
            with pytest.raises(WorkspaceEscapeError) as ei:
                ws.write_bytes(bad, b'x')
            assert ei.value.reason == 'not-portable'
        ws.write_bytes('CONSOLE.txt', b'ok')
        ws.write_bytes('a/b/com10', b'ok')
    with Workspace(root) as ws:
        ws.write_bytes('x:y', b'fine without the flag')


def test_magic_link_root():
    with Workspace('/proc/self') as ws:
        with pytest.raises(WorkspaceEscapeError) as ei:
            ws.open('cwd/x', 'w')
        assert ei.value.reason in ('magic-link', 'symlink')
        with pytest.raises(WorkspaceEscapeError) as ei:
            ws.open('fd/0', 'rb')
        assert ei.value.reason in ('magic-link', 'symlink')


@pytest.fixture
def no_hang():
    """A FIFO opened by mistake blocks: make that a failure, not a hang."""
    import signal

    def hung(signum, frame):
        raise AssertionError('blocked: something outside the root was opened')
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize('mode', ['trust', 'beneath', 'nofollow'])
def test_devices_fifos_and_fd_aliases_outside_never_opened(tree, mode, no_hang):
    root, out = tree
    os.mkfifo(out / 'fifo')
    os.symlink('../../outside/fifo', root / 'a' / 'fifo')
    os.symlink('/dev/null', root / 'devnull')
    os.symlink('/dev/fd/1', root / 'stdout')
    os.symlink('/dev/tty', root / 'tty')
    ops = [lambda ws, p: ws.open(p, 'w').close(),
           lambda ws, p: ws.open(p, 'a').close(),
           lambda ws, p: ws.open(p, 'rb').close(),
           lambda ws, p: ws.write_bytes(p, b'x'),
           lambda ws, p: ws.read_bytes(p),
           lambda ws, p: safe_open(ws.root, p, 'wb', symlinks=mode).close()]
    with Workspace(root, symlinks=mode) as ws:
        for path in ('a/fifo', 'devnull', 'stdout', 'tty'):
            for op in ops:
                with pytest.raises(WorkspaceEscapeError) as ei:
                    op(ws, path)
                # trust follows links: what it refuses is a target outside
                want = {'outside-roots', 'magic-link'} if mode == 'trust' else {'symlink', 'magic-link'}
                assert ei.value.reason in want, (path, str(ei.value))


def _separate_mount(path):
    try:
        return os.stat(path).st_dev != os.stat('/').st_dev
    except OSError:
        return False


@pytest.mark.skipif(not _separate_mount('/proc'), reason='/proc is not a separate mount here')
def test_mounts_false_refuses_mount_crossing(resolver):
    with Workspace('/', mounts=False) as ws:
        assert ws.mounts is False
        for op in (lambda: ws.read_bytes('proc/self/status'),
                   lambda: ws.listdir('proc'),
                   lambda: ws.stat('proc'),
                   lambda: ws.listdir('proc/'),
                   lambda: ws.subworkspace('proc'),
                   lambda: safe_open('/', 'proc/self/status', 'rb', mounts=False)):
            with pytest.raises(WorkspaceEscapeError) as ei:
                op()
            assert ei.value.reason == 'mount-crossing', str(ei.value)
            assert 'mount' in str(ei.value)
        # the root's own mount stays usable
        assert ws.stat('proc', follow_symlinks=False)
        assert 'proc' in ws.listdir()
    with Workspace('/') as ws:
        assert ws.mounts is True
        assert b'Name' in ws.read_bytes('proc/self/status')
    assert b'Name' in safe_open('/', 'proc/self/status', 'rb').read()


@pytest.mark.skipif(not _separate_mount('/dev/shm') or not os.access('/dev/shm', os.W_OK),
                    reason='no writable separate /dev/shm here')
def test_mounts_false_write_has_no_side_effect(resolver):
    name = 'fa-ws-xdev-%d' % os.getpid()
    with Workspace('/', mounts=False) as ws:
        for op in (lambda: ws.write_bytes('dev/shm/' + name, b'x'),
                   lambda: ws.mkdir('dev/shm/' + name),
                   lambda: ws.atomic_write('dev/shm/' + name, b'x')):
            with pytest.raises(WorkspaceEscapeError) as ei:
                op()
            assert ei.value.reason == 'mount-crossing', str(ei.value)
            assert not os.path.lexists('/dev/shm/' + name)


def test_subworkspace_cannot_reach_siblings(tree):
    root, out = tree
    (root / 'sib').mkdir()
    (root / 'sib' / 'data').write_text('sibling')
    os.symlink('../sib', root / 'a' / 'tosib')
    with Workspace(root, deny=['a/b/deny']) as ws:
        (root / 'a' / 'b' / 'deny').mkdir()
        with ws.subworkspace('a') as sub:
            assert sub.root == str(root / 'a')
            for p in ('../sib/data', 'tosib/data', 'out/victim', '/etc/passwd'):
                with pytest.raises(WorkspaceEscapeError):
                    sub.read_bytes(p)
                with pytest.raises(WorkspaceEscapeError):
                    sub.write_bytes(p, b'x')
            with pytest.raises(WorkspaceEscapeError) as ei:
                sub.write_bytes('b/deny/x', b'x')
            assert ei.value.reason == 'deny-subtree'
            with sub.subworkspace('b') as subsub:
                with pytest.raises(WorkspaceEscapeError):
                    subsub.read_bytes('../../sib/data')
                assert subsub.read_text('f') == 'inside'
            sub.write_bytes('b/ok', b'fine')
        with pytest.raises(WorkspaceEscapeError):
            ws.subworkspace('a/b/deny')
        with pytest.raises(WorkspaceEscapeError):
            ws.subworkspace('a/out')
        with pytest.raises(NotADirectoryError):
            ws.subworkspace('a/b/f')
    assert (root / 'sib' / 'data').read_text() == 'sibling'


def test_safe_open(tree):
    root, out = tree
    with safe_open(root, 'a/b/new', 'w', encoding='utf-8') as f:
        f.write('text')
    with safe_open(str(root), b'a/b/new') as f:
        assert f.read() == 'text'
    with pytest.raises(WorkspaceEscapeError):
        safe_open(root, 'a/out/victim', 'w')
    with pytest.raises(WorkspaceEscapeError):
        safe_open(root, 'a/inb/f', 'r', symlinks='nofollow')
    # a root made again at the same path is pinned afresh
    other = root.parent / 'moved'
    os.rename(root, other)
    root.mkdir()
    with safe_open(root, 'fresh', 'w') as f:
        f.write('x')
    assert (root / 'fresh').exists() and not (other / 'fresh').exists()
    # a link inside takes the pinned route, checked against the path too
    (root / 'd').mkdir()
    (root / 'd' / 'f').write_text('in d')
    os.symlink('d', root / 'ld')
    with safe_open(root, 'ld/f') as f:
        assert f.read() == 'in d'
    os.rename(root, root.parent / 'moved2')
    root.mkdir()
    (root / 'e').mkdir()
    (root / 'e' / 'f').write_text('in e')
    os.symlink('e', root / 'ld')
    with safe_open(root, 'ld/f') as f:
        assert f.read() == 'in e'
    # deleted: the path names nothing
    import shutil
    shutil.rmtree(root)
    with pytest.raises(FileNotFoundError):
        safe_open(root, 'x', 'w')
    assert not root.exists()


def test_fa_check_agrees(tree):
    fa_check = os.environ.get('FA_CHECK')
    if not fa_check or not os.access(fa_check, os.X_OK):
        pytest.skip('fa-check is not built')
    root, _ = tree
    paths = [p for p, _ in ESCAPES + FINAL_LINKS if not p.startswith('/')]
    paths += ['a/b/f', 'a/inb/f', 'a/b/new', 'a', 'a/dangling', 'empty/x', '.']
    res = subprocess.run([fa_check, '--allow', str(root), '--deny', str(root / 'secret'),
                          '--symlinks=beneath', '--'] + paths,
                         capture_output=True, text=True)
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(lines) == len(paths)
    with Workspace(root, deny=['secret']) as ws:
        for p, verdict in zip(paths, lines):
            try:
                ws.stat(p)
                got = 'allow'
            except WorkspaceEscapeError as e:
                got = e.reason
            except FileNotFoundError:
                got = 'allow'   # fa-check judges a path that need not exist
            want = 'allow' if verdict['decision'] == 'allow' else verdict['reason']
            assert got == want, (p, verdict)


RACER = r'''
import os, sys, time
root, outside, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = os.path.join(root, 'd')
end = time.monotonic() + seconds
while time.monotonic() < end:
    try:
        os.rename(d, d + '.real')
        os.symlink(outside, d)
        os.unlink(d)
        os.rename(d + '.real', d)
    except OSError:
        pass
'''


def test_rename_swap_race(tree):
    root, out = tree
    (root / 'd').mkdir()
    seconds = 1.5
    racer = subprocess.Popen([sys.executable, '-c', RACER, str(root), str(out),
                              str(seconds)])
    rounds = ok = 0
    try:
        with Workspace(root) as ws:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                rounds += 1
                for op in (lambda: safe_open(root, 'd/f', 'wb').close(),
                           lambda: ws.mkdir('d/n', exist_ok=True),
                           lambda: ws.unlink('d/f'),
                           lambda: ws.write_bytes('d/victim', b'x')):
                    try:
                        op()
                        ok += 1
                    except OSError:
                        pass
    finally:
        racer.wait()
    assert rounds > 100
    assert ok > 0
    assert sorted(os.listdir(out)) == ['vdir', 'victim']
    assert (out / 'victim').read_text() == 'outside'
