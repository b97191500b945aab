"""Unpickling of abdyn.Model (Model.__reduce__, python/src/rollout.cpp): a module-level function, so that
pickle finds it by name in any process that has the abdyn module."""


def model_from_urdf(text, options):
    """Loads a Model from its URDF text with the keyword options it was first loaded with."""
    from . import load_urdf_string

    return load_urdf_string(text, **options)
