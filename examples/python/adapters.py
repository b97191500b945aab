"""The same humanoid state in abdyn's, RBDL's, Brax's and Pinocchio's layouts.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/adapters.py
"""

import pathlib

import numpy as np

import abdyn

model = abdyn.load_urdf(pathlib.Path(__file__).resolve().parents[2] / "models" / "humanoid.urdf", floating_base=True)
data = abdyn.Data(model)
q = abdyn.random_configuration(model, 7)
v = np.random.default_rng(7).standard_normal(model.nv)
qdd = abdyn.forward_dynamics(model, data, q, v, np.zeros(model.nv))

np.set_printoptions(precision=4, suppress=True)
print("abdyn      q[:7] (x, y, z, qw, qx, qy, qz):", q[:7])
print("           v[:6] (w_body, v_body):         ", v[:6])
for library in ("rbdl", "brax", "pinocchio", "mujoco"):
    state = getattr(abdyn, library).state_from_abdyn(model, q, v, qdd)
    back = getattr(abdyn, library).state_to_abdyn(model, state["q"], state["v"], state["qdd"])
    error = max(np.abs(back[k] - x).max() for k, x in (("q", q), ("v", v), ("qdd", qdd)))
    print(f"{library:10s} q[:7] {state['q'][:7]}  (len {len(state['q'])}), v[:6] {state['v'][:6]}; "
          f"round trip error {error:.1e}")
