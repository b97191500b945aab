// Bullet's btMultiBody (Featherstone's articulated bodies in Bullet 3, Debian's libbullet-dev, double
// precision) in bench_step_peers: the scene built in code, stepped by btMultiBodyDynamicsWorld with
// btMultiBodyConstraintSolver (sequential impulses, i.e. projected Gauss-Seidel on the contact, limit
// and motor rows).
//
// btMultiBody wants every link frame at the link's centre of mass with its axes along the principal
// axes (a diagonal inertia). So each body frame B is replaced by L: origin at c, axes P from
// Ic = P diag(d) P^T (det P = +1), x_B = P x_L + c. Then, for body i with parent p, at q = 0:
//   rotParentToThis            P_i^T R_p_i^T P_p      (parent-L coordinates to this-L coordinates)
//   joint axis                 P_i^T a
//   parentComToThisPivotOffset P_p^T (p_p_i - c_p)    (the pivot is B_i's origin)
//   thisPivotToThisComOffset   P_i^T c_i
// Everything Bullet adds by default that the other engines do not have is off: link damping, the
// velocity cap, self-collision, sleeping. Joint damping is applied as an explicit joint torque each
// step (-d qdot), joint friction as a velocity motor towards 0 bounded by friction * h (as Bullet's own
// URDF importer does), limits by btMultiBodyJointLimitConstraint. Shapes are only tested against the
// ground (collision filter), as in abdyn's scene. Collision margins are 1 mm.

#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

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

// The scene in one Bullet world; the destructor takes it apart in Bullet's order.
struct BulletWorld {
  explicit BulletWorld(const StepScene& scene);
  ~BulletWorld();
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  void setState(const std::vector<double>& q, const std::vector<double>& v);
  void getState(std::vector<double>& q, std::vector<double>& v) const;
  int step();  // one step of scene.h; returns the number of contact points

  const StepScene& scene;
  std::vector<Eigen::Matrix3d> P;  // per body
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btMultiBodyConstraintSolver solver;
  btMultiBodyDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
  std::unique_ptr<btMultiBody> body;
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
  body = std::make_unique<btMultiBody>(n - 1, s.bodies[0].mass, btv(d[0]), false, false);
  for (int i = 1; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    const int p = b.parent;
    const Eigen::Matrix3d R = mat(b.R_parent_body);
    body->setupRevolute(i - 1, b.mass, btv(d[i]), p - 1, quat(P[i].transpose() * R.transpose() * P[p]),
                        btv(P[i].transpose() * vec(b.axis)), btv(P[p].transpose() * (vec(b.p_parent_body) - vec(s.bodies[p].com))),
                        btv(P[i].transpose() * vec(b.com)), true);
  }
  body->finalizeMultiDof();
  body->setLinearDamping(0);
  body->setAngularDamping(0);
  body->setMaxCoordinateVelocity(1e6);
  body->setMaxAppliedImpulse(1e6);
  body->setCanSleep(false);
  body->setHasSelfCollision(false);
  body->setUseGyroTerm(true);
  world.addMultiBody(body.get());
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
      const Eigen::Vector3d x = P[i].transpose() * (vec(shape.p_body_shape) - vec(b.com));
      compound->addChildShape(btTransform(btm(R), btv(x)), child.get());
      shapes.push_back(std::move(child));
    }
    compound->setMargin(kMargin);
    auto collider = std::make_unique<btMultiBodyLinkCollider>(body.get(), i - 1);
    collider->setCollisionShape(compound.get());
    collider->setFriction(s.mu);
    collider->setRestitution(0);
    world.addCollisionObject(collider.get(), kLinkGroup, kGroundGroup);
    if (i == 0) {
      body->setBaseCollider(collider.get());
    } else {
      body->getLink(i - 1).m_collider = collider.get();
    }
    shapes.push_back(std::move(compound));
    colliders.push_back(std::move(collider));
  }
  ground.setCollisionShape(&ground_shape);
  ground.setFriction(1.0);  // Bullet multiplies the two frictions: 1 * mu
  ground.setRestitution(0);
  world.addCollisionObject(&ground, kGroundGroup, kLinkGroup);

  for (int i = 1; i < n; ++i) {
    const StepBody& b = s.bodies[i];
    if (b.lower < b.upper) constraints.push_back(std::make_unique<btMultiBodyJointLimitConstraint>(body.get(), i - 1, b.lower, b.upper));
    if (b.friction > 0) constraints.push_back(std::make_unique<btMultiBodyJointMotor>(body.get(), i - 1, 0.0, b.friction * s.h));
  }
  for (auto& c : constraints) world.addMultiBodyConstraint(c.get());
}

