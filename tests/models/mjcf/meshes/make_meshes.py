#!/usr/bin/env python3
"""Writes the mesh files of the MJCF mesh-inertia feature files (tests/models/mjcf/mesh_*.xml).

lblock.stl: a binary STL of an L-shaped prism, not convex and off the origin, outward winding.
wedge.obj:  an OBJ of an asymmetric wedge with planar quads and triangles, outward winding.
Coordinates are multiples of 1/64, exact in single precision. Run from this folder.
"""
import struct


def prism(polygon, z0, z1):
    """Triangles of the prism over a counterclockwise polygon (fanned caps; a convex decomposition is not
    needed for the surface integrals)."""
    n = len(polygon)
    bottom = [(x, y, z0) for x, y in polygon]
    top = [(x, y, z1) for x, y in polygon]
    tris = []
    for k in range(1, n - 1):
        tris.append((top[0], top[k], top[k + 1]))        # up
        tris.append((bottom[0], bottom[k + 1], bottom[k]))  # down
    for k in range(n):
        a, b = k, (k + 1) % n
        tris.append((bottom[a], bottom[b], top[b]))
        tris.append((bottom[a], top[b], top[a]))
    return tris


def write_stl(path, tris):
    with open(path, "wb") as f:
        f.write(b"abdyn test mesh".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            u = [t[1][k] - t[0][k] for k in range(3)]
            w = [t[2][k] - t[0][k] for k in range(3)]
            n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
            length = sum(x * x for x in n) ** 0.5
            f.write(struct.pack("<3f", *[x / length for x in n]))
            for v in t:
                f.write(struct.pack("<3f", *v))
            f.write(b"\0\0")


# The L's caps are fanned from its reflex-free corner (0, 0), so every cap triangle lies inside the L.
L = [(0.0, 0.0), (0.25, 0.0), (0.25, 0.0625), (0.078125, 0.0625), (0.078125, 0.1875), (0.0, 0.1875)]
L = [(x + 0.125, y - 0.03125) for x, y in L]
write_stl("lblock.stl", prism(L, 0.015625, 0.09375))

# Wedge: bottom quad (z = 0), a slanted top edge; faces listed counterclockwise from outside.
v = [(0.0, 0.0, 0.0), (0.1875, 0.0, 0.0), (0.1875, 0.125, 0.0), (0.0, 0.125, 0.0),
     (0.03125, 0.0, 0.078125), (0.03125, 0.125, 0.078125)]
faces = [(1, 4, 3, 2),   # bottom (normal -z)
         (1, 2, 5),      # front y = 0
         (4, 6, 3),      # back y = 0.125
         (2, 3, 6, 5),   # slanted side
         (1, 5, 6, 4)]   # left side near x = 0
with open("wedge.obj", "w") as f:
    f.write("# abdyn test mesh: an asymmetric wedge\no wedge\n")
    for p in v:
        f.write("v %r %r %r\n" % p)
    for face in faces:
        f.write("f " + " ".join(str(i) for i in face) + "\n")
