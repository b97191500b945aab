#define BOOST_TEST_MODULE scale
#include <boost/test/unit_test.hpp>

#include <functional>
#include <string>

#include "abdyn/abdyn.hpp"

// Memory grows linearly with the number of bodies for everything but the mass matrix and its factor:
// loading a deep chain, building its Data and running ABA, RNEA and kinematics on it. The ancestor lists
// of the mass matrix's pattern are O(n * depth) (n^2 / 2 entries on a chain: 20 GB at n = 10^5) and exist
// only in a Data whose model is small or that has formed a mass matrix (data.hpp).
//
// Every byte requested from the C allocator while counting is added up (allocation_counter.hpp): the
// total requested is an upper bound on the peak. Under AddressSanitizer nothing is counted and the test
// only checks that the chain loads and runs.

#include "allocation_counter.hpp"

using abdyn::test::startCounting;
using abdyn::test::stopCounting;

namespace {

// A chain of n revolute links, each 0.1 m below its parent (ModelBuilder; the URDF path is checked on its
// own below).
abdyn::Model chain(int n) {
  abdyn::ModelBuilder builder("chain");
  builder.reserve(n + 1);
  const abdyn::RigidBodyInertia link(1.0, abdyn::Vector3(0.0, 0.0, -0.05), abdyn::Matrix3::Identity() * 1e-3);
  int parent = 0;
  for (int i = 1; i <= n; ++i) {
    abdyn::JointSpec joint;
    joint.name = "j" + std::to_string(i);
    joint.axis = i % 2 ? abdyn::Vector3::UnitX() : abdyn::Vector3::UnitY();
    const abdyn::Plx X_tree = i == 1 ? abdyn::Plx() : abdyn::Plx::translation(abdyn::Vector3(0.0, 0.0, -0.1));
    parent = builder.addBody(parent, joint, X_tree, link, "l" + std::to_string(i));
  }
  return std::move(builder).build();
}

}  // namespace

// 10^5 links: model, Data and one call each of ABA, RNEA and kinematics in O(n) memory. The bounds are
// 1.5 times what was measured (1,369 and 1,352 bytes per body; a Data took about 2.5 KB per body while it
// allocated the derivatives' workspace up front, which the bound refuses): the Model holds a joint, an
// inertia and its 6x6 matrix, names and three name indices per body; a Data for ABA, RNEA and kinematics
// holds 6 six-vectors, 3 transforms and 2 inertias per body and about 7 six-columns per coordinate, but
// not the derivatives' workspace (nearly as much again, allocated by their first call). The O(n * depth)
// ancestor lists alone (n^2 / 2 four-byte entries, 20 GB) would exceed both bounds together 50 times.
BOOST_AUTO_TEST_CASE(deep_chain_loads_and_runs_aba_in_linear_memory) {
  const int n = 100000;
  startCounting();
  const abdyn::Model model = chain(n);
  const unsigned long long model_bytes = stopCounting().bytes;
  startCounting();
  abdyn::Data data(model);
  const unsigned long long data_bytes = stopCounting().bytes;
  BOOST_TEST(model.nv() == n);
  BOOST_TEST(model.ancestorPairs() == static_cast<std::int64_t>(n) * (n - 1) / 2);  // > 2^31: 64-bit offsets
  BOOST_TEST(model.ancestorOffset(n) == model.ancestorPairs());
  BOOST_TEST(data.M.size() == 0);  // the dense workspace is not there until a mass matrix is asked for
  BOOST_TEST(data.factor_ancestors.empty());
  BOOST_TEST(data.deriv.v_world.empty());  // nor the derivatives' until they are
  BOOST_TEST(data.dtau_dq.size() == 0);
  if (ABDYN_COUNTS_ALLOCATIONS) {
    BOOST_TEST_MESSAGE("10^5-link chain: the Model allocated " << model_bytes / n << " bytes per body, its Data "
                                                              << data_bytes / n << " bytes per body");
    BOOST_TEST(model_bytes < 2000ull * n, model_bytes << " bytes");
    BOOST_TEST(data_bytes < 2000ull * n, data_bytes << " bytes");
  }

  Eigen::VectorXd q = Eigen::VectorXd::Zero(n), v = Eigen::VectorXd::Zero(n), tau = Eigen::VectorXd::Zero(n);
  q[0] = 0.3;  // the chain swings about x as one pendulum: ABA must give a finite, nonzero start
  startCounting();
  const Eigen::VectorXd& qdd = abdyn::forwardDynamics(model, data, q, v, tau);
  const unsigned long long aba_bytes = stopCounting().bytes;
  BOOST_TEST(aba_bytes == 0u, aba_bytes << " bytes allocated by ABA after Data was built");
  BOOST_TEST(qdd.allFinite());
  BOOST_TEST(qdd.cwiseAbs().maxCoeff() > 0.0);  // tilted by 0.3 rad, the chain falls
  // RNEA at ABA's qdd returns the applied tau = 0, up to rounding relative to the gravity torques it
  // balances (1e-6: the sums run over 10^5 bodies, each rounding at 1e-16 of the largest torque).
  const Eigen::VectorXd qdd_aba = qdd;
  const double gravity_scale = abdyn::gravityTorques(model, data, q).cwiseAbs().maxCoeff();
  const Eigen::VectorXd& tau_back = abdyn::inverseDynamics(model, data, q, v, qdd_aba);
  BOOST_TEST(tau_back.cwiseAbs().maxCoeff() <= 1e-6 * gravity_scale, tau_back.cwiseAbs().maxCoeff() << " vs " << gravity_scale);
  abdyn::forwardKinematics(model, data, q);
  // The tip hangs 0.1 (n - 1) m below the first joint, rotated by 0.3 rad about x.
  const abdyn::Vector3 tip = abdyn::bodyPose(data, n).translation();
  BOOST_TEST(std::abs(tip.z() + 0.1 * (n - 1) * std::cos(0.3)) < 1e-6 * n);
}

