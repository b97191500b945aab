"""Each example in examples/python runs and says what it should."""

import os
import subprocess
import sys

from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "examples" / "python"


def run(name, *args, cwd):
    result = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=cwd, env=dict(os.environ),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_forward_dynamics_example(tmp_path):
    out = run("forward_dynamics.py", cwd=tmp_path)
    assert "nv = 36" in out
    error = float(out.split("max |RNEA(ABA(tau)) - tau| =")[1].split()[0])
    assert error < 1e-9


def test_humanoid_fall_example(tmp_path):
    out = run("humanoid_fall.py", str(tmp_path / "fall.png"), cwd=tmp_path)
    png = (tmp_path / "fall.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
    assert "contact points" in out


def test_adapters_example(tmp_path):
    out = run("adapters.py", cwd=tmp_path)
    for library in ("rbdl", "brax", "pinocchio", "mujoco"):
        line = next(line for line in out.splitlines() if line.startswith(library))
        assert float(line.rsplit("round trip error", 1)[1]) < 1e-10
