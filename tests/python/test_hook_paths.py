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