// The URDF path scales too: a chain of 10^5 links in URDF text (28 MB) loads without the quadratic
// structures and without a DOM of the whole document (well under 1 GB is the aim: urdfdom's DOM
// and maps took 533 MB at the peak). No timing assertion: the machine may be shared.
BOOST_AUTO_TEST_CASE(deep_urdf_chain_loads_in_linear_memory) {
  const int n = 100000;
  std::string xml = "<robot name=\"chain\"><link name=\"l0\"/>";
  for (int i = 1; i <= n; ++i) {
    const std::string link = "l" + std::to_string(i), parent = "l" + std::to_string(i - 1);
    xml += "<link name=\"" + link + "\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"1\"/>"
           "<inertia ixx=\"1e-3\" iyy=\"1e-3\" izz=\"1e-3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
           "<joint name=\"j" + std::to_string(i) + "\" type=\"continuous\"><parent link=\"" + parent +
           "\"/><child link=\"" + link + "\"/><origin xyz=\"0 0 -0.1\"/><axis xyz=\"1 0 0\"/></joint>";
  }
  xml += "</robot>";
  startCounting();
  const abdyn::Model model = abdyn::loadUrdfString(xml);
  const unsigned long long loading = stopCounting().bytes;
  startCounting();
  abdyn::Data data(model);
  const unsigned long long data_bytes = stopCounting().bytes;
  BOOST_TEST(model.nv() == n);
  // nv is above Data's eager limit, so no dense workspace.
  BOOST_TEST(n > abdyn::Data::kEagerMassMatrixDofs);
  BOOST_TEST(data.M.size() == 0);
  if (ABDYN_COUNTS_ALLOCATIONS) {
    BOOST_TEST_MESSAGE("10^5-link URDF chain: loading allocated " << loading / (1u << 20) << " MiB in total ("
                                                                  << loading / n << " bytes per link), its Data "
                                                                  << data_bytes / n << " bytes per link");
    // The sum of all requests bounds the peak. The XML text is 280 bytes per link; the reader keeps a
    // description of each link and joint (a few hundred bytes) and parses one element at a time, and
    // the Model is built in place, not copied. Measured: 2,305 bytes per link (2,811 before the flat
    // name indices of the URDF tree, 5.3 KB before the builder moved its bodies into the Model and was
    // sized up front); the Data as above.
    BOOST_TEST(loading < 4500ull * n, loading << " bytes");
    BOOST_TEST(data_bytes < 2000ull * n, data_bytes << " bytes");
  }
  // The name indices (the reader's and the Model's) find every link and joint after all their growth.
  for (int k : {1, 2, 777, n / 2, n - 1, n}) {
    BOOST_TEST(model.bodyId("l" + std::to_string(k)) == k);
    BOOST_TEST(model.jointId("j" + std::to_string(k)) == k);
    BOOST_TEST(model.frame(model.frameId("l" + std::to_string(k))).body == k);
  }
  BOOST_TEST(model.frame(model.frameId("l0")).body == 0);  // the root link, merged into the world
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  BOOST_TEST(abdyn::forwardDynamics(model, data, zero, zero, zero).allFinite());
}

