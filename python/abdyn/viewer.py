"""The browser viewer from Python: a model and a trajectory held in NumPy arrays, shown in the page that
``abdyn view`` writes (viewer/, docs in the README's "Seeing it").

    import abdyn
    model = abdyn.load_urdf("models/double_pendulum.urdf")
    t, Q, V = ...                                   # (T,), (T, nq), (T, nv)
    with abdyn.viewer.show(model, t, Q, V) as page:
        print(page.url)                             # open it in a browser on this machine
        input("Enter stops the server")

The page is written by the abdyn program (``abdyn view --out``), the one writer of the page, from the
model's URDF file and a trajectory CSV in the layout of ``abdyn simulate --csv``, which this module
writes from the arrays (kinetic and potential energy computed here, by abdyn.plot.energies). It is served from Python (http.server, 127.0.0.1 only) on a background thread,
so a script or a notebook goes on while the page is open.
"""

import functools
import http.server
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
import weakref

import numpy as np

from . import _abdyn
from .plot import energies

__all__ = ["trajectory_csv", "write_page", "show", "Page"]

# load_urdf's keyword options and the abdyn program's flags for them.
_FLAGS = {
    "floating_base": "--floating",
    "strict": "--strict",
    "balance_inertia": "--balance-inertia",
    "accept_invalid_inertia": "--accept-invalid-inertia",
    "bound_mass": "--bound-mass",
    "bound_inertia": "--bound-inertia",
}


def _program():
    """The abdyn program: $ABDYN_PROGRAM, the one built or installed with this module (an installed
    package names it relative to its own folder: <prefix>/bin/abdyn), or abdyn on PATH."""
    candidates = [os.environ.get("ABDYN_PROGRAM")]
    try:
        from ._program import PROGRAM

        if PROGRAM:
            candidates.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), PROGRAM))
    except ImportError:
        pass
    candidates.append(shutil.which("abdyn"))
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise _abdyn.Error(
        "abdyn.viewer: the abdyn program was not found (build abdyn with ABDYN_BUILD_APP=ON, install it, "
        "or set ABDYN_PROGRAM to its path); it writes the viewer's page")


def _labels(model, what):
    """Column labels of q or v in the CSV of abdyn simulate: <joint> for one coordinate, <joint>[k] for more."""
    labels = []
    for joint in model.joints:
        n = joint.nq if what == "q" else joint.nv
        labels += [f"{what}:{joint.name}" if n == 1 else f"{what}:{joint.name}[{k}]" for k in range(n)]
    return labels


def _matrix(name, value, rows, columns):
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 1 and columns == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2 or a.shape[1] != columns or (rows is not None and a.shape[0] != rows):
        expected = f"({rows if rows is not None else 'T'}, {columns})"
        raise _abdyn.InvalidArgument(f"abdyn.viewer: argument '{name}' has shape {a.shape}, expected {expected}")
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        raise _abdyn.InvalidArgument(f"abdyn.viewer: argument '{name}' has a non-finite entry at row {bad[0][0]}")
    return a


def trajectory_csv(model, t, q, v=None, constraint_error=None):
    """The CSV text of a trajectory in the layout of ``abdyn simulate --csv``: t, q:..., v:..., kinetic,
    potential [, constraint_error].

    t: (T,) strictly increasing times; q: (T, nq); v: (T, nv), or None to take each row's velocity from
    the configurations (abdyn.difference to the next row over the time step, the last row repeating the
    one before); constraint_error: (T,) or None. Energies from abdyn.plot.energies."""
    t = _matrix("t", t, None, 1)[:, 0]
    steps = t.shape[0]
    if steps == 0:
        raise _abdyn.InvalidArgument("abdyn.viewer: argument 't' is empty, expected at least one time")
    if steps > 1 and not np.all(np.diff(t) > 0):
        k = int(np.argmax(~(np.diff(t) > 0))) + 1
        raise _abdyn.InvalidArgument(f"abdyn.viewer: argument 't' does not increase at row {k} ({t[k - 1]} then {t[k]})")
    q = _matrix("q", q, steps, model.nq)
    if v is None:
        v = np.zeros((steps, model.nv))
        for k in range(steps - 1):
            v[k] = _abdyn.difference(model, q[k], q[k + 1]) / (t[k + 1] - t[k])
        if steps > 1:
            v[-1] = v[-2]
    else:
        v = _matrix("v", v, steps, model.nv)
    if constraint_error is not None:
        constraint_error = _matrix("constraint_error", constraint_error, steps, 1)[:, 0]
    kinetic, potential = energies(model, q, v)
    header = ["t"] + _labels(model, "q") + _labels(model, "v") + ["kinetic", "potential"]
    if constraint_error is not None:
        header.append("constraint_error")
    lines = [",".join(header)]
    for k in range(steps):
        row = [t[k], *q[k], *v[k], kinetic[k], potential[k]]
        if constraint_error is not None:
            row.append(constraint_error[k])
        lines.append(",".join(repr(float(x)) for x in row))
    return "\n".join(lines) + "\n"


