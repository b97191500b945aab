// Spatial types: Motion, Force, Plx, Plxb, RigidBodyInertia, ArticulatedBodyInertia. Each converts to
// NumPy with numpy.asarray (through __array__, a copy) and is built from NumPy arrays.

#include <sstream>

#include "common.hpp"

namespace abdyn::python {
namespace {

Vector6 readVector6(const char* function, const char* name, py::handle obj) {
  Eigen::VectorXd x(6);
  readVector(function, name, obj, 6, x);
  return x;
}

Matrix6 readMatrix6(const char* function, const char* name, py::handle obj) {
  return readMatrix(function, name, obj, 6, 6);
}

/// numpy.asarray(x) support: a copy, as the dtype NumPy asks for.
template <class T, class F>
void defArray(py::class_<T>& c, F to_eigen) {
  c.def("__array__", [to_eigen](const T& x, py::object dtype) {
    py::array a = toArray(to_eigen(x));
    return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
  }, py::arg("dtype") = py::none());
}

std::string vectorString(const char* type, const Vector3& a, const Vector3& b, const char* na, const char* nb) {
  std::ostringstream s;
  s << "abdyn." << type << "(" << na << "=[" << a.transpose() << "], " << nb << "=[" << b.transpose() << "])";
  return s.str();
}

void bindSpatial(py::module_& m) {
  py::class_<Motion> motion(m, "Motion", "A spatial motion vector [w; v], angular first (C++ abdyn::Motion).");
  motion.def(py::init<>())
      .def(py::init([](py::handle angular, py::handle linear) {
             return Motion(readVector3("Motion", "angular", angular), readVector3("Motion", "linear", linear));
           }), py::arg("angular"), py::arg("linear"))
      .def_static("from_vector", [](py::handle x) { return Motion(readVector6("Motion.from_vector", "x", x)); },
                  py::arg("x"), "from a (6,) array [w; v]")
      .def_property_readonly("angular", [](const Motion& x) { return toArray(x.angular()); }, "(3,) copy")
      .def_property_readonly("linear", [](const Motion& x) { return toArray(x.linear()); }, "(3,) copy")
      .def_property_readonly("vector", [](const Motion& x) { return toArray(x.vector()); }, "(6,) [w; v], a copy")
      .def("cross", &Motion::cross, py::arg("m"), "this x m (Featherstone's crm)")
      .def("cross_dual", &Motion::crossDual, py::arg("f"), "this x* f (Featherstone's crf)")
      .def("dot", [](const Motion& x, const Force& f) { return x.vector().dot(f.vector()); }, py::arg("f"), "power m . f")
      .def("__add__", [](const Motion& a, const Motion& b) { return Motion(a.vector() + b.vector()); })
      .def("__sub__", [](const Motion& a, const Motion& b) { return Motion(a.vector() - b.vector()); })
      .def("__neg__", [](const Motion& a) { return Motion(-a.vector()); })
      .def("__mul__", [](const Motion& a, double s) { return Motion(readScalar("Motion.__mul__", "s", s) * a.vector()); })
      .def("__rmul__", [](const Motion& a, double s) { return Motion(readScalar("Motion.__rmul__", "s", s) * a.vector()); })
      .def("__repr__", [](const Motion& x) { return vectorString("Motion", x.angular(), x.linear(), "angular", "linear"); });
  defArray(motion, [](const Motion& x) { return x.vector(); });

  py::class_<Force> force(m, "Force", "A spatial force vector [n; f], moment first (C++ abdyn::Force).");
  force.def(py::init<>())
      .def(py::init([](py::handle angular, py::handle linear) {
             return Force(readVector3("Force", "angular", angular), readVector3("Force", "linear", linear));
           }), py::arg("angular"), py::arg("linear"))
      .def_static("from_vector", [](py::handle x) { return Force(readVector6("Force.from_vector", "x", x)); },
                  py::arg("x"), "from a (6,) array [n; f]")
      .def_property_readonly("angular", [](const Force& x) { return toArray(x.angular()); }, "(3,) moment, a copy")
      .def_property_readonly("linear", [](const Force& x) { return toArray(x.linear()); }, "(3,) force, a copy")
      .def_property_readonly("vector", [](const Force& x) { return toArray(x.vector()); }, "(6,) [n; f], a copy")
      .def("__add__", [](const Force& a, const Force& b) { return a + b; })
      .def("__sub__", [](const Force& a, const Force& b) { return a - b; })
      .def("__neg__", [](const Force& a) { return -a; })
      .def("__mul__", [](const Force& a, double s) { return a * readScalar("Force.__mul__", "s", s); })
      .def("__rmul__", [](const Force& a, double s) { return a * readScalar("Force.__rmul__", "s", s); })
      .def("__repr__", [](const Force& x) { return vectorString("Force", x.angular(), x.linear(), "angular", "linear"); });
  defArray(force, [](const Force& x) { return x.vector(); });

  py::class_<RigidBodyInertia> rbi(m, "RigidBodyInertia",
                                   "Spatial inertia of a rigid body (C++ abdyn::RigidBodyInertia): mass, centre of\n"
                                   "mass c and rotational inertia about c, in the coordinates of its frame.");
  rbi.def(py::init<>())
      .def(py::init([](double mass, py::handle com, py::handle inertia) {
             return RigidBodyInertia(readScalar("RigidBodyInertia", "mass", mass), readVector3("RigidBodyInertia", "com", com),
                                     readMatrix3("RigidBodyInertia", "inertia_about_com", inertia));
           }), py::arg("mass"), py::arg("com"), py::arg("inertia_about_com"),
           "Raises abdyn.Error for a negative mass or an inertia no rigid body has.")
      .def_static("from_matrix", [](py::handle I) { return RigidBodyInertia::fromMatrix(readMatrix6("RigidBodyInertia.from_matrix", "I", I)); },
                  py::arg("I"), "from the (6, 6) matrix (angular first); raises abdyn.Error if it is not one")
      .def_property_readonly("mass", &RigidBodyInertia::mass)
      .def_property_readonly("com", [](const RigidBodyInertia& I) { return toArray(I.com()); }, "(3,) copy")
      .def_property_readonly("inertia_about_com", [](const RigidBodyInertia& I) { return toArray(I.inertiaAboutCom()); }, "(3, 3) copy")
      .def_property_readonly("inertia_about_origin", [](const RigidBodyInertia& I) { return toArray(I.inertiaAboutOrigin()); }, "(3, 3)")
      .def_property_readonly("matrix", [](const RigidBodyInertia& I) { return toArray(I.matrix()); }, "(6, 6) angular first, a copy")
      .def("__mul__", [](const RigidBodyInertia& I, const Motion& v) { return I * v; }, "I v: the momentum (a Force)")
      .def("kinetic_energy", &RigidBodyInertia::kineticEnergy, py::arg("v"))
      .def("__repr__", [](const RigidBodyInertia& I) {
        std::ostringstream s;
        s << "abdyn.RigidBodyInertia(mass=" << I.mass() << ", com=[" << I.com().transpose() << "])";
        return s.str();
      });
  defArray(rbi, [](const RigidBodyInertia& I) { return I.matrix(); });

  py::class_<ArticulatedBodyInertia> abi(m, "ArticulatedBodyInertia",
                                         "Articulated-body inertia, a symmetric positive semi-definite (6, 6) "
                                         "matrix (C++ abdyn::ArticulatedBodyInertia).");
  abi.def(py::init<>())
      .def(py::init<const RigidBodyInertia&>(), py::arg("I"))
      .def_static("from_matrix", [](py::handle I) {
        return ArticulatedBodyInertia::fromMatrix(readMatrix6("ArticulatedBodyInertia.from_matrix", "I", I));
      }, py::arg("I"), "raises abdyn.Error unless I is symmetric positive semi-definite")
      .def_property_readonly("matrix", [](const ArticulatedBodyInertia& I) { return toArray(I.matrix()); }, "(6, 6) copy")
      .def("__mul__", [](const ArticulatedBodyInertia& I, const Motion& a) { return I * a; })
      .def("__add__", [](const ArticulatedBodyInertia& a, const ArticulatedBodyInertia& b) { return a + b; });
  defArray(abi, [](const ArticulatedBodyInertia& I) { return I.matrix(); });

  py::class_<Plx> plx(m, "Plx",
                      "Left-associative Pluecker transform X_B_A = plx(E, r) (Featherstone, RBDL; C++ abdyn::Plx):\n"
                      "maps coordinates of frame A into frame B; E rotates A-coordinates into B-coordinates\n"
                      "(E = R_A_B^T) and r is B's origin in A. X_C_A = X_C_B * X_B_A.");
  plx.def(py::init<>())
      .def(py::init([](py::handle E, py::handle r) { return Plx(readMatrix3("Plx", "E", E), readVector3("Plx", "r", r)); }),
           py::arg("E"), py::arg("r"))
      .def_static("identity", &Plx::identity)
      .def_static("rotation", [](py::handle E) { return Plx::rotation(readMatrix3("Plx.rotation", "E", E)); }, py::arg("E"),
                  "Featherstone's rot(E)")
      .def_static("translation", [](py::handle r) { return Plx::translation(readVector3("Plx.translation", "r", r)); },
                  py::arg("r"), "Featherstone's xlt(r)")
      .def_static("from_pose", [](py::handle R, py::handle p) {
        return Plx::fromPose(readMatrix3("Plx.from_pose", "R_A_B", R), readVector3("Plx.from_pose", "p_A_B", p));
      }, py::arg("R_A_B"), py::arg("p_A_B"), "X_B_A from the pose of B in A (orientation R_A_B, position p_A_B)")
      .def_property_readonly("E", [](const Plx& X) { return toArray(X.E()); }, "(3, 3) copy")
      .def_property_readonly("r", [](const Plx& X) { return toArray(X.r()); }, "(3,) copy")
      .def("to_pose", [](const Plx& X) { return toArray(Eigen::Matrix4d(X.toPose().matrix())); },
           "(4, 4) homogeneous pose T_A_B of B in A")
      .def_property_readonly("matrix", [](const Plx& X) { return toArray(X.matrix()); }, "(6, 6) on motions")
      .def_property_readonly("dual_matrix", [](const Plx& X) { return toArray(X.dualMatrix()); }, "(6, 6) on forces, X^-T")
      .def("inverse", &Plx::inverse, "X_A_B")
      .def("apply", py::overload_cast<const Motion&>(&Plx::apply, py::const_), py::arg("m"))
      .def("apply", py::overload_cast<const Force&>(&Plx::apply, py::const_), py::arg("f"))
      .def("apply", py::overload_cast<const RigidBodyInertia&>(&Plx::apply, py::const_), py::arg("I"))
      .def("apply", py::overload_cast<const ArticulatedBodyInertia&>(&Plx::apply, py::const_), py::arg("I"))
      .def("apply_inverse", py::overload_cast<const Motion&>(&Plx::applyInverse, py::const_), py::arg("m"))
      .def("apply_inverse", py::overload_cast<const Force&>(&Plx::applyInverse, py::const_), py::arg("f"))
      .def("apply_inverse", py::overload_cast<const RigidBodyInertia&>(&Plx::applyInverse, py::const_), py::arg("I"))
      .def("apply_inverse", py::overload_cast<const ArticulatedBodyInertia&>(&Plx::applyInverse, py::const_), py::arg("I"))
      .def("apply_to_point", [](const Plx& X, py::handle p) { return toArray(X.applyToPoint(readVector3("Plx.apply_to_point", "p", p))); },
           py::arg("p_A"), "(3,) the point p_A (3,) given in A coordinates, in B coordinates: E (p - r) (C++ Plx::applyToPoint)")
      .def("__mul__", [](const Plx& a, const Plx& b) { return a * b; })
      .def("__mul__", [](const Plx& a, const Motion& b) { return a * b; })
      .def("__mul__", [](const Plx& a, const Force& b) { return a * b; })
      .def("__repr__", [](const Plx& X) {
        std::ostringstream s;
        s << "abdyn.Plx(E=" << py::str(toArray(X.E()).attr("tolist")()).cast<std::string>() << ", r=["
          << X.r().transpose() << "])";
        return s.str();
      });
  defArray(plx, [](const Plx& X) { return X.matrix(); });

  py::class_<Plxb> plxb(m, "Plxb",
                        "Right-associative transform (Brax, Tiny Differentiable Simulator; C++ abdyn::Plxb): the\n"
                        "pose of C in P, rotation R_P_C and position p_P_C; apply maps P-coordinates to C.");
  plxb.def(py::init<>())
      .def(py::init([](py::handle R, py::handle p) { return Plxb(readMatrix3("Plxb", "R_P_C", R), readVector3("Plxb", "p_P_C", p)); }),
           py::arg("R_P_C"), py::arg("p_P_C"))
      .def_static("identity", &Plxb::identity)
      .def_static("from_plx", &Plxb::fromPlx, py::arg("X_C_P"))
      .def("to_plx", &Plxb::toPlx)
      .def_property_readonly("rotation", [](const Plxb& T) { return toArray(T.rotation()); }, "(3, 3) R_P_C, a copy")
      .def_property_readonly("position", [](const Plxb& T) { return toArray(T.position()); }, "(3,) p_P_C, a copy")
      .def_property_readonly("matrix", [](const Plxb& T) { return toArray(T.matrix()); }, "(6, 6) on motions, P to C")
      .def("inverse", &Plxb::inverse)
      .def("apply", py::overload_cast<const Motion&>(&Plxb::apply, py::const_), py::arg("m"))
      .def("apply", py::overload_cast<const Force&>(&Plxb::apply, py::const_), py::arg("f"))
      .def("apply", py::overload_cast<const RigidBodyInertia&>(&Plxb::apply, py::const_), py::arg("I"))
      .def("apply_inverse", py::overload_cast<const Motion&>(&Plxb::applyInverse, py::const_), py::arg("m"))
      .def("apply_inverse", py::overload_cast<const Force&>(&Plxb::applyInverse, py::const_), py::arg("f"))
      .def("__mul__", [](const Plxb& a, const Plxb& b) { return a * b; });
  defArray(plxb, [](const Plxb& T) { return T.matrix(); });
}

const Registration registration(5, bindSpatial);

}  // namespace
}  // namespace abdyn::python
