// abdyn.Model, abdyn.Data, abdyn.Joint, URDF loading and the configuration-space functions.

#include <cmath>
#include <random>
#include <sstream>

#include <pybind11/stl.h>

#include "common.hpp"

namespace abdyn::python {
namespace {

// The keyword options of load_urdf and load_urdf_string (C++ UrdfOptions), checked.
UrdfOptions urdfOptions(const char* function, bool floating_base, py::handle gravity, bool strict, bool balance_inertia,
                        double bound_mass, double bound_inertia, bool accept_invalid_inertia) {
  const auto bound = [function](const char* name, double value) {
    if (!std::isfinite(value) || value < 0.0) {
      throw InvalidArgument(argumentPrefix(function, name) + "is " + std::to_string(value) + ", expected finite and >= 0");
    }
    return value;
  };
  UrdfOptions options;
  options.floating_base = floating_base;
  options.gravity = readVector3(function, "gravity", gravity);
  options.strict = strict;
  options.balance_inertia = balance_inertia;
  options.bound_mass = bound("bound_mass", bound_mass);
  options.bound_inertia = bound("bound_inertia", bound_inertia);
  options.accept_invalid_inertia = accept_invalid_inertia;
  return options;
}

/// Index i checked against [0, n): Model's accessors by index do not check.
int checkedIndex(const char* function, const char* name, int i, int n) {
  if (i < 0 || i >= n) {
    throw InvalidArgument(argumentPrefix(function, name) + std::to_string(i) + " out of range [0, " + std::to_string(n - 1) + "]");
  }
  return i;
}

std::string fspath(py::handle path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

void bindModel(py::module_& m) {
  py::class_<Joint>(m, "Joint", "A joint of a Model (C++ abdyn::Joint): joint i moves body i.")
      .def_readonly("name", &Joint::name)
      .def_property_readonly("type", [](const Joint& j) { return std::string(jointTypeName(j.type)); },
                             "'revolute', 'prismatic', 'helical', 'spherical', 'planar' or 'floating'")
      .def_readonly("idx_q", &Joint::idx_q, "first coordinate of the joint in q")
      .def_readonly("idx_v", &Joint::idx_v, "first coordinate of the joint in v, qdd and tau")
      .def_readonly("nq", &Joint::nq)
      .def_readonly("nv", &Joint::nv)
      .def_property_readonly("axis", [](const Joint& j) { return toArray(j.axis); },
                             "(3,) axis in the joint frame (planar: the plane normal); a copy")
      .def_readonly("pitch", &Joint::pitch, "helical joints: metres per radian")
      .def_readonly("continuous", &Joint::continuous, "revolute without position limits")
      .def("motion_subspace", [](const Joint& j) { return toArray(Eigen::MatrixXd(j.motionSubspace())); },
           "S, (6, nv) in the child frame, angular rows first; a copy (C++ Joint::motionSubspace)")
      .def("__repr__", [](const Joint& j) {
        std::ostringstream s;
        s << "abdyn.Joint(name='" << j.name << "', type='" << jointTypeName(j.type) << "', idx_q=" << j.idx_q
          << ", idx_v=" << j.idx_v << ", nq=" << j.nq << ", nv=" << j.nv << ")";
        return s.str();
      });

  py::class_<Model, std::shared_ptr<Model>>(
      m, "Model",
      "The immutable description of a kinematic tree (C++ abdyn::Model). Body 0 is the world; body i >= 1\n"
      "hangs from parent(i) < i through joint i. Load one with abdyn.load_urdf. A Model may be shared by\n"
      "many threads; each thread needs its own abdyn.Data. Every array property is a new copy.")
      .def_property_readonly("name", &Model::name)
      .def_property_readonly("nq", &Model::nq, "number of configuration coordinates")
      .def_property_readonly("nv", &Model::nv, "number of velocity coordinates")
      .def_property_readonly("nbodies", &Model::nbodies, "number of bodies including the world (body 0)")
      .def_property_readonly("nframes", &Model::nframes)
      .def_property_readonly("parents", &Model::parents, "parent body of each body (-1 for the world)")
      .def("parent", [](const Model& m, int i) { return m.parent(checkedIndex("Model.parent", "body", i, m.nbodies())); },
           py::arg("body"))
      .def("children", [](const Model& m, int i) { return m.children(checkedIndex("Model.children", "body", i, m.nbodies())); },
           py::arg("body"), "children of a body, increasing")
      .def("joint",
           [](const Model& model, py::handle key) -> const Joint& {
             if (py::isinstance<py::str>(key)) return model.joint(key.cast<std::string>());
             const int i = key.cast<int>();
             if (i < 1 || i >= model.nbodies()) {
               throw InvalidArgument("abdyn.Model.joint: index " + std::to_string(i) + " out of range [1, " +
                                     std::to_string(model.nbodies() - 1) + "]");
             }
             return model.joint(i);
           },
           py::arg("name_or_index"), py::return_value_policy::copy,
           "The joint with this name (C++ Model::joint(name)), or joint i (moving body i, i >= 1); a copy.")
      .def("joint_id", &Model::jointId, py::arg("name"), "body index of the named joint (C++ Model::jointId)")
      .def("body_id", &Model::bodyId, py::arg("name"), "C++ Model::bodyId")
      .def("frame_id", &Model::frameId, py::arg("name"), "C++ Model::frameId")
      .def("body_name", [](const Model& m, int i) { return m.bodyName(checkedIndex("Model.body_name", "body", i, m.nbodies())); },
           py::arg("body"))
      .def_property_readonly("body_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (int i = 0; i < model.nbodies(); ++i) names.push_back(model.bodyName(i));
                               return names;
                             }, "names of bodies 0 .. nbodies - 1 (body 0: 'world')")
      .def_property_readonly("joint_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (int i = 1; i < model.nbodies(); ++i) names.push_back(model.joint(i).name);
                               return names;
                             }, "names of joints 1 .. nbodies - 1 (joint i moves body i)")
      .def_property_readonly("joints",
                             [](const Model& model) {
                               std::vector<Joint> joints;
                               for (int i = 1; i < model.nbodies(); ++i) joints.push_back(model.joint(i));
                               return joints;
                             }, "joints 1 .. nbodies - 1 (copies)")
      .def_property_readonly("frame_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (const Frame& f : model.frames()) names.push_back(f.name);
                               return names;
                             })
      .def("frame_body", [](const Model& m, int f) { return m.frame(checkedIndex("Model.frame_body", "frame", f, m.nframes())).body; },
           py::arg("frame"),
           "the body frame f is attached to")
      .def_property_readonly("lower_position_limit", [](const Model& m) { return toArray(m.lowerPositionLimit()); },
                             "(nq,) lower position limits (-inf where unbounded)")
      .def_property_readonly("upper_position_limit", [](const Model& m) { return toArray(m.upperPositionLimit()); },
                             "(nq,) upper position limits (+inf where unbounded)")
      .def_property_readonly("velocity_limit", [](const Model& m) { return toArray(m.velocityLimit()); }, "(nv,)")
      .def_property_readonly("effort_limit", [](const Model& m) { return toArray(m.effortLimit()); }, "(nv,)")
      .def_property_readonly("damping", [](const Model& m) { return toArray(m.damping()); },
                             "(nv,) viscous damping (N m s / rad or N s / m)")
      .def_property_readonly("friction", [](const Model& m) { return toArray(m.friction()); },
                             "(nv,) Coulomb joint friction (N m or N)")
      .def_property_readonly("armature", [](const Model& m) { return toArray(m.armature()); }, "(nv,)")
      .def_property_readonly("gravity", [](const Model& m) { return toArray(m.gravity().vector()); },
                             "(6,) spatial gravity acceleration in world coordinates, [0, 0, 0, gx, gy, gz]")
      .def("with_gravity",
           [](const Model& model, py::handle g) {
             return std::make_shared<Model>(model.withGravity(readVector3("Model.with_gravity", "g", g)));
           },
           py::arg("g"), "The same model under gravity g, (3,) in world coordinates (C++ Model::withGravity).")
      .def_property_readonly("total_mass", &Model::totalMass)
      .def_property_readonly("has_quaternions", &Model::hasQuaternions, "True if nq != nv")
      .def("inertia", [](const Model& m, int i) { return m.inertia(checkedIndex("Model.inertia", "body", i, m.nbodies())); },
           py::arg("body"),
           "the spatial inertia of body i in body coordinates (abdyn.RigidBodyInertia, a copy)")
      .def("xtree", [](const Model& m, int i) { return m.Xtree(checkedIndex("Model.xtree", "body", i, m.nbodies())); },
           py::arg("body"),
           "X_tree(i), an abdyn.Plx from parent-body coordinates to joint i's predecessor frame (C++ Model::Xtree)")
      .def_property_readonly("motion_subspace",
                             [](const Model& m) { return toArray(Eigen::MatrixXd(m.motionSubspace())); },
                             "S, (6, nv): column k is coordinate k's motion subspace in its body's coordinates")
      .def("__repr__", [](const Model& model) {
        return "abdyn.Model(name='" + model.name() + "', nq=" + std::to_string(model.nq()) +
               ", nv=" + std::to_string(model.nv()) + ", nbodies=" + std::to_string(model.nbodies()) + ")";
      });

