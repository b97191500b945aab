"""Drop the humanoid onto the ground and plot its mechanical energy and contact count.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/humanoid_fall.py [output.png]
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import abdyn  # noqa: E402

output = sys.argv[1] if len(sys.argv) > 1 else "humanoid_fall.png"
model = abdyn.load_urdf(pathlib.Path(__file__).resolve().parents[2] / "models" / "humanoid.urdf", floating_base=True)

settings = abdyn.SimulatorSettings()
settings.ground = True         # collision geometry against the plane z = 0
settings.joint_limits = True   # URDF position limits as unilateral rows
sim = abdyn.Simulator(model, settings)
q = sim.q
q[2] = 1.2                     # base 1.2 m up
q[3:7] = [np.cos(0.2), np.sin(0.2), 0.0, 0.0]  # tilted by 0.4 rad about x, so it topples
sim.q = q

h, steps = 2e-3, 1000
time, energy, contacts = [], [], []
for _ in range(steps):
    stats = sim.step(h)
    time.append(sim.time)
    energy.append(stats.energy)
    contacts.append(stats.contacts)

figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
top.plot(time, energy)
top.set_ylabel("mechanical energy (J)")
bottom.step(time, contacts, where="post")
bottom.set_ylabel("contact points")
bottom.set_xlabel("time (s)")
top.set_title(f"{model.name} falling onto the ground (h = {h * 1e3:g} ms)")
figure.tight_layout()
figure.savefig(output, dpi=100)
print(f"energy {energy[0]:.2f} J -> {energy[-1]:.2f} J, {contacts[-1]} contact points at t = {time[-1]:.2f} s; "
      f"plot in {output}")