def _source(model, urdf_path, work):
    """The URDF file and program flags that reproduce `model`: `urdf_path` if given, else the file it was
    loaded from (meshes are found relative to it), else its URDF text written into `work`."""
    known = _abdyn._urdf_sources.get(model)
    flags = []
    for key, value in (known[1] if known else {}).items():
        if key not in _FLAGS:
            continue  # gravity: the energies are computed here, with the model's own
        if isinstance(value, bool):
            flags += [_FLAGS[key]] if value else []
        elif value:
            flags += [_FLAGS[key], repr(float(value))]
    if urdf_path is None:
        urdf_path = _abdyn._urdf_paths.get(model)
    if urdf_path is None:
        if known is None:
            raise _abdyn.Error(
                "abdyn.viewer: the model's URDF is not known (only models from abdyn.load_urdf or "
                "abdyn.load_urdf_string in this process, or unpickled, are recorded); pass urdf_path=")
        urdf_path = pathlib.Path(work) / f"{model.name or 'model'}.urdf"
        urdf_path.write_text(known[0])
    return pathlib.Path(urdf_path), flags


def write_page(model, t=None, q=None, v=None, *, out=None, urdf_path=None, ground=None, constraint_error=None):
    """Writes the viewer's page (index.html, viewer.js, data.js, ...) for `model` and, if t and q are given,
    the trajectory (see trajectory_csv) into the folder `out` (default: a new temporary folder); returns
    the folder as a pathlib.Path, which the caller then owns. The page opens from file:// too; a temporary
    folder is removed again when writing fails.

    urdf_path: the URDF file to show (default: the file the model was loaded from; a model loaded from
    a string is written out, and its meshes then only resolve by absolute paths). ground: draw the
    ground plane at z = ground. Raises abdyn.InvalidArgument for a malformed trajectory and abdyn.Error
    when the page cannot be written (the program's message)."""
    if (t is None) != (q is None):
        raise _abdyn.InvalidArgument("abdyn.viewer: give t and q together (or neither, for the model alone)")
    temporary = out is None
    out = pathlib.Path(tempfile.mkdtemp(prefix="abdyn-view-")) if temporary else pathlib.Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="abdyn-view-input-") as work:
            path, flags = _source(model, urdf_path, work)
            command = [_program(), "view", str(path), "--out", str(out), *flags]
            if t is not None:
                csv = pathlib.Path(work) / "trajectory.csv"
                csv.write_text(trajectory_csv(model, t, q, v, constraint_error))
                command += ["--csv", str(csv)]
            if ground is not None:
                command += ["--ground", repr(float(ground))]
            run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            raise _abdyn.Error(f"abdyn.viewer: `{' '.join(command)}` failed: {run.stderr.strip()}")
    except BaseException:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)
        raise
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # a served page must not write into the user's output
        pass


class Page:
    """A written page served on 127.0.0.1 by a background thread: ``url``, ``directory``, ``close()``;
    also a context manager that closes on exit. A page in a temporary folder (``temporary``) has the
    folder removed by close(), or when the Page is garbage-collected or Python exits."""

    def __init__(self, directory, port, temporary=False):
        self.directory = pathlib.Path(directory)
        self._remove = weakref.finalize(self, shutil.rmtree, str(self.directory), ignore_errors=True)
        if not temporary:
            self._remove.detach()
        handler = functools.partial(_QuietHandler, directory=str(self.directory))
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, name="abdyn-viewer", daemon=True)
        self._thread.start()

    def close(self):
        """Stops serving; removes ``directory`` if it is a temporary folder (else the page's files stay)."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()
        self._remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"abdyn.viewer.Page(url='{self.url}', directory='{self.directory}')"


def show(model, t=None, q=None, v=None, *, port=0, out=None, urdf_path=None, ground=None, constraint_error=None,
         open_browser=False):
    """Writes the page as write_page does and serves it on 127.0.0.1:port (0 picks a free port) from a
    background thread; returns a Page (its ``url``; ``close()`` stops serving and, without `out`, removes
    the temporary folder). open_browser: also open the page in the default browser (Python's webbrowser
    module)."""
    directory = write_page(model, t, q, v, out=out, urdf_path=urdf_path, ground=ground,
                           constraint_error=constraint_error)
    try:
        page = Page(directory, port, temporary=out is None)
    except BaseException:
        if out is None:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    if open_browser:
        import webbrowser

        webbrowser.open(page.url)
    return page
