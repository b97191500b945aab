#!/usr/bin/env python3
"""Dask's overhead on a rollout sweep (docs/performance.md): the same sweep of humanoid ragdoll drops by
abdyn.rollout on 2 threads and by abdyn.distributed.rollout on a LocalCluster of 2 single-threaded worker
processes, tasks of about --task-seconds of work. Wall-clock times, best of --repeats, interleaved.

    PYTHONPATH=<build>/python /usr/bin/python3 bench/dask_overhead.py [--runs 64] [--steps 1000]

Prints both times, their ratio and the overhead per task, (t_dask - t_threads) * workers / tasks.
"""

import argparse
import logging
import pathlib
import time

import numpy as np
from dask.distributed import Client, LocalCluster

import abdyn
import abdyn.distributed

SOURCE = pathlib.Path(__file__).resolve().parents[1]
SETTINGS = {"ground": True, "joint_limits": True, "contact": {"height": -0.95, "mu": 0.8}, "solver": {"max_iterations": 20}}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--task-seconds", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    path = SOURCE / "models" / "humanoid.urdf"
    model = abdyn.load_urdf(path, floating_base=True)
    rng = np.random.default_rng(1)
    q0 = np.tile(abdyn.neutral(model), (args.runs, 1))
    v0 = np.zeros((args.runs, model.nv))
    v0[:, 3:5] = rng.uniform(-0.5, 0.5, (args.runs, 2))  # sideways pushes
    tau = np.zeros((args.runs, args.steps, model.nv))
    chunk = abdyn.distributed.chunk_runs(model, q0, v0, tau, 2e-3, SETTINGS, seconds=args.task_seconds)
    tasks = -(-args.runs // chunk)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        # Warm-up: the workers import abdyn and load the model once.
        abdyn.distributed.rollout(client, model, q0[:2], v0[:2], tau[:2, :10], 2e-3, settings=SETTINGS, chunk=1)
        threaded, dask = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            Q, V = abdyn.rollout(model, q0, v0, tau, 2e-3, threads=2, settings=SETTINGS)
            threaded.append(time.perf_counter() - start)
            start = time.perf_counter()
            Qd, Vd = abdyn.distributed.rollout(client, model, q0, v0, tau, 2e-3, settings=SETTINGS, chunk=chunk)
            dask.append(time.perf_counter() - start)
            assert np.array_equal(Q, Qd) and np.array_equal(V, Vd)
    t, d = min(threaded), min(dask)
    print(f"{args.runs} runs x {args.steps} steps, {tasks} tasks of {chunk} runs (about {args.task_seconds} s each)")
    print(f"abdyn.rollout, 2 threads:               {t:8.3f} s  ({args.runs * args.steps / t:,.0f} steps/s)")
    print(f"abdyn.distributed, 2 workers x 1 thread: {d:8.3f} s  ({args.runs * args.steps / d:,.0f} steps/s)")
    print(f"ratio dask / threads: {d / t:.3f}; overhead per task: {(d - t) * 2 / tasks * 1e3:.1f} ms")
    print(f"all times: threads {['%.3f' % x for x in threaded]}, dask {['%.3f' % x for x in dask]}")


if __name__ == "__main__":
    main()
