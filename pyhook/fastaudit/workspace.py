# SPDX-License-Identifier: Apache-2.0
"""Files beneath a pinned root directory: ``safe_open`` and ``Workspace``.

Every path is relative to the workspace root and is resolved by the kernel
beneath a descriptor of that root (``openat2`` with ``RESOLVE_BENEATH``, or
an ``O_NOFOLLOW`` walk), by the same engine as ``fa-check`` and the libc
shim, so a renamed directory or a swapped symlink cannot send an operation
outside. Escapes raise :class:`WorkspaceEscapeError`, a ``PermissionError``
naming the path, the root and the reason; other failures keep their usual
exceptions (``FileNotFoundError``, ``FileExistsError``, ...).

The work is done in C (``fastaudit._workspace``); this module only adds the
convenience readers and writers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _workspace

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, StrOrBytesPath

__all__ = ['safe_open', 'Workspace', 'WorkspaceEscapeError', 'REASONS']

WorkspaceEscapeError = _workspace.WorkspaceEscapeError
safe_open = _workspace.safe_open

# The values WorkspaceEscapeError.reason takes (the engine's reason names).
REASONS: frozenset[str] = frozenset({
    'escapes', 'absolute', 'symlink', 'magic-link', 'mount-crossing',
    'deny-subtree', 'protects-deny', 'link-target', 'not-portable',
    'outside-roots', 'error',
})


class Workspace(_workspace.Workspace):
    """Workspace(root, deny=(), symlinks='beneath', portable=False, mounts=True)

    A directory pinned by a descriptor; use it as a context manager. The
    symlink mode is 'beneath' (links are followed only while they stay
    inside), 'nofollow' (no links at all) or 'trust'. ``deny`` lists
    subtrees (relative to the root, or absolute inside it) that no
    operation may touch. ``portable=True`` refuses names that other
    systems cannot hold (CON, ``a:b``, trailing dots and spaces).
    ``mounts=False`` refuses any path that crosses a mount point below the
    root (reason 'mount-crossing').

    Nothing outside the root is opened, for reading or writing: a device,
    a FIFO or a ``/dev/fd`` alias reached through a link is refused like
    any other path outside, without being opened first.
    """

    __slots__ = ()

    def read_bytes(self, path: StrOrBytesPath) -> bytes:
        """The content of the file at path, as bytes."""
        with self.open(path, 'rb') as f:
            return f.read()

    def read_text(self, path: StrOrBytesPath, encoding: str | None = None,
                  errors: str | None = None) -> str:
        """The content of the file at path, decoded."""
        with self.open(path, 'r', encoding=encoding, errors=errors) as f:
            return f.read()

    def write_bytes(self, path: StrOrBytesPath, data: ReadableBuffer) -> int:
        """Write data to the file at path (created or truncated); the count written."""
        view = memoryview(data)
        with self.open(path, 'wb') as f:
            return f.write(view)

    def write_text(self, path: StrOrBytesPath, data: str, encoding: str | None = None,
                   errors: str | None = None, newline: str | None = None) -> int:
        """Write the text data to the file at path (created or truncated); the
        count of characters written."""
        if not isinstance(data, str):
            raise TypeError('data must be str, not %s' % type(data).__name__)
        with self.open(path, 'w', encoding=encoding, errors=errors,
                       newline=newline) as f:
            return f.write(data)
