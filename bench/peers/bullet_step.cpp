// Bullet's btMultiBody (Featherstone's articulated bodies in Bullet 3, Debian's libbullet-dev, double
// precision) in bench_step_peers: the scene built in code, stepped by btMultiBodyDynamicsWorld with
// btMultiBodyConstraintSolver (sequential impulses, i.e. projected Gauss-Seidel on the contact, limit
// and motor rows).
//
// Each floating body starts a btMultiBody of its own (it is that multibody's base); the bodies on
// revolute joints to the world are links of one fixed-base btMultiBody whose base is the world. A
// hinge between bodies (StepHinge) becomes two btMultiBodyPoint2Point at two points of its axis (Bullet
// has no hinge between two multibody links): six rows, one of them redundant, the same kinematics.
//
// btMultiBody wants every link frame at the link's centre of mass with its axes along the principal
// axes (a diagonal inertia). So each body frame B is replaced by L: origin at c, axes P from
// Ic = P diag(d) P^T (det P = +1), x_B = P x_L + c (the world: P = 1, c = 0). Then, for body i with
// parent p, at q = 0:
//   rotParentToThis            P_i^T R_p_i^T P_p      (parent-L coordinates to this-L coordinates)
//   joint axis                 P_i^T a
//   parentComToThisPivotOffset P_p^T (p_p_i - c_p)    (the pivot is B_i's origin)
//   thisPivotToThisComOffset   P_i^T c_i
// Everything Bullet adds by default that the other engines do not have is off: link damping, the
// velocity cap, self-collision, sleeping. Joint damping is applied as an explicit joint torque each
// step (-d qdot, added to the scene's constant joint forces), joint friction as a velocity motor
// towards 0 bounded by friction * h (as Bullet's own URDF importer does), limits by
// btMultiBodyJointLimitConstraint. Shapes are only tested against the ground (collision filter), as in
// abdyn's scene. Collision margins are 1 mm.

#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>

#include <benchmark/benchmark.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "step_scene.hpp"

namespace abdyn_bench {

namespace {

constexpr double kMargin = 1e-3;
constexpr int kLinkGroup = 2, kGroundGroup = 1;

Eigen::Matrix3d mat(const Mat3& m) {
  Eigen::Matrix3d out;
  out << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
  return out;
}
Eigen::Vector3d vec(const Vec3& v) { return {v[0], v[1], v[2]}; }
btVector3 btv(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }
Eigen::Vector3d eig(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
btMatrix3x3 btm(const Eigen::Matrix3d& m) {
  return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)};
}
btQuaternion quat(const Eigen::Matrix3d& m) {
  btQuaternion q;
  btm(m).getRotation(q);
  return q;
}
Eigen::Matrix3d rotation(const btQuaternion& q) {
  const btMatrix3x3 m(q);
  Eigen::Matrix3d out;
  for (int r = 0; r < 3; ++r) out.row(r) = eig(m.getRow(r)).transpose();
  return out;
}
Eigen::Matrix3d quaternionRotation(double w, double x, double y, double z) {
  return Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
}

// Principal axes P (det +1) and moments d of a body's inertia about its centre of mass.
void principal(const StepBody& b, Eigen::Matrix3d& P, Eigen::Vector3d& d) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(mat(b.inertia));
  P = eig.eigenvectors();
  if (P.determinant() < 0) P.col(2) = -P.col(2);
  d = eig.eigenvalues();
}

// Where a scene body is in Bullet: its multibody and its link there (-1: the multibody's base).
struct Placement {
  int multibody = 0;
  int link = -1;
};

// The scene in one Bullet world; the destructor takes it apart in Bullet's order.
struct BulletWorld {
  explicit BulletWorld(const StepScene& scene);
  ~BulletWorld();
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  void setState(const std::vector<double>& q, const std::vector<double>& v);
  void getState(std::vector<double>& q, std::vector<double>& v) const;
  int step();  // one step of scene.h; returns the number of contact points

  btMultiBody& multibodyOf(std::size_t body) const { return *multibodies[static_cast<std::size_t>(where[body].multibody)]; }
  // The point x (body coordinates) of a body in its Bullet frame L.
  Eigen::Vector3d inL(std::size_t body, const Eigen::Vector3d& x) const {
    return P[body].transpose() * (x - vec(scene.bodies[body].com));
  }

