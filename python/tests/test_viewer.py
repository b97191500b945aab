"""abdyn.viewer (the browser page from NumPy arrays) and abdyn.plot (matplotlib helpers).

The page itself is tested in a real browser by tests/viewer; here: the trajectory CSV has exactly the
layout of `abdyn simulate --csv` (compared with the program's own file), the energies agree with
independent formulas, the page is written and served, and every bad argument is refused by name."""

import os
import subprocess
import urllib.error
import urllib.request

import matplotlib

matplotlib.use("Agg")  # files only, no display

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import abdyn  # noqa: E402
from conftest import MODELS, SOURCE_DIR  # noqa: E402


def program():
    from abdyn._program import PROGRAM

    assert PROGRAM and os.access(PROGRAM, os.X_OK), PROGRAM
    return PROGRAM


def simulate_csv(tmp_path, urdf, *flags):
    csv = tmp_path / "sim.csv"
    run = subprocess.run([program(), "simulate", str(urdf), "--duration", "0.01", "--csv", str(csv), *flags],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = csv.read_text().splitlines()
    header = lines[0].split(",")
    return header, np.array([[float(x) for x in line.split(",")] for line in lines[1:]])


@pytest.mark.parametrize("name,floating", [("double_pendulum", False), ("humanoid", True)])
def test_csv_matches_the_programs_layout_and_energies(tmp_path, name, floating):
    header, rows = simulate_csv(tmp_path, MODELS / f"{name}.urdf", *(["--floating"] if floating else []))
    model = abdyn.load_urdf(MODELS / f"{name}.urdf", floating_base=floating)
    t = rows[:, 0]
    q = rows[:, 1:1 + model.nq]
    v = rows[:, 1 + model.nq:1 + model.nq + model.nv]
    text = abdyn.viewer.trajectory_csv(model, t, q, v)
    lines = text.splitlines()
    assert lines[0].split(",") == header[:2 + model.nq + model.nv + 1]  # t, q, v, kinetic, potential
    ours = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    assert ours.shape == (rows.shape[0], len(lines[0].split(",")))
    # The program prints 12 significant digits: its energies agree with ours to that precision.
    kinetic, potential = header.index("kinetic"), header.index("potential")
    scale = 1.0 + np.abs(rows[:, [kinetic, potential]]).max()
    assert np.abs(ours[:, -2:] - rows[:, [kinetic, potential]]).max() <= 1e-10 * scale


def test_energies_against_independent_formulas(arm):
    rng = np.random.default_rng(3)
    q = np.array([abdyn.random_configuration(arm, seed) for seed in range(5)])
    v = rng.standard_normal((5, arm.nv))
    kinetic, potential = abdyn.plot.energies(arm, q, v)
    data = abdyn.Data(arm)
    for k in range(5):
        M = abdyn.mass_matrix(arm, data, q[k])  # CRBA: T = v^T M v / 2
        assert abs(kinetic[k] - 0.5 * v[k] @ M @ v[k]) <= 1e-12 * (1.0 + kinetic[k])
        com = abdyn.center_of_mass(arm, data, q[k])  # V = -m g . c
        expected = -arm.total_mass * arm.gravity[3:] @ com  # Model.gravity is the spatial (6,) vector [0; g]
        assert abs(potential[k] - expected) <= 1e-12 * (1.0 + abs(expected))


def test_velocity_taken_from_configurations_when_not_given():
    model = abdyn.load_urdf(MODELS / "double_pendulum.urdf")
    t = np.linspace(0.0, 1.0, 11)
    w = np.array([0.7, -1.3])
    q = np.outer(t, w) + np.array([0.1, 0.2])  # constant joint rates w
    rows = [[float(x) for x in line.split(",")] for line in abdyn.viewer.trajectory_csv(model, t, q).splitlines()[1:]]
    v = np.array(rows)[:, 3:5]
    assert np.abs(v - w).max() <= 1e-12


def test_page_is_written_and_served(tmp_path):
    model = abdyn.load_urdf(MODELS / "double_pendulum.urdf")
    t = np.linspace(0.0, 0.5, 6)
    q = np.column_stack([np.cos(t), np.sin(t)])
    with abdyn.viewer.show(model, t, q, out=tmp_path / "page", ground=-2.0) as page:
        assert page.directory == tmp_path / "page"
        data = (page.directory / "data.js").read_text()
        assert '"name": "double_pendulum"' in data and '"ground": -2' in data
        assert data.count("\\n") >= 7  # the CSV's header and six rows travel inside data.js
        for name in ("index.html", "data.js", "viewer.js"):
            with urllib.request.urlopen(page.url + name, timeout=10) as response:
                assert response.status == 200
                assert response.read() == (page.directory / name).read_bytes()
        url = page.url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "index.html", timeout=5)


