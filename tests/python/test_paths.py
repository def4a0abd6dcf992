# SPDX-License-Identifier: Apache-2.0
"""Path events judged by the engine: which path, which descriptor, no side effects."""
import os
import shutil
import sqlite3
import tempfile

import pytest


def snapshot(*dirs):
    out = {}
    for d in dirs:
        for base, subdirs, files in os.walk(d):
            for n in subdirs + files:
                p = os.path.join(base, n)
                st = os.lstat(p)
                out[p] = (st.st_mode, st.st_size)
    return out


def test_write_open_inside_and_outside(mk, root, outside):
    ap = mk([root])
    (outside / 'keep').write_text('old')
    before = snapshot(outside)
    with ap():
        with open(root / 'a.txt', 'w') as f:
            f.write('ok')
        for mode in ('w', 'a', 'x', 'r+', 'wb'):
            target = outside / ('keep' if mode == 'r+' else 'new')
            with pytest.raises(PermissionError) as ei:
                open(target, mode)
            assert repr(str(target)) in str(ei.value)
        with pytest.raises(PermissionError):
            open(outside / 'keep', 'w')
        # reads are never judged
        assert (outside / 'keep').read_text() == 'old'
    assert snapshot(outside) == before
    assert (root / 'a.txt').read_text() == 'ok'


def test_message_shape(mk, root, outside):
    ap = mk([root])
    with ap():
        with pytest.raises(PermissionError) as ei:
            open(outside / 'f', 'w')
    msg = str(ei.value)
    roots = (os.path.realpath(root),)
    # exactly the seed's text: hosts compare and parse it
    assert msg == f"open {str(outside / 'f')!r} not in {roots!r}"
    e = ei.value
    assert (e.event, e.path, e.rule, e.op, e.roots) == ('open', str(outside / 'f'), 'outside-roots',
                                                         'write', roots)
    assert e.resolved == os.path.realpath(outside / 'f')
    assert len(e.__notes__) == 1 and 'outside-roots' in e.__notes__[0]
    assert e.resolved in e.__notes__[0]
    assert ei.value.__traceback__ is not None
    pkg = os.path.dirname(__import__('fastaudit').__file__)
    for entry in __import__('traceback').extract_tb(ei.value.__traceback__):
        assert not entry.filename.startswith(pkg)