// A name defined twice is found however many names come between (the indices grow many times over a
// 10^4-link file), and names that are not in the file are not found.
BOOST_AUTO_TEST_CASE(duplicate_names_in_a_long_urdf_are_refused) {
  const int n = 10000;
  const auto chain = [&](const std::string& last_link, const std::string& last_joint) {
    std::string xml = "<robot name=\"chain\"><link name=\"l0\"/>";
    for (int i = 1; i <= n; ++i) {
      const std::string link = i == n ? last_link : "l" + std::to_string(i);
      // the last link's mass differs: repeating another link's name is a different definition, not a copy
      xml += "<link name=\"" + link + "\"><inertial><mass value=\"" + (i == n ? "2" : "1") + "\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" "
             "ixz=\"0\" iyz=\"0\"/></inertial></link><joint name=\"" + (i == n ? last_joint : "j" + std::to_string(i)) +
             "\" type=\"continuous\"><parent link=\"l" + std::to_string(i - 1) + "\"/><child link=\"" + link + "\"/></joint>";
    }
    return xml + "</robot>";
  };
  const auto refused = [](const std::string& xml, const std::string& what) {
    try {
      abdyn::loadUrdfString(xml);
    } catch (const abdyn::Error& e) {
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
      return;
    }
    BOOST_ERROR("no error: expected " << what);
  };
  refused(chain("l3", "jlast"), "link 'l3' is defined more than once");
  refused(chain("last", "j5000"), "joint 'j5000' is defined more than once");
  const abdyn::Model model = abdyn::loadUrdfString(chain("last", "jlast"));
  BOOST_TEST(model.bodyId("last") == n);
  BOOST_TEST(model.jointId("jlast") == n);
  BOOST_CHECK_THROW(model.bodyId("l" + std::to_string(n)), abdyn::Error);
  BOOST_CHECK_THROW(model.jointId("j" + std::to_string(n)), abdyn::Error);
}

// A mass matrix on a model above the eager limit allocates its workspace on first use, and the factor
// and solves agree with ABA (M qdd = tau - h, so solving with the factor reproduces ABA's qdd).
BOOST_AUTO_TEST_CASE(mass_matrix_workspace_is_allocated_on_first_use) {
  const int n = abdyn::Data::kEagerMassMatrixDofs + 76;
  const abdyn::Model model = chain(n);
  abdyn::Data data(model);
  BOOST_TEST(data.M.size() == 0);
  Eigen::VectorXd q = Eigen::VectorXd::Constant(n, 0.01), v = Eigen::VectorXd::Zero(n), tau = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  BOOST_CHECK_THROW(abdyn::solveMassMatrix(model, data, b), abdyn::InvalidArgument);  // no factor yet
  const Eigen::VectorXd qdd = abdyn::forwardDynamics(model, data, q, v, tau);
  const Eigen::VectorXd crba = abdyn::forwardDynamicsCrba(model, data, q, v, tau);
  BOOST_TEST(data.M.rows() == n);
  BOOST_TEST(static_cast<std::int64_t>(data.factor_ancestors.size()) == model.ancestorPairs());
  // Relative agreement of two O(n) recursions and an O(n^2) factor on a 1,100-link chain: cond(M) grows
  // like n^2 here, so 1e-6 leaves room for n^2 * 1e-16 * (summation length).
  BOOST_TEST((crba - qdd).norm() <= 1e-6 * qdd.norm(), (crba - qdd).norm() << " vs " << qdd.norm());
}

