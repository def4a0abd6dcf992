# SPDX-License-Identifier: Apache-2.0
"""Where the package's shim is, and how to re-run a process under it.

The package holds ``lib/libfashim.so`` (and ``bin/fa-run``, ``bin/fa-check``):
the files themselves in a wheel, links to ``$libdir`` (``$bindir``) after
``make install`` and in the build tree.
"""
from __future__ import annotations

import os
import shlex
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def shim_path() -> str:
    """The absolute path of this install's libfashim.so, for LD_PRELOAD."""
    path = os.path.join(_HERE, 'lib', 'libfashim.so')
    if not os.path.exists(path):
        raise FileNotFoundError(f'fastaudit: {path} is missing: this install of fastaudit '
                                f'is incomplete; reinstall fastaudit-native')
    return os.path.realpath(path)


def reexec_hint() -> str:
    """How to run this very process again with the shim preloaded.

    sys.orig_argv is the command line as given (python -m x, -c ...), and
    LD_PRELOAD must be set before the interpreter starts, hence a re-exec.
    """
    try:
        shim = shim_path()
    except FileNotFoundError as e:
        return str(e)
    argv = list(getattr(sys, 'orig_argv', None) or [sys.executable] + sys.argv)
    return (f'start it as  LD_PRELOAD={shlex.quote(shim)} {shlex.join(argv)}  '
            f'or re-exec from the host before mk_audit:  '
            f'os.execve(sys.executable, sys.orig_argv, '
            f'dict(os.environ, LD_PRELOAD=fastaudit.shim_path()))')
