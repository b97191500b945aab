// Convention adapters: abdyn's states and spatial objects in the layouts of RBDL, Brax, Pinocchio,
// MuJoCo and the Tiny Differentiable Simulator, as NumPy arrays. One submodule per library.

#include <pybind11/stl.h>

#include "common.hpp"

namespace abdyn::python {
namespace {

/// Reads the parts of a state that are given (None: left empty). q's length is the caller's (another
/// library's q may be longer than nq).
State readState(const char* function, py::handle q, py::handle v, py::handle qdd, py::handle tau) {
  State s;
  auto read = [function](const char* name, py::handle x, Eigen::VectorXd& out) {
    if (x.is_none()) return;
    const py::array a = asFloatArray(function, name, x);
    if (a.ndim() != 1) throw InvalidArgument(argumentPrefix(function, name) + "must be one-dimensional");
    readVector(function, name, a, a.shape(0), out);
  };
  read("q", q, s.q);
  read("v", v, s.v);
  read("qdd", qdd, s.qdd);
  read("tau", tau, s.tau);
  return s;
}

py::dict stateDict(const State& s) {
  py::dict d;
  d["q"] = toArray(s.q);
  if (s.v.size()) d["v"] = toArray(s.v);
  if (s.qdd.size()) d["qdd"] = toArray(s.qdd);
  if (s.tau.size()) d["tau"] = toArray(s.tau);
  return d;
}

/// state_from_abdyn / state_to_abdyn for a library's layout.
void bindStateConversions(py::module_& lib, StateLayout (*layout)(), const std::string& library) {
  lib.def("state_from_abdyn",
          [layout, library](const Model& model, py::handle q, py::handle v, py::handle qdd, py::handle tau,
                            const JointOrder& order) {
            const std::string fn = library + ".state_from_abdyn";
            return stateDict(stateFromAbdyn(model, readState(fn.c_str(), q, v, qdd, tau), layout(), order));
          },
          py::arg("model"), py::arg("q"), py::arg("v") = py::none(), py::arg("qdd") = py::none(),
          py::arg("tau") = py::none(), py::arg("order") = JointOrder{},
          ("abdyn's state (q (nq,), and optionally v, qdd, tau (nv,)) in " + library +
           "'s layout: a dict with the\nsame keys holding new arrays. order: abdyn's joint names in " + library +
           "'s joint order (empty: abdyn's order).\n(C++ abdyn::" + library + "::stateFromAbdyn)")
              .c_str());
  lib.def("state_to_abdyn",
          [layout, library](const Model& model, py::handle q, py::handle v, py::handle qdd, py::handle tau,
                            const JointOrder& order) {
            const std::string fn = library + ".state_to_abdyn";
            return stateDict(stateToAbdyn(model, readState(fn.c_str(), q, v, qdd, tau), layout(), order));
          },
          py::arg("model"), py::arg("q"), py::arg("v") = py::none(), py::arg("qdd") = py::none(),
          py::arg("tau") = py::none(), py::arg("order") = JointOrder{},
          ("The inverse of state_from_abdyn: a state in " + library + "'s layout as abdyn's (a dict of new arrays).\n"
           "(C++ abdyn::" + library + "::stateToAbdyn)").c_str());
}

void bindConventions(py::module_& m) {
  py::module_ rbdl = m.def_submodule("rbdl", "RBDL's conventions (C++ abdyn::rbdl): Plx is RBDL's SpatialTransform.");
  bindStateConversions(rbdl, &rbdl::stateLayout, "rbdl");
  rbdl.def("inertia_from_abdyn", [](const RigidBodyInertia& I) {
    const rbdl::SpatialRigidBodyInertia r = rbdl::fromAbdyn(I);
    return py::make_tuple(r.m, toArray(r.h), toArray(r.I));
  }, py::arg("I"), "(m, h = m c (3,), I about the frame origin (3, 3)): RBDL's SpatialRigidBodyInertia fields\n"
    "(C++ abdyn::rbdl::fromAbdyn).");
  rbdl.def("inertia_to_abdyn", [](double mass, py::handle h, py::handle I) {
    return rbdl::toAbdyn(rbdl::SpatialRigidBodyInertia{readScalar("rbdl.inertia_to_abdyn", "m", mass), readVector3("rbdl.inertia_to_abdyn", "h", h),
                                                       readMatrix3("rbdl.inertia_to_abdyn", "I", I)});
  }, py::arg("m"), py::arg("h"), py::arg("I"),
     "abdyn.RigidBodyInertia from RBDL's (m, h = m c (3,), I about the frame origin (3, 3)) (C++\n"
     "abdyn::rbdl::toAbdyn); raises abdyn.Error for a massless inertia with h != 0 or an invalid body.");
  rbdl.def("external_force_from_abdyn", [](const Plx& X_body_world, const Force& f_body) {
    return toArray(rbdl::externalForceFromAbdyn(X_body_world, f_body));
  }, py::arg("X_body_world"), py::arg("f_body"), "(6,) the force in world coordinates about the world origin (RBDL's f_ext), from f_body in\n"
    "body coordinates about the body origin (C++ abdyn::rbdl::externalForceFromAbdyn).");

  py::module_ pin = m.def_submodule("pinocchio", "Pinocchio's conventions (C++ abdyn::pinocchio): linear-first vectors.");
  bindStateConversions(pin, &pinocchio::stateLayout, "pinocchio");
  pin.def("se3_from_abdyn", [](const Plx& X_B_A) {
    const pinocchio::SE3 T = pinocchio::fromAbdyn(X_B_A);
    return py::make_tuple(toArray(T.rotation), toArray(T.translation));
  }, py::arg("X_B_A"), "(rotation R_A_B (3, 3), translation p_A_B (3,)): Pinocchio's SE3 M_A_B (C++ abdyn::pinocchio::fromAbdyn).");
  pin.def("se3_to_abdyn", [](py::handle R, py::handle p) {
    return pinocchio::toAbdyn(pinocchio::SE3{readMatrix3("pinocchio.se3_to_abdyn", "rotation", R),
                                             readVector3("pinocchio.se3_to_abdyn", "translation", p)});
  }, py::arg("rotation"), py::arg("translation"), "X_B_A (abdyn.Plx) from Pinocchio's M_A_B (C++ abdyn::pinocchio::toAbdyn).");
  pin.def("motion_from_abdyn", [](const Motion& x) { return toArray(pinocchio::fromAbdyn(x).toVector()); }, py::arg("m"),
          "(6,) [v; w], linear first (C++ abdyn::pinocchio::fromAbdyn).");
  pin.def("motion_to_abdyn", [](py::handle x) {
    const Eigen::VectorXd y = readVector("pinocchio.motion_to_abdyn", "x", x, 6);
    return Motion(y.tail<3>(), y.head<3>());
  }, py::arg("x"), "abdyn.Motion from Pinocchio's (6,) [v; w] (C++ abdyn::pinocchio::toAbdyn).");
  pin.def("force_from_abdyn", [](const Force& x) { return toArray(pinocchio::fromAbdyn(x).toVector()); }, py::arg("f"),
          "(6,) [f; n], linear first (C++ abdyn::pinocchio::fromAbdyn).");
  pin.def("force_to_abdyn", [](py::handle x) {
    const Eigen::VectorXd y = readVector("pinocchio.force_to_abdyn", "x", x, 6);
    return Force(y.tail<3>(), y.head<3>());
  }, py::arg("x"), "abdyn.Force from Pinocchio's (6,) [f; n] (C++ abdyn::pinocchio::toAbdyn).");

  py::module_ brax = m.def_submodule("brax", "Brax's conventions (C++ abdyn::brax): poses as (pos, rot (w, x, y, z)).");
  bindStateConversions(brax, &brax::stateLayout, "brax");
  brax.def("transform_from_abdyn", [](const Plxb& T) {
    const brax::Transform t = brax::fromAbdyn(T);
    return py::make_tuple(toArray(t.pos), toArray(t.rot));
  }, py::arg("T_P_C"), "(pos (3,), rot (4,) w first): Brax's Transform T_P_C (C++ abdyn::brax::fromAbdyn).");
  brax.def("transform_to_abdyn", [](py::handle pos, py::handle rot) {
    brax::Transform t;
    t.pos = readVector3("brax.transform_to_abdyn", "pos", pos);
    t.rot = readVector("brax.transform_to_abdyn", "rot", rot, 4);
    return brax::toAbdyn(t);
  }, py::arg("pos"), py::arg("rot"), "abdyn.Plxb from Brax's Transform (C++ abdyn::brax::toAbdyn); raises abdyn.Error for a zero or\n"
     "non-finite rot (a non-unit one is normalised).");

  py::module_ mj = m.def_submodule("mujoco", "MuJoCo's conventions (C++ abdyn::mujoco).");
  bindStateConversions(mj, &mujoco::stateLayout, "mujoco");
  mj.def("pose_from_abdyn", [](const Plxb& T) {
    const mujoco::Pose p = mujoco::fromAbdyn(T);
    return py::make_tuple(toArray(p.pos), toArray(p.quat));
  }, py::arg("T_P_C"), "(pos (3,), quat (4,) w first): MuJoCo's pose of C in P (C++ abdyn::mujoco::fromAbdyn).");
  mj.def("xfrc_applied_from_abdyn", [](const Plx& X_body_world, py::handle com_body, const Force& f_body) {
    return toArray(mujoco::xfrcAppliedFromAbdyn(X_body_world, readVector3("mujoco.xfrc_applied_from_abdyn", "com_body", com_body), f_body));
  }, py::arg("X_body_world"), py::arg("com_body"), py::arg("f_body"),
         "(6,) MuJoCo's xfrc_applied row: [force; torque] in world axes, torque about the body's centre of mass\n"
         "(C++ abdyn::mujoco::xfrcAppliedFromAbdyn).");

  py::module_ tds = m.def_submodule("tds", "The Tiny Differentiable Simulator's conventions (C++ abdyn::tds).");
  tds.def("transform_from_abdyn", [](const Plxb& T) {
    const tds::Transform t = tds::fromAbdyn(T);
    return py::make_tuple(toArray(t.translation), toArray(t.rotation));
  }, py::arg("T_P_C"), "(translation (3,), rotation (3, 3)): TDS's Transform T_P_C (C++ abdyn::tds::fromAbdyn).");
  tds.def("inertia_from_abdyn", [](const RigidBodyInertia& I) {
    const tds::RigidBodyInertia r = tds::fromAbdyn(I);
    return py::make_tuple(r.mass, toArray(r.com), toArray(r.inertia));
  }, py::arg("I"), "(mass, com = first moment m c (3,), inertia about the origin (3, 3)): TDS's RigidBodyInertia\n"
    "(C++ abdyn::tds::fromAbdyn).");
  tds.def("inertia_to_abdyn", [](double mass, py::handle com, py::handle inertia) {
    return tds::toAbdyn(tds::RigidBodyInertia{readScalar("tds.inertia_to_abdyn", "mass", mass), readVector3("tds.inertia_to_abdyn", "com", com),
                                              readMatrix3("tds.inertia_to_abdyn", "inertia", inertia)});
  }, py::arg("mass"), py::arg("com"), py::arg("inertia"),
     "abdyn.RigidBodyInertia from TDS's (mass, com = m c (3,), inertia about the origin (3, 3)) (C++\n"
     "abdyn::tds::toAbdyn); raises abdyn.Error for a massless inertia with com != 0 or an invalid body.");
}

const Registration registration(60, bindConventions);

}  // namespace
}  // namespace abdyn::python
