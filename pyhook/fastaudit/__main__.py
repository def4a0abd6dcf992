"""python -m fastaudit run|check ARGS: fa-run and fa-check from this install.

``run`` is fa-run itself (this process becomes it), so its options, messages
and exit status are fa-run's; the same holds for ``check`` and fa-check. The
``fa-run`` and ``fa-check`` commands a pip install puts on PATH come here too.
"""
import os
import sys

from ._shim import program_path

_PROGRAMS = {'run': 'fa-run', 'check': 'fa-check'}
_USAGE = '''usage: python -m fastaudit run [FA-RUN OPTION]... [--] COMMAND [ARG]...
       python -m fastaudit check [FA-CHECK OPTION]... [--] PATH...
run is fa-run and check is fa-check (see --help of each); the exit status
is theirs. Without a command: this text, exit status 2.'''


def _exec(name, args):
    try:
        path = program_path(name)
        os.execv(path, [name] + list(args))
    except OSError as e:
        # fa-run's and fa-check's own statuses for a program that cannot run
        print(f'{name}: {e}', file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126


def fa_run():
    return _exec('fa-run', sys.argv[1:])


def fa_check():
    return _exec('fa-check', sys.argv[1:])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in _PROGRAMS:
        print(_USAGE, file=sys.stdout if argv[:1] in (['-h'], ['--help']) else sys.stderr)
        return 0 if argv[:1] in (['-h'], ['--help']) else 2
    return _exec(_PROGRAMS[argv[0]], argv[1:])


if __name__ == '__main__':
    sys.exit(main())
