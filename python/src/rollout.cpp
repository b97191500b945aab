// abdyn.rollout (C++ abdyn::rollout, include/abdyn/integrators/rollout.hpp), simulator settings from a
// dict, and pickling of a Model as its URDF text plus load options (for abdyn.distributed).
//
// Pickling: a Model is a C++ object without a record of where it came from, so load_urdf and
// load_urdf_string are wrapped here to remember, per Model object (a weak reference: the record goes
// with the Model), the URDF text and the keyword options it was loaded with. Model.__reduce__ ships
// exactly that, and unpickling loads the text again with the same options: the same model, built by the
// receiving process's own loader, never a pickled C++ object. A Model from elsewhere (not loaded by
// those two functions in this process, nor unpickled) raises abdyn.Error when pickled.

#include <cmath>
#include <deque>
#include <string>
#include <thread>

#include "common.hpp"

namespace abdyn::python {
namespace {

constexpr const char* kRollout = "rollout";

// Sets one SimulatorSettings field from a dict entry; `path` names it in errors ("contact.mu").
template <class T>
void setField(T& field, py::handle value, const std::string& path) {
  try {
    field = value.cast<T>();
  } catch (const py::cast_error&) {
    throw InvalidArgument("abdyn.rollout: settings '" + path + "' has the wrong type (" +
                          std::string(py::str(py::type::of(value).attr("__name__"))) + ")");
  }
}

[[noreturn]] void unknownKey(const std::string& path) {
  throw InvalidArgument("abdyn.rollout: settings has no field '" + path + "'");
}

void readContact(GroundContactSettings& c, const py::dict& d) {
  for (const auto& item : d) {
    const std::string key = py::str(item.first), path = "contact." + key;
    if (key == "height") setField(c.height, item.second, path);
    else if (key == "mu") setField(c.mu, item.second, path);
    else if (key == "margin") setField(c.margin, item.second, path);
    else if (key == "erp") setField(c.erp, item.second, path);
    else if (key == "max_push_velocity") setField(c.max_push_velocity, item.second, path);
    else if (key == "speculative_gap") setField(c.speculative_gap, item.second, path);
    else if (key == "speculative_steps") setField(c.speculative_steps, item.second, path);
    else if (key == "restitution") setField(c.restitution, item.second, path);
    else if (key == "restitution_threshold") setField(c.restitution_threshold, item.second, path);
    else if (key == "world_shapes") setField(c.world_shapes, item.second, path);
    else if (key == "exclude_parent_child") setField(c.exclude_parent_child, item.second, path);
    else unknownKey(path);
  }
}

void readSolver(PgsSettings& s, const py::dict& d) {
  for (const auto& item : d) {
    const std::string key = py::str(item.first), path = "solver." + key;
    if (key == "max_iterations") setField(s.max_iterations, item.second, path);
    else if (key == "tolerance") setField(s.tolerance, item.second, path);
    else if (key == "omega") setField(s.omega, item.second, path);
    else if (key == "warm_start") setField(s.warm_start, item.second, path);
    else if (key == "coordinate_groups") setField(s.coordinate_groups, item.second, path);
    else if (key == "bilateral_block") setField(s.bilateral_block, item.second, path);
    else unknownKey(path);
  }
}

py::dict asDict(py::handle value, const std::string& path) {
  if (!py::isinstance<py::dict>(value)) throw InvalidArgument("abdyn.rollout: settings '" + path + "' must be a dict");
  return py::reinterpret_borrow<py::dict>(value);
}

// None: the plain Simulator's settings; a dict of SimulatorSettings' field names (nested dicts for
// 'contact' and 'solver'), which pickles, so abdyn.distributed can ship it; or a SimulatorSettings
// object where the module binds that class.
SimulatorSettings readSettings(py::handle obj) {
  SimulatorSettings s;
  if (obj.is_none()) return s;
  if (!py::isinstance<py::dict>(obj)) {
    try {
      return obj.cast<SimulatorSettings>();
    } catch (const py::cast_error&) {
      throw InvalidArgument("abdyn.rollout: 'settings' must be None, a dict of SimulatorSettings fields or a "
                            "SimulatorSettings, got " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    }
  }
  for (const auto& item : py::reinterpret_borrow<py::dict>(obj)) {
    const std::string key = py::str(item.first);
    if (key == "substeps") setField(s.substeps, item.second, key);
    else if (key == "erp") setField(s.erp, item.second, key);
    else if (key == "cfm") setField(s.cfm, item.second, key);
    else if (key == "joint_limits") setField(s.joint_limits, item.second, key);
    else if (key == "limit_margin") setField(s.limit_margin, item.second, key);
    else if (key == "limit_max_push_velocity") setField(s.limit_max_push_velocity, item.second, key);
    else if (key == "joint_friction") setField(s.joint_friction, item.second, key);
    else if (key == "implicit_damping") setField(s.implicit_damping, item.second, key);
    else if (key == "energy") setField(s.energy, item.second, key);
    else if (key == "mimic") setField(s.mimic, item.second, key);
    else if (key == "ground") setField(s.ground, item.second, key);
    else if (key == "body_contacts") setField(s.body_contacts, item.second, key);
    else if (key == "contact") readContact(s.contact, asDict(item.second, key));
    else if (key == "solver") readSolver(s.solver, asDict(item.second, key));
    else unknownKey(key);
  }
  return s;
}

// The joint forces: a C-contiguous float64 (N, T, nv) array (copied only if obj is not one), finite.
py::array_t<double, py::array::c_style> readControls(const char* function, py::handle obj, Eigen::Index N, Eigen::Index nv) {
  const py::array a = asFloatArray(function, "tau", obj);
  if (a.ndim() != 3 || a.shape(0) != N || a.shape(2) != nv) {
    std::string shape = "(";
    for (py::ssize_t k = 0; k < a.ndim(); ++k) shape += (k ? ", " : "") + std::to_string(a.shape(k));
    throw InvalidArgument(argumentPrefix(function, "tau") + "has shape " + shape + (a.ndim() == 1 ? ",)" : ")") +
                          ", expected (N, T, nv) = (" + std::to_string(N) + ", T, " + std::to_string(nv) + ")");
  }
  auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  const double* p = c.data();
  for (py::ssize_t k = 0; k < c.size(); ++k) {
    if (!std::isfinite(p[k])) {
      throw InvalidArgument(argumentPrefix(function, "tau") + "has a non-finite entry at flat index " + std::to_string(k));
    }
  }
  return c;
}

py::tuple rollout(const Model& model, py::handle q0_obj, py::handle v0_obj, py::handle tau_obj, double dt,
                  py::handle threads_obj, py::handle settings_obj) {
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    throw InvalidArgument(argumentPrefix(kRollout, "dt") + "is " + std::to_string(dt) + ", expected positive and finite");
  }
  const SimulatorSettings settings = readSettings(settings_obj);
  const auto q0 = readRows(kRollout, "q0", q0_obj, model.nq());
  const Eigen::Index N = q0.shape(0), nq = model.nq(), nv = model.nv();
  const auto v0 = readRows(kRollout, "v0", v0_obj, nv, N);
  const auto tau = readControls(kRollout, tau_obj, N, nv);
  const Eigen::Index T = tau.shape(1);
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!threads_obj.is_none()) threads = threads_obj.cast<int>();
  py::array_t<double> Q({N, T + 1, nq}), V({N, T + 1, nv});
  using Map = Eigen::Map<const RowMatrixXd>;
  const Map q0_map(q0.data(), N, nq), v0_map(v0.data(), N, nv), tau_map(tau.data(), N, T * nv);
  Eigen::Map<RowMatrixXd> Q_map(Q.mutable_data(), N, (T + 1) * nq), V_map(V.mutable_data(), N, (T + 1) * nv);
  {
    py::gil_scoped_release release;
    abdyn::rollout(model, settings, q0_map, v0_map, tau_map, static_cast<int>(T), dt, threads, Q_map, V_map);
  }
  return py::make_tuple(Q, V);
}

py::tuple rolloutBatch(const Model& model, py::handle q0_obj, py::handle v0_obj, py::handle tau_obj, double dt,
                       const std::string& integrator_name, py::handle threads_obj) {
  constexpr const char* kFunction = "rollout_batch";
  BatchIntegrator integrator = BatchIntegrator::SemiImplicitEuler;
  if (integrator_name == "rk4") {
    integrator = BatchIntegrator::RungeKutta4;
  } else if (integrator_name != "semi_implicit_euler") {
    throw InvalidArgument(argumentPrefix(kFunction, "integrator") + "is '" + integrator_name +
                          "', expected 'semi_implicit_euler' or 'rk4'");
  }
  const auto q0 = readRows(kFunction, "q0", q0_obj, model.nq());
  const Eigen::Index N = q0.shape(0), nq = model.nq(), nv = model.nv();
  const auto v0 = readRows(kFunction, "v0", v0_obj, nv, N);
  const auto tau = readControls(kFunction, tau_obj, N, nv);
  const Eigen::Index T = tau.shape(1);
  const int threads = threads_obj.is_none() ? 0 : threads_obj.cast<int>();
  py::array_t<double> Q({N, T + 1, nq}), V({N, T + 1, nv});
  using Map = Eigen::Map<const RowMatrixXd>;
  const Map q0_map(q0.data(), N, nq), v0_map(v0.data(), N, nv), tau_map(tau.data(), N, T * nv);
  Eigen::Map<RowMatrixXd> Q_map(Q.mutable_data(), N, (T + 1) * nq), V_map(V.mutable_data(), N, (T + 1) * nv);
  {
    py::gil_scoped_release release;
    abdyn::rolloutBatch(model, integrator, q0_map, v0_map, tau_map, static_cast<int>(T), dt, Q_map, V_map, threads);
  }
  return py::make_tuple(Q, V);
}

// Wraps a loader (load_urdf or load_urdf_string) so that the Models it returns remember their source.
// `from_file`: the first argument is a path whose text is read, else the URDF text itself.
py::cpp_function rememberingLoader(py::module_& m, const char* name, py::object loader, py::object sources,
                                   py::object paths, bool from_file) {
  static std::deque<std::string> docs;  // pybind11 keeps the pointer: the text must outlive the module
  docs.push_back(py::str(loader.attr("__doc__")));
  return py::cpp_function(
      [loader, sources, paths, from_file](py::args args, py::kwargs kwargs) {
        py::object model = loader(*args, **kwargs);
        py::object text = args.size() > 0 ? py::object(args[0]) : py::object(kwargs[from_file ? "path" : "xml"]);
        if (from_file) {
          const py::object path = py::module_::import("pathlib").attr("Path")(py::module_::import("os").attr("fspath")(text));
          text = path.attr("read_text")();
          paths[model] = path.attr("resolve")();
        }
        py::dict options;
        for (const auto& item : kwargs) {
          if (std::string(py::str(item.first)) != (from_file ? "path" : "xml")) options[item.first] = item.second;
        }
        sources[model] = py::make_tuple(text, options);
        return model;
      },
      py::name(name), py::scope(m), py::doc(docs.back().c_str()));
}

void bindRollout(py::module_& m) {
  m.def("rollout_batch", &rolloutBatch, py::arg("model"), py::arg("q0"), py::arg("v0"), py::arg("tau"), py::arg("dt"),
        py::arg("integrator") = "semi_implicit_euler", py::arg("threads") = py::none(),
        "Q, V = rollout_batch(model, q0, v0, tau, dt, integrator='semi_implicit_euler', threads=None): N runs\n"
        "of an unconstrained integrator ('semi_implicit_euler' or 'rk4'; C++ abdyn::rolloutBatch), stepped W\n"
        "at a time with the accelerations in SIMD lanes (8 with AVX-512), the runs split into contiguous\n"
        "blocks, one per thread. No Simulator and no rows: no contacts, limits, friction or loop closures\n"
        "(use rollout for those). Shapes as rollout: q0 (N, nq), v0 (N, nv), tau (N, T, nv); returns Q\n"
        "(N, T + 1, nq), V (N, T + 1, nv). Each run agrees with the integrator's own steps to round-off and\n"
        "is bit-identical whatever the number of threads. The GIL is released for the whole batch.");
  m.def("rollout", &rollout, py::arg("model"), py::arg("q0"), py::arg("v0"), py::arg("tau"), py::arg("dt"),
        py::arg("threads") = py::none(), py::arg("settings") = py::none(),
        "Q, V = rollout(model, q0, v0, tau, dt, threads=None, settings=None): N independent simulations\n"
        "(C++ abdyn::rollout with abdyn::Simulator), run n from (q0[n], v0[n]) for T steps of dt with the\n"
        "joint forces tau[n, t] held over step t.\n\n"
        "q0 (N, nq), v0 (N, nv), tau (N, T, nv). Returns Q (N, T + 1, nq) and V (N, T + 1, nv), index 0 the\n"
        "initial state. threads: None for every core; the runs are split into contiguous blocks, one per\n"
        "thread, and the results are bit-identical whatever the number of threads. settings: None (the\n"
        "plain Simulator: joint friction and mimic rows only), a dict of SimulatorSettings fields, e.g.\n"
        "{'ground': True, 'joint_limits': True, 'contact': {'mu': 0.8, 'height': 0.0}, 'solver':\n"
        "{'max_iterations': 20}}, or a SimulatorSettings. The GIL is released for the whole batch.\n"
        "Raises abdyn.InvalidArgument naming a bad argument, abdyn.Error when a run diverges (the\n"
        "lowest-numbered such run).");

  // Pickling of Models by URDF text and options (see the top of this file).
  py::object sources = py::module_::import("weakref").attr("WeakKeyDictionary")();
  m.attr("_urdf_sources") = sources;
  // The file each Model was loaded from, for abdyn.viewer (meshes are found relative to it).
  py::object paths = py::module_::import("weakref").attr("WeakKeyDictionary")();
  m.attr("_urdf_paths") = paths;
  m.attr("load_urdf") = rememberingLoader(m, "load_urdf", m.attr("load_urdf"), sources, paths, true);
  m.attr("load_urdf_string") = rememberingLoader(m, "load_urdf_string", m.attr("load_urdf_string"), sources, paths, false);
  py::object model_class = m.attr("Model");
  model_class.attr("__reduce__") = py::cpp_function(
      [sources](py::object self) {
        if (!sources.attr("__contains__")(self).cast<bool>()) {
          throw Error("abdyn.Model: pickling needs the URDF text: only Models returned by abdyn.load_urdf or "
                      "abdyn.load_urdf_string in this process, or unpickled, can be pickled");
        }
        const py::tuple source = sources[self].cast<py::tuple>();
        return py::make_tuple(py::module_::import("abdyn._pickle").attr("model_from_urdf"), source);
      },
      py::is_method(model_class), py::name("__reduce__"),
      py::doc("Pickles a Model as its URDF text and load options, loaded again when unpickled."));
}

// After the model (10) and every other binding that defines load_urdf's siblings.
const Registration registration(90, bindRollout);

}  // namespace
}  // namespace abdyn::python
