"""Plots of a trajectory with matplotlib (Debian's python3-matplotlib), for scripts and notebooks.

    import abdyn, abdyn.plot
    kinetic, potential = abdyn.plot.energies(model, Q, V)
    ax = abdyn.plot.energy(t, kinetic, potential)      # kinetic, potential and total against time
    ax.figure.savefig("energy.png")

matplotlib is imported when a plot is drawn, not when abdyn is imported. Each function draws into `ax`
(a matplotlib Axes) when given, else into a new figure, and returns the Axes.
"""

import numpy as np

from . import _abdyn

__all__ = ["energies", "energy", "constraint_error", "contacts"]


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
