#!/usr/bin/env python3
"""A design sweep on a Dask cluster: 10^4 humanoid drops over a grid of contact friction and link masses.

For every (friction coefficient mu, mass scale s) of a 10 x 10 grid, 100 drops of models/humanoid.urdf
(every link's mass and inertia scaled by s) from 2 cm above the ground with random sideways pushes, 3 s
each at 2 ms steps (they come to rest after about 2.5 s), with limits, joint friction and ground
contacts: 1.5e7 steps, about 16 core-minutes at 65 us per step. Reported per parameter pair: the mean
final height of the pelvis and the mean time to rest (the last time any joint or the base moved
faster than 0.05 rad/s or m/s). Writes a table to stdout and two heat maps to a PNG; a cell in which a
drop diverges (abdyn.Error) is reported and left blank.

    /usr/bin/python3 examples/python/sweep.py                              # LocalCluster on 127.0.0.1, one worker per core
    /usr/bin/python3 examples/python/sweep.py --scheduler tcp://HOST:8786  # an existing Dask cluster
    /usr/bin/python3 examples/python/sweep.py --small                      # 2 x 2 grid, 3 short drops (tests)

Needs the abdyn module on PYTHONPATH (the build's python/ directory) here and on every worker.
"""

import argparse
import logging
import os
import pathlib
import re
import sys
import time

import numpy as np

import abdyn
import abdyn.distributed

SOURCE = pathlib.Path(__file__).resolve().parents[2]
DT = 2e-3
GROUND = -0.95  # the feet reach 0.93 m below the pelvis in the neutral pose
REST_SPEED = 0.05


def scaled_urdf(text, scale):
    """The URDF with every <mass value> and <inertia> entry multiplied by scale (geometry unchanged)."""

    def times(match):
        return f'{match.group(1)}="{float(match.group(2)) * scale!r}"'

    text = re.sub(r'(<mass\s+value)="([^"]+)"', times, text)
    return re.sub(r'(\bi(?:xx|xy|xz|yy|yz|zz))="([^"]+)"', times, text)


def drops(model, runs, steps, seed):
    rng = np.random.default_rng(seed)
    q0 = np.tile(abdyn.neutral(model), (runs, 1))
    v0 = np.zeros((runs, model.nv))
    v0[:, 3:5] = rng.uniform(-0.5, 0.5, (runs, 2))  # sideways push of the pelvis (body coordinates)
    return q0, v0, np.zeros((runs, steps, model.nv))


def time_to_rest(V):
    """Per run, the end of the last step at which any coordinate moved faster than REST_SPEED."""
    moving = np.abs(V).max(axis=2) > REST_SPEED  # (N, T + 1)
    last = moving.shape[1] - 1 - np.argmax(moving[:, ::-1], axis=1)
    return np.where(moving.any(axis=1), last * DT, 0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--dashboard", metavar="ADDRESS",
                        help="LocalCluster's dashboard address (default: a free port on 127.0.0.1, this machine only)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="LocalCluster worker processes")
    parser.add_argument("--small", action="store_true", help="2 x 2 grid, 3 drops of 0.2 s (for tests)")
    parser.add_argument("--out", default="sweep.png", help="PNG file for the heat maps")
    args = parser.parse_args()

    frictions = np.linspace(0.2, 1.2, 2 if args.small else 10)
    scales = np.linspace(0.5, 2.0, 2 if args.small else 10)
    runs, steps = (3, 100) if args.small else (100, 1500)
    settings = {"ground": True, "joint_limits": True, "contact": {"height": GROUND}, "solver": {"max_iterations": 20}}
    text = (SOURCE / "models" / "humanoid.urdf").read_text()

    from dask.distributed import Client

    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = abdyn.distributed.local_cluster(n_workers=args.workers, dashboard_address=args.dashboard,
                                                  silence_logs=logging.ERROR)
        print(f"dashboard: {cluster.dashboard_link}", flush=True)
        client = Client(cluster)
    height = np.zeros((len(frictions), len(scales)))
    rest = np.zeros_like(height)
    start = time.perf_counter()
    try:
        for j, scale in enumerate(scales):
            model = abdyn.load_urdf_string(scaled_urdf(text, scale), floating_base=True)
            q0, v0, tau = drops(model, runs, steps, seed=j)
            for i, mu in enumerate(frictions):
                s = dict(settings, contact=dict(settings["contact"], mu=float(mu)))
                try:
                    Q, V = abdyn.distributed.rollout(client, model, q0, v0, tau, DT, settings=s)
                except abdyn.Error as e:  # a run of the cell diverged: the cell is left blank in the plot
                    height[i, j] = rest[i, j] = np.nan
                    print(f"mu {mu:5.2f}  mass x {scale:5.2f}  diverged: {e}", flush=True)
                    continue
                height[i, j] = Q[:, -1, 2].mean()
                rest[i, j] = time_to_rest(V).mean()
                print(f"mu {mu:5.2f}  mass x {scale:5.2f}  final pelvis z {height[i, j]:+.3f} m  "
                      f"time to rest {rest[i, j]:.3f} s", flush=True)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    total = len(frictions) * len(scales) * runs
    print(f"{total} drops of {steps} steps in {time.perf_counter() - start:.1f} s", flush=True)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    extent = [scales[0], scales[-1], frictions[0], frictions[-1]]
    for ax, values, title in ((axes[0], height, "final pelvis height (m)"), (axes[1], rest, "time to rest (s)")):
        image = ax.imshow(values, origin="lower", aspect="auto", extent=extent)
        ax.set_xlabel("link mass scale")
        ax.set_ylabel("friction coefficient")
        ax.set_title(title)
        fig.colorbar(image, ax=ax)
    fig.suptitle(f"{total} humanoid drops, {runs} per cell, {steps * DT:.1f} s each")
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