  py::class_<PyData>(m, "Data",
                     "Workspace of the algorithms for one Model (C++ abdyn::Data): Data(model) allocates\n"
                     "everything once. One Data serves one call at a time: give each thread its own (a call\n"
                     "while another thread uses it raises abdyn.Error). Results are returned as new arrays.")
      .def(py::init([](std::shared_ptr<Model> model) { return new PyData(std::move(model)); }), py::arg("model"))
      .def_property_readonly("model", [](const PyData& d) { return std::const_pointer_cast<Model>(d.model); });

  // Keyword-only options, the same for both loaders (C++ UrdfOptions; the abdyn program's flags).
  constexpr const char* kOptionsDoc =
      "floating_base: attach the root link by a floating joint 'root_joint' (q = x, y, z, qw, qx, qy, qz).\n"
      "gravity: (3,) in world coordinates. strict: refuse what is otherwise repaired or ignored with a warning\n"
      "(triangle-inequality violations, negative limits, mimics on fixed joints, rejected visual elements).\n"
      "balance_inertia: make each triangle-violating link inertia isotropic with the same trace (MuJoCo's\n"
      "balanceinertia). bound_mass, bound_inertia: lower bounds on each moving body's mass and principal\n"
      "moments (MuJoCo's boundmass, boundinertia; 0 = none), which load files whose massless links make M\n"
      "singular. accept_invalid_inertia: load a body whose composite inertia is indefinite with a warning.\n"
      "Raises abdyn.Error naming the file and the element at fault (and the option that would load it).";
  static const std::string load_doc = std::string("Loads a URDF file (C++ abdyn::loadUrdf with UrdfOptions).\n\n") + kOptionsDoc;
  static const std::string string_doc =
      std::string("Loads a URDF document held in a string (C++ abdyn::loadUrdfString); options as load_urdf.\n\n") + kOptionsDoc;
  m.def("load_urdf",
        [](py::handle path, bool floating_base, py::handle gravity, bool strict, bool balance_inertia,
                        double bound_mass, double bound_inertia, bool accept_invalid_inertia) {
          const UrdfOptions options = urdfOptions("load_urdf", floating_base, gravity, strict, balance_inertia,
                                                    bound_mass, bound_inertia, accept_invalid_inertia);
          const std::string file = fspath(path);
          py::gil_scoped_release release;
          return std::make_shared<Model>(loadUrdf(file, options));
        },
        py::arg("path"), py::kw_only(), py::arg("floating_base") = false,
        py::arg("gravity") = std::vector<double>{0.0, 0.0, -9.81}, py::arg("strict") = false,
        py::arg("balance_inertia") = false, py::arg("bound_mass") = 0.0, py::arg("bound_inertia") = 0.0,
        py::arg("accept_invalid_inertia") = false, load_doc.c_str());
  m.def("load_urdf_string",
        [](const std::string& xml, bool floating_base, py::handle gravity, bool strict, bool balance_inertia,
                        double bound_mass, double bound_inertia, bool accept_invalid_inertia) {
          const UrdfOptions options = urdfOptions("load_urdf_string", floating_base, gravity, strict, balance_inertia,
                                                    bound_mass, bound_inertia, accept_invalid_inertia);
          py::gil_scoped_release release;
          return std::make_shared<Model>(loadUrdfString(xml, options));
        },
        py::arg("xml"), py::kw_only(), py::arg("floating_base") = false,
        py::arg("gravity") = std::vector<double>{0.0, 0.0, -9.81}, py::arg("strict") = false,
        py::arg("balance_inertia") = false, py::arg("bound_mass") = 0.0, py::arg("bound_inertia") = 0.0,
        py::arg("accept_invalid_inertia") = false, string_doc.c_str());