BulletWorld::~BulletWorld() {
  for (auto& c : constraints) world.removeMultiBodyConstraint(c.get());
  world.removeCollisionObject(&ground);
  for (auto& c : colliders) world.removeCollisionObject(c.get());
  world.removeMultiBody(body.get());
}

void BulletWorld::setState(const std::vector<double>& q, const std::vector<double>& v) {
  const StepBody& root = scene.bodies[0];
  const Eigen::Matrix3d R = quaternionRotation(q[3], q[4], q[5], q[6]);
  const Eigen::Vector3d c = vec(root.com), w(v[0], v[1], v[2]), lin(v[3], v[4], v[5]);
  body->setBasePos(btv(Eigen::Vector3d(q[0], q[1], q[2]) + R * c));
  body->setWorldToBaseRot(quat((R * P[0]).transpose()));
  body->setBaseOmega(btv(R * w));
  body->setBaseVel(btv(R * (lin + w.cross(c))));
  for (std::size_t i = 1; i < scene.bodies.size(); ++i) {
    const JointSlice& j = scene.bodies[i].joint;
    body->setJointPos(static_cast<int>(i) - 1, q[j.idx_q]);
    body->setJointVel(static_cast<int>(i) - 1, v[j.idx_v]);
  }
  btAlignedObjectArray<btQuaternion> rotations;
  btAlignedObjectArray<btVector3> origins;
  body->forwardKinematics(rotations, origins);
  body->updateCollisionObjectWorldTransforms(rotations, origins);
}

void BulletWorld::getState(std::vector<double>& q, std::vector<double>& v) const {
  const StepBody& root = scene.bodies[0];
  const Eigen::Matrix3d R = rotation(body->getWorldToBaseRot().inverse()) * P[0].transpose();
  const Eigen::Vector3d c = vec(root.com);
  const Eigen::Vector3d p = eig(body->getBasePos()) - R * c;
  const Eigen::Quaterniond o(R);
  const Eigen::Vector3d w = R.transpose() * eig(body->getBaseOmega());
  const Eigen::Vector3d lin = R.transpose() * eig(body->getBaseVel()) - w.cross(c);
  q.assign(static_cast<std::size_t>(scene.problem.nq), 0.0);
  v.assign(static_cast<std::size_t>(scene.problem.nv), 0.0);
  for (int k = 0; k < 3; ++k) {
    q[k] = p[k];
    v[k] = w[k];
    v[3 + k] = lin[k];
  }
  q[3] = o.w();
  q[4] = o.x();
  q[5] = o.y();
  q[6] = o.z();
  for (std::size_t i = 1; i < scene.bodies.size(); ++i) {
    const JointSlice& j = scene.bodies[i].joint;
    q[j.idx_q] = body->getJointPos(static_cast<int>(i) - 1);
    v[j.idx_v] = body->getJointVel(static_cast<int>(i) - 1);
  }
}

int BulletWorld::step() {
  for (std::size_t i = 1; i < scene.bodies.size(); ++i) {
    const int link = static_cast<int>(i) - 1;
    body->addJointTorque(link, -scene.bodies[i].damping * body->getJointVel(link));
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
  w.body->clearForcesAndTorques();
  w.body->addBaseForce(w.world.getGravity() * w.body->getBaseMass());
  for (int i = 0; i < w.body->getNumLinks(); ++i) w.body->addLinkForce(i, w.world.getGravity() * w.body->getLinkMass(i));
  w.body->computeAccelerationsArticulatedBodyAlgorithmMultiDof(1.0, scratch_r, scratch_v, scratch_m, false, false, false);
  std::vector<double> qdd(static_cast<std::size_t>(scene.problem.nv), 0.0);
  for (std::size_t i = 1; i < scene.bodies.size(); ++i) {
    const JointSlice& j = scene.bodies[i].joint;
    qdd[j.idx_v] = w.body->getJointVel(static_cast<int>(i) - 1) - scene.v_check[j.idx_v];
  }
  return qdd;
}

}  // namespace

std::vector<StepReport> addBulletStep(const StepScene& scene) {
  StepReport report;
  report.library = "bullet";
  for (std::size_t i = 1; i < scene.bodies.size(); ++i) {
    if (scene.bodies[i].parent < 0 || scene.bodies[i].joint.nv != 1) {
      report.error = "only a floating root with revolute joints is built";
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
