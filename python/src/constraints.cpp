// Loop closures and joint couplings: loading, constrained forward dynamics, impacts, projections.

#include <memory>

#include <pybind11/stl.h>

#include "common.hpp"

namespace abdyn::python {
namespace {

using ConstraintsPtr = std::shared_ptr<ConstraintSet>;

/// abdyn.ConstrainedData: the C++ ConstrainedDynamicsData for one (Model, ConstraintSet) pair.
struct PyConstrainedData {
  PyConstrainedData(ModelPtr model_in, ConstraintsPtr constraints_in)
      : model(std::move(model_in)), constraints(std::move(constraints_in)), cd(*model, *constraints) {}
  const ModelPtr model;
  const ConstraintsPtr constraints;
  ConstrainedDynamicsData cd;
  std::unique_ptr<ConstrainedDerivatives> derivatives;  // built by the first derivative call
  std::atomic<bool> busy{false};  // one call at a time, as for PyData
};

/// Holds a PyConstrainedData for one call: checks that it was made for this model and constraint set and
/// that no other thread uses it (two Datas may share one ConstrainedData, so the Data's lock is not enough).
class ConstrainedLock {
 public:
  ConstrainedLock(const char* function, const Model& model, const ConstraintSet& constraints, PyConstrainedData& cdata)
      : busy_(cdata.busy) {
    if (cdata.model.get() != &model || cdata.constraints.get() != &constraints) {
      throw InvalidArgument(std::string("abdyn.") + function +
                            ": 'cdata' was made for another Model or ConstraintSet; make one with "
                            "abdyn.ConstrainedData(model, constraints)");
    }
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true)) {
      throw Error(std::string("abdyn.") + function + ": 'cdata' is in use by a call in another thread");
    }
  }
  ~ConstrainedLock() { busy_.store(false); }
  ConstrainedLock(const ConstrainedLock&) = delete;
  ConstrainedLock& operator=(const ConstrainedLock&) = delete;

 private:
  std::atomic<bool>& busy_;
};

