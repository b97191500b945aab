// Analytic derivatives: of inverse and forward dynamics (C++ algorithms/derivatives.hpp), of integrate and
// difference (model/configuration_derivatives.hpp), and the transition Jacobians of one integrator step
// (integrators/step_derivatives.hpp, and constrained_step_derivatives.hpp for the loop-closure RK4 step).
// Derivatives with respect to q are taken in the tangent space, as in C++.
// Several results come back as a tuple of new arrays, like frame_jacobian_time_variation.

#include "common.hpp"

namespace abdyn::python {
namespace {

/// abdyn.StepJacobians: the C++ StepJacobians (A, B and the stage workspace) for one Model, used by one call
/// at a time.
struct PyStepJacobians {
  explicit PyStepJacobians(ModelPtr model_in) : model(std::move(model_in)), jacobians(*model) {}
  const ModelPtr model;
  StepJacobians jacobians;
  std::atomic<bool> busy{false};
};

/// Holds a PyStepJacobians for one call: checks the model and that no other thread uses it.
class StepJacobiansLock {
 public:
  StepJacobiansLock(const char* function, const Model& model, PyStepJacobians& s) : busy_(s.busy) {
    if (s.model.get() != &model) {
      throw InvalidArgument(std::string("abdyn.StepJacobians.") + function +
                            ": this StepJacobians was made for another Model; make one with abdyn.StepJacobians(model)");
    }
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true)) {
      throw Error(std::string("abdyn.StepJacobians.") + function + ": in use by a call in another thread");
    }
  }
  ~StepJacobiansLock() { busy_.store(false); }
  StepJacobiansLock(const StepJacobiansLock&) = delete;
  StepJacobiansLock& operator=(const StepJacobiansLock&) = delete;

 private:
  std::atomic<bool>& busy_;
};

using StepMethod = void (StepJacobians::*)(const Model&, Data&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                            const Eigen::VectorXd&, double, const DynamicsOptions&);