def test_models_from_strings_and_load_options_reach_the_page(tmp_path):
    # A model from a string: its text is written out for the program.
    text = (MODELS / "pendulum.urdf").read_text()
    model = abdyn.load_urdf_string(text)
    out = abdyn.viewer.write_page(model, out=tmp_path / "string")
    assert '"nq": 1' in (out / "data.js").read_text()
    # Massless fingers give a kinematic model without the bounds, and dynamics with them: the load
    # options are passed on to the page's program.
    fingers = SOURCE_DIR / "tests" / "models" / "patterns" / "massless_fingers.urdf"
    assert not abdyn.load_urdf(fingers).has_dynamics
    bounded = abdyn.load_urdf(fingers, bound_mass=0.01, bound_inertia=1e-5)
    out = abdyn.viewer.write_page(bounded, out=tmp_path / "fingers")
    assert (out / "index.html").is_file()
    # A floating base: the page is told.
    humanoid = abdyn.load_urdf(MODELS / "humanoid.urdf", floating_base=True)
    assert '"floating": true' in (abdyn.viewer.write_page(humanoid, out=tmp_path / "h") / "data.js").read_text()


def test_bad_trajectories_are_refused_by_name(arm):
    t = np.linspace(0.0, 1.0, 4)
    q = np.zeros((4, arm.nq))
    with pytest.raises(abdyn.InvalidArgument, match="'q' has shape"):
        abdyn.viewer.trajectory_csv(arm, t, np.zeros((4, arm.nq + 1)))
    with pytest.raises(abdyn.InvalidArgument, match="'t' does not increase at row 2"):
        abdyn.viewer.trajectory_csv(arm, np.array([0.0, 1.0, 1.0, 2.0]), q)
    bad = q.copy()
    bad[3, 0] = np.nan
    with pytest.raises(abdyn.InvalidArgument, match="'q' has a non-finite entry at row 3"):
        abdyn.viewer.trajectory_csv(arm, t, bad)
    with pytest.raises(abdyn.InvalidArgument, match="'v' has shape"):
        abdyn.viewer.trajectory_csv(arm, t, q, np.zeros((3, arm.nv)))
    with pytest.raises(abdyn.InvalidArgument, match="give t and q together"):
        abdyn.viewer.write_page(arm, t=t)
    with pytest.raises(abdyn.InvalidArgument, match="'t' is empty"):
        abdyn.viewer.trajectory_csv(arm, np.zeros(0), np.zeros((0, arm.nq)))


def test_models_without_a_known_source_are_refused(tmp_path):
    import pickle

    model = pickle.loads(pickle.dumps(abdyn.load_urdf(MODELS / "pendulum.urdf")))  # unpickled: its text is known
    assert (abdyn.viewer.write_page(model, out=tmp_path / "unpickled") / "data.js").is_file()
    derived = model.with_gravity([0.0, 0.0, -1.62])  # a new C++ Model with no URDF behind it
    with pytest.raises(abdyn.Error, match="pass urdf_path"):
        abdyn.viewer.write_page(derived)


