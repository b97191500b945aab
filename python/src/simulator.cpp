// The Simulator (constraint rows, PGS) with its settings, motors and step statistics, and the
// unconstrained integrators.

#include <pybind11/stl.h>

#include "common.hpp"

namespace abdyn::python {
namespace {

/// abdyn.Simulator: the C++ Simulator, used by one call at a time (a step releases the GIL).
struct PySimulator {
  PySimulator(const Model& model, const SimulatorSettings& settings) : sim(model, settings) {}
  Simulator sim;
  std::atomic<bool> busy{false};
};

/// abdyn.SimulatorStepJacobians: the C++ SimulatorStepJacobians, used by one call at a time.
struct PySimulatorStepJacobians {
  explicit PySimulatorStepJacobians(const PySimulator& s) : jacobians(s.sim) {}
  SimulatorStepJacobians jacobians;
  std::atomic<bool> busy{false};
};

/// Holds an object with a busy flag (a simulator, an integrator) for one call; a call from another
/// thread meanwhile gets abdyn.Error instead of racing on its state.
class BusyLock {
 public:
  BusyLock(const char* what, const char* function, std::atomic<bool>& busy) : busy_(busy) {
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true)) {
      throw Error(std::string("abdyn.") + what + "." + function + ": in use by a call in another thread");
    }
  }
  ~BusyLock() { busy_.store(false); }
  BusyLock(const BusyLock&) = delete;
  BusyLock& operator=(const BusyLock&) = delete;

 private:
  std::atomic<bool>& busy_;
};

struct SimulatorLock : BusyLock {
  SimulatorLock(const char* function, PySimulator& s) : BusyLock("Simulator", function, s.busy) {}
};

/// An integrator and its busy flag (its step keeps stage workspace).
template <class Integrator>
struct PyIntegrator {
  explicit PyIntegrator(const Model& model) : integrator(model) {}
  Integrator integrator;
  std::atomic<bool> busy{false};
};

/// Every integrator has step(model, data, q, v, tau, h, options); stepWithSubsteps repeats it.
template <class Integrator>
void bindIntegrator(py::module_& m, const char* name, const char* doc) {
  py::class_<PyIntegrator<Integrator>>(m, name, doc)
      .def(py::init<const Model&>(), py::arg("model"))
      .def("step",
           [name](PyIntegrator<Integrator>& self, const Model& model, PyData& d, py::handle q, py::handle v, py::handle tau,
                  double h, int substeps, bool armature, bool damping) {
             BusyLock busy(name, "step", self.busy);
             Integrator& integrator = self.integrator;
             StateCall call(name, model, d);
             Eigen::VectorXd qx = readVector(name, "q", q, model.nq());
             Eigen::VectorXd vx = readVector(name, "v", v, model.nv());
             call.vector("tau", tau, d.u);
             readScalar(name, "h", h);
             const DynamicsOptions options = dynamicsOptions(armature, damping);
             call.run([&] { stepWithSubsteps(integrator, model, d.data, qx, vx, d.u, h, substeps, options); });
             return py::make_tuple(toArray(qx), toArray(vx));
           },
           py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("h"),
           py::kw_only(), py::arg("substeps") = 1, py::arg("armature") = true, py::arg("damping") = true,
           "(q_next (nq,), v_next (nv,)): (q, v) advanced by h in `substeps` equal steps under constant joint\n"
           "forces tau (nv,) (C++ step with abdyn::stepWithSubsteps). New arrays; q and v are not changed. One\n"
           "call at a time: a step from another thread meanwhile raises abdyn.Error.");
}

