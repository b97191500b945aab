// Dynamics: ABA, RNEA, CRBA and the mass-matrix factor, forward dynamics through CRBA, M^-1.

#include "common.hpp"

namespace abdyn::python {
namespace {

const char* const kOptionsDoc =
    "armature, damping: include Model.armature in M and the viscous damping -Model.damping * v (C++\n"
    "DynamicsOptions); give the same to forward and inverse dynamics for them to be each other's inverse.";

void bindDynamics(py::module_& m) {
  defDynamicsFunction(
      m, "forward_dynamics", "tau", &PyData::u,
      [](const Model& model, PyData& d, const DynamicsOptions& o, const auto&... f) {
        forwardDynamics(model, d.data, d.q, d.v, d.u, f..., o);
      },
      [](PyData& d) { return toArray(d.data.qdd); },
      std::string("qdd, (nv,): joint accelerations under joint forces tau (nv,) at q (nq,), v (nv,) by the\n"
                  "articulated-body algorithm (C++ abdyn::forwardDynamics). f_ext: None or (nbodies, 6), row i\n"
                  "the force [n; f] on body i in body-i coordinates about its origin (row 0 ignored).\n") +
          kOptionsDoc + "\nReturns a new array (a copy of data.qdd).");

  defDynamicsFunction(
      m, "inverse_dynamics", "qdd", &PyData::u,
      [](const Model& model, PyData& d, const DynamicsOptions& o, const auto&... f) {
        inverseDynamics(model, d.data, d.q, d.v, d.u, f..., o);
      },
      [](PyData& d) { return toArray(d.data.tau); },
      std::string("tau, (nv,): the joint forces that produce qdd (nv,) at q (nq,), v (nv,) under gravity and\n"
                  "f_ext, by the recursive Newton-Euler algorithm (C++ abdyn::inverseDynamics). f_ext as in\n"
                  "forward_dynamics.\n") +
          kOptionsDoc + "\nReturns a new array (a copy of data.tau).");

  m.def("mass_matrix",
        [](const Model& model, PyData& d, py::handle q, bool armature) {
          StateCall call("mass_matrix", model, d);
          call.q(q).run([&] { massMatrix(model, d.data, d.q, dynamicsOptions(armature, true)); });
          return toArray(d.data.M);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::kw_only(), py::arg("armature") = true,
        "M(q), (nv, nv) symmetric, both triangles filled, by the composite-rigid-body algorithm (C++\n"
        "abdyn::massMatrix); armature adds Model.armature to the diagonal. Returns a new array (copy of data.M).");

  m.def("nonlinear_effects",
        [](const Model& model, PyData& d, py::handle q, py::handle v, bool damping) {
          StateCall call("nonlinear_effects", model, d);
          call.q(q).v(v).run([&] {
            nonlinearEffects(model, d.data, d.q, d.v, dynamicsOptions(true, damping));
          });
          return toArray(d.data.tau);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::kw_only(), py::arg("damping") = true,
        "h = C(q, v) v + g(q) (+ damping v), (nv,): inverse dynamics at qdd = 0 (C++ abdyn::nonlinearEffects). A new array.");
  m.def("gravity_torques",
        [](const Model& model, PyData& d, py::handle q) {
          StateCall call("gravity_torques", model, d);
          call.q(q).run([&] { gravityTorques(model, d.data, d.q); });
          return toArray(d.data.tau);
        },
        py::arg("model"), py::arg("data"), py::arg("q"),
        "g(q), (nv,): the joint forces that hold the model still (C++ abdyn::gravityTorques). A new array.");
  // The factor is kept for solve_mass_matrix once the call succeeds.
  defDynamicsFunction(
      m, "forward_dynamics_crba", "tau", &PyData::u,
      [](const Model& model, PyData& d, const DynamicsOptions& o, const auto&... f) {
        d.factorized = false;
        forwardDynamicsCrba(model, d.data, d.q, d.v, d.u, f..., o);
        d.factorized = true;
      },
      [](PyData& d) { return toArray(d.data.qdd); },
      "qdd = M^-1 (tau - h), (nv,), through RNEA, CRBA and the sparse L^T D L factor of M (C++\n"
      "abdyn::forwardDynamicsCrba); arguments as forward_dynamics. Leaves the factor for solve_mass_matrix.\n"
      "A new array.");
  m.def("inverse_mass_matrix",
        [](const Model& model, PyData& d, py::handle q, bool armature) {
          StateCall call("inverse_mass_matrix", model, d);
          call.q(q).run([&] {
            inverseMassMatrix(model, d.data, d.q, dynamicsOptions(armature, true));
          });
          return toArray(d.data.Minv);
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::kw_only(), py::arg("armature") = true,
        "M(q)^-1, (nv, nv), by an articulated-body recursion (C++ abdyn::inverseMassMatrix). A new array.");
  m.def("factorize_mass_matrix",
        [](const Model& model, PyData& d, py::handle q, bool armature) {
          StateCall call("factorize_mass_matrix", model, d);
          call.q(q);
          d.factorized = false;
          call.run([&] {
            massMatrix(model, d.data, d.q, dynamicsOptions(armature, true));
            factorizeMassMatrix(model, d.data);
          });
          d.factorized = true;
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::kw_only(), py::arg("armature") = true,
        "Computes M(q) and its sparse factor M = L^T D L into data (C++ abdyn::massMatrix, then\n"
        "abdyn::factorizeMassMatrix) for solve_mass_matrix. Raises abdyn.Error if M is not positive definite.");
  m.def("solve_mass_matrix",
        [](const Model& model, PyData& d, py::handle b) {
          const char* fn = "solve_mass_matrix";
          DataLock lock(fn, model, d);
          if (!d.factorized) {
            throw Error("abdyn.solve_mass_matrix: 'data' holds no factor of M: call factorize_mass_matrix (or "
                        "forward_dynamics_crba) on it first");
          }
          d.factorized = true;
          const py::array a = asFloatArray(fn, "b", b);
          if (a.ndim() == 1) {
            Eigen::VectorXd x = readVector(fn, "b", a, model.nv());
            {
              py::gil_scoped_release release;
              solveMassMatrix(model, d.data, x);
            }
            return toArray(x);
          }
          const Eigen::Index cols = a.ndim() == 2 ? a.shape(1) : 0;
          Eigen::MatrixXd X = readMatrix(fn, "b", a, model.nv(), cols);
          {
            py::gil_scoped_release release;
            for (Eigen::Index j = 0; j < X.cols(); ++j) solveMassMatrix(model, d.data, X.col(j));
          }
          return toArray(X);
        },
        py::arg("model"), py::arg("data"), py::arg("b"),
        "x = M^-1 b for b of shape (nv,) or (nv, k), with the factor left in data by factorize_mass_matrix or\n"
        "forward_dynamics_crba (C++ abdyn::solveMassMatrix). A new array.");
}

const Registration registration(20, bindDynamics);

}  // namespace
}  // namespace abdyn::python
