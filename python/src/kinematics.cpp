// Kinematics, frame poses and velocities, Jacobians, centre of mass, energies and momentum.

#include "common.hpp"

namespace abdyn::python {
namespace {

/// A frame given by name or index.
int frameIndex(const char* function, const Model& model, py::handle frame) {
  if (py::isinstance<py::str>(frame)) return model.frameId(frame.cast<std::string>());
  const int f = frame.cast<int>();
  if (f < 0 || f >= model.nframes()) {
    throw InvalidArgument(argumentPrefix(function, "frame") + std::to_string(f) + " out of range [0, " +
                          std::to_string(model.nframes() - 1) + "]");
  }
  return f;
}

int bodyIndex(const char* function, const Model& model, py::handle body) {
  if (py::isinstance<py::str>(body)) return model.bodyId(body.cast<std::string>());
  const int b = body.cast<int>();
  if (b < 0 || b >= model.nbodies()) {
    throw InvalidArgument(argumentPrefix(function, "body") + std::to_string(b) + " out of range [0, " +
                          std::to_string(model.nbodies() - 1) + "]");
  }
  return b;
}

py::array_t<double> poseArray(const Eigen::Isometry3d& T) { return toArray(Eigen::Matrix4d(T.matrix())); }

const char* const kFrameDoc = "frame: a frame name or index (Model.frame_names; every body has a frame of its name).";

void bindKinematics(py::module_& m) {
  py::enum_<ReferenceFrame>(m, "ReferenceFrame",
                            "Where a frame's spatial velocity, acceleration or Jacobian is expressed (C++\n"
                            "abdyn::ReferenceFrame): LOCAL in the frame's coordinates about its origin; WORLD in world\n"
                            "coordinates about the world origin; LOCAL_WORLD_ALIGNED in world axes about the frame's\n"
                            "origin (RBDL's point Jacobian, Pinocchio's LOCAL_WORLD_ALIGNED).")
      .value("LOCAL", ReferenceFrame::Local)
      .value("WORLD", ReferenceFrame::World)
      .value("LOCAL_WORLD_ALIGNED", ReferenceFrame::LocalWorldAligned);

  m.def("forward_kinematics",
        [](const Model& model, PyData& d, py::handle q, py::handle v, py::handle a) {
          StateCall call("forward_kinematics", model, d);
          call.q(q);
          int level = 1;
          if (!v.is_none()) {
            call.v(v);
            level = 2;
          }
          if (!a.is_none()) {
            if (level < 2) throw InvalidArgument("abdyn.forward_kinematics: 'a' given without 'v'");
            call.vector("a", a, d.a);
            level = 3;
          }
          call.run([&] {
            if (level == 1) forwardKinematics(model, d.data, d.q);
            if (level == 2) forwardKinematics(model, d.data, d.q, d.v);
            if (level == 3) forwardKinematics(model, d.data, d.q, d.v, d.a);
          });
          d.kinematics = level;
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v") = py::none(), py::arg("a") = py::none(),
        "Body poses at q (nq,), velocities if v (nv,) is given, accelerations (without gravity) if a (nv,) is\n"
        "given, into data (C++ abdyn::forwardKinematics). The frame queries below read them; any other\n"
        "call on the same Data invalidates them (the queries then raise abdyn.Error).");

  m.def("frame_pose",
        [](const Model& model, PyData& d, py::handle frame) {
          DataLock lock("frame_pose", model, d);
          lock.requireKinematics(1, "positions");
          return poseArray(framePose(model, d.data, frameIndex("frame_pose", model, frame)));
        },
        py::arg("model"), py::arg("data"), py::arg("frame"),
        (std::string("(4, 4) homogeneous pose T_0_F of the frame in the world, from the last forward_kinematics\n"
                     "(C++ abdyn::framePose). ") + kFrameDoc).c_str());
  m.def("frame_transform",
        [](const Model& model, PyData& d, py::handle frame) {
          DataLock lock("frame_transform", model, d);
          lock.requireKinematics(1, "positions");
          return frameTransform(model, d.data, frameIndex("frame_transform", model, frame));
        },
        py::arg("model"), py::arg("data"), py::arg("frame"),
        "abdyn.Plx X_F_0 from world coordinates to frame coordinates (C++ abdyn::frameTransform).");
  m.def("body_pose",
        [](const Model& model, PyData& d, py::handle body) {
          DataLock lock("body_pose", model, d);
          lock.requireKinematics(1, "positions");
          return poseArray(bodyPose(d.data, bodyIndex("body_pose", model, body)));
        },
        py::arg("model"), py::arg("data"), py::arg("body"),
        "(4, 4) pose of a body (name or index) in the world (C++ abdyn::bodyPose).");
  m.def("frame_velocity",
        [](const Model& model, PyData& d, py::handle frame, ReferenceFrame rf) {
          DataLock lock("frame_velocity", model, d);
          lock.requireKinematics(2, "velocities");
          return toArray(frameVelocity(model, d.data, frameIndex("frame_velocity", model, frame), rf).vector());
        },
        py::arg("model"), py::arg("data"), py::arg("frame"), py::arg("reference_frame") = ReferenceFrame::Local,
        "(6,) spatial velocity [w; v] of the frame's body seen at the frame (C++ abdyn::frameVelocity).");
  m.def("frame_acceleration",
        [](const Model& model, PyData& d, py::handle frame, ReferenceFrame rf) {
          DataLock lock("frame_acceleration", model, d);
          lock.requireKinematics(3, "accelerations");
          return toArray(frameAcceleration(model, d.data, frameIndex("frame_acceleration", model, frame), rf).vector());
        },
        py::arg("model"), py::arg("data"), py::arg("frame"), py::arg("reference_frame") = ReferenceFrame::Local,
        "(6,) spatial acceleration of the frame's body (C++ abdyn::frameAcceleration).");
  m.def("frame_classical_acceleration",
        [](const Model& model, PyData& d, py::handle frame) {
          DataLock lock("frame_classical_acceleration", model, d);
          lock.requireKinematics(3, "accelerations");
          return toArray(frameClassicalAcceleration(model, d.data, frameIndex("frame_classical_acceleration", model, frame)));
        },
        py::arg("model"), py::arg("data"), py::arg("frame"),
        "(3,) classical acceleration of the frame's origin in world coordinates (C++ abdyn::frameClassicalAcceleration).");

  m.def("frame_jacobian",
        [](const Model& model, PyData& d, py::handle q, py::handle frame, ReferenceFrame rf) {
          StateCall call("frame_jacobian", model, d);
          call.q(q);
          const int f = frameIndex(call.function(), model, frame);
          call.run([&] { frameJacobian(model, d.data, d.q, f, rf); });
          d.kinematics = 1;
          return toArray(Eigen::MatrixXd(d.data.J));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("frame"), py::arg("reference_frame") = ReferenceFrame::Local,
        "J, (6, nv): maps v to the frame's spatial velocity [w; v] in reference_frame (C++ abdyn::frameJacobian).\n"
        "Leaves forward kinematics of positions for frame_pose. A new array.");
  m.def("frame_jacobian_time_variation",
        [](const Model& model, PyData& d, py::handle q, py::handle v, py::handle frame, ReferenceFrame rf) {
          StateCall call("frame_jacobian_time_variation", model, d);
          call.q(q).v(v);
          const int f = frameIndex(call.function(), model, frame);
          call.run([&] { frameJacobianTimeVariation(model, d.data, d.q, d.v, f, rf); });
          return py::make_tuple(toArray(Eigen::MatrixXd(d.data.J)), toArray(Eigen::MatrixXd(d.data.dJ)));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("frame"),
        py::arg("reference_frame") = ReferenceFrame::Local,
        "(J, dJ), both (6, nv): the frame Jacobian and its time derivative along v (C++\n"
        "abdyn::frameJacobianTimeVariation). New arrays.");
  m.def("frame_jacobian_time_variation_times_v",
        [](const Model& model, PyData& d, py::handle q, py::handle v, py::handle frame, ReferenceFrame rf) {
          StateCall call("frame_jacobian_time_variation_times_v", model, d);
          call.q(q).v(v);
          const int f = frameIndex(call.function(), model, frame);
          const Motion a = call.run([&] { return frameJacobianTimeVariationTimesV(model, d.data, d.q, d.v, f, rf); });
          return toArray(a.vector());
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("frame"),
        py::arg("reference_frame") = ReferenceFrame::Local,
        "(6,) dJ/dt v in O(n): the frame's acceleration at qdd = 0 (C++ abdyn::frameJacobianTimeVariationTimesV).");
  m.def("joint_jacobians",
        [](const Model& model, PyData& d) {
          DataLock lock("joint_jacobians", model, d);
          lock.requireKinematics(1, "positions");
          jointJacobians(model, d.data);
          return toArray(Eigen::MatrixXd(d.data.S_world));
        },
        py::arg("model"), py::arg("data"),
        "(6, nv): column k is coordinate k's motion-subspace column in world coordinates about the world\n"
        "origin, at the last forward_kinematics (C++ abdyn::jointJacobians). A new array.");

  m.def("center_of_mass",
        [](const Model& model, PyData& d, py::handle q) {
          StateCall call("center_of_mass", model, d);
          return toArray(call.q(q).run([&] { return centerOfMass(model, d.data, d.q); }));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), "(3,) centre of mass in world coordinates (C++ abdyn::centerOfMass).");
  m.def("center_of_mass_velocity",
        [](const Model& model, PyData& d, py::handle q, py::handle v) {
          StateCall call("center_of_mass_velocity", model, d);
          return toArray(call.q(q).v(v).run([&] { return centerOfMassVelocity(model, d.data, d.q, d.v); }));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
        "(3,) velocity of the centre of mass in world coordinates (C++ abdyn::centerOfMassVelocity).");
  m.def("center_of_mass_jacobian",
        [](const Model& model, PyData& d, py::handle q) {
          StateCall call("center_of_mass_jacobian", model, d);
          call.q(q).run([&] { centerOfMassJacobian(model, d.data, d.q); });
          return toArray(Eigen::MatrixXd(d.data.J_com));
        },
        py::arg("model"), py::arg("data"), py::arg("q"),
        "J_com, (3, nv), world coordinates: center_of_mass_velocity = J_com v (C++ abdyn::centerOfMassJacobian).");

  // The energies and the momentum: one signature, one pattern.
  using QV = double (*)(const Model&, Data&, const Eigen::VectorXd&, const Eigen::VectorXd&);
  struct EnergyBinding {
    const char* name;
    QV f;
    const char* doc;
  };
  static const EnergyBinding energies[] = {
      {"kinetic_energy", &kineticEnergy, "1/2 sum_i v_i . I_i v_i (C++ abdyn::kineticEnergy)."},
      {"mechanical_energy", &mechanicalEnergy, "kinetic + potential energy (C++ abdyn::mechanicalEnergy)."},
  };
  for (const EnergyBinding& e : energies) {
    const char* name = e.name;
    const QV f = e.f;
    m.def(name,
          [name, f](const Model& model, PyData& d, py::handle q, py::handle v) {
            StateCall call(name, model, d);
            return call.q(q).v(v).run([&] { return f(model, d.data, d.q, d.v); });
          },
          py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), e.doc);
  }
  m.def("potential_energy",
        [](const Model& model, PyData& d, py::handle q) {
          StateCall call("potential_energy", model, d);
          return call.q(q).run([&] { return potentialEnergy(model, d.data, d.q); });
        },
        py::arg("model"), py::arg("data"), py::arg("q"),
        "-sum_i m_i g . c_i, zero at the world origin (C++ abdyn::potentialEnergy).");
  m.def("spatial_momentum",
        [](const Model& model, PyData& d, py::handle q, py::handle v) {
          StateCall call("spatial_momentum", model, d);
          return toArray(call.q(q).v(v).run([&] { return spatialMomentum(model, d.data, d.q, d.v); }).vector());
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
        "(6,) total spatial momentum [angular; linear] in world coordinates about the world origin (C++\n"
        "abdyn::spatialMomentum).");
}

const Registration registration(30, bindKinematics);

}  // namespace
}  // namespace abdyn::python