// The derivatives' workspace comes with their first call on a model above the eager limit. d tau / d q
// against central differences of RNEA (revolute joints: the tangent direction is the coordinate itself):
// truncation h^2 |d^3 tau| and rounding 1e-16 |tau| / h both stay far below 1e-6 of the torque scale.
BOOST_AUTO_TEST_CASE(derivative_workspace_is_allocated_on_first_use) {
  const int n = abdyn::Data::kEagerMassMatrixDofs + 76;
  const abdyn::Model model = chain(n);
  abdyn::Data data(model);
  BOOST_TEST(data.deriv.v_world.empty());
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(n, 0.01), v = Eigen::VectorXd::Constant(n, 0.02);
  const Eigen::VectorXd qdd = Eigen::VectorXd::Zero(n);
  abdyn::inverseDynamicsDerivatives(model, data, q, v, qdd);
  BOOST_TEST(data.deriv.v_world.size() == static_cast<std::size_t>(model.nbodies()));
  BOOST_TEST(data.dtau_dq.rows() == n);
  const Eigen::MatrixXd dtau_dq = data.dtau_dq;
  const double scale = abdyn::inverseDynamics(model, data, q, v, qdd).cwiseAbs().maxCoeff();
  const double h = 1e-6;
  for (const int k : {0, n / 2, n - 1}) {
    Eigen::VectorXd q_plus = q, q_minus = q;
    q_plus[k] += h;
    q_minus[k] -= h;
    const Eigen::VectorXd tau_plus = abdyn::inverseDynamics(model, data, q_plus, v, qdd);
    const Eigen::VectorXd tau_minus = abdyn::inverseDynamics(model, data, q_minus, v, qdd);
    const double error = ((tau_plus - tau_minus) / (2.0 * h) - dtau_dq.col(k)).cwiseAbs().maxCoeff();
    BOOST_TEST(error <= 1e-6 * scale, "column " << k << ": " << error << " vs " << scale);
  }
}

// The Model finds bodies, joints and frames by name through two flat indices (frames, whose names
// include every body's, and joints), which grow well past what reserve() asked for; each duplicate the
// builder refuses and each failed lookup names what the name is instead.
BOOST_AUTO_TEST_CASE(names_are_found_and_duplicates_refused) {
  abdyn::ModelBuilder builder("names");
  builder.reserve(4);
  const abdyn::RigidBodyInertia I(1.0, abdyn::Vector3(0.1, 0.0, 0.0), abdyn::Matrix3::Identity() * 1e-2);
  const int n = 2000;
  for (int i = 1; i <= n; ++i) {
    abdyn::JointSpec joint;
    joint.name = "j" + std::to_string(i);
    builder.addBody(i - 1, joint, abdyn::Plx(), I, "b" + std::to_string(i));
    builder.addFrame("f" + std::to_string(i), i, abdyn::Plx());
  }
  builder.addFrame("extra", 2, abdyn::Plx(), abdyn::FrameType::Body);  // a Body-typed frame that is no body
  const auto refused = [](const std::function<void()>& call, const std::string& what) {
    try {
      call();
    } catch (const abdyn::Error& e) {
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
      return;
    }
    BOOST_ERROR("no error: expected " << what);
  };
  abdyn::JointSpec fresh;
  fresh.name = "fresh";
  refused([&] { builder.addFrame("b7", 3, abdyn::Plx()); }, "addFrame('b7'): a body with this name already exists");
  refused([&] { builder.addFrame("f7", 3, abdyn::Plx()); }, "addFrame('f7'): a frame with this name already exists");
  refused([&] { builder.addFrame("world", 3, abdyn::Plx()); }, "addFrame('world'): a body with this name already exists");
  refused([&] { builder.addBody(1, fresh, abdyn::Plx(), I, "f7"); }, "addBody('f7'): a body or frame with this name already exists");
  refused([&] { builder.addBody(1, fresh, abdyn::Plx(), I, "b7"); }, "addBody('b7'): a body or frame with this name already exists");
  abdyn::JointSpec taken;
  taken.name = "j7";
  refused([&] { builder.addBody(1, taken, abdyn::Plx(), I, "new"); }, "addBody('new'): duplicate joint name 'j7'");
  const abdyn::Model model = std::move(builder).build().withGravity(abdyn::Vector3(0.0, 0.0, -1.0));  // a copy
  BOOST_TEST(model.nframes() == 2 * n + 2);
  for (int i = 1; i <= n; ++i) {
    BOOST_TEST(model.bodyId("b" + std::to_string(i)) == i);
    BOOST_TEST(model.jointId("j" + std::to_string(i)) == i);
    BOOST_TEST(model.frame(model.frameId("f" + std::to_string(i))).body == i);
  }
  BOOST_TEST(model.bodyId("world") == 0);
  BOOST_TEST(model.frame(model.frameId("extra")).body == 2);
  refused([&] { model.bodyId("f7"); }, "no body named 'f7'; it is a frame on body 'b7'");
  refused([&] { model.bodyId("extra"); }, "no body named 'extra'; it is a frame on body 'b2'");
  refused([&] { model.bodyId("b0"); }, "model 'names': no body named 'b0'");
  refused([&] { model.jointId("f7"); }, "no joint named 'f7' (it is a frame;");
  refused([&] { model.jointId(""); }, "no joint named ''");
  refused([&] { model.frameId("j7"); }, "no frame named 'j7'");
}

