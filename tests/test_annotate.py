"""`cython -a` shows no Python interaction in any hot function (`cdef ... noexcept nogil`)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fairymax"
HOT = re.compile(r"^cdef .*noexcept nogil:")
ROW = re.compile(r'<pre class="cython line score-(\d+)"[^>]*>.*?<span class="">(\d+)</span>')


def hot_lines(source: list[str]):
    """(line number, text) of every line inside a module-level hot function."""
    for i, line in enumerate(source):
        if HOT.match(line):
            j = i + 1
            while j < len(source) and (source[j].startswith((" ", "\t")) or not source[j].strip()):
                yield j + 1, source[j]
                j += 1


@pytest.mark.parametrize("pyx", sorted(PACKAGE.glob("*.pyx")), ids=lambda p: p.name)
def test_hot_functions_are_pure_c(pyx, tmp_path):
    copy = tmp_path / "fairymax"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("*.so", "*.c", "*.html", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "cython", "-3", "-a", str(copy / pyx.name)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    scores = {int(line): int(score) for score, line in ROW.findall((copy / pyx.name).with_suffix(".html").read_text())}
    source = pyx.read_text().splitlines()
    python_lines = [f"{n}: {text.strip()}" for n, text in hot_lines(source) if scores.get(n, 0) > 0]
    assert not python_lines, "\n".join(python_lines)
