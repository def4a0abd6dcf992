# SPDX-License-Identifier: Apache-2.0
"""Becoming fa-run or fa-check: python -m fastaudit, and the commands of a wheel.

Each becomes the program of that name in the fastaudit package's bin/ (the
file itself in a wheel; a link to $bindir after make install), so options,
messages and exit statuses are the program's. The wheel's fa-run and
fa-check load this file by its path, without the package (whose __init__ a
command does not need): it imports nothing of the package's.
"""
import os
import sys


def program_path(name):
    """The absolute path of fa-run or fa-check in this install of fastaudit."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bin', name)
    if not os.path.exists(path):
        raise FileNotFoundError(f'{path} is missing: this install of fastaudit is '
                                f'incomplete; reinstall fastaudit-native')
    return path


def exec_program(name, args):
    """Become NAME with ARGS; returns only on failure, with fa-run's status."""
    try:
        os.execv(program_path(name), [name] + list(args))
    except OSError as e:
        print(f'{name}: {e.strerror if e.filename else e}'
              + (f': {e.filename}' if e.filename else ''), file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126