def test_os_open_flags(mk, root, outside):
    ap = mk([root])
    with ap():
        os.close(os.open(root / 'f', os.O_WRONLY | os.O_CREAT))
        fd = os.open(root / 'f', os.O_RDONLY)
        os.close(fd)
        with pytest.raises(PermissionError):
            os.open(outside / 'f', os.O_WRONLY | os.O_CREAT)
        with pytest.raises(PermissionError):
            os.open(outside / 'g', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        # a read-only open of an outside file is fine
        (root / 'r').write_text('x')
        os.close(os.open(str(root / 'r').encode(), os.O_RDONLY))
    assert not (outside / 'f').exists() and not (outside / 'g').exists()


def test_writes_through_open_descriptors(mk, root, outside):
    ap = mk([root])
    fd = os.open(outside / 'pre', os.O_RDWR | os.O_CREAT)
    try:
        with ap():
            with open(fd, 'w', closefd=False) as f:
                f.write('data')
            with os.fdopen(os.dup(fd), 'w') as f:
                f.write('more')
            os.truncate(fd, 2)
            os.ftruncate(fd, 1)
            with pytest.raises(PermissionError):
                os.truncate(outside / 'pre', 0)
            (root / 't').write_text('abc')
            os.truncate(root / 't', 1)
    finally:
        os.close(fd)
    assert os.path.getsize(outside / 'pre') == 1
    assert (root / 't').read_text() == 'a'


def test_fd_attr_calls_judged_by_what_fd_names(mk, root, outside):
    ap = mk([root])
    (root / 'in').write_text('x')
    (outside / 'out').write_text('x')
    fin = os.open(root / 'in', os.O_RDONLY)
    fout = os.open(outside / 'out', os.O_RDONLY)
    dout = os.open(outside, os.O_RDONLY)
    din = os.open(root, os.O_RDONLY)
    cwd = os.getcwd()
    try:
        with ap():
            os.fchmod(fin, 0o600)
            with pytest.raises(PermissionError):
                os.fchmod(fout, 0o600)
            os.fchdir(din)
            with pytest.raises(PermissionError):
                os.fchdir(dout)
    finally:
        os.chdir(cwd)
        for fd in (fin, fout, dout, din):
            os.close(fd)
    assert os.stat(outside / 'out').st_mode & 0o777 != 0o600


def test_chdir_destination_itself_and_dot_root(mk, root, outside):
    (root / 'sub').mkdir()
    ap = mk(['.'])
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with ap():
            os.chdir('sub')            # into a child of the live cwd
            open('here', 'w').close()  # '.' follows the cwd
            with pytest.raises(PermissionError):
                open(root / 'above', 'w')
            with pytest.raises(PermissionError):
                os.chdir(outside)
    finally:
        os.chdir(cwd)
    assert (root / 'sub' / 'here').exists() and not (root / 'above').exists()


def test_chdir_checked_against_roots(mk, root, outside):
    ap = mk([root])
    cwd = os.getcwd()
    try:
        with ap():
            os.chdir(root)
            with pytest.raises(PermissionError, match=r"os\.chdir .* not in"):
                os.chdir(outside)
    finally:
        os.chdir(cwd)


def test_dir_fd_judged_against_the_fd(mk, root, outside):
    ap = mk([root])
    dfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    ofd = os.open(outside, os.O_RDONLY | os.O_DIRECTORY)
    cwd = os.getcwd()
    os.chdir(outside)   # the cwd is outside: a cwd-based judgement would deny
    try:
        with ap():
            os.mkdir('d', dir_fd=dfd)
            open(root / 'f', 'w').close()
            os.rename('f', 'g', src_dir_fd=dfd, dst_dir_fd=dfd)
            os.remove('g', dir_fd=dfd)
            os.rmdir('d', dir_fd=dfd)
            with pytest.raises(PermissionError):
                os.mkdir('x', dir_fd=ofd)
            with pytest.raises(PermissionError):
                os.rename('nothing', 'y', src_dir_fd=dfd, dst_dir_fd=ofd)
    finally:
        os.chdir(cwd)
        os.close(dfd)
        os.close(ofd)
    assert os.listdir(root) == [] and os.listdir(outside) == []


def test_rmtree_inside_root(mk, root, outside):
    ap = mk([root])
    (root / 'a' / 'b').mkdir(parents=True)
    (root / 'a' / 'b' / 'f').write_text('x')
    (outside / 'keep').mkdir()
    with ap():
        shutil.rmtree(root / 'a')
        with pytest.raises(PermissionError):
            shutil.rmtree(outside / 'keep')
    assert not (root / 'a').exists() and (outside / 'keep').exists()


def test_rename_link_symlink_copy(mk, root, outside):
    ap = mk([root])
    (root / 'src').write_text('x')
    (outside / 'osrc').write_text('y')
    with ap():
        os.rename(root / 'src', root / 'dst')
        with pytest.raises(PermissionError):
            os.rename(root / 'dst', outside / 'moved')
        with pytest.raises(PermissionError):
            os.rename(outside / 'osrc', root / 'stolen')
        os.link(root / 'dst', root / 'hard')
        with pytest.raises(PermissionError):
            os.link(root / 'dst', outside / 'hard')
        os.symlink(root / 'dst', root / 'sym')
        with pytest.raises(PermissionError):
            os.symlink(root / 'dst', outside / 'sym')
        shutil.copyfile(outside / 'osrc', root / 'copy')
        with pytest.raises(PermissionError):
            shutil.copyfile(root / 'dst', outside / 'copy')
        shutil.move(str(root / 'copy'), str(root / 'moved'))
    assert sorted(os.listdir(outside)) == ['osrc']
    assert sorted(os.listdir(root)) == ['dst', 'hard', 'moved', 'sym']


def test_tempfiles_in_root(mk, root, outside):
    ap = mk([root])
    with ap():
        with tempfile.NamedTemporaryFile(dir=root) as f:
            f.write(b'x')
        with tempfile.TemporaryFile(dir=root) as f:
            f.write(b'x')
        fd, p = tempfile.mkstemp(dir=root)
        os.close(fd)
        os.remove(p)
        d = tempfile.mkdtemp(dir=root)
        os.rmdir(d)
        for fn in (tempfile.NamedTemporaryFile, tempfile.TemporaryFile, tempfile.mkstemp,
                   tempfile.mkdtemp):
            with pytest.raises(PermissionError):
                fn(dir=outside)
    assert os.listdir(root) == [] and os.listdir(outside) == []


def test_sqlite(mk, root, outside):
    ap = mk([root])
    with ap():
        con = sqlite3.connect(':memory:')
        con.close()
        con = sqlite3.connect(root / 'db.sqlite')
        con.execute('create table t(x)')
        con.commit()
        con.close()
        with pytest.raises(PermissionError):
            sqlite3.connect(outside / 'db.sqlite')
    assert not (outside / 'db.sqlite').exists()


def test_mkdir_remove_chmod(mk, root, outside):
    ap = mk([root])
    (outside / 'f').write_text('x')
    with ap():
        os.makedirs(root / 'a' / 'b')
        os.chmod(root / 'a', 0o755)
        with pytest.raises(PermissionError):
            os.mkdir(outside / 'd')
        with pytest.raises(PermissionError):
            os.remove(outside / 'f')
        with pytest.raises(PermissionError):
            os.chmod(outside / 'f', 0o600)
        os.removedirs(root / 'a' / 'b')
    assert (outside / 'f').exists() and not (outside / 'd').exists()


def test_components_not_prefixes(mk, tmp_path):
    (tmp_path / 'ab').mkdir()
    (tmp_path / 'a').mkdir()
    ap = mk([tmp_path / 'a'])
    with ap():
        with pytest.raises(PermissionError):
            open(tmp_path / 'ab' / 'f', 'w')


def test_pathlike_and_bytes(mk, root, outside):
    ap = mk([str(root).encode()])
    with ap():
        (root / 'p').write_text('x')
        open(str(root / 'b').encode(), 'w').close()
        with pytest.raises(PermissionError):
            (outside / 'p').write_text('x')


def test_symlink_target_must_resolve_inside(mk, root, outside):
    ap = mk([root])
    with ap():
        os.symlink('sub/x', root / 'ok')
        for target in ('../outside/x', str(outside / 'x'), '/etc/passwd'):
            with pytest.raises(PermissionError, match='link-target'):
                os.symlink(target, root / 'bad')
    assert os.listdir(root) == ['ok']


def test_outside_symlinks_allowed_by_keyword(mk, root, outside):
    (outside / 'h').write_text('theirs')
    ap = mk([root], allow_outside_symlinks=True)
    with ap():
        os.symlink(str(outside / 'x'), root / 'abs')
        os.symlink('../outside', root / 'rel')
        # what is written through them is judged where it lands
        with pytest.raises(PermissionError):
            (root / 'abs').write_text('x')
        with pytest.raises(PermissionError):
            (root / 'rel' / 'y').write_text('x')
        # hard links never reach outside
        with pytest.raises(PermissionError, match='link-target'):
            os.link(outside / 'h', root / 'hard')
    assert sorted(os.listdir(root)) == ['abs', 'rel']
    assert sorted(os.listdir(outside)) == ['h']


def test_outside_symlink_refusal_names_the_keyword(mk, root):
    with mk([root])():
        with pytest.raises(PermissionError, match='allow_outside_symlinks'):
            os.symlink('/etc/passwd', root / 'bad')


def test_before_deny_gets_the_exact_message(mk, root, outside):
    seen = []
    ap = mk([root], before_deny=lambda ev, a, f, msg, *r: seen.append(msg))
    with ap():
        with pytest.raises(PermissionError):
            os.remove(outside / 'p')
    assert seen == [f"os.remove {str(outside / 'p')!r} not in {(os.path.realpath(root),)!r}"]


def test_removing_a_root_says_so(mk, root):
    ap = mk([root])
    with ap():
        with pytest.raises(PermissionError) as ei:
            os.rmdir(root)
    r = os.path.realpath(root)
    assert str(ei.value) == f"os.rmdir {str(root)!r} is an allowed root itself, not a path inside {(r,)!r}"
    assert ei.value.rule == 'root-itself'
    assert root.is_dir()


def test_every_denial_readable_afterwards(mk, root, outside):
    from fastaudit import recent_denials
    ap = mk([root])
    with ap():
        try:
            os.remove(outside / 'swallowed')
        except PermissionError:
            pass                 # a library that swallows the error
        try:
            os.system('true')
        except PermissionError:
            pass
    d = recent_denials()
    assert [x['event'] for x in d[-2:]] == ['os.remove', 'os.system']
    assert d[-2]['layer'] == 'hook' and d[-2]['path'] == str(outside / 'swallowed')
    assert d[-2]['rule'] == 'outside-roots' and 'not in' in d[-2]['message']
    assert d[-1]['message'].startswith('Audit: os.system blocked in sandbox')


def test_os_open_relative_says_it_was_judged_by_the_cwd(mk, root, outside):
    ap = mk([root])
    dfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    cwd = os.getcwd()
    os.chdir(outside)
    try:
        with ap():
            with pytest.raises(PermissionError) as ei:
                os.open('f', os.O_CREAT | os.O_WRONLY, dir_fd=dfd)
    finally:
        os.chdir(cwd)
        os.close(dfd)
    if not __import__('fastaudit').audit_state()['native']:
        assert 'judged against the current directory' in ei.value.__notes__[0]
