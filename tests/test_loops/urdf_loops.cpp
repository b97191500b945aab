// Loop closures read from URDF (urdf_loops.cpp): <loop_joint> and Drake's ball constraint against the
// closed models built in C++ and their reduced coordinates, every bundled closed model, and the messages
// for bad loop declarations.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "closed_loops.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// Each bundled closed model loads (tree and loops), its stated configuration closes its loops (the
// five-bar, delta and welded humanoid in their zero configurations, to rounding of the figures in the
// files), and Gauss-Newton assembles it from a perturbed guess.
BOOST_AUTO_TEST_CASE(bundled_closed_models_load_and_assemble) {
  struct Expected {
    const char* file;
    int nv, loops, rows;
    bool closed_at_q0;
  };
  const Expected expected[] = {{"four_bar.urdf", 3, 1, 5, false},      {"slider_crank.urdf", 3, 1, 3, false},
                               {"five_bar.urdf", 4, 1, 5, true},       {"delta_robot.urdf", 18, 3, 15, true},
                               {"humanoid_welded.urdf", 36, 2, 12, true}};
  std::mt19937 rng(32);
  for (const Expected& e : expected) {
    ClosedFile cf(e.file);
    BOOST_TEST(cf.model.nv() == e.nv, e.file);
    BOOST_TEST(cf.loops.loops.size() == static_cast<std::size_t>(e.loops), e.file);
    BOOST_TEST(cf.loops.rows() == e.rows, e.file);
    Data data(cf.model);
    ConstrainedDynamicsData cd(cf.model, cf.loops);
    constraintJacobian(cf.model, data, cf.loops, cd.kinematics, cf.q0);
    if (e.closed_at_q0) BOOST_TEST(maxAbs(cd.kinematics.C) < 1e-12, e.file << ": " << maxAbs(cd.kinematics.C));
    Eigen::VectorXd q = cf.q0;
    const int iterations = projectPositions(cf.model, data, cd, cf.loops, q, 1e-12, 50);
    Eigen::VectorXd guess(cf.model.nq());
    integrate(cf.model, q, randomVector(cf.model.nv(), rng, 0.05), 1.0, guess);
    const int from_guess = projectPositions(cf.model, data, cd, cf.loops, guess, 1e-12, 50);
    BOOST_TEST(from_guess <= 10, e.file);
    constraintJacobian(cf.model, data, cf.loops, cd.kinematics, guess);
    BOOST_TEST(maxAbs(cd.kinematics.C) <= 1e-12, e.file);
    BOOST_TEST_MESSAGE(e.file << ": assembled from its stated q0 in " << iterations << " and from a perturbed guess in "
                              << from_guess << " Gauss-Newton steps");
  }
}

namespace {

// The slider-crank of models/slider_crank.urdf: crank r, rod l, slider along x. Its closure
// f(q) = r u(q1) + l u(q1 + q2) - (q3, 0) = 0, and the reduced-coordinate acceleration as for the four-bar.
struct SliderCrank {
  double r = 0.5, l = 1.5;

  Eigen::VectorXd close(double q1) const {
    const Eigen::Vector2d P = r * FourBar::u(q1);
    const double t2 = std::asin(P.y() / l);  // the rod's end on the x axis: P_z - l sin(t2) = 0
    Eigen::VectorXd q(3);
    q << q1, t2 - q1, P.x() + l * std::cos(t2);
    return q;
  }

  Eigen::VectorXd reducedAcceleration(const Model& model, Data& data, const Eigen::VectorXd& q, double q1dot,
                                      const Eigen::VectorXd& tau, Eigen::VectorXd& v) const {
    const double t1 = q[0], t2 = q[0] + q[1];
    Eigen::Matrix<double, 2, 3> K;
    K << r * FourBar::du(t1) + l * FourBar::du(t2), l * FourBar::du(t2), Eigen::Vector2d(-1.0, 0.0);
    Eigen::Vector3d null(1.0, 0.0, 0.0);
    null.tail<2>() = K.rightCols<2>().partialPivLu().solve(-K.col(0));
    v = null * q1dot;
    const double w1 = v[0], w2 = v[0] + v[1];
    const Eigen::Vector2d Kdot_v = -(r * FourBar::u(t1) * w1 * w1 + l * FourBar::u(t2) * w2 * w2);
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    p.tail<2>() = K.rightCols<2>().partialPivLu().solve(-Kdot_v);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd h = nonlinearEffects(model, data, q, v);
    return null * (null.dot(tau - h - M * p) / null.dot(M * null)) + p;
  }
};

}  // namespace

