"""The world's own collision shapes from Python: SimulatorSettings.contact.world_shapes (with body_contacts)
collides the bodies with an MJCF file's worldbody geoms, here a box table and a concave mesh ledge
(tests/models/mjcf/world_shapes.xml; rest heights are closed forms from its dimensions, to 1 mm: the contacts'
resting penetration is well under it), as the Simulator and as rollout's settings dict."""

import numpy as np
import pytest

import abdyn
from conftest import SOURCE_DIR

WORLD_SHAPES = SOURCE_DIR / "tests" / "models" / "mjcf" / "world_shapes.xml"
# The free joints' heights (q index of z) and where each body rests: the ball on the table (top 0.35,
# radius 0.05), the brick on the ledge's long arm (top 0.375, half height 0.04), the pebble in the L's notch
# on the ground (radius 0.04); without the world's shapes all three reach the ground.
Z = {"ball": 2, "brick": 9, "pebble": 16}
ON_SHAPES = {"ball": 0.4, "brick": 0.415, "pebble": 0.04}
ON_GROUND = {"ball": 0.05, "brick": 0.04, "pebble": 0.04}
# The file's start (MuJoCo's qpos0: each free joint at its body's position); abdyn.neutral puts them at the origin.
START = {"ball": (0.0, 0.0, 0.5), "brick": (1.2, 0.0, 0.5), "pebble": (1.0, 0.4, 0.5)}


def start(model):
    q = abdyn.neutral(model)
    for body, p in START.items():
        q[Z[body] - 2:Z[body] + 1] = p
    return q


def settle(model, world_shapes, geometry=abdyn.ContactGeometry.STATIC_MESHES):
    settings = abdyn.SimulatorSettings()
    settings.ground = True
    settings.body_contacts = True
    settings.contact.world_shapes = world_shapes
    settings.contact.geometry = geometry
    sim = abdyn.Simulator(model, settings)
    sim.q = start(model)
    for _ in range(750):
        sim.step(2e-3)
    return sim.q


@pytest.fixture(scope="module")
def scene():
    return abdyn.load_mjcf(WORLD_SHAPES)


def test_settings_carry_the_contact_geometry_and_world_shapes():
    c = abdyn.GroundContactSettings()
    assert c.world_shapes is False and c.geometry == abdyn.ContactGeometry.STATIC_MESHES
    assert c.exclude_parent_child is True
    c.excluded_pairs = [("ball", "brick")]
    c.excluded_body_pairs = [(1, 2)]
    assert c.excluded_pairs == [("ball", "brick")] and c.excluded_body_pairs == [(1, 2)]


def test_bodies_rest_on_the_world_shapes(scene):
    q = settle(scene, True)
    for body, z in ON_SHAPES.items():
        assert q[Z[body]] == pytest.approx(z, abs=1e-3), body
    q = settle(scene, False)
    for body, z in ON_GROUND.items():
        assert q[Z[body]] == pytest.approx(z, abs=1e-3), body


def test_world_meshes_by_their_hulls_close_the_notch(scene):
    # ContactGeometry.CONVEX_HULLS collides the ledge by its hull, whose top (z = 0.375) spans the notch.
    q = settle(scene, True, abdyn.ContactGeometry.CONVEX_HULLS)
    assert q[Z["pebble"]] == pytest.approx(0.375 + 0.04, abs=1e-3)


def test_rollout_settings_dict_takes_world_shapes(scene):
    q0 = start(scene)[None, :]
    v0 = np.zeros((1, scene.nv))
    tau = np.zeros((1, 750, scene.nv))
    Q, _ = abdyn.rollout(scene, q0, v0, tau, 2e-3, threads=1,
                         settings={"ground": True, "body_contacts": True, "contact": {"world_shapes": True}})
    assert Q[0, -1, Z["ball"]] == pytest.approx(ON_SHAPES["ball"], abs=1e-3)
    with pytest.raises(abdyn.InvalidArgument, match="contact.world_shape"):
        abdyn.rollout(scene, q0, v0, tau, 2e-3, settings={"contact": {"world_shape": True}})
