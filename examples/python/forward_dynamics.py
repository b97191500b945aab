"""Load a URDF and compute forward dynamics, inverse dynamics and the mass matrix.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/forward_dynamics.py [models/humanoid.urdf]
"""

import pathlib
import sys

import numpy as np

import abdyn

path = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2] / "models" / "humanoid.urdf"
model = abdyn.load_urdf(path, floating_base=True)    # root link on a 6-DoF floating joint
data = abdyn.Data(model)                              # all workspace, allocated once

q = abdyn.neutral(model)                              # nq coordinates (quaternions w first)
v = np.zeros(model.nv)
tau = np.zeros(model.nv)
qdd = abdyn.forward_dynamics(model, data, q, v, tau)  # ABA
tau2 = abdyn.inverse_dynamics(model, data, q, v, qdd) # RNEA
M = abdyn.mass_matrix(model, data, q)                 # CRBA

print(f"{model.name}: nq = {model.nq}, nv = {model.nv}, mass = {model.total_mass:.3f} kg")
print("free-fall acceleration of the base (angular, linear):", np.round(qdd[:6], 6))
print("max |RNEA(ABA(tau)) - tau| =", np.abs(tau2 - tau).max())
print("max |M qdd + h - tau| =", np.abs(M @ qdd + abdyn.nonlinear_effects(model, data, q, v) - tau).max())