def test_plots_draw_the_given_series(tmp_path):
    t = np.linspace(0.0, 1.0, 50)
    kinetic, potential = np.sin(t) ** 2, np.cos(t)
    ax = abdyn.plot.energy(t, kinetic, potential)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"kinetic", "potential", "total"}
    np.testing.assert_array_equal(lines["total"].get_ydata(), kinetic + potential)
    np.testing.assert_array_equal(lines["kinetic"].get_xdata(), t)
    ax.figure.savefig(tmp_path / "energy.png")
    assert (tmp_path / "energy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    ax = abdyn.plot.constraint_error(t, 1e-9 * (1.0 + t))
    assert ax.get_yscale() == "log"
    ax = abdyn.plot.contacts(t, np.floor(4 * t), ax=ax)
    assert len(ax.get_lines()) == 2
    with pytest.raises(abdyn.InvalidArgument, match="'potential' has shape"):
        abdyn.plot.energy(t, kinetic, potential[:-1])
    with pytest.raises(abdyn.InvalidArgument, match="'v' has shape"):
        abdyn.plot.energies(abdyn.load_urdf(MODELS / "pendulum.urdf"), np.zeros((3, 1)), np.zeros((2, 1)))


def test_joint_plots_name_each_coordinate_with_its_unit():
    # The cart-pole has a prismatic cart (m) and a revolute pole (rad): one axis per unit.
    cartpole = abdyn.load_urdf(MODELS / "cartpole.urdf")
    names = [j.name for j in cartpole.joints]
    kinds = [j.type for j in cartpole.joints]
    assert sorted(kinds) == ["prismatic", "revolute"]
    t = np.linspace(0.0, 1.0, 20)
    q = np.column_stack([np.sin(t), np.cos(t)])
    ax = abdyn.plot.joint_positions(cartpole, t, q)
    axes = [ax] + [other for other in ax.figure.axes if other is not ax]
    assert len(axes) == 2
    lines = {line.get_label(): line for a in axes for line in a.get_lines()}
    units = {"prismatic": "m", "revolute": "rad"}
    for j in cartpole.joints:
        line = lines[f"{j.name} ({units[j.type]})"]
        np.testing.assert_array_equal(line.get_ydata(), q[:, j.idx_q])
        np.testing.assert_array_equal(line.get_xdata(), t)
    assert {a.get_ylabel() for a in axes} == {"joint angle (rad)", "joint position (m)"}
    assert sorted(text.get_text() for text in ax.get_legend().get_texts()) == sorted(lines)
    assert set(names) == {label.split(" (")[0] for label in lines}

    # A floating base: positions in m (its quaternion has no unit and is left out), velocities in rad/s
    # and m/s, every joint of the humanoid named.
    humanoid = abdyn.load_urdf(MODELS / "humanoid.urdf", floating_base=True)
    rng = np.random.default_rng(7)
    v = rng.standard_normal((len(t), humanoid.nv))
    ax = abdyn.plot.joint_velocities(humanoid, t, v)
    labels = [line.get_label() for a in ax.figure.axes for line in a.get_lines()]
    assert len(labels) == humanoid.nv
    assert [f"root_joint[{k}] (rad/s)" for k in range(3)] == labels[:3]
    assert [f"root_joint[{k}] (m/s)" for k in range(3, 6)] == [x for x in labels if x.endswith("(m/s)")]
    q = np.array([abdyn.neutral(humanoid)] * len(t))
    ax = abdyn.plot.joint_positions(humanoid, t, q)
    labels = [line.get_label() for a in ax.figure.axes for line in a.get_lines()]
    assert len(labels) == humanoid.nq - 4 and "root_joint[3] (m)" not in labels
    with pytest.raises(abdyn.InvalidArgument, match="'v' has shape"):
        abdyn.plot.joint_velocities(humanoid, t, v[:, :-1])
    with pytest.raises(abdyn.InvalidArgument, match="'q' has shape"):
        abdyn.plot.joint_positions(cartpole, t[:-1], q[:, :2])


def test_program_found_on_path_when_the_packaged_one_is_absent(tmp_path, monkeypatch):
    import abdyn._program
    import abdyn.viewer

    fake = tmp_path / "abdyn"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.delenv("ABDYN_PROGRAM", raising=False)
    monkeypatch.setattr(abdyn._program, "PROGRAM", str(tmp_path / "missing" / "abdyn"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert abdyn.viewer._program() == str(fake)
    monkeypatch.setenv("PATH", str(tmp_path / "missing"))
    with pytest.raises(abdyn.Error, match="program was not found"):
        abdyn.viewer._program()


def test_temporary_folders_are_removed(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # every folder the viewer makes lands here
    model = abdyn.load_urdf(MODELS / "pendulum.urdf")
    t = np.linspace(0.0, 0.1, 3)
    with abdyn.viewer.show(model, t, np.zeros((3, model.nq))) as page:
        assert page.directory.parent == tmp_path and (page.directory / "data.js").is_file()
    assert list(tmp_path.iterdir()) == []  # close() removed the page's temporary folder
    with pytest.raises(abdyn.Error, match="pass urdf_path"):
        abdyn.viewer.write_page(model.with_gravity([0.0, 0.0, -1.62]))
    assert list(tmp_path.iterdir()) == []  # a failed write leaves no folder behind