// std::move(builder).build() gives the model that the copying build() gives, and leaves the builder
// without bodies; reserve refuses a negative count, naming itself. A model that differs only in a mass
// keeps the structure key and gets another parameter key.
BOOST_AUTO_TEST_CASE(moving_build_equals_copying_build) {
  abdyn::ModelBuilder builder("tree");
  try {
    builder.reserve(-1);
    BOOST_FAIL("reserve(-1) did not throw");
  } catch (const abdyn::Error& e) {
    BOOST_TEST(std::string(e.what()).find("abdyn::ModelBuilder::reserve: negative body count -1") != std::string::npos, e.what());
  }
  builder.reserve(4);
  const abdyn::RigidBodyInertia I(1.0, abdyn::Vector3(0.1, 0.0, 0.0), abdyn::Matrix3::Identity() * 1e-2);
  abdyn::JointSpec revolute, slider;
  revolute.name = "hinge";
  slider.name = "slider";
  slider.type = abdyn::JointType::Prismatic;
  slider.axis = abdyn::Vector3(0.0, 0.6, 0.8);
  const int a = builder.addBody(0, revolute, abdyn::Plx(), I, "a");
  builder.addBody(a, slider, abdyn::Plx::translation(abdyn::Vector3(0.0, 0.0, 0.5)), I, "b");
  builder.addBody(a, abdyn::JointSpec{}, abdyn::Plx::translation(abdyn::Vector3(0.3, 0.0, 0.0)), I, "c");
  builder.addFrame("tool", 3, abdyn::Plx::translation(abdyn::Vector3(0.0, 0.1, 0.0)));
  const abdyn::Model copied = builder.build();
  const abdyn::Model moved = std::move(builder).build();
  BOOST_TEST(builder.nbodies() == 0);
  BOOST_TEST(moved.structureKey() == copied.structureKey());
  BOOST_TEST(moved.parameterKey() == copied.parameterKey());
  // A heavier last body: the same structure, other parameters.
  abdyn::ModelBuilder heavier("tree");
  const int ha = heavier.addBody(0, revolute, abdyn::Plx(), I, "a");
  heavier.addBody(ha, slider, abdyn::Plx::translation(abdyn::Vector3(0.0, 0.0, 0.5)), I, "b");
  heavier.addBody(ha, abdyn::JointSpec{}, abdyn::Plx::translation(abdyn::Vector3(0.3, 0.0, 0.0)),
                  abdyn::RigidBodyInertia(2.0, abdyn::Vector3(0.1, 0.0, 0.0), abdyn::Matrix3::Identity() * 1e-2), "c");
  const abdyn::Model heavy = heavier.build();
  BOOST_TEST(heavy.structureKey() == copied.structureKey());
  BOOST_TEST(heavy.parameterKey() != copied.parameterKey());
  BOOST_TEST(moved.nbodies() == 4);
  BOOST_TEST(moved.nframes() == copied.nframes());
  BOOST_TEST(moved.frameId("tool") == copied.frameId("tool"));
  BOOST_TEST(moved.jointId("slider") == 2);
  BOOST_TEST(moved.children(1) == copied.children(1));
  BOOST_TEST(moved.ancestorPairs() == copied.ancestorPairs());
  for (int i = 0; i < moved.nbodies(); ++i) {
    BOOST_TEST(moved.bodyName(i) == copied.bodyName(i));
    BOOST_TEST((moved.inertiaMatrix(i) == copied.inertiaMatrix(i)));  // the same numbers: exact
    BOOST_TEST((moved.Xtree(i).r() == copied.Xtree(i).r()));
  }
  BOOST_TEST((moved.motionSubspace() == copied.motionSubspace()));
}