void bindSimulator(py::module_& m) {
  py::class_<PgsSettings>(m, "PgsSettings", "C++ abdyn::PgsSettings: the projected Gauss-Seidel solver")
      .def(py::init<>())
      .def_readwrite("max_iterations", &PgsSettings::max_iterations)
      .def_readwrite("tolerance", &PgsSettings::tolerance, "m/s or rad/s")
      .def_readwrite("omega", &PgsSettings::omega, "relaxation in (0, 2)")
      .def_readwrite("warm_start", &PgsSettings::warm_start)
      .def_readwrite("coordinate_groups", &PgsSettings::coordinate_groups)
      .def_readwrite("bilateral_block", &PgsSettings::bilateral_block);
  py::enum_<ContactGeometry>(m, "ContactGeometry", "C++ abdyn::ContactGeometry: which shapes the contacts collide")
      .value("PRIMITIVES", ContactGeometry::Primitives)
      .value("CONVEX_HULLS", ContactGeometry::ConvexHulls)
      .value("STATIC_MESHES", ContactGeometry::StaticMeshes);
  py::class_<GroundContactSettings>(m, "GroundContactSettings", "C++ abdyn::GroundContactSettings")
      .def(py::init<>())
      .def_readwrite("height", &GroundContactSettings::height, "the plane z = height (m)")
      .def_readwrite("mu", &GroundContactSettings::mu)
      .def_readwrite("margin", &GroundContactSettings::margin, "m")
      .def_readwrite("erp", &GroundContactSettings::erp)
      .def_readwrite("max_push_velocity", &GroundContactSettings::max_push_velocity, "m/s")
      .def_readwrite("speculative_gap", &GroundContactSettings::speculative_gap, "m")
      .def_readwrite("speculative_steps", &GroundContactSettings::speculative_steps)
      .def_readwrite("restitution", &GroundContactSettings::restitution)
      .def_readwrite("restitution_threshold", &GroundContactSettings::restitution_threshold, "m/s")
      .def_readwrite("geometry", &GroundContactSettings::geometry, "which shapes collide, and how meshes do")
      .def_readwrite("world_shapes", &GroundContactSettings::world_shapes,
                     "body contacts also pair the moving bodies' shapes with the world's collision shapes (links\n"
                     "fixed to the world, MJCF worldbody geoms); needs SimulatorSettings.body_contacts")
      .def_readwrite("excluded_pairs", &GroundContactSettings::excluded_pairs,
                     "pairs of body (or frame) names whose shapes never collide")
      .def_readwrite("excluded_body_pairs", &GroundContactSettings::excluded_body_pairs,
                     "pairs of body indices whose shapes never collide")
      .def_readwrite("excluded_geometry_pairs", &GroundContactSettings::excluded_geometry_pairs,
                     "pairs of indices into the model's geometries that never collide")
      .def_readwrite("exclude_parent_child", &GroundContactSettings::exclude_parent_child,
                     "whether a body's shapes and its parent's never collide");
  py::enum_<ResponseMethod>(m, "ResponseMethod", "C++ abdyn::ResponseMethod: how M^-1 J^T is formed")
      .value("AUTOMATIC", ResponseMethod::Automatic)
      .value("ARTICULATED", ResponseMethod::Articulated)
      .value("FACTORIZED", ResponseMethod::Factorized);
  py::class_<SimulatorSettings>(m, "SimulatorSettings", "C++ abdyn::SimulatorSettings (see simulator.hpp)")
      .def(py::init<>())
      .def_readwrite("solver", &SimulatorSettings::solver)
      .def_readwrite("substeps", &SimulatorSettings::substeps)
      .def_readwrite("erp", &SimulatorSettings::erp)
      .def_readwrite("cfm", &SimulatorSettings::cfm)
      .def_readwrite("joint_limits", &SimulatorSettings::joint_limits)
      .def_readwrite("limit_margin", &SimulatorSettings::limit_margin)
      .def_readwrite("limit_max_push_velocity", &SimulatorSettings::limit_max_push_velocity, "rad/s or m/s")
      .def_readwrite("joint_friction", &SimulatorSettings::joint_friction)
      .def_readwrite("implicit_damping", &SimulatorSettings::implicit_damping)
      .def_readwrite("energy", &SimulatorSettings::energy,
                     "StepStatistics.energy after each step (one kinematics pass); False: NaN, and the pass saved")
      .def_readwrite("mimic", &SimulatorSettings::mimic)
      .def_readwrite("ground", &SimulatorSettings::ground)
      .def_readwrite("body_contacts", &SimulatorSettings::body_contacts)
      .def_readwrite("contact", &SimulatorSettings::contact)
      .def_readwrite("response", &SimulatorSettings::response)
      .def_readwrite("dynamics", &SimulatorSettings::dynamics);
  py::class_<JointMotor>(m, "JointMotor", "C++ abdyn::JointMotor: drives velocity coordinate k to a target velocity")
      .def(py::init([](int coordinate, double target_velocity, double max_effort) {
             return JointMotor{coordinate, readScalar("JointMotor", "target_velocity", target_velocity),
                               readScalar("JointMotor", "max_effort", max_effort)};
           }), py::arg("coordinate"), py::arg("target_velocity"), py::arg("max_effort"))
      .def_readwrite("coordinate", &JointMotor::coordinate)
      .def_readwrite("target_velocity", &JointMotor::target_velocity, "rad/s or m/s")
      .def_readwrite("max_effort", &JointMotor::max_effort, "N m or N, >= 0");
  py::class_<StepStatistics>(m, "StepStatistics", "C++ abdyn::StepStatistics of one Simulator.step")
      .def_readonly("iterations", &StepStatistics::iterations, "solver sweeps, summed over sub-steps")
      .def_readonly("residual", &StepStatistics::residual)
      .def_readonly("constraint_error", &StepStatistics::constraint_error)
      .def_readonly("rows", &StepStatistics::rows)
      .def_readonly("contacts", &StepStatistics::contacts, "contact points of the last sub-step")
      .def_readonly("energy", &StepStatistics::energy, "kinetic + potential energy after the step");

  py::class_<PySimulator>(m, "Simulator",
                          "Time stepping with constraint rows (C++ abdyn::Simulator): joint limits, motors, joint\n"
                          "friction, mimic couplings and ground contacts solved by projected Gauss-Seidel. Starts at\n"
                          "the neutral configuration, at rest. q, v, tau read as copies and are set by assignment\n"
                          "(checked); settings is the simulator's own (edits apply to the next step).")
      .def(py::init([](const Model& model, const SimulatorSettings& settings) { return new PySimulator(model, settings); }),
           py::arg("model"), py::arg("settings") = SimulatorSettings{})
      .def_property("q", [](PySimulator& s) { SimulatorLock lock("q", s); return toArray(s.sim.q); },
                    [](PySimulator& s, py::handle q) {
                      SimulatorLock lock("q", s);
                      readVector("Simulator.q", "q", q, s.sim.model().nq(), s.sim.q);
                    }, "(nq,) configuration")
      .def_property("v", [](PySimulator& s) { SimulatorLock lock("v", s); return toArray(s.sim.v); },
                    [](PySimulator& s, py::handle v) {
                      SimulatorLock lock("v", s);
                      readVector("Simulator.v", "v", v, s.sim.model().nv(), s.sim.v);
                    }, "(nv,) velocity")
      .def_property("tau", [](PySimulator& s) { SimulatorLock lock("tau", s); return toArray(s.sim.tau); },
                    [](PySimulator& s, py::handle tau) {
                      SimulatorLock lock("tau", s);
                      readVector("Simulator.tau", "tau", tau, s.sim.model().nv(), s.sim.tau);
                    }, "(nv,) joint forces held over each step")
      .def_property("motors", [](PySimulator& s) { SimulatorLock lock("motors", s); return s.sim.motors; },
                    [](PySimulator& s, const std::vector<JointMotor>& motors) {
                      SimulatorLock lock("motors", s);
                      s.sim.motors = motors;
                    }, "list of JointMotor (a copy; assign a list to change them)")
      .def_property_readonly("settings", [](PySimulator& s) -> SimulatorSettings& { return s.sim.settings(); },
                             py::return_value_policy::reference_internal)
      .def_property_readonly("model", [](const PySimulator& s) { return std::make_shared<Model>(s.sim.model()); },
                             "a copy of the simulator's model")
      .def_property_readonly("time", [](PySimulator& s) { SimulatorLock lock("time", s); return s.sim.time(); })
      .def_property_readonly("statistics", [](PySimulator& s) { SimulatorLock lock("statistics", s); return s.sim.statistics(); }, "of the last step (a copy)")
      .def("step",
           [](PySimulator& s, double h) {
             SimulatorLock lock("step", s);
             readScalar("Simulator.step", "h", h);
             py::gil_scoped_release release;
             return s.sim.step(h);
           },
           py::arg("h"),
           "Advances by h (s); returns the StepStatistics (a copy). Raises abdyn.Error when the state turns\n"
           "non-finite (naming the time and coordinate), abdyn.InvalidArgument for h <= 0 (C++ Simulator::step).");

  py::enum_<RowActivity>(m, "RowActivity", "C++ abdyn::RowActivity: a row's role in a step's active set")
      .value("FREE", RowActivity::Free)
      .value("AT_LOWER", RowActivity::AtLower)
      .value("AT_UPPER", RowActivity::AtUpper);
  py::class_<PySimulatorStepJacobians>(m, "SimulatorStepJacobians",
                                       "Jacobians of one Simulator step with its active set of rows held fixed (C++\n"
                                       "abdyn::SimulatorStepJacobians, docs/derivatives.md section 8)")
      .def(py::init([](PySimulator& s) {
             SimulatorLock lock("SimulatorStepJacobians", s);
             return new PySimulatorStepJacobians(s);
           }), py::arg("simulator"))
      .def("step",
           [](PySimulatorStepJacobians& self, PySimulator& s, double h) {
             BusyLock busy("SimulatorStepJacobians", "step", self.busy);
             SimulatorLock lock("step", s);
             readScalar("SimulatorStepJacobians.step", "h", h);
             {
               py::gil_scoped_release release;
               self.jacobians.step(s.sim, h);
             }
             return py::make_tuple(toArray(self.jacobians.A), toArray(self.jacobians.B));
           },
           py::arg("simulator"), py::arg("h"),
           "(A (2nv, 2nv), B (2nv, nv)): steps the simulator by h from its (q, v, tau), as Simulator.step, and\n"
           "returns d (q1, v1) / d (q, v) (tangent coordinates) and d (q1, v1) / d tau of that step with its rows\n"
           "and their roles (free, at a bound, sliding friction tied to its normal row) held fixed. New arrays.\n"
           "At a switch (a contact opening, a row reaching its bound, sticking turning to sliding) it returns the\n"
           "one-sided derivative of the branch the step took (its roles continued), and for dependent free rows the\n"
           "least-squares (minimum-norm) solution of the held system. Raises abdyn.InvalidArgument for another\n"
           "model's simulator, h <= 0, substeps != 1 or contact restitution > 0, abdyn.Error when a body-contact row\n"
           "(differentiated by rebuilds) is not built at q moved by configuration_step.")
      .def_property_readonly("activity", [](const PySimulatorStepJacobians& self) { return self.jacobians.activity(); },
                             "list of RowActivity: the roles of simulator's rows in the last step")
      .def_property("clamp_tolerance", [](const PySimulatorStepJacobians& self) { return self.jacobians.clamp_tolerance; },
                    [](PySimulatorStepJacobians& self, double t) { self.jacobians.clamp_tolerance = t; })
      .def_property("configuration_step",
                    [](const PySimulatorStepJacobians& self) { return self.jacobians.configuration_step; },
                    [](PySimulatorStepJacobians& self, double t) { self.jacobians.configuration_step = t; },
                    "centred-difference step (tangent units) of the rows differentiated by rebuilds")
      .def_property("rebuild_all_rows",
                    [](const PySimulatorStepJacobians& self) { return self.jacobians.rebuild_all_rows; },
                    [](PySimulatorStepJacobians& self, bool rebuild) { self.jacobians.rebuild_all_rows = rebuild; },
                    "bool: differentiate every row by centred differences of rebuilt rows (2 nv row builds), the\n"
                    "reference of the analytic row derivatives (default False)");

  bindIntegrator<ExplicitEuler>(m, "ExplicitEuler", "Explicit Euler on the configuration manifold (C++ abdyn::ExplicitEuler).");
  bindIntegrator<SemiImplicitEuler>(m, "SemiImplicitEuler",
                                    "Semi-implicit (symplectic) Euler on the manifold (C++ abdyn::SemiImplicitEuler).");
  bindIntegrator<RungeKutta4>(m, "RungeKutta4", "Classical RK4, Munthe-Kaas on the manifold (C++ abdyn::RungeKutta4).");
  bindIntegrator<ImplicitMidpoint>(m, "ImplicitMidpoint",
                                   "Implicit midpoint rule solved by Newton (C++ abdyn::ImplicitMidpoint, default settings).");
}

const Registration registration(50, bindSimulator);

}  // namespace
}  // namespace abdyn::python