  const StepScene& scene;
  std::vector<Eigen::Matrix3d> P;  // per body
  std::vector<Placement> where;    // per body
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btMultiBodyConstraintSolver solver;
  btMultiBodyDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
  std::vector<std::unique_ptr<btMultiBody>> multibodies;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;
  std::vector<std::unique_ptr<btMultiBodyConstraint>> constraints;
  btStaticPlaneShape ground_shape{btVector3(0, 0, 1), 0};
  btCollisionObject ground;
};

BulletWorld::BulletWorld(const StepScene& s) : scene(s), ground_shape(btVector3(0, 0, 1), s.ground_height) {
  const int n = static_cast<int>(s.bodies.size());
  std::vector<Eigen::Vector3d> d(n);
  P.resize(n);
  for (int i = 0; i < n; ++i) principal(s.bodies[i], P[i], d[i]);
  // Each floating body is a base; the bodies on the world share the fixed-base multibody world_tree.
  where.resize(n);
  std::vector<int> links, base_body;  // per multibody: its link count and its base body (-1: the world)
  int world_tree = -1;
  for (int i = 0; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    if (b.parent < 0 && b.joint.floating) {
      where[i] = {static_cast<int>(links.size()), -1};
      links.push_back(0);
      base_body.push_back(i);
      continue;
    }
    if (b.parent < 0 && world_tree < 0) {
      world_tree = static_cast<int>(links.size());
      links.push_back(0);
      base_body.push_back(-1);
    }
    const int m = b.parent < 0 ? world_tree : where[b.parent].multibody;
    where[i] = {m, links[m]++};
  }
  for (std::size_t m = 0; m < links.size(); ++m) {
    const int base = base_body[m];
    multibodies.push_back(base < 0 ? std::make_unique<btMultiBody>(links[m], 0.0, btVector3(0, 0, 0), true, false)
                                   : std::make_unique<btMultiBody>(links[m], s.bodies[base].mass, btv(d[base]), false, false));
  }
  for (int i = 0; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    if (where[i].link < 0) continue;
    const int p = b.parent;
    const Eigen::Matrix3d P_p = p < 0 ? Eigen::Matrix3d::Identity() : P[p];
    const Eigen::Vector3d c_p = p < 0 ? Eigen::Vector3d::Zero() : vec(s.bodies[p].com);
    const int parent_link = p < 0 ? -1 : where[p].link;
    const Eigen::Matrix3d R = mat(b.R_parent_body);
    multibodyOf(i).setupRevolute(where[i].link, b.mass, btv(d[i]), parent_link, quat(P[i].transpose() * R.transpose() * P_p),
                                 btv(P[i].transpose() * vec(b.axis)), btv(P_p.transpose() * (vec(b.p_parent_body) - c_p)),
                                 btv(P[i].transpose() * vec(b.com)), true);
  }
  for (auto& body : multibodies) {
    body->finalizeMultiDof();
    body->setLinearDamping(0);
    body->setAngularDamping(0);
    body->setMaxCoordinateVelocity(1e6);
    body->setMaxAppliedImpulse(1e6);
    body->setCanSleep(false);
    body->setHasSelfCollision(false);
    body->setUseGyroTerm(true);
    world.addMultiBody(body.get());
  }
  world.setGravity(btVector3(s.problem.gravity[0], s.problem.gravity[1], s.problem.gravity[2]));
  world.getSolverInfo().m_numIterations = s.iterations;

  for (int i = 0; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    auto compound = std::make_unique<btCompoundShape>();
    for (const StepShape& shape : b.shapes) {
      std::unique_ptr<btConvexShape> child;
      if (shape.type == StepShape::Type::Box) {
        child = std::make_unique<btBoxShape>(btVector3(shape.size[0], shape.size[1], shape.size[2]) * 0.5);
      } else if (shape.type == StepShape::Type::Cylinder) {
        child = std::make_unique<btCylinderShapeZ>(btVector3(shape.size[0], shape.size[0], 0.5 * shape.size[1]));
      } else {
        child = std::make_unique<btSphereShape>(shape.size[0]);
      }
      child->setMargin(kMargin);
      const Eigen::Matrix3d R = P[i].transpose() * mat(shape.R_body_shape);
      compound->addChildShape(btTransform(btm(R), btv(inL(i, vec(shape.p_body_shape)))), child.get());
      shapes.push_back(std::move(child));
    }
    compound->setMargin(kMargin);
    auto collider = std::make_unique<btMultiBodyLinkCollider>(&multibodyOf(i), where[i].link);
    collider->setCollisionShape(compound.get());
    collider->setFriction(s.mu);
    collider->setRestitution(0);
    world.addCollisionObject(collider.get(), kLinkGroup, kGroundGroup);
    if (where[i].link < 0) {
      multibodyOf(i).setBaseCollider(collider.get());
    } else {
      multibodyOf(i).getLink(where[i].link).m_collider = collider.get();
    }
    shapes.push_back(std::move(compound));
    colliders.push_back(std::move(collider));
  }
  ground.setCollisionShape(&ground_shape);
  ground.setFriction(1.0);  // Bullet multiplies the two frictions: 1 * mu
  ground.setRestitution(0);
  if (s.ground) world.addCollisionObject(&ground, kGroundGroup, kLinkGroup);

  for (int i = 0; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    if (where[i].link < 0) continue;
    btMultiBody* body = &multibodyOf(i);
    if (b.lower < b.upper) constraints.push_back(std::make_unique<btMultiBodyJointLimitConstraint>(body, where[i].link, b.lower, b.upper));
    if (b.friction > 0) constraints.push_back(std::make_unique<btMultiBodyJointMotor>(body, where[i].link, 0.0, b.friction * s.h));
  }
  for (const StepHinge& hinge : s.hinges) {
    const auto a = static_cast<std::size_t>(hinge.body_a), b = static_cast<std::size_t>(hinge.body_b);
    for (const double side : {-s.hinge_half_span, s.hinge_half_span}) {
      const Eigen::Vector3d x_a = vec(hinge.p_a) + side * vec(hinge.axis_a), x_b = vec(hinge.p_b) + side * vec(hinge.axis_b);
      constraints.push_back(std::make_unique<btMultiBodyPoint2Point>(&multibodyOf(a), where[a].link, &multibodyOf(b), where[b].link,
                                                                     btv(inL(a, x_a)), btv(inL(b, x_b))));
    }
  }
  for (auto& c : constraints) world.addMultiBodyConstraint(c.get());
}

