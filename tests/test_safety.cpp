#define BOOST_TEST_MODULE safety
#include <boost/test/unit_test.hpp>

#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "abdyn/abdyn.hpp"

// Memory safety through the public API: a Data (or an integrator, a RowResponse) built for one model and
// passed with another is refused by an O(1) check before any buffer is touched; index accessors refuse
// indices outside the model; the unconstrained integrators say loudly that they ignore mimic couplings;
// the library logger is registered with spdlog. Under AddressSanitizer (CI) a missing check shows up as a
// heap overflow in these tests rather than only as a missing exception.

namespace {

// Checks that f throws E whose message contains every one of `parts`.
template <class E>
void checkThrows(const std::function<void()>& f, const std::vector<std::string>& parts, const std::string& label) {
  try {
    f();
    BOOST_ERROR(label << ": no exception");
  } catch (const E& e) {
    const std::string what = e.what();
    for (const std::string& part : parts) {
      BOOST_TEST(what.find(part) != std::string::npos, label << ": message '" << what << "' lacks '" << part << "'");
    }
  } catch (const std::exception& e) {
    BOOST_ERROR(label << ": wrong exception type: " << e.what());
  }
}

// Two models of different shapes: a 4-body chain (whose Data is passed) and a 9-body tree with a floating
// base (the model passed), so that every per-body and per-coordinate buffer of the Data is too small.
struct TwoModels {
  std::mt19937 rng{7};
  abdyn::Model small = abdyn::randomTree({4, true, false, false, false}, rng);
  abdyn::Model big = abdyn::randomTree({9, false, true, true, true}, rng);
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_algorithm_rejects_data_of_another_model) {
  TwoModels m;
  const abdyn::Model& model = m.big;
  abdyn::Data data(m.small);  // the wrong one
  abdyn::Data own(model);
  const Eigen::VectorXd q = abdyn::randomConfiguration(model, m.rng);
  const Eigen::VectorXd v = Eigen::VectorXd::Ones(model.nv());
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv());
  Eigen::VectorXd x = Eigen::VectorXd::Ones(model.nv());
  const std::vector<abdyn::Force> f_ext(model.nbodies(), abdyn::Force::Zero());
  const int frame = model.nframes() - 1;
  const auto rf = abdyn::ReferenceFrame::World;
  const abdyn::ConstraintSet none;
  abdyn::ConstrainedDynamicsData cd(model, none);
  abdyn::ConstraintKinematics ck(model, none);
  abdyn::RowSet rows(model);
  abdyn::RowResponse response(model);
  abdyn::GroundContactSettings contact;
  Eigen::VectorXd q_mut = q, v_mut = v;

  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"abdyn::forwardKinematics", [&] { abdyn::forwardKinematics(model, data, q); }},
      {"abdyn::forwardKinematics", [&] { abdyn::forwardKinematics(model, data, q, v); }},
      {"abdyn::forwardKinematics", [&] { abdyn::forwardKinematics(model, data, q, v, zero); }},
      {"abdyn::frameTransform", [&] { abdyn::frameTransform(model, data, frame); }},
      {"abdyn::framePose", [&] { abdyn::framePose(model, data, frame); }},
      {"abdyn::frameVelocity", [&] { abdyn::frameVelocity(model, data, frame, rf); }},
      {"abdyn::frameAcceleration", [&] { abdyn::frameAcceleration(model, data, frame, rf); }},
      {"abdyn::frameClassicalAcceleration", [&] { abdyn::frameClassicalAcceleration(model, data, frame); }},
      {"abdyn::jointJacobians", [&] { abdyn::jointJacobians(model, data); }},
      {"abdyn::frameJacobian", [&] { abdyn::frameJacobian(model, data, q, frame, rf); }},
      {"abdyn::frameJacobianTimeVariation", [&] { abdyn::frameJacobianTimeVariation(model, data, q, v, frame, rf); }},
      {"abdyn::frameJacobianTimeVariationTimesV",
       [&] { abdyn::frameJacobianTimeVariationTimesV(model, data, q, v, frame, rf); }},
      {"abdyn::centerOfMass", [&] { abdyn::centerOfMass(model, data, q); }},
      {"abdyn::centerOfMassVelocity", [&] { abdyn::centerOfMassVelocity(model, data, q, v); }},
      {"abdyn::centerOfMassJacobian", [&] { abdyn::centerOfMassJacobian(model, data, q); }},
      {"abdyn::kineticEnergy", [&] { abdyn::kineticEnergy(model, data, q, v); }},
      {"abdyn::potentialEnergy", [&] { abdyn::potentialEnergy(model, data, q); }},
      {"abdyn::mechanicalEnergy", [&] { abdyn::mechanicalEnergy(model, data, q, v); }},
      {"abdyn::spatialMomentum", [&] { abdyn::spatialMomentum(model, data, q, v); }},
      {"abdyn::inverseDynamics", [&] { abdyn::inverseDynamics(model, data, q, v, zero); }},
      {"abdyn::inverseDynamics", [&] { abdyn::inverseDynamics(model, data, q, v, zero, f_ext); }},
      {"abdyn::nonlinearEffects", [&] { abdyn::nonlinearEffects(model, data, q, v); }},
      {"abdyn::gravityTorques", [&] { abdyn::gravityTorques(model, data, q); }},
      {"abdyn::massMatrix", [&] { abdyn::massMatrix(model, data, q); }},
      {"abdyn::factorizeMassMatrix", [&] { abdyn::factorizeMassMatrix(model, data); }},
      {"abdyn::solveMassMatrix", [&] { abdyn::solveMassMatrix(model, data, x); }},
      {"abdyn::multiplyByL", [&] { abdyn::multiplyByL(model, data, x); }},
      {"abdyn::multiplyByLTransposed", [&] { abdyn::multiplyByLTransposed(model, data, x); }},
      {"abdyn::solveL", [&] { abdyn::solveL(model, data, x); }},
      {"abdyn::solveLTransposed", [&] { abdyn::solveLTransposed(model, data, x); }},
      {"abdyn::forwardDynamics", [&] { abdyn::forwardDynamics(model, data, q, v, zero); }},
      {"abdyn::forwardDynamics", [&] { abdyn::forwardDynamics(model, data, q, v, zero, f_ext); }},
      {"abdyn::forwardDynamicsCrba", [&] { abdyn::forwardDynamicsCrba(model, data, q, v, zero); }},
      {"abdyn::forwardDynamicsCrba", [&] { abdyn::forwardDynamicsCrba(model, data, q, v, zero, f_ext); }},
      {"abdyn::inverseMassMatrix", [&] { abdyn::inverseMassMatrix(model, data, q); }},
      {"abdyn::constraintJacobian", [&] { abdyn::constraintJacobian(model, data, none, ck, q); }},
      {"abdyn::constraintKinematics", [&] { abdyn::constraintKinematics(model, data, none, ck, q, v); }},
      {"abdyn::forwardDynamicsConstrained", [&] { abdyn::forwardDynamicsConstrained(model, data, cd, none, q, v, zero); }},
      {"abdyn::constrainedImpact", [&] { abdyn::constrainedImpact(model, data, cd, none, q, v, 0.0); }},
      {"abdyn::projectPositions", [&] { abdyn::projectPositions(model, data, cd, none, q_mut); }},
      {"abdyn::projectVelocities", [&] { abdyn::projectVelocities(model, data, cd, none, q, v_mut); }},
      {"abdyn::addWrenchToRow", [&] { abdyn::addWrenchToRow(model, data, 1, abdyn::Force::Zero(), 1.0, x); }},
      {"abdyn::addLinearRow",
       [&] { abdyn::addLinearRow(rows, model, data, 1, 0, abdyn::Vector3::Zero(), abdyn::Vector3::UnitZ()); }},
      {"abdyn::addAngularRow", [&] { abdyn::addAngularRow(rows, model, data, 1, 0, abdyn::Vector3::UnitZ()); }},
      {"abdyn::addRowJoint",
       [&] { abdyn::addRowJoint(rows, model, data, abdyn::RowJoint{abdyn::RowJointType::Hinge, 1, 0, {}, {}}, 0.2, 0.0, 1e-3, 0); }},
      {"abdyn::addGroundContactRows", [&] { abdyn::addGroundContactRows(rows, model, data, v, contact, 1e-3, 0); }},
      {"abdyn::addBodyContactRows", [&] { abdyn::addBodyContactRows(rows, model, data, v, contact, 1e-3, 0); }},
      {"abdyn::solveRowsPgs", [&] { abdyn::solveRowsPgs(model, data, rows, v_mut, abdyn::PgsSettings{}); }},
      {"abdyn::RowResponse::articulated", [&] { response.articulated(model, data, rows); }},
      {"abdyn::RowResponse::factorized", [&] { response.factorized(model, data, rows); }},
      {"abdyn::RowResponse::dense", [&] { response.dense(model, data, q, rows); }},
      {"abdyn::RowResponse::applyInverseMass", [&] { response.applyInverseMass(model, data, x, v_mut); }},
  };
  for (const auto& [function, call] : calls) {
    checkThrows<abdyn::InvalidArgument>(call, {function + ": argument 'data' was built for another model", "'" + model.name() + "'"},
                                        function);
    // InvalidArgument is a kind of abdyn::Error: one handler catches everything abdyn rejects.
    checkThrows<abdyn::Error>(call, {"argument 'data' was built for another model"}, function + " as abdyn::Error");
  }
  // The same calls with the model's own Data do not throw for that reason (spot checks of each family).
  BOOST_CHECK_NO_THROW(abdyn::forwardDynamics(model, own, q, v, zero));
  BOOST_CHECK_NO_THROW(abdyn::massMatrix(model, own, q));
  BOOST_CHECK_NO_THROW(abdyn::factorizeMassMatrix(model, own));
  BOOST_CHECK_NO_THROW(abdyn::solveMassMatrix(model, own, x));
  // A copy of the model and the same model under other gravity share the structure, and so the Data.
  const abdyn::Model copy = model.withGravity(abdyn::Vector3(0.0, 0.0, -1.62));
  BOOST_CHECK_NO_THROW(abdyn::forwardDynamics(copy, own, q, v, zero));
}

