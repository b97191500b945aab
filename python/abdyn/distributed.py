"""abdyn.rollout on a Dask cluster: sweeps past one machine, with Dask's own scheduler and workers.

    from dask.distributed import Client
    import abdyn.distributed
    with abdyn.distributed.local_cluster(n_workers=2) as cluster, Client(cluster) as client:
        Q, V = abdyn.distributed.rollout(client, "models/humanoid.urdf", q0, v0, tau, 2e-3,
                                         floating_base=True, settings={"ground": True})

returns exactly what ``abdyn.rollout(model, q0, v0, tau, dt, settings=settings)`` returns: the runs are
split into chunks of consecutive runs, each chunk is one Dask task that calls abdyn.rollout on a worker,
and the chunks are gathered in the order of the inputs. A run is computed by one worker alone from its
own inputs, so the results are bit-identical to the serial call whatever the cluster (same abdyn build
and CPU architecture assumed). The model travels as its URDF text plus load options (a pickled
abdyn.Model is exactly that); no compiled object is shipped, and nothing but the abdyn Python module
needs to be installed on the workers.

Faults: Dask recomputes the tasks of a worker that dies (its nanny restarts it; the scheduler reassigns
its tasks), so a lost worker costs time, not results. A task that kills workers repeatedly (Dask's
``distributed.scheduler.allowed-failures``, 3 by default) fails the sweep with Dask's KilledWorker.

local_cluster is Dask's LocalCluster with its scheduler, workers and dashboard on 127.0.0.1 only (a
LocalCluster's dashboard otherwise listens on every network interface); give ``host`` or
``dashboard_address`` to open them to other machines.

Several machines (nothing of abdyn's to run but this module)::

    machine A:        dask scheduler                      # prints tcp://A:8786
    machines B, C...: dask worker tcp://A:8786 --nworkers 1 --nthreads 4
    client:           Client("tcp://A:8786")

Each task calls abdyn.rollout with threads=1 unless ``threads`` says otherwise; a worker with
--nthreads k runs k tasks at once.

Unconstrained sweeps (no contacts, limits, friction or loop closures) can name an integrator instead of
settings: ``integrator="semi_implicit_euler"`` or ``"rk4"`` makes each task call abdyn.rollout_batch,
which steps its runs W at a time in the SIMD lanes (8 with AVX-512). The result is then exactly what
``abdyn.rollout_batch(model, q0, v0, tau, dt, integrator)`` returns (bit for bit, whatever the chunking:
a run's result depends on its own inputs only), which agrees with the Simulator's rollout of the same
integrator to round-off.
"""

import os
import time

import numpy as np

import abdyn

__all__ = ["rollout", "chunk_runs", "local_cluster", "LOOPBACK"]

# The default task length: long enough that Dask's per-task cost (about 1 ms of scheduling and
# transfer) is under 1% of it, short enough that a sweep splits into many tasks and a lost worker
# loses little.
TASK_SECONDS = 0.5

LOOPBACK = "127.0.0.1"  # local_cluster's address unless the caller gives another

_models = {}  # per worker process: URDF text and options -> Model, so a worker loads each model once


def _model(source):
    text, options = source
    key = (text, tuple(sorted((k, repr(v)) for k, v in options.items())))
    model = _models.get(key)
    if model is None:
        model = _models[key] = abdyn.load_urdf_string(text, **options)
    return model


def _step_runs(model, q0, v0, tau, dt, settings, threads, integrator):
    """abdyn.rollout (the Simulator with `settings`) or, for an integrator, abdyn.rollout_batch."""
    if integrator is None:
        return abdyn.rollout(model, q0, v0, tau, dt, threads=threads, settings=settings)
    return abdyn.rollout_batch(model, q0, v0, tau, dt, integrator=integrator, threads=threads)


def _run_chunk(source, q0, v0, tau, dt, settings, threads, integrator=None):
    """One task: abdyn.rollout or abdyn.rollout_batch on a worker."""
    return _step_runs(_model(source), q0, v0, tau, dt, settings, threads, integrator)


def local_cluster(n_workers=None, threads_per_worker=1, *, host=LOOPBACK, dashboard_address=None, **kwargs):
    """A dask.distributed.LocalCluster reachable from this machine only: scheduler and workers on `host`
    (127.0.0.1), the dashboard on `dashboard_address` (default: a free port on `host`). Other keyword
    arguments go to LocalCluster; one worker process per core and one thread per worker by default."""
    from dask.distributed import LocalCluster

    if dashboard_address is None:
        dashboard_address = f"{host}:0"
    if n_workers is None:
        n_workers = os.cpu_count() or 1
    return LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, host=host,
                        dashboard_address=dashboard_address, **kwargs)