BulletWorld::~BulletWorld() {
  for (auto& c : constraints) world.removeMultiBodyConstraint(c.get());
  if (scene.ground) world.removeCollisionObject(&ground);
  for (auto& c : colliders) world.removeCollisionObject(c.get());
  for (auto& body : multibodies) world.removeMultiBody(body.get());
}

void BulletWorld::setState(const std::vector<double>& q, const std::vector<double>& v) {
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const JointSlice& j = scene.bodies[i].joint;
    btMultiBody& body = multibodyOf(i);
    if (where[i].link >= 0) {
      body.setJointPos(where[i].link, q[j.idx_q]);
      body.setJointVel(where[i].link, v[j.idx_v]);
      continue;
    }
    // A floating base: abdyn's q = [x y z qw qx qy qz], v = [angular; linear] in its body frame.
    const Eigen::Matrix3d R = quaternionRotation(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5], q[j.idx_q + 6]);
    const Eigen::Vector3d c = vec(scene.bodies[i].com), w(v[j.idx_v], v[j.idx_v + 1], v[j.idx_v + 2]),
                          lin(v[j.idx_v + 3], v[j.idx_v + 4], v[j.idx_v + 5]);
    body.setBasePos(btv(Eigen::Vector3d(q[j.idx_q], q[j.idx_q + 1], q[j.idx_q + 2]) + R * c));
    body.setWorldToBaseRot(quat((R * P[i]).transpose()));
    body.setBaseOmega(btv(R * w));
    body.setBaseVel(btv(R * (lin + w.cross(c))));
  }
  for (auto& body : multibodies) {
    btAlignedObjectArray<btQuaternion> rotations;
    btAlignedObjectArray<btVector3> origins;
    body->forwardKinematics(rotations, origins);
    body->updateCollisionObjectWorldTransforms(rotations, origins);
  }
}

