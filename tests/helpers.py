"""What several test files share: running the ``referee`` command as a user would, the shape of
a user error, and where the real photographs are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The labelled real photographs are not part of the repository (their licence differs): they
#: sit in ``shared/real_photos`` beside the checkout, as in CI, or where REFEREE_REAL_PHOTOS says.
REAL = Path(os.environ.get("REFEREE_REAL_PHOTOS") or REPO.parent / "shared" / "real_photos")
REAL_ABSENT = (f"the real photographs are not in the repository (GPL licence); put them in {REAL} "
               "as CI does, or point REFEREE_REAL_PHOTOS at them")
#: CI (``.ci/run``) sets this: there the photographs must be found, so their tests always run.
REAL_REQUIRED = os.environ.get("REFEREE_REQUIRE_REAL_PHOTOS") == "1"


def need_real_photos() -> None:
    """Skip, saying why and how to run, when the photographs are absent on a developer's machine;
    fail in CI, where they must be beside the checkout."""
    import pytest
    if REAL.is_dir():
        return
    if REAL_REQUIRED:
        pytest.fail(f"the real photographs must be in {REAL} (CI has ../shared beside the checkout)")
    pytest.skip(REAL_ABSENT)


def referee(*args: str | Path, cwd: Path = REPO, stdin: str | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee.cli ARGS`` with this interpreter, this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "referee.cli", *map(str, args)], cwd=cwd, env=env,
                          input=stdin, capture_output=True, text=True, timeout=timeout, check=False)


def ok(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single line a user error prints on stderr (exit 2, nothing on stdout)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def sqlite_file(path: Path, *statements: str) -> Path:
    """``path`` after running ``statements`` on it with plain sqlite3 (another program's file, an
    older or newer schema, a damaged table), committed."""
    import sqlite3
    db = sqlite3.connect(path)
    try:
        for statement in statements:
            db.execute(statement)
        db.commit()
    finally:
        db.close()
    return path
