// abdyn's joint coordinates applied to urdf-loader's objects.
//
// Joint motions are set on urdf-loader's joint objects directly from abdyn's coordinates (pose of the
// joint's child frame = origin * motion), not through setJointValue: urdf-loader's floating joints take
// roll-pitch-yaw, and a floating base added by --floating (`root_joint`) is not in the URDF at all, so its
// q (x, y, z, qw, qx, qy, qz) is the root link's pose in the world, set on the robot itself.
// abdyn stores quaternions (w, x, y, z); THREE.Quaternion takes (x, y, z, w).

import * as THREE from 'three';

// Quaternion from abdyn's (w, x, y, z) storage.
export const quaternionWxyz = (w, x, y, z) => new THREE.Quaternion(x, y, z, w).normalize();
export const vector = (a) => new THREE.Vector3(a[0], a[1], a[2]);

// Pose of a joint's child frame relative to its predecessor frame for abdyn's coordinates qj of the
// joint (joint.hpp's table): returns [position, quaternion].
export function jointMotion(joint, qj) {
  const p = new THREE.Vector3();
  const R = new THREE.Quaternion();
  const axis = vector(joint.axis);
  switch (joint.type) {
    case 'revolute':
      R.setFromAxisAngle(axis, qj[0]);
      break;
    case 'prismatic':
      p.copy(axis).multiplyScalar(qj[0]);
      break;
    case 'helical':
      R.setFromAxisAngle(axis, qj[0]);
      p.copy(axis).multiplyScalar(joint.pitch * qj[0]);
      break;
    case 'spherical':
      R.copy(quaternionWxyz(qj[0], qj[1], qj[2], qj[3]));
      break;
    case 'planar': {
      // x, y along t1 and t2 = n x t1, theta about n
      const t1 = vector(joint.axis2);
      const t2 = new THREE.Vector3().crossVectors(axis, t1);
      p.copy(t1).multiplyScalar(qj[0]).addScaledVector(t2, qj[1]);
      R.setFromAxisAngle(axis, qj[2]);
      break;
    }
    case 'floating':
      p.set(qj[0], qj[1], qj[2]);
      R.copy(quaternionWxyz(qj[3], qj[4], qj[5], qj[6]));
      break;
    default:
      throw new Error(`joint '${joint.name}' has type '${joint.type}', which the viewer cannot draw`);
  }
  return [p, R];
}

// The objects whose local pose is origin * motion(q), one per joint of the model; `say` reports joints
// the URDF text lacks.
export function jointTargets(model, robot, say) {
  const targets = [];
  for (const joint of model.joints) {
    let object = robot.joints[joint.name];
    if (!object && model.floating && joint.name === 'root_joint') object = robot;
    if (!object) {
      say('error', `joint '${joint.name}' of the model is not in the URDF text`);
      continue;
    }
    targets.push({ joint, object, origin: [object.position.clone(), object.quaternion.clone()] });
  }
  return targets;
}

// Poses every target for the configuration q (a Float64Array of nq).
export function applyConfiguration(targets, q) {
  for (const { joint, object, origin } of targets) {
    const [p, R] = jointMotion(joint, q.subarray(joint.idx_q, joint.idx_q + joint.nq));
    object.position.copy(p.applyQuaternion(origin[1]).add(origin[0]));
    object.quaternion.copy(origin[1]).multiply(R);
  }
}

// Units of each coordinate of q and v by joint type (joint.hpp's table): null for the components of a
// unit quaternion, which have none and are not plotted.
export function coordinateUnits(joint) {
  const angle = { q: 'rad', v: 'rad/s' };
  const length = { q: 'm', v: 'm/s' };
  switch (joint.type) {
    case 'revolute':
    case 'helical':
      return { q: ['rad'], v: ['rad/s'] };
    case 'prismatic':
      return { q: ['m'], v: ['m/s'] };
    case 'spherical':
      return { q: [null, null, null, null], v: [angle.v, angle.v, angle.v] };
    case 'planar':
      return { q: [length.q, length.q, angle.q], v: [angle.v, length.v, length.v] };
    case 'floating':
      return { q: [length.q, length.q, length.q, null, null, null, null], v: [angle.v, angle.v, angle.v, length.v, length.v, length.v] };
    default:
      return { q: Array(joint.nq).fill(null), v: Array(joint.nv).fill(null) };
  }
}
