"""Writing files that readers may see at any moment, for training and evaluation alike."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: Path | str, data: bytes) -> None:
    """Writes `data` to `path` so that readers see the old file or the whole new one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    except OSError:
        pass
