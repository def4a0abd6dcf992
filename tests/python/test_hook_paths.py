# SPDX-License-Identifier: Apache-2.0
"""Path arguments the hook reads in place (an ASCII str) or through the
file-system encoding (anything else) are judged alike."""
import os
import sys

import pytest

from fastaudit import mk_audit


def test_embedded_nul_is_not_a_path_even_inside_a_root(tmp_path):
    # raised by hand: CPython's own calls refuse such a path before the event
    with mk_audit([str(tmp_path)], monitor_calls=False)():
        with pytest.raises(PermissionError) as e:
            sys.audit('open', f'{tmp_path}/in\x00side', 'w', os.O_WRONLY | os.O_CREAT)
    assert e.value.rule == 'not-a-path'


@pytest.mark.parametrize('name', ['plain', 'caf\u00e9', b'bytes'])
def test_inside_allowed_outside_refused_whatever_the_spelling(tmp_path, name):
    root, out = tmp_path / 'root', tmp_path / 'out'
    root.mkdir()
    out.mkdir()

    def spell(d):
        if isinstance(name, bytes):
            return os.fsencode(d) + b'/' + name
        return f'{d}/{name}'
    with mk_audit([str(root)], monitor_calls=False)():
        open(spell(root), 'w').close()
        with pytest.raises(PermissionError) as e:
            open(spell(out), 'w')
    assert e.value.rule == 'outside-roots'
    assert os.listdir(out) == []


def test_times_are_judged_like_modes(tmp_path):
    # os.utime changes a file as os.chmod does: one rule for the hook and the shim
    root, out = tmp_path / 'root', tmp_path / 'out'
    root.mkdir()
    out.mkdir()
    (root / 'f').write_text('x')
    (out / 'f').write_text('x')
    before = os.stat(out / 'f').st_mtime_ns
    d = os.open(root, os.O_RDONLY)
    fd = os.open(root / 'f', os.O_RDONLY)
    try:
        with mk_audit([str(root)], monitor_calls=False)():
            os.utime(root / 'f', (1, 1))
            os.utime('f', (2, 2), dir_fd=d)
            os.utime(fd, (3, 3))
            with pytest.raises(PermissionError) as e:
                os.utime(out / 'f', (4, 4))
    finally:
        os.close(d)
        os.close(fd)
    assert e.value.event == 'os.utime' and e.value.rule == 'outside-roots'
    assert os.stat(root / 'f').st_mtime == 3
    assert os.stat(out / 'f').st_mtime_ns == before


@pytest.mark.parametrize('fn', ['mkfifo', 'mknod'])
def test_entries_made_with_no_audit_event_of_cpython(tmp_path, fn):
    # CPython raises no event for os.mkfifo and os.mknod: the hook adds one
    import posix
    root, out = tmp_path / 'root', tmp_path / 'out'
    root.mkdir()
    out.mkdir()
    make = getattr(os, fn)
    d = os.open(root, os.O_RDONLY)
    try:
        with mk_audit([str(root)], monitor_calls=False)():
            make(str(root / 'a'))
            make('b', dir_fd=d)
            with pytest.raises(PermissionError) as e:
                make(str(out / 'c'))
            with pytest.raises(PermissionError):
                getattr(posix, fn)(str(out / 'd'))
    finally:
        os.close(d)
    assert e.value.event == 'os.' + fn and e.value.rule == 'outside-roots'
    assert sorted(os.listdir(root)) == ['a', 'b'] and os.listdir(out) == []


def test_sqlite_uris_are_judged_by_the_file_they_name(tmp_path):
    import sqlite3
    root, out = tmp_path / 'root', tmp_path / 'out'
    root.mkdir()
    out.mkdir()
    with mk_audit([str(root)], monitor_calls=False)():
        sqlite3.connect(f'file:{root}/in.db?mode=rwc', uri=True).close()
        sqlite3.connect('file::memory:', uri=True).close()
        for uri in (f'file:{out}/a.db?mode=rwc', f'file://{out}/b.db',
                    f'file://localhost{out}/c.db', 'file:' + str(out).replace('/', '%2F') + '/d.db'):
            with pytest.raises(PermissionError) as e:
                sqlite3.connect(uri, uri=True)
            assert e.value.rule == 'outside-roots', uri
        # what sqlite would not take as a URI of this machine is refused
        for uri in ('file://elsewhere/x.db', f'file:{out}/bad%zz.db'):
            with pytest.raises(PermissionError) as e:
                sqlite3.connect(uri, uri=True)
            assert e.value.rule == 'not-a-path', uri
    assert os.listdir(root) == ['in.db'] and os.listdir(out) == []