void bindConstraints(py::module_& m) {
  py::enum_<ConstrainedSolver>(m, "ConstrainedSolver", "C++ abdyn::ConstrainedSolver")
      .value("AUTOMATIC", ConstrainedSolver::Automatic)
      .value("DIRECT", ConstrainedSolver::Direct)
      .value("ARTICULATED", ConstrainedSolver::Articulated)
      .value("FACTORIZED", ConstrainedSolver::Factorized);
  py::enum_<Stabilisation>(m, "Stabilisation", "C++ abdyn::Stabilisation")
      .value("BAUMGARTE", Stabilisation::Baumgarte)
      .value("ERROR_REDUCTION", Stabilisation::ErrorReduction)
      .value("PREDICTED_ERROR", Stabilisation::PredictedError);

  py::class_<DynamicsOptions>(m, "DynamicsOptions", "C++ abdyn::DynamicsOptions")
      .def(py::init<>())
      .def_readwrite("armature", &DynamicsOptions::armature)
      .def_readwrite("damping", &DynamicsOptions::damping);

  py::class_<ConstrainedDynamicsSettings>(m, "ConstrainedDynamicsSettings",
                                          "C++ abdyn::ConstrainedDynamicsSettings (see constrained_dynamics.hpp)")
      .def(py::init<>())
      .def_readwrite("solver", &ConstrainedDynamicsSettings::solver)
      .def_readwrite("stabilisation", &ConstrainedDynamicsSettings::stabilisation)
      .def_readwrite("baumgarte_alpha", &ConstrainedDynamicsSettings::baumgarte_alpha, "1/s")
      .def_readwrite("baumgarte_beta", &ConstrainedDynamicsSettings::baumgarte_beta, "1/s")
      .def_readwrite("erp", &ConstrainedDynamicsSettings::erp)
      .def_readwrite("time_step", &ConstrainedDynamicsSettings::time_step, "s")
      .def_readwrite("cfm", &ConstrainedDynamicsSettings::cfm)
      .def_readwrite("rank_tolerance", &ConstrainedDynamicsSettings::rank_tolerance)
      .def_readwrite("consistency_tolerance", &ConstrainedDynamicsSettings::consistency_tolerance)
      .def_readwrite("dynamics", &ConstrainedDynamicsSettings::dynamics);

  py::class_<ConstraintSet, ConstraintsPtr>(m, "ConstraintSet",
                                            "Loop closures and joint couplings of a closed-chain system (C++ abdyn::ConstraintSet).")
      .def_property_readonly("rows", &ConstraintSet::rows, "number of scalar constraint rows m")
      .def_property_readonly("loop_names", [](const ConstraintSet& c) {
        std::vector<std::string> names;
        for (const LoopClosure& l : c.loops) names.push_back(l.name);
        return names;
      })
      .def_property_readonly("coupling_names", [](const ConstraintSet& c) {
        std::vector<std::string> names;
        for (const JointCoupling& l : c.couplings) names.push_back(l.name);
        return names;
      })
      .def_static("from_mimics", [](const Model& model) { return std::make_shared<ConstraintSet>(ConstraintSet::fromMimics(model)); },
                  py::arg("model"), "the model's URDF mimic joints as couplings");

  m.def("load_urdf_loops",
        [](py::handle path, const Model& model) {
          const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
          py::gil_scoped_release release;
          return std::make_shared<ConstraintSet>(loadUrdfLoops(file, model));
        },
        py::arg("path"), py::arg("model"),
        "The <loop_joint> / drake:ball_constraint closures of a URDF file, for the model loaded from it (C++\n"
        "abdyn::loadUrdfLoops). Raises abdyn.Error naming the file and element at fault.");
  m.def("load_urdf_loops_string",
        [](const std::string& xml, const Model& model) {
          py::gil_scoped_release release;
          return std::make_shared<ConstraintSet>(loadUrdfLoopsString(xml, model));
        },
        py::arg("xml"), py::arg("model"), "The same from a document in a string (C++ abdyn::loadUrdfLoopsString).");

  py::class_<PyConstrainedData>(m, "ConstrainedData",
                                        "Workspace and results of the constrained solvers for one Model and\n"
                                        "ConstraintSet (C++ abdyn::ConstrainedDynamicsData). Results are copies.")
      .def(py::init([](std::shared_ptr<Model> model, ConstraintsPtr constraints) {
             constraints->validate(*model);
             return new PyConstrainedData(std::move(model), std::move(constraints));
           }), py::arg("model"), py::arg("constraints"))
      .def_property_readonly("multipliers", [](const PyConstrainedData& c) { return toArray(c.cd.lambda); },
                             "(m,) Lagrange multipliers of the last call (impulses after constrained_impact): G^T lambda\n"
                             "is the generalized constraint force. A copy (C++ ConstrainedDynamicsData::lambda).")
      .def_property_readonly("closure_wrenches", [](const PyConstrainedData& c) {
        Eigen::MatrixXd W(static_cast<Eigen::Index>(c.cd.closure_wrench.size()), 6);
        for (std::size_t k = 0; k < c.cd.closure_wrench.size(); ++k) W.row(static_cast<Eigen::Index>(k)) = c.cd.closure_wrench[k].transpose();
        return toArray(W);
      }, "(loops, 6): per closure the wrench [torque; force] on body b at Fb's origin in Fa's axes. A copy.")
      .def_property_readonly("rank", [](const PyConstrainedData& c) { return c.cd.rank; },
                             "rank of the constraint system at the last call")
      .def_property_readonly("constraint_error", [](const PyConstrainedData& c) { return toArray(c.cd.kinematics.C); },
                             "(m,) C(q) at the last call, a copy")
      .def_property_readonly("constraint_jacobian", [](const PyConstrainedData& c) { return toArray(c.cd.kinematics.G); },
                             "(m, nv) G(q) at the last call, a copy");

  m.def("forward_dynamics_constrained",
        [](const Model& model, PyData& d, PyConstrainedData& c, const ConstraintSet& constraints, py::handle q,
           py::handle v, py::handle tau, const ConstrainedDynamicsSettings& settings) {
          const char* fn = "forward_dynamics_constrained";
          StateCall call(fn, model, d);
          ConstrainedLock clock(fn, model, constraints, c);
          call.q(q).v(v).vector("tau", tau, d.u);
          call.run([&] { forwardDynamicsConstrained(model, d.data, c.cd, constraints, d.q, d.v, d.u, settings); });
          return toArray(c.cd.qdd);
        },
        py::arg("model"), py::arg("data"), py::arg("cdata"), py::arg("constraints"), py::arg("q"), py::arg("v"),
        py::arg("tau"), py::arg("settings") = ConstrainedDynamicsSettings{},
        "qdd, (nv,), of the constrained system at (q, v, tau) by Lagrange multipliers (C++\n"
        "abdyn::forwardDynamicsConstrained); cdata.multipliers, closure_wrenches and rank hold the rest. A new array.");
  m.def("forward_dynamics_constrained_derivatives",
        [](const Model& model, PyData& d, PyConstrainedData& c, const ConstraintSet& constraints, py::handle q,
           py::handle v, py::handle tau, const ConstrainedDynamicsSettings& settings) {
          const char* fn = "forward_dynamics_constrained_derivatives";
          StateCall call(fn, model, d);
          ConstrainedLock clock(fn, model, constraints, c);
          call.q(q).v(v).vector("tau", tau, d.u);
          if (!c.derivatives) c.derivatives = std::make_unique<ConstrainedDerivatives>(model, constraints);
          ConstrainedDerivatives& out = *c.derivatives;
          call.run([&] {
            forwardDynamicsConstrainedDerivatives(model, d.data, c.cd, out, constraints, d.q, d.v, d.u, settings);
          });
          return py::make_tuple(toArray(out.dqdd_dq), toArray(out.dqdd_dv), toArray(out.dqdd_dtau),
                                toArray(out.dlambda_dq), toArray(out.dlambda_dv), toArray(out.dlambda_dtau));
        },
        py::arg("model"), py::arg("data"), py::arg("cdata"), py::arg("constraints"), py::arg("q"), py::arg("v"),
        py::arg("tau"), py::arg("settings") = ConstrainedDynamicsSettings{},
        "(dqdd_dq, dqdd_dv, dqdd_dtau, dlambda_dq, dlambda_dv, dlambda_dtau): the derivatives of\n"
        "forward_dynamics_constrained(q, v, tau, settings) and of its multipliers (cdata.multipliers) with respect\n"
        "to q (tangent space: column k along integrate(q, eps e_k)), v and tau; qdd ones (nv, nv), multiplier ones\n"
        "(m, nv) (C++ abdyn::forwardDynamicsConstrainedDerivatives). Runs the forward call too: cdata holds its\n"
        "results afterwards. With redundant closures the multipliers are the minimum-norm ones, as in\n"
        "forward_dynamics_constrained, and these are their derivatives. New arrays.");
  m.def("constrained_impact",
        [](const Model& model, PyData& d, PyConstrainedData& c, const ConstraintSet& constraints, py::handle q,
           py::handle v_minus, double restitution, const ConstrainedDynamicsSettings& settings) {
          const char* fn = "constrained_impact";
          StateCall call(fn, model, d);
          ConstrainedLock clock(fn, model, constraints, c);
          call.q(q).vector("v_minus", v_minus, d.v);
          readScalar(fn, "restitution", restitution);
          call.run([&] { constrainedImpact(model, d.data, c.cd, constraints, d.q, d.v, restitution, settings); });
          return toArray(c.cd.v_plus);
        },
        py::arg("model"), py::arg("data"), py::arg("cdata"), py::arg("constraints"), py::arg("q"), py::arg("v_minus"),
        py::arg("restitution") = 0.0, py::arg("settings") = ConstrainedDynamicsSettings{},
        "v+, (nv,): the velocity after an impact closing the constraints, G v+ = -e G v- (C++\n"
        "abdyn::constrainedImpact); cdata.multipliers holds the impulses (N s). A new array.");
  m.def("project_positions",
        [](const Model& model, PyData& d, PyConstrainedData& c, const ConstraintSet& constraints, py::handle q,
           double tolerance, int max_iterations) {
          const char* fn = "project_positions";
          StateCall call(fn, model, d);
          ConstrainedLock clock(fn, model, constraints, c);
          Eigen::VectorXd x = readVector(fn, "q", q, model.nq());
          readScalar(fn, "tolerance", tolerance);
          const int iterations =
              call.run([&] { return projectPositions(model, d.data, c.cd, constraints, x, tolerance, max_iterations); });
          return py::make_tuple(toArray(x), iterations);
        },
        py::arg("model"), py::arg("data"), py::arg("cdata"), py::arg("constraints"), py::arg("q"),
        py::arg("tolerance") = 1e-12, py::arg("max_iterations") = 50,
        "(q_closed (nq,), iterations): Gauss-Newton on the manifold from q until max |C| <= tolerance (C++\n"
        "abdyn::projectPositions; q itself is not changed). Raises abdyn.Error if it does not converge.");
  m.def("project_velocities",
        [](const Model& model, PyData& d, PyConstrainedData& c, const ConstraintSet& constraints, py::handle q,
           py::handle v, bool armature, bool damping) {
          const char* fn = "project_velocities";
          StateCall call(fn, model, d);
          ConstrainedLock clock(fn, model, constraints, c);
          call.q(q);
          Eigen::VectorXd x = readVector(fn, "v", v, model.nv());
          const DynamicsOptions options = dynamicsOptions(armature, damping);
          call.run([&] { projectVelocities(model, d.data, c.cd, constraints, d.q, x, options); });
          return toArray(x);
        },
        py::arg("model"), py::arg("data"), py::arg("cdata"), py::arg("constraints"), py::arg("q"), py::arg("v"),
        py::kw_only(), py::arg("armature") = true, py::arg("damping") = true,
        "(nv,) the M-orthogonal projection of v onto G v = 0 (C++ abdyn::projectVelocities). A new array.");
}

const Registration registration(40, bindConstraints);

}  // namespace
}  // namespace abdyn::python
