"""abdyn.distributed on a LocalCluster of two worker processes on the loopback address: results equal to
abdyn.rollout's, chunking, and a worker killed in the middle of a sweep. Every test is bounded in time
(SIGALRM) and the cluster stops itself at the end of the module."""

import logging
import os
import signal
import threading
import time

import numpy as np
import pytest
from dask.distributed import Client, LocalCluster

import abdyn
import abdyn.distributed
from conftest import MODELS

RAGDOLL = {"ground": True, "joint_limits": True, "contact": {"height": -0.95}, "solver": {"max_iterations": 20}}
HUMANOID = MODELS / "humanoid.urdf"


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture
def deadline():
    """Fails a test that runs longer than 90 s instead of letting it hang CI."""

    def expire(signum, frame):
        raise TimeoutError("test_distributed: over 90 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(90)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def drops(model, runs, steps, seed):
    """Humanoid drops: neutral pose 2 cm above the ground, random sideways pushes of the pelvis."""
    rng = np.random.default_rng(seed)
    q0 = np.tile(abdyn.neutral(model), (runs, 1))
    v0 = np.zeros((runs, model.nv))
    v0[:, 3:5] = rng.uniform(-0.5, 0.5, (runs, 2))
    return q0, v0, np.zeros((runs, steps, model.nv))


def test_equals_threaded_rollout(client, humanoid, deadline):
    q0, v0, tau = drops(humanoid, 9, 50, 1)
    Q, V = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, threads=2, settings=RAGDOLL)
    for chunk in (None, 1, 4, 100):
        Qd, Vd = abdyn.distributed.rollout(client, HUMANOID, q0, v0, tau, 2e-3, settings=RAGDOLL, chunk=chunk,
                                           floating_base=True)
        assert np.array_equal(Q, Qd) and np.array_equal(V, Vd), f"chunk={chunk}"
    # A Model instead of a path travels as its URDF text and options.
    Qm, Vm = abdyn.distributed.rollout(client, humanoid, q0, v0, tau, 2e-3, settings=RAGDOLL, chunk=3)
    assert np.array_equal(Q, Qm) and np.array_equal(V, Vm)


def test_integrator_steps_in_lanes(client, humanoid, deadline):
    # rollout_batch's runs through the cluster: bit for bit what the local call returns, whatever the chunks
    # (tails of packs included), for both integrators; free flight under random joint forces.
    q0, v0, tau = drops(humanoid, 11, 30, 4)
    tau[:] = np.random.default_rng(5).uniform(-1.0, 1.0, tau.shape)
    for integrator in ("semi_implicit_euler", "rk4"):
        Q, V = abdyn.rollout_batch(humanoid, q0, v0, tau, 2e-3, integrator=integrator, threads=1)
        for chunk in (None, 1, 3, 100):
            Qd, Vd = abdyn.distributed.rollout(client, humanoid, q0, v0, tau, 2e-3, chunk=chunk, integrator=integrator)
            assert np.array_equal(Q, Qd) and np.array_equal(V, Vd), f"{integrator}, chunk={chunk}"


def test_integrator_refuses_settings_and_unknown_names(client, humanoid):
    q0, v0, tau = drops(humanoid, 2, 3, 6)
    with pytest.raises(abdyn.InvalidArgument, match="'settings'"):
        abdyn.distributed.rollout(client, humanoid, q0, v0, tau, 2e-3, settings=RAGDOLL, integrator="rk4")
    with pytest.raises(abdyn.InvalidArgument, match="'integrator'"):
        abdyn.distributed.rollout(client, humanoid, q0, v0, tau, 2e-3, integrator="euler")


def test_bad_arguments_raise_before_sending(client, humanoid):
    q0, v0, tau = drops(humanoid, 2, 3, 2)
    with pytest.raises(abdyn.InvalidArgument, match="'v0'"):
        abdyn.distributed.rollout(client, humanoid, q0, v0[:1], tau, 2e-3)
    tau[1, 2, 7] = np.nan
    with pytest.raises(abdyn.InvalidArgument, match="'tau'"):
        abdyn.distributed.rollout(client, humanoid, q0, v0, tau, 2e-3)
    with pytest.raises(abdyn.InvalidArgument, match="'chunk'"):
        abdyn.distributed.rollout(client, humanoid, q0, v0, np.zeros_like(tau), 2e-3, chunk=0)


def test_chunk_runs_sizes_tasks_by_time(humanoid):
    q0, v0, tau = drops(humanoid, 4, 100, 3)
    long_tasks = abdyn.distributed.chunk_runs(humanoid, q0, v0, tau, 2e-3, RAGDOLL, seconds=10.0)
    short_tasks = abdyn.distributed.chunk_runs(humanoid, q0, v0, tau, 2e-3, RAGDOLL, seconds=1e-6)
    assert short_tasks == 1 and long_tasks > 10
    # rollout_batch's probe steps a pack of runs and divides by the runs.
    long_batch = abdyn.distributed.chunk_runs(humanoid, q0, v0, tau, 2e-3, seconds=10.0, integrator="rk4")
    short_batch = abdyn.distributed.chunk_runs(humanoid, q0, v0, tau, 2e-3, seconds=1e-6, integrator="rk4")
    assert short_batch == 1 and long_batch > 10


def test_worker_killed_mid_sweep(client, humanoid, deadline):
    # 16 runs of 1000 steps in tasks of 2 runs (about 0.15 s each on an idle core): while the sweep runs,
    # a thread waits for a worker to be computing a task and kills that worker's process (SIGKILL). Dask's
    # nanny restarts it and the scheduler recomputes its tasks: the gathered results equal the serial run.
    q0, v0, tau = drops(humanoid, 16, 1000, 4)
    expected = abdyn.rollout(humanoid, q0, v0, tau, 2e-3, threads=1, settings=RAGDOLL)
    killed = {}

    def kill_a_busy_worker():
        while not killed and time.monotonic() < start + 60:
            busy = [w for w, keys in client.processing().items() if keys]
            done = sum(1 for k in client.who_has().values() if k)
            if busy and done >= 1:
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed["at"] = time.monotonic()
                return
            time.sleep(0.01)

    start = time.monotonic()
    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    Q, V = abdyn.distributed.rollout(client, HUMANOID, q0, v0, tau, 2e-3, settings=RAGDOLL, chunk=2, floating_base=True)
    end = time.monotonic()
    killer.join()
    assert "at" in killed and killed["at"] < end, "no worker was killed during the sweep"
    assert np.array_equal(Q, expected[0]) and np.array_equal(V, expected[1])
    client.wait_for_workers(2, timeout=30)  # the nanny brought the worker back


def _listening_addresses(port):
    """The IPv4 and IPv6 addresses on which a socket of this machine listens on TCP `port` (/proc/net)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_local_cluster_listens_on_loopback_only(deadline):
    # 127.0.0.1 in /proc/net/tcp is 0100007F (little-endian hex); every interface would be 00000000.
    with abdyn.distributed.local_cluster(n_workers=1, silence_logs=logging.CRITICAL) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        dashboard_port = cluster.scheduler.http_server.port
        assert cluster.dashboard_link.startswith(f"http://127.0.0.1:{dashboard_port}/")
        assert _listening_addresses(dashboard_port) == {"0100007F"}
        scheduler_port = int(cluster.scheduler_address.rsplit(":", 1)[1])
        assert _listening_addresses(scheduler_port) == {"0100007F"}
