"""examples/python/sweep.py --small runs on a LocalCluster and writes its PNG."""

import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_sweep_example_small(tmp_path):
    out = tmp_path / "sweep.png"
    result = subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "python" / "sweep.py"), "--small", "--workers",
                             "2", "--out", str(out)], capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert result.returncode == 0, result.stderr[-2000:]
    assert "12 drops of 100 steps" in result.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "dashboard: http://127.0.0.1:" in result.stdout  # this machine only (abdyn.distributed.local_cluster)
    # Every cell reports a pelvis resting above the ground: the drops landed and stayed on it.
    heights = [float(line.split("final pelvis z")[1].split()[0]) for line in result.stdout.splitlines() if "pelvis z" in line]
    assert len(heights) == 4 and all(-0.95 < z < 0.1 for z in heights)
