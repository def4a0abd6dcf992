# SPDX-License-Identifier: Apache-2.0
"""Types of fastaudit._workspace, the C extension behind fastaudit.workspace."""
import os
from _typeshed import (OpenBinaryMode, OpenBinaryModeReading, OpenBinaryModeUpdating,
                       OpenBinaryModeWriting, OpenTextMode, ReadableBuffer, StrOrBytesPath,
                       StrPath)
from collections.abc import Iterable
from io import BufferedRandom, BufferedReader, BufferedWriter, FileIO, TextIOWrapper
from types import TracebackType
from typing import IO, Any, BinaryIO, Final, Literal, TypeAlias, overload

from typing_extensions import Self

Symlinks: TypeAlias = Literal['beneath', 'nofollow', 'trust']

SYMLINKS_TRUST: Final[int]
SYMLINKS_BENEATH: Final[int]
SYMLINKS_NOFOLLOW: Final[int]

class WorkspaceEscapeError(PermissionError):
    """A path that would leave the workspace, or that the workspace refuses."""
    path: StrOrBytesPath
    root: str
    reason: str

class Workspace:
    """Files beneath a directory pinned by a descriptor."""
    def __init__(self, root: StrOrBytesPath, deny: Iterable[StrOrBytesPath] | None = (),
                 symlinks: Symlinks | None = 'beneath', portable: bool = False,
                 mounts: bool = True) -> None: ...
    @property
    def root(self) -> str:
        """The resolved root directory."""
    @property
    def closed(self) -> bool:
        """True once close() ran."""
    @property
    def symlinks(self) -> Symlinks:
        """The symlink mode."""
    @property
    def portable(self) -> bool:
        """True when names other systems cannot hold are refused."""
    @property
    def mounts(self) -> bool:
        """False when paths may not cross a mount point below the root."""
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenTextMode = 'r', buffering: int = -1,
             encoding: str | None = None, errors: str | None = None,
             newline: str | None = None) -> TextIOWrapper: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenBinaryMode, buffering: Literal[0],
             encoding: None = None, errors: None = None, newline: None = None) -> FileIO: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenBinaryModeUpdating,
             buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
             newline: None = None) -> BufferedRandom: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenBinaryModeWriting,
             buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
             newline: None = None) -> BufferedWriter: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenBinaryModeReading,
             buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
             newline: None = None) -> BufferedReader: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: OpenBinaryMode, buffering: int = -1,
             encoding: None = None, errors: None = None, newline: None = None) -> BinaryIO: ...
    @overload
    def open(self, path: StrOrBytesPath, mode: str, buffering: int = -1,
             encoding: str | None = None, errors: str | None = None,
             newline: str | None = None) -> IO[Any]: ...
    def mkdir(self, path: StrOrBytesPath, parents: bool = False, exist_ok: bool = False,
              mode: int = 0o777) -> None: ...
    def unlink(self, path: StrOrBytesPath, /) -> None: ...
    def rmdir(self, path: StrOrBytesPath, /) -> None: ...
    def rename(self, src: StrOrBytesPath, dst: StrOrBytesPath, *, replace: bool = True,
               exchange: bool = False) -> None: ...
    def link(self, src: StrOrBytesPath, dst: StrOrBytesPath) -> None: ...
    def symlink(self, target: StrOrBytesPath, path: StrOrBytesPath) -> None: ...
    @overload
    def listdir(self, path: StrPath | None = '.') -> list[str]: ...
    @overload
    def listdir(self, path: bytes | os.PathLike[bytes]) -> list[bytes]: ...
    def stat(self, path: StrOrBytesPath, follow_symlinks: bool = True) -> os.stat_result: ...
    @overload
    def readlink(self, path: StrPath, /) -> str: ...
    @overload
    def readlink(self, path: bytes | os.PathLike[bytes], /) -> bytes: ...
    def atomic_write(self, path: StrOrBytesPath, data: ReadableBuffer, mode: int = 0o666
                     ) -> int: ...
    def subworkspace(self, path: StrOrBytesPath, /) -> Self: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None, /) -> None: ...

@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenTextMode = 'r',
              buffering: int = -1, encoding: str | None = None, errors: str | None = None,
              newline: str | None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> TextIOWrapper: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenBinaryMode,
              buffering: Literal[0], encoding: None = None, errors: None = None,
              newline: None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> FileIO: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenBinaryModeUpdating,
              buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
              newline: None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> BufferedRandom: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenBinaryModeWriting,
              buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
              newline: None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> BufferedWriter: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenBinaryModeReading,
              buffering: Literal[-1, 1] = -1, encoding: None = None, errors: None = None,
              newline: None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> BufferedReader: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: OpenBinaryMode,
              buffering: int = -1, encoding: None = None, errors: None = None,
              newline: None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> BinaryIO: ...
@overload
def safe_open(root: StrOrBytesPath, relpath: StrOrBytesPath, mode: str, buffering: int = -1,
              encoding: str | None = None, errors: str | None = None,
              newline: str | None = None, *, symlinks: Symlinks | None = 'beneath',
              mounts: bool = True) -> IO[Any]: ...

def _force_fallback(on: object, /) -> None: ...
def _uses_openat2() -> bool: ...