void bindStepMethod(py::class_<PyStepJacobians>& c, const char* name, StepMethod method, const char* doc) {
  c.def(name,
        [name, method](PyStepJacobians& self, const Model& model, PyData& d, py::handle q, py::handle v, py::handle tau,
                       double h, bool armature, bool damping) {
          const std::string fn = std::string("StepJacobians.") + name;
          StepJacobiansLock busy(name, model, self);
          StateCall call(fn.c_str(), model, d);
          call.q(q).v(v).vector("tau", tau, d.u);
          readScalar(fn.c_str(), "h", h);
          call.run([&] { (self.jacobians.*method)(model, d.data, d.q, d.v, d.u, h, dynamicsOptions(armature, damping)); });
          return py::make_tuple(toArray(self.jacobians.A), toArray(self.jacobians.B));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("h"), py::kw_only(),
        py::arg("armature") = true, py::arg("damping") = true, doc);
}

/// abdyn.ConstrainedStepJacobians: the C++ ConstrainedStepJacobians with a constrained-dynamics workspace of its
/// own, for one Model and ConstraintSet, used by one call at a time.
struct PyConstrainedStepJacobians {
  PyConstrainedStepJacobians(ModelPtr model_in, std::shared_ptr<ConstraintSet> constraints_in)
      : model(std::move(model_in)), constraints(std::move(constraints_in)), cd(*model, *constraints),
        jacobians(*model, *constraints) {}
  const ModelPtr model;
  const std::shared_ptr<ConstraintSet> constraints;
  ConstrainedDynamicsData cd;
  ConstrainedStepJacobians jacobians;
  std::atomic<bool> busy{false};
};

void bindConstrainedStep(py::module_& m) {
  py::class_<PyConstrainedStepJacobians> c(
      m, "ConstrainedStepJacobians",
      "Transition Jacobians of one ConstrainedRungeKutta4 step without its projections (C++\n"
      "abdyn::ConstrainedStepJacobians): the RK4 step of forward_dynamics_constrained, state x = (q, v) perturbed\n"
      "in the tangent space, u = tau; A = d x_next / d x (2 nv, 2 nv), B = d x_next / d u (2 nv, nv).\n"
      "ConstrainedStepJacobians(model, constraints) allocates the workspace once. One call at a time per object.");
  c.def(py::init([](std::shared_ptr<Model> model, std::shared_ptr<ConstraintSet> constraints) {
          return new PyConstrainedStepJacobians(std::move(model), std::move(constraints));
        }),
        py::arg("model"), py::arg("constraints"));
  c.def("runge_kutta4",
        [](PyConstrainedStepJacobians& self, const Model& model, PyData& d, const ConstraintSet& constraints,
           py::handle q, py::handle v, py::handle tau, double h, const ConstrainedDynamicsSettings& settings) {
          const char* fn = "ConstrainedStepJacobians.runge_kutta4";
          readScalar(fn, "h", h);
          if (self.model.get() != &model || self.constraints.get() != &constraints) {
            throw InvalidArgument(std::string("abdyn.") + fn +
                                  ": this ConstrainedStepJacobians was made for another Model or ConstraintSet; make "
                                  "one with abdyn.ConstrainedStepJacobians(model, constraints)");
          }
          bool expected = false;
          if (!self.busy.compare_exchange_strong(expected, true)) {
            throw Error(std::string("abdyn.") + fn + ": in use by a call in another thread");
          }
          struct Release {
            std::atomic<bool>& busy;
            ~Release() { busy.store(false); }
          } release_busy{self.busy};
          StateCall call(fn, model, d);
          call.q(q).v(v).vector("tau", tau, d.u);
          call.run([&] { self.jacobians.rungeKutta4(model, d.data, self.cd, constraints, d.q, d.v, d.u, h, settings); });
          return py::make_tuple(toArray(self.jacobians.A), toArray(self.jacobians.B));
        },
        py::arg("model"), py::arg("data"), py::arg("constraints"), py::arg("q"), py::arg("v"), py::arg("tau"),
        py::arg("h"), py::arg("settings") = ConstrainedDynamicsSettings{},
        "(A, B) of the RK4 step of forward_dynamics_constrained(settings) from (q, v, tau) over h, before the\n"
        "post-stabilisation (which the Jacobians do not include). New arrays.");
}

void bindDerivatives(py::module_& m) {
  defDynamicsFunction(
      m, "inverse_dynamics_derivatives", "qdd", &PyData::a,
      [](const Model& model, PyData& d, const DynamicsOptions& o, const auto&... f) {
        inverseDynamicsDerivatives(model, d.data, d.q, d.v, d.a, f..., o);
      },
      [](PyData& d) { return py::make_tuple(toArray(d.data.dtau_dq), toArray(d.data.dtau_dv), toArray(d.data.M)); },
      "(dtau_dq, dtau_dv, M), each (nv, nv): the derivatives of inverse_dynamics(q, v, qdd, f_ext) with respect\n"
      "to q (tangent space: column k along integrate(q, eps e_k)), v and qdd (= M) (C++\n"
      "abdyn::inverseDynamicsDerivatives). f_ext, armature, damping as in inverse_dynamics; the external forces\n"
      "are fixed in their bodies and turn with them. New arrays.");

  defDynamicsFunction(
      m, "forward_dynamics_derivatives", "tau", &PyData::u,
      [](const Model& model, PyData& d, const DynamicsOptions& o, const auto&... f) {
        forwardDynamicsDerivatives(model, d.data, d.q, d.v, d.u, f..., o);
      },
      [](PyData& d) {
        return py::make_tuple(toArray(d.data.dqdd_dq), toArray(d.data.dqdd_dv), toArray(d.data.dqdd_dtau));
      },
      "(dqdd_dq, dqdd_dv, dqdd_dtau), each (nv, nv): the derivatives of forward_dynamics(q, v, tau, f_ext) with\n"
      "respect to q (tangent space), v and tau (= M^-1) (C++ abdyn::forwardDynamicsDerivatives). Arguments as\n"
      "forward_dynamics. New arrays.");

  m.def("integrate_jacobians",
        [](const Model& model, py::handle q, py::handle v, double dt) {
          const char* fn = "integrate_jacobians";
          const Eigen::VectorXd qx = readVector(fn, "q", q, model.nq());
          const Eigen::VectorXd vx = readVector(fn, "v", v, model.nv());
          readScalar(fn, "dt", dt);
          Eigen::MatrixXd d_dq(model.nv(), model.nv()), d_dv(model.nv(), model.nv());
          {
            py::gil_scoped_release release;
            integrateJacobians(model, qx, vx, dt, d_dq, d_dv);
          }
          return py::make_tuple(toArray(d_dq), toArray(d_dv));
        },
        py::arg("model"), py::arg("q"), py::arg("v"), py::arg("dt"),
        "(d_dq, d_dv), each (nv, nv): the tangent-space Jacobians of integrate(q, v, dt) with respect to q and v\n"
        "(d_dv includes the factor dt) (C++ abdyn::integrateJacobians). New arrays.");

  m.def("difference_jacobians",
        [](const Model& model, py::handle q0, py::handle q1) {
          const char* fn = "difference_jacobians";
          const Eigen::VectorXd a = readVector(fn, "q0", q0, model.nq());
          const Eigen::VectorXd b = readVector(fn, "q1", q1, model.nq());
          Eigen::MatrixXd d_dq0(model.nv(), model.nv()), d_dq1(model.nv(), model.nv());
          {
            py::gil_scoped_release release;
            differenceJacobians(model, a, b, d_dq0, d_dq1);
          }
          return py::make_tuple(toArray(d_dq0), toArray(d_dq1));
        },
        py::arg("model"), py::arg("q0"), py::arg("q1"),
        "(d_dq0, d_dq1), each (nv, nv): the tangent-space Jacobians of difference(q0, q1) with respect to q0 and\n"
        "q1 (C++ abdyn::differenceJacobians). New arrays.");

  py::class_<PyStepJacobians> step(
      m, "StepJacobians",
      "Transition Jacobians of one step of the unconstrained integrators (C++ abdyn::StepJacobians): with the\n"
      "state x = (q, v) perturbed in the tangent space and u = tau, A = d x_next / d x (2 nv, 2 nv, rows and\n"
      "columns ordered dq, dv) and B = d x_next / d u (2 nv, nv). StepJacobians(model) allocates the workspace\n"
      "once; each method returns (A, B) as new arrays. One call at a time per object.");
  step.def(py::init([](std::shared_ptr<Model> model) { return new PyStepJacobians(std::move(model)); }),
           py::arg("model"));
  bindStepMethod(step, "explicit_euler", &StepJacobians::explicitEuler,
                 "(A, B) of ExplicitEuler.step: q1 = q (+) h v, v1 = v + h qdd(q, v, tau).");
  bindStepMethod(step, "semi_implicit_euler", &StepJacobians::semiImplicitEuler,
                 "(A, B) of SemiImplicitEuler.step: v1 = v + h qdd(q, v, tau), q1 = q (+) h v1.");
  bindStepMethod(step, "runge_kutta4", &StepJacobians::rungeKutta4,
                 "(A, B) of RungeKutta4.step (Runge-Kutta-Munthe-Kaas, four stages).");
  bindConstrainedStep(m);
}

const Registration registration(45, bindDerivatives);

}  // namespace
}  // namespace abdyn::python