// models/four_bar.urdf (a <loop_joint>) gives the same constrained dynamics as the four-bar built in C++,
// and models/slider_crank.urdf (a Drake ball constraint) matches its reduced-coordinate solution.
BOOST_AUTO_TEST_CASE(urdf_loop_joints_load_and_close) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-2.0, 2.0);
  {
    FourBar fb;
    const Model model = loadUrdf(modelPath("four_bar.urdf"));
    const ConstraintSet loops = loadUrdfLoops(modelPath("four_bar.urdf"), model);
    BOOST_REQUIRE(loops.loops.size() == 1u);
    BOOST_TEST(loops.loops[0].name == "pin");
    Data data(model), data2(fb.model);
    ConstrainedDynamicsData cd(model, loops), cd2(fb.model, fb.constraints);
    for (int s = 0; s < 10; ++s) {
      const Eigen::VectorXd q = fb.close(angle(rng));
      Eigen::VectorXd v;
      const Eigen::VectorXd tau = Eigen::VectorXd::Random(3);
      const Eigen::VectorXd expected = fb.reducedAcceleration(data2, q, rate(rng), tau, v);
      ABDYN_CHECK_REL(forwardDynamicsConstrained(model, data, cd, loops, q, v, tau), expected, 1e-9);
    }
  }
  {
    SliderCrank sc;
    const Model model = loadUrdf(modelPath("slider_crank.urdf"));
    const ConstraintSet loops = loadUrdfLoops(modelPath("slider_crank.urdf"), model);
    BOOST_REQUIRE(loops.loops.size() == 1u);
    BOOST_TEST(loops.loops[0].rows() == 3);
    Data data(model);
    ConstrainedDynamicsData cd(model, loops);
    for (int s = 0; s < 10; ++s) {
      const Eigen::VectorXd q = sc.close(angle(rng));
      Eigen::VectorXd v;
      const Eigen::VectorXd tau = Eigen::VectorXd::Random(3);
      const Eigen::VectorXd expected = sc.reducedAcceleration(model, data, q, rate(rng), tau, v);
      for (const ConstrainedSolver solver :
         {ConstrainedSolver::Direct, ConstrainedSolver::Articulated, ConstrainedSolver::Factorized}) {
        ConstrainedDynamicsSettings settings;
        settings.solver = solver;
        ABDYN_CHECK_REL(forwardDynamicsConstrained(model, data, cd, loops, q, v, tau, settings), expected, 1e-9);
        BOOST_TEST(cd.rank == 2);
      }
    }
  }
}

// Bad loop declarations: each gets an abdyn::Error starting with the source and naming the loop joint.
BOOST_AUTO_TEST_CASE(bad_loop_declarations_are_named) {
  const Model model = loadUrdf(modelPath("four_bar.urdf"));
  const std::string head = "<robot name='four_bar'>";
  const auto loop = [&](const std::string& body) { return head + body + "</robot>"; };
  struct Case {
    std::string xml, message;
  };
  const std::vector<Case> cases = {
      {loop("<loop_joint name='p' type='revolute'><predecessor link='nowhere'/><successor link='rocker'/><axis xyz='0 1 0'/></loop_joint>"),
       "loop joint 'p': no link named 'nowhere'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='rocker'/><successor link='rocker'/></loop_joint>"),
       "its two ends are the same link 'rocker'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='ground'/><successor link='world'/></loop_joint>"),
       "rigidly joined already"},
      {loop("<loop_joint name='p' type='hinge'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "type must be revolute, continuous, prismatic, spherical or fixed, got 'hinge'"},
      {loop("<loop_joint type='fixed'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "<loop_joint> needs a name"},
      {loop("<loop_joint name='p' type='fixed'><successor link='rocker'/></loop_joint>"), "missing <predecessor>"},
      {loop("<loop_joint name='p' type='fixed'><predecessor/><successor link='rocker'/></loop_joint>"),
       "<predecessor> needs the attribute 'link'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='coupler' xyz='1 nan 0'/><successor link='rocker'/></loop_joint>"),
       "must be three finite numbers"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='coupler' rpy='1 2'/><successor link='rocker'/></loop_joint>"),
       "must be three finite numbers"},
      {loop("<loop_joint name='p' type='revolute'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "missing <axis>"},
      {loop("<loop_joint name='p' type='prismatic'><predecessor link='coupler'/><successor link='rocker'/><axis xyz='0 0 0'/></loop_joint>"),
       "<axis xyz> must not be zero"},
      {loop("<loop_joint name='p' type='spherical'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"
            "<loop_joint name='p' type='spherical'><predecessor link='crank'/><successor link='rocker'/></loop_joint>"),
       "a loop joint of that name already exists"},
      {loop("<drake:ball_constraint><drake:ball_constraint_body_A name='coupler'/><drake:ball_constraint_body_B name='rocker'/>"
            "<drake:ball_constraint_p_AP value='2 0 0'/></drake:ball_constraint>"),
       "missing <drake:ball_constraint_p_BQ>"},
      {"<robot name='x'><link", "malformed XML"},
  };
  for (const Case& c : cases) {
    BOOST_CHECK_EXCEPTION(loadUrdfLoopsString(c.xml, model), Error, [&](const Error& e) {
      const std::string what = e.what();
      const bool ok = what.rfind("<string>: ", 0) == 0 && what.find(c.message) != std::string::npos;
      if (!ok) BOOST_TEST_MESSAGE("got: " << what << "\nexpected: " << c.message);
      return ok;
    });
  }
  BOOST_CHECK_EXCEPTION(loadUrdfLoops(modelPath("no_such_file.urdf"), model), Error,
                        [](const Error& e) { return std::string(e.what()).find("no_such_file.urdf") != std::string::npos; });
}
