"""Plots of a trajectory with matplotlib (Debian's python3-matplotlib), for scripts and notebooks.

    import abdyn, abdyn.plot
    kinetic, potential = abdyn.plot.energies(model, Q, V)
    ax = abdyn.plot.energy(t, kinetic, potential)      # kinetic, potential and total against time
    ax.figure.savefig("energy.png")
    abdyn.plot.joint_positions(model, t, Q)            # one line per joint coordinate, named, by unit
    abdyn.plot.joint_velocities(model, t, V)

matplotlib is imported when a plot is drawn, not when abdyn is imported. Each function draws into `ax`
(a matplotlib Axes) when given, else into a new figure, and returns the Axes.
"""

import numpy as np

from . import _abdyn

__all__ = ["energies", "energy", "joint_positions", "joint_velocities", "constraint_error", "contacts"]


def _series(name, value, steps=None):
    a = np.asarray(value, dtype=np.float64)
    if a.ndim != 1 or (steps is not None and a.shape[0] != steps):
        expected = f"({steps},)" if steps is not None else "(T,)"
        raise _abdyn.InvalidArgument(f"abdyn.plot: argument '{name}' has shape {a.shape}, expected {expected}")
    return a


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.figure().add_subplot()


def energies(model, q, v):
    """(kinetic, potential): two (T,) arrays for the rows of q (T, nq) and v (T, nv) (abdyn.kinetic_energy,
    abdyn.potential_energy with the model's gravity; potential is zero at the world origin's height)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if q.ndim != 2 or q.shape[1] != model.nq:
        raise _abdyn.InvalidArgument(f"abdyn.plot.energies: argument 'q' has shape {q.shape}, expected (T, {model.nq})")
    if v.shape != (q.shape[0], model.nv):
        raise _abdyn.InvalidArgument(f"abdyn.plot.energies: argument 'v' has shape {v.shape}, expected ({q.shape[0]}, {model.nv})")
    data = _abdyn.Data(model)
    kinetic = np.array([_abdyn.kinetic_energy(model, data, qk, vk) for qk, vk in zip(q, v)])
    potential = np.array([_abdyn.potential_energy(model, data, qk) for qk in q])
    return kinetic, potential


def energy(t, kinetic, potential, ax=None):
    """Kinetic, potential and total energy (J) against time (s): three lines labelled so."""
    t = _series("t", t)
    kinetic = _series("kinetic", kinetic, t.shape[0])
    potential = _series("potential", potential, t.shape[0])
    ax = _axes(ax)
    ax.plot(t, kinetic, label="kinetic")
    ax.plot(t, potential, label="potential")
    ax.plot(t, kinetic + potential, label="total")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("energy (J)")
    ax.legend()
    return ax


# Units of each coordinate of q and v by joint type (abdyn/model/joint.hpp's table); None for the
# components of a unit quaternion, which have none and are not plotted.
_UNITS = {
    "revolute": (("rad",), ("rad/s",)),
    "helical": (("rad",), ("rad/s",)),
    "prismatic": (("m",), ("m/s",)),
    "spherical": ((None,) * 4, ("rad/s",) * 3),
    "planar": (("m", "m", "rad"), ("rad/s", "m/s", "m/s")),
    "floating": (("m",) * 3 + (None,) * 4, ("rad/s",) * 3 + ("m/s",) * 3),
}
_AXIS_NAMES = {"rad": "angle", "m": "position", "rad/s": "angular velocity", "m/s": "velocity"}


def _joint_plot(model, t, x, kind, ax):
    t = _series("t", t)
    width = model.nq if kind == "q" else model.nv
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (t.shape[0], width):
        raise _abdyn.InvalidArgument(
            f"abdyn.plot.joint_{'positions' if kind == 'q' else 'velocities'}: argument '{kind}' has shape {x.shape}, "
            f"expected ({t.shape[0]}, {width})")
    groups = {}  # unit -> [(label, column)] in the model's coordinate order
    for joint in model.joints:
        units = _UNITS[joint.type][0 if kind == "q" else 1]
        start = joint.idx_q if kind == "q" else joint.idx_v
        for k, unit in enumerate(units):
            if unit is not None:
                label = joint.name if len(units) == 1 else f"{joint.name}[{k}]"
                groups.setdefault(unit, []).append((label, start + k))
    ax = _axes(ax)
    axis = ax
    handles = []
    # Angles and lengths never share a scale: the second unit gets its own axis on the right.
    for n, (unit, columns) in enumerate(groups.items()):
        if n == 1:
            axis = ax.twinx()
        for label, column in columns:
            # colours C0, C1, ... run on across both axes; dashed lines belong to the right axis
            handles += axis.plot(t, x[:, column], label=f"{label} ({unit})", color=f"C{len(handles) % 10}",
                                 linestyle="-" if n == 0 else "--")
        axis.set_ylabel(f"joint {_AXIS_NAMES[unit]} ({unit})")
    ax.set_xlabel("t (s)")
    if handles:
        ax.legend(handles=handles, fontsize="small")
    return ax


def joint_positions(model, t, q, ax=None):
    """Each joint coordinate of q (T, nq) against time (s), labelled with its joint's name (name[k] for a
    joint with several) and unit: angles (rad) on the left axis, lengths (m) on a second axis on the right.
    The components of unit quaternions (spherical and floating joints) have no unit and are left out."""
    return _joint_plot(model, t, q, "q", ax)


def joint_velocities(model, t, v, ax=None):
    """Each joint velocity coordinate of v (T, nv) against time (s), labelled like joint_positions: angular
    rates (rad/s) on the left axis, linear ones (m/s) on the right (abdyn's v: joint.hpp's table)."""
    return _joint_plot(model, t, v, "v", ax)


def constraint_error(t, error, ax=None):
    """The loop closures' (or rows') constraint error against time, on a log scale when it is positive."""
    t = _series("t", t)
    error = _series("error", error, t.shape[0])
    ax = _axes(ax)
    ax.plot(t, error, label="constraint error")
    if np.all(error > 0):
        ax.set_yscale("log")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("constraint error")
    return ax


def contacts(t, count, ax=None):
    """The number of active contacts against time (a step plot: the count holds over each step)."""
    t = _series("t", t)
    count = _series("count", count, t.shape[0])
    ax = _axes(ax)
    ax.step(t, count, where="post", label="contacts")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("contacts")
    return ax
