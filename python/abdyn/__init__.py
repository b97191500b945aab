"""abdyn: articulated-body dynamics on Featherstone's spatial vector algebra, with NumPy arrays.

The C++ library's API, named in snake_case (each docstring gives the C++ name)::

    import abdyn, numpy as np
    model = abdyn.load_urdf("models/iiwa7.urdf")
    data = abdyn.Data(model)
    q = abdyn.neutral(model)
    qdd = abdyn.forward_dynamics(model, data, q, np.zeros(model.nv), np.zeros(model.nv))

Conventions: spatial vectors are angular first ([w; v] motions, [n; f] forces); quaternions are
(w, x, y, z); a floating joint has q = (x, y, z, qw, qx, qy, qz) and v = the body's spatial velocity
in body coordinates. Arguments are any float64 array-likes of the documented shape; results are new
arrays owned by the caller. Errors: abdyn.Error (a ValueError) and its subclass abdyn.InvalidArgument
(wrong shape or non-finite value); a wrong dtype raises TypeError.
"""

from ._abdyn import *  # noqa: F401,F403
from . import plot, viewer  # noqa: F401  (abdyn.plot, abdyn.viewer; matplotlib is imported on first plot)
