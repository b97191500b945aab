// Dynamics: ABA, RNEA, CRBA and the mass-matrix factor, forward dynamics through CRBA, M^-1.

#include "common.hpp"

namespace abdyn::python {
namespace {

const char* const kOptionsDoc =
    "armature, damping: include Model.armature in M and the viscous damping -Model.damping * v (C++\n"
    "DynamicsOptions); give the same to forward and inverse dynamics for them to be each other's inverse.";

DynamicsOptions options(bool armature, bool damping) {
  DynamicsOptions o;
  o.armature = armature;
  o.damping = damping;
  return o;
}

void bindDynamics(py::module_& m) {
  m.def("forward_dynamics",
        [](const Model& model, PyData& d, py::handle q, py::handle v, py::handle tau, py::handle f_ext, bool armature,
           bool damping) {
          const char* fn = "forward_dynamics";
          DataLock lock(fn, model, d);
          readVector(fn, "q", q, model.nq(), d.q);
          readVector(fn, "v", v, model.nv(), d.v);
          readVector(fn, "tau", tau, model.nv(), d.u);
          const bool has_f = readExternalForces(fn, f_ext, model, d.f_ext);
          {
            py::gil_scoped_release release;
            if (has_f) {
              forwardDynamics(model, d.data, d.q, d.v, d.u, d.f_ext, options(armature, damping));
            } else {
              forwardDynamics(model, d.data, d.q, d.v, d.u, options(armature, damping));
            }
          }
          return toArray(d.data.qdd);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("f_ext") = py::none(),
        py::kw_only(), py::arg("armature") = true, py::arg("damping") = true,
        (std::string("qdd, (nv,): joint accelerations under joint forces tau (nv,) at q (nq,), v (nv,) by the\n"
                     "articulated-body algorithm (C++ abdyn::forwardDynamics). f_ext: None or (nbodies, 6), row i\n"
                     "the force [n; f] on body i in body-i coordinates about its origin (row 0 ignored).\n") +
         kOptionsDoc + "\nReturns a new array (a copy of data.qdd).").c_str());

  m.def("inverse_dynamics",
        [](const Model& model, PyData& d, py::handle q, py::handle v, py::handle qdd, py::handle f_ext, bool armature,
           bool damping) {
          const char* fn = "inverse_dynamics";
          DataLock lock(fn, model, d);
          readVector(fn, "q", q, model.nq(), d.q);
          readVector(fn, "v", v, model.nv(), d.v);
          readVector(fn, "qdd", qdd, model.nv(), d.u);
          const bool has_f = readExternalForces(fn, f_ext, model, d.f_ext);
          {
            py::gil_scoped_release release;
            if (has_f) {
              inverseDynamics(model, d.data, d.q, d.v, d.u, d.f_ext, options(armature, damping));
            } else {
              inverseDynamics(model, d.data, d.q, d.v, d.u, options(armature, damping));
            }
          }
          return toArray(d.data.tau);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("qdd"), py::arg("f_ext") = py::none(),
        py::kw_only(), py::arg("armature") = true, py::arg("damping") = true,
        (std::string("tau, (nv,): the joint forces that produce qdd (nv,) at q (nq,), v (nv,) under gravity and\n"
                     "f_ext, by the recursive Newton-Euler algorithm (C++ abdyn::inverseDynamics). f_ext as in\n"
                     "forward_dynamics.\n") +
         kOptionsDoc + "\nReturns a new array (a copy of data.tau).").c_str());

  m.def("mass_matrix",
        [](const Model& model, PyData& d, py::handle q, bool armature) {
          const char* fn = "mass_matrix";
          DataLock lock(fn, model, d);
          readVector(fn, "q", q, model.nq(), d.q);
          {
            py::gil_scoped_release release;
            massMatrix(model, d.data, d.q, options(armature, true));
          }
          return toArray(d.data.M);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::kw_only(), py::arg("armature") = true,
        "M(q), (nv, nv) symmetric, both triangles filled, by the composite-rigid-body algorithm (C++\n"
        "abdyn::massMatrix); armature adds Model.armature to the diagonal. Returns a new array (copy of data.M).");
}

const Registration registration(20, bindDynamics);

}  // namespace
}  // namespace abdyn::python