  m.def("build_reduced_model",
        [](const Model& model, const std::vector<std::string>& locked_joints, py::handle q_reference) {
          const Eigen::VectorXd q = readVector("build_reduced_model", "q_reference", q_reference, model.nq());
          py::gil_scoped_release release;
          return std::make_shared<Model>(buildReducedModel(model, locked_joints, q));
        },
        py::arg("model"), py::arg("locked_joints"), py::arg("q_reference"),
        "The model with the named joints welded at their coordinates in q_reference ((nq,)) and their bodies\n"
        "merged into their parents' (C++ abdyn::buildReducedModel): inertias combined, frames and geometry\n"
        "carried over. Raises abdyn.Error for an unknown joint or a mimic coupling that would lose a coordinate.");
  m.def("save_urdf_string", [](const Model& model) { return saveUrdfString(model); }, py::arg("model"),
        "The model as a URDF document (C++ abdyn::saveUrdfString): load_urdf_string gives the model back; gravity\n"
        "is in a comment (load with gravity=...).");
  m.def("save_urdf",
        [](const Model& model, py::handle path) { saveUrdf(model, fspath(path)); }, py::arg("model"), py::arg("path"),
        "Writes save_urdf_string(model) to the file at path (C++ abdyn::saveUrdf).");

  m.def("neutral", [](const Model& model) { return toArray(neutral(model)); }, py::arg("model"),
        "(nq,) neutral configuration: zero angles, identity quaternions, clamped into limits (C++ abdyn::neutral).");
  m.def("random_configuration",
        [](const Model& model, py::object seed) {
          std::mt19937 rng(seed.is_none() ? std::random_device{}() : seed.cast<std::uint32_t>());
          return toArray(randomConfiguration(model, rng));
        },
        py::arg("model"), py::arg("seed") = py::none(),
        "(nq,) uniform within position limits, angles in [-pi, pi], unit quaternions uniform on SO(3)\n"
        "(C++ abdyn::randomConfiguration with std::mt19937(seed); seed None draws one).");
  m.def("integrate",
        [](const Model& model, py::handle q, py::handle v, double dt) {
          const Eigen::VectorXd qx = readVector("integrate", "q", q, model.nq());
          const Eigen::VectorXd vx = readVector("integrate", "v", v, model.nv());
          return toArray(integrate(model, qx, vx, readScalar("integrate", "dt", dt)));
        },
        py::arg("model"), py::arg("q"), py::arg("v"), py::arg("dt"),
        "q (+) v dt, (nq,): each joint moved on its group for time dt at constant velocity v (nv,) (C++ abdyn::integrate).");
  m.def("difference",
        [](const Model& model, py::handle q0, py::handle q1) {
          const Eigen::VectorXd a = readVector("difference", "q0", q0, model.nq());
          const Eigen::VectorXd b = readVector("difference", "q1", q1, model.nq());
          return toArray(difference(model, a, b));
        },
        py::arg("model"), py::arg("q0"), py::arg("q1"),
        "(nv,) velocity v with integrate(q0, v, 1) == q1 (C++ abdyn::difference).");
  m.def("normalize",
        [](const Model& model, py::handle q) {
          Eigen::VectorXd x = readVector("normalize", "q", q, model.nq());
          normalize(model, x);
          return toArray(x);
        },
        py::arg("model"), py::arg("q"), "(nq,) copy of q with every quaternion scaled to unit length (C++ abdyn::normalize).");
}

const Registration registration(10, bindModel);

}  // namespace
}  // namespace abdyn::python
