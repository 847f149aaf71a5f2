"""The manifest of sample_images/: every file with its sha256, so a test can tell that the
committed samples are exactly the ones the documented command made."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

NAME = "MANIFEST.sha256"
#: Files in the folder that the manifest does not list.
UNLISTED = {NAME, "README.md"}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (but the manifest and README) -> its sha256."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.relative_to(folder).as_posix() not in UNLISTED:
            out[path.relative_to(folder).as_posix()] = digest(path)
    return out


def write(folder: Path) -> Path:
    lines = [f"{sha}  {name}\n" for name, sha in listing(folder).items()]
    target = folder / NAME
    target.write_text("".join(lines), encoding="utf-8")
    return target


def read(folder: Path) -> dict[str, str]:
    out = {}
    for number, line in enumerate((folder / NAME).read_text(encoding="utf-8").splitlines(), start=1):
        sha, sep, name = line.partition("  ")
        if not sep or len(sha) != 64:
            raise ValueError(f"{folder / NAME}:{number}: expected 'SHA256  PATH', got {line!r}")
        out[name] = sha
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "write":
        print("usage: python -m referee.render.manifest write FOLDER", file=sys.stderr)
        raise SystemExit(2)
    print(write(Path(sys.argv[2])))