void BulletWorld::getState(std::vector<double>& q, std::vector<double>& v) const {
  q.assign(static_cast<std::size_t>(scene.problem.nq), 0.0);
  v.assign(static_cast<std::size_t>(scene.problem.nv), 0.0);
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const JointSlice& j = scene.bodies[i].joint;
    const btMultiBody& body = multibodyOf(i);
    if (where[i].link >= 0) {
      q[j.idx_q] = body.getJointPos(where[i].link);
      v[j.idx_v] = body.getJointVel(where[i].link);
      continue;
    }
    const Eigen::Matrix3d R = rotation(body.getWorldToBaseRot().inverse()) * P[i].transpose();
    const Eigen::Vector3d c = vec(scene.bodies[i].com);
    const Eigen::Vector3d p = eig(body.getBasePos()) - R * c;
    const Eigen::Quaterniond o(R);
    const Eigen::Vector3d w = R.transpose() * eig(body.getBaseOmega());
    const Eigen::Vector3d lin = R.transpose() * eig(body.getBaseVel()) - w.cross(c);
    for (int k = 0; k < 3; ++k) {
      q[j.idx_q + k] = p[k];
      v[j.idx_v + k] = w[k];
      v[j.idx_v + 3 + k] = lin[k];
    }
    q[j.idx_q + 3] = o.w();
    q[j.idx_q + 4] = o.x();
    q[j.idx_q + 5] = o.y();
    q[j.idx_q + 6] = o.z();
  }
}

int BulletWorld::step() {
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const int link = where[i].link;
    if (link < 0) continue;
    btMultiBody& body = multibodyOf(i);
    const double tau = scene.tau.empty() ? 0.0 : scene.tau[scene.bodies[i].joint.idx_v];
    body.addJointTorque(link, tau - scene.bodies[i].damping * body.getJointVel(link));
  }
  world.stepSimulation(scene.h, 0);
  int contacts = 0;
  for (int k = 0; k < dispatcher.getNumManifolds(); ++k) contacts += dispatcher.getManifoldByIndexInternal(k)->getNumContacts();
  return contacts;
}

// Joint accelerations at (q_check, v_check) with no contacts, limits, friction or damping: one velocity
// update of a unit time step by Bullet's articulated-body pass gives v + 1 * qdd.
std::vector<double> freeAccelerations(const StepScene& scene) {
  BulletWorld w(scene);
  w.setState(scene.q_check, scene.v_check);
  btAlignedObjectArray<btScalar> scratch_r;
  btAlignedObjectArray<btVector3> scratch_v;
  btAlignedObjectArray<btMatrix3x3> scratch_m;
  for (auto& body : w.multibodies) {
    body->clearForcesAndTorques();
    body->addBaseForce(w.world.getGravity() * body->getBaseMass());
    for (int i = 0; i < body->getNumLinks(); ++i) body->addLinkForce(i, w.world.getGravity() * body->getLinkMass(i));
    body->computeAccelerationsArticulatedBodyAlgorithmMultiDof(1.0, scratch_r, scratch_v, scratch_m, false, false, false);
  }
  std::vector<double> qdd(static_cast<std::size_t>(scene.problem.nv), 0.0);
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    if (w.where[i].link < 0) continue;
    const JointSlice& j = scene.bodies[i].joint;
    qdd[j.idx_v] = w.multibodyOf(i).getJointVel(w.where[i].link) - scene.v_check[j.idx_v];
  }
  return qdd;
}

}  // namespace

std::vector<StepReport> addBulletStep(const StepScene& scene) {
  StepReport report;
  report.library = "bullet";
  for (const StepBody& b : scene.bodies) {
    if (b.joint.floating ? b.parent >= 0 : b.joint.nv != 1) {
      report.error = "only floating joints from the world and revolute joints are built";
      return {report};
    }
  }
  report.note = "btMultiBodyConstraintSolver, " + std::to_string(scene.iterations) + " iterations, Bullet " +
                std::to_string(btGetVersion());
  report.free_qdd = freeAccelerations(scene);
  {
    BulletWorld w(scene);
    w.setState(scene.q0, scene.v0);
    long contacts = 0;
    for (int k = 0; k < scene.steps; ++k) contacts += w.step();
    w.getState(report.q_end, report.v_end);
    report.mean_contacts = static_cast<double>(contacts) / scene.steps;
  }
  benchmark::RegisterBenchmark(("StepRun/" + scene.label + "/bullet").c_str(), [&scene](benchmark::State& state) {
    for (auto _ : state) {
      state.PauseTiming();
      auto w = std::make_unique<BulletWorld>(scene);
      w->setState(scene.q0, scene.v0);
      state.ResumeTiming();
      for (int k = 0; k < scene.steps; ++k) benchmark::DoNotOptimize(w->step());
      state.PauseTiming();
      w.reset();
      state.ResumeTiming();
    }
    state.counters["per_step"] = benchmark::Counter(static_cast<double>(scene.steps) * state.iterations(),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  });
  return {report};
}

}  // namespace abdyn_bench