// An integrator or a RowResponse built for one model refuses to work for another, even with the right Data.
BOOST_AUTO_TEST_CASE(integrators_and_responses_reject_another_model) {
  TwoModels m;
  const abdyn::Model& model = m.big;
  abdyn::Data data(model);
  Eigen::VectorXd q = abdyn::randomConfiguration(model, m.rng);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const abdyn::JointForceFunction no_force = [](const Eigen::VectorXd&, const Eigen::VectorXd& v_at, Eigen::VectorXd& out) {
    out.setZero(v_at.size());
  };
  abdyn::ExplicitEuler explicit_euler(m.small);
  abdyn::SemiImplicitEuler semi_implicit(m.small);
  abdyn::ImplicitMidpoint midpoint(m.small);
  abdyn::RungeKutta4 rk4(m.small);
  const std::string wrong = "the integrator was built for another model";
  checkThrows<abdyn::InvalidArgument>([&] { explicit_euler.step(model, data, q, v, tau, 1e-3); }, {"abdyn::ExplicitEuler::step", wrong}, "explicit");
  checkThrows<abdyn::InvalidArgument>([&] { explicit_euler.step(model, data, q, v, no_force, 1e-3); }, {wrong}, "explicit f");
  checkThrows<abdyn::InvalidArgument>([&] { semi_implicit.step(model, data, q, v, tau, 1e-3); }, {"abdyn::SemiImplicitEuler::step", wrong}, "semi");
  checkThrows<abdyn::InvalidArgument>([&] { semi_implicit.step(model, data, q, v, no_force, 1e-3); }, {wrong}, "semi f");
  checkThrows<abdyn::InvalidArgument>([&] { midpoint.step(model, data, q, v, tau, 1e-3); }, {"abdyn::ImplicitMidpoint::step", wrong}, "midpoint");
  checkThrows<abdyn::InvalidArgument>([&] { midpoint.step(model, data, q, v, no_force, 1e-3); }, {wrong}, "midpoint f");
  checkThrows<abdyn::InvalidArgument>([&] { rk4.step(model, data, q, v, tau, 1e-3); }, {"abdyn::RungeKutta4::step", wrong}, "rk4");
  // The right integrator with the wrong Data.
  abdyn::RungeKutta4 own_rk4(model);
  abdyn::Data other(m.small);
  checkThrows<abdyn::InvalidArgument>([&] { own_rk4.step(model, other, q, v, tau, 1e-3); }, {"argument 'data' was built for another model"}, "rk4 data");
  // And q or v of the wrong size, which the integrators used to pass to integrate() unchecked.
  Eigen::VectorXd short_q = q.head(3);
  checkThrows<abdyn::InvalidArgument>([&] { own_rk4.step(model, data, short_q, v, tau, 1e-3); }, {"argument 'q' has size 3"}, "rk4 q");

  abdyn::RowResponse response(m.small);
  abdyn::RowSet rows(model);
  checkThrows<abdyn::InvalidArgument>([&] { response.articulated(model, data, rows); }, {"this RowResponse was built for another model"}, "response");
}