def chunk_runs(model, q0, v0, tau, dt, settings=None, seconds=TASK_SECONDS, integrator=None):
    """Runs per task for about `seconds` of work: times a few steps of the first runs here (at least 20
    ms of them) and divides. At least 1; a run longer than `seconds` is one task (a run is sequential).
    With an integrator (rollout_batch) the probe steps the first 8 runs together, a full pack of lanes,
    since one run alone costs a whole pack."""
    steps = tau.shape[1]
    if steps == 0:
        return q0.shape[0]
    probe = min(steps, 10)
    runs = 1 if integrator is None else min(q0.shape[0], 8)
    elapsed, done = 0.0, 0
    while elapsed < 0.02 and done < 50 * steps:
        start = time.perf_counter()
        _step_runs(model, q0[:runs], v0[:runs], tau[:runs, :probe], dt, settings, 1, integrator)
        elapsed += time.perf_counter() - start
        done += probe
    per_run = elapsed / (done * runs) * steps
    return max(1, int(round(seconds / per_run)))


def rollout(client, urdf_path, q0, v0, tau, dt, settings=None, chunk=None, *, floating_base=False, gravity=None,
            threads=1, integrator=None):
    """Q, V = rollout(client, urdf_path, q0, v0, tau, dt, settings=None, chunk=None) on the Dask cluster
    of `client` (a dask.distributed.Client).

    urdf_path: a URDF file (read here, shipped as text) loaded with floating_base and gravity, or an
    abdyn.Model from abdyn.load_urdf / load_urdf_string (shipped as its text and options).
    q0 (N, nq), v0 (N, nv), tau (N, T, nv), dt, settings: as abdyn.rollout (settings a dict, which pickles).
    chunk: runs per task; None sizes tasks to about TASK_SECONDS of work each (chunk_runs).
    threads: abdyn.rollout's threads inside each task (1 suits workers started with one thread per core).
    integrator: None (abdyn.rollout, the Simulator with `settings`), or "semi_implicit_euler" or "rk4"
    (abdyn.rollout_batch, runs stepped W at a time in the SIMD lanes; no settings: no rows).
    Returns Q (N, T + 1, nq), V (N, T + 1, nv), in the order of the inputs.
    """
    if integrator is not None and settings is not None:
        raise abdyn.InvalidArgument("abdyn.distributed.rollout: 'settings' is given with 'integrator': "
                                    "rollout_batch has no Simulator rows (contacts, limits, friction); pass one")
    if isinstance(urdf_path, abdyn.Model):
        model = urdf_path
    else:
        options = {"floating_base": floating_base}
        if gravity is not None:
            options["gravity"] = list(gravity)
        with open(os.fspath(urdf_path), encoding="utf-8") as f:
            model = abdyn.load_urdf_string(f.read(), **options)
    # The source the pickle of the model carries (abdyn.Model.__reduce__): URDF text and options.
    _, source = model.__reduce__()
    q0 = np.ascontiguousarray(q0, dtype=float)
    v0 = np.ascontiguousarray(v0, dtype=float)
    tau = np.ascontiguousarray(tau, dtype=float)
    # Every argument is checked here, before any task is sent, by abdyn.rollout (or rollout_batch) itself
    # (zero steps: the shapes, q0, v0, dt, settings or integrator), and tau's entries by NumPy.
    if tau.ndim != 3:
        _step_runs(model, q0, v0, tau, dt, settings, 1, integrator)  # raises, naming 'tau'
    _step_runs(model, q0, v0, tau[:, :0], dt, settings, 1, integrator)
    if not np.isfinite(tau).all():
        raise abdyn.InvalidArgument("abdyn.distributed.rollout: 'tau' has a non-finite entry")
    N = q0.shape[0]
    if chunk is None:
        chunk = chunk_runs(model, q0, v0, tau, dt, settings, integrator=integrator)
    if int(chunk) < 1:
        raise abdyn.InvalidArgument(f"abdyn.distributed.rollout: 'chunk' is {chunk}, expected at least 1")
    chunk = int(chunk)
    # The source goes with every task (tens of kB): a scattered copy could die with its worker.
    futures = [
        client.submit(_run_chunk, source, q0[s : s + chunk], v0[s : s + chunk], tau[s : s + chunk], dt,
                      settings, threads, integrator, pure=False)
        for s in range(0, N, chunk)
    ]
    parts = client.gather(futures)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
