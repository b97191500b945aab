"""The documented install: `cmake --install build --prefix P`, then the package imports from
P/lib/python3.X/dist-packages, run from outside the source and build trees, with the installed libabdyn."""

import os
import pathlib
import subprocess
import sys

import pytest

BINARY_DIR = os.environ.get("ABDYN_BINARY_DIR")


@pytest.mark.skipif(not BINARY_DIR, reason="needs ABDYN_BINARY_DIR (set by CTest)")
def test_install_and_import(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BINARY_DIR, "--prefix", str(prefix)], check=True, capture_output=True,
                   timeout=300)
    site = sorted(prefix.glob("lib/python3*/dist-packages"))
    assert len(site) == 1, list(prefix.rglob("*"))
    script = (
        "import abdyn, numpy as np, sys\n"
        "m = abdyn.load_urdf_string(sys.argv[1])\n"
        "d = abdyn.Data(m)\n"
        "print(abdyn.__file__)\n"
        "print(abdyn.forward_dynamics(m, d, abdyn.neutral(m), np.zeros(m.nv), np.zeros(m.nv)).shape)\n"
        "print(next(line.split()[-1] for line in open('/proc/self/maps') if 'libabdyn' in line))\n"
        "import abdyn.viewer\n"
        "print(abdyn.viewer._program())\n")
    urdf = """<robot name="pendulum">
      <link name="base"/>
      <link name="arm"><inertial><mass value="1"/><origin xyz="0 0 -0.5"/>
        <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="1 0 0"/>
        <limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
    </robot>"""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "ABDYN_PROGRAM")}
    env["PYTHONPATH"] = str(site[0])
    env["PATH"] = "/usr/bin:/bin"  # no other abdyn program to fall back on
    result = subprocess.run([sys.executable, "-c", script, urdf], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    module, shape, library, program = result.stdout.split("\n")[:4]
    assert pathlib.Path(module).is_relative_to(site[0])
    assert shape == "(1,)"
    assert pathlib.Path(library).resolve().is_relative_to(prefix.resolve()), library
    # abdyn.viewer finds the program installed beside the package, whatever the prefix.
    assert pathlib.Path(program).resolve() == (prefix / "bin" / "abdyn").resolve(), program
