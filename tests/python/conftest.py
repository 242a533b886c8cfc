"""Shared by the package's tests: the `moesim` command line built beside the package, to check
that a Python call and the command give the same figures, files and messages."""
import subprocess
from pathlib import Path

import pytest

import moesim


@pytest.fixture
def cli():
    """cli(*args) runs `moesim args...` and returns the finished process; skips where the build
    beside the package has no command line (an installed package)."""
    binary = Path(moesim._core.__file__).resolve().parents[2] / "tools" / "moesim"
    if not binary.is_file():
        pytest.skip("no moesim command line beside the package")

    def run(*args):
        return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=600)

    return run


def cli_message(done):
    """The line `moesim` printed for bad input, as the package's error carries it: without the
    program's "moesim: " and the hint to --help."""
    assert done.returncode == 2, done.stdout + done.stderr
    line = done.stderr.strip()
    assert line.startswith("moesim: ")
    return line[len("moesim: "):].removesuffix(" (see 'moesim --help')")