// Every index accessor of Model refuses an index outside the model, naming itself, the index and the range.
BOOST_AUTO_TEST_CASE(model_index_accessors_are_checked) {
  TwoModels m;
  const abdyn::Model& model = m.big;
  const int n = model.nbodies(), nv = model.nv();
  const std::vector<std::pair<std::string, std::function<void(int)>>> accessors = {
      {"parent", [&](int i) { (void)model.parent(i); }},
      {"joint", [&](int i) { (void)model.joint(i); }},
      {"Xtree", [&](int i) { (void)model.Xtree(i); }},
      {"inertia", [&](int i) { (void)model.inertia(i); }},
      {"inertiaMatrix", [&](int i) { (void)model.inertiaMatrix(i); }},
      {"bodyName", [&](int i) { (void)model.bodyName(i); }},
      {"children", [&](int i) { (void)model.children(i); }},
      {"lastSubtreeDof", [&](int i) { (void)model.lastSubtreeDof(i); }},
  };
  for (const auto& entry : accessors) {  // not a structured binding: C++17 lambdas cannot capture one
    const std::string& name = entry.first;
    const std::function<void(int)>& access = entry.second;
    BOOST_CHECK_NO_THROW(access(0));
    BOOST_CHECK_NO_THROW(access(n - 1));
    for (const int bad : {-1, n, 9999}) {
      checkThrows<abdyn::InvalidArgument>([&] { access(bad); },
                                          {"abdyn::Model::" + name + "(" + std::to_string(bad) + ")", "valid: 0 to " + std::to_string(n - 1)},
                                          name);
    }
  }
  const std::vector<std::pair<std::string, std::function<void(int)>>> per_dof = {
      {"dofBody", [&](int k) { (void)model.dofBody(k); }},
      {"dofParent", [&](int k) { (void)model.dofParent(k); }},
      {"dofRunStart", [&](int k) { (void)model.dofRunStart(k); }},
  };
  for (const auto& entry : per_dof) {
    const std::string& name = entry.first;
    const std::function<void(int)>& access = entry.second;
    BOOST_CHECK_NO_THROW(access(nv - 1));
    for (const int bad : {-1, nv}) {
      checkThrows<abdyn::InvalidArgument>([&] { access(bad); }, {"abdyn::Model::" + name}, name);
    }
  }
  BOOST_CHECK_NO_THROW((void)model.ancestorOffset(nv));  // one past the last coordinate: the total
  BOOST_TEST(model.ancestorOffset(nv) == model.ancestorPairs());
  checkThrows<abdyn::InvalidArgument>([&] { (void)model.ancestorOffset(nv + 1); }, {"abdyn::Model::ancestorOffset"}, "ancestorOffset");
  BOOST_CHECK_NO_THROW((void)model.frame(model.nframes() - 1));
  checkThrows<abdyn::InvalidArgument>([&] { (void)model.frame(-1); }, {"abdyn::Model::frame(-1)"}, "frame");
  checkThrows<abdyn::InvalidArgument>([&] { (void)model.frame(model.nframes()); }, {"abdyn::Model::frame"}, "frame");
  // The functions that take a frame or body index pass through the same checks.
  abdyn::Data data(model);
  checkThrows<abdyn::InvalidArgument>([&] { abdyn::framePose(model, data, model.nframes()); }, {"abdyn::Model::frame"}, "framePose");
  checkThrows<abdyn::InvalidArgument>([&] { abdyn::bodyPose(data, n); }, {"abdyn::bodyPose", "'body'"}, "bodyPose");
  checkThrows<abdyn::InvalidArgument>([&] { abdyn::pointClassicalAcceleration(data, -1, abdyn::Vector3::Zero()); },
                                      {"abdyn::pointClassicalAcceleration", "'body'"}, "pointClassicalAcceleration");
}

// The unconstrained integrators cannot keep mimic couplings: each says so at construction, by name, through
// the library logger, rather than dropping the couplings silently (abdyn::Simulator enforces them).
BOOST_AUTO_TEST_CASE(unconstrained_integrators_warn_about_mimic_couplings) {
  const std::string urdf = R"(<robot name="mimicked">
    <link name="base"/>
    <link name="a"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="leader" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
    <joint name="follower" type="continuous"><parent link="base"/><child link="b"/><axis xyz="0 0 1"/>
      <mimic joint="leader" multiplier="2" offset="0.5"/></joint>
  </robot>)";
  const abdyn::Model model = abdyn::loadUrdfString(urdf);
  BOOST_REQUIRE(model.mimics().size() == 1);
  std::ostringstream log;
  const auto previous = abdyn::logger();
  abdyn::setLogger(std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  {
    abdyn::RungeKutta4 rk4(model);
    abdyn::ExplicitEuler explicit_euler(model);
    abdyn::SemiImplicitEuler semi_implicit(model);
    abdyn::ImplicitMidpoint midpoint(model);
  }
  abdyn::setLogger(previous);
  const std::string text = log.str();
  for (const char* integrator : {"abdyn::RungeKutta4", "abdyn::ExplicitEuler", "abdyn::SemiImplicitEuler", "abdyn::ImplicitMidpoint"}) {
    BOOST_TEST(text.find(std::string(integrator) + ": model 'mimicked' declares 1 mimic coupling(s) ('follower' = 2") != std::string::npos,
               integrator << " did not warn: " << text);
  }
  BOOST_TEST(text.find("does NOT enforce") != std::string::npos);
  // A model without couplings builds them silently.
  std::ostringstream quiet;
  abdyn::setLogger(std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_st>(quiet)));
  TwoModels m;
  { abdyn::RungeKutta4 rk4(m.small); }
  abdyn::setLogger(previous);
  BOOST_TEST(quiet.str().empty());
}

// The library logger is registered with spdlog under its name, so spdlog's global controls reach it:
// spdlog::set_level(off) silences abdyn like every other registered logger.
BOOST_AUTO_TEST_CASE(logger_is_registered_with_spdlog) {
  const auto log = abdyn::logger();
  BOOST_TEST(log->name() == "abdyn");
  BOOST_TEST(spdlog::get("abdyn") == log);
  BOOST_TEST(log->should_log(spdlog::level::warn));
  spdlog::set_level(spdlog::level::off);
  BOOST_TEST(!abdyn::logger()->should_log(spdlog::level::warn));
  BOOST_TEST(!abdyn::logger()->should_log(spdlog::level::critical));
  spdlog::set_level(spdlog::level::info);
  BOOST_TEST(abdyn::logger()->should_log(spdlog::level::warn));
}
