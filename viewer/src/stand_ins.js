// What the page draws for a body that has no visual shape (app/page.cpp's "bodies" and "collision"):
// - its collision shapes, when it has some: boxes, cylinders, spheres, capsules, ellipsoids, bounded
//   planes and triangle meshes, in body coordinates (shapes along z, as geometry.hpp defines them);
// - otherwise a stick figure: a red ball at its joint, grey sticks from there to its children's joints and
//   to the ends of its loop joints (or to its centre of mass when it has neither), and a translucent
//   yellow box with its mass and rotational inertia (uniform density) at its centre of mass.
// Everything hangs on urdf-loader's link object of the body, so it moves with the replay.

import * as THREE from 'three';
import { quaternionWxyz, vector } from './kinematics.js';

const collisionMaterial = new THREE.MeshPhongMaterial({ color: 0x7f9bb3 });
const stickMaterial = new THREE.MeshPhongMaterial({ color: 0x59626b });
const jointMaterial = new THREE.MeshPhongMaterial({ color: 0xd1495b });
const inertiaMaterial = new THREE.MeshPhongMaterial({ color: 0xedae49, transparent: true, opacity: 0.5, depthWrite: false });

// A three.js geometry of one collision shape in the shape's own frame, or null (an unbounded plane: the
// ground grid stands for it).
function shapeGeometry(shape) {
  const [a, b, c] = shape.size;
  switch (shape.shape) {
    case 'box':
      return new THREE.BoxGeometry(a, b, c);
    case 'cylinder':  // three.js's cylinders and capsules run along y; abdyn's along z
      return new THREE.CylinderGeometry(a, a, b, 24).rotateX(Math.PI / 2);
    case 'capsule':
      return new THREE.CapsuleGeometry(a, b, 8, 24).rotateX(Math.PI / 2);
    case 'sphere':
      return new THREE.SphereGeometry(a, 24, 16);
    case 'ellipsoid':
      return new THREE.SphereGeometry(1, 24, 16).scale(a, b, c);
    case 'plane':
      return a > 0 && b > 0 ? new THREE.PlaneGeometry(2 * a, 2 * b) : null;
    case 'mesh': {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.Float32BufferAttribute(shape.vertices, 3));
      geometry.setIndex(shape.triangles);
      geometry.computeVertexNormals();
      return geometry;
    }
    default:
      return null;
  }
}

// A stick of radius r from a to b (THREE.Vector3, link coordinates); null when they coincide.
function stick(a, b, r) {
  const d = new THREE.Vector3().subVectors(b, a);
  const length = d.length();
  if (!(length > 1e-9)) return null;
  const mesh = new THREE.Mesh(new THREE.CylinderGeometry(r, r, length, 12), stickMaterial);
  mesh.position.copy(a).addScaledVector(d, 0.5);
  mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.divideScalar(length));
  return mesh;
}

// Adds the stand-ins to `robot` and returns { visual, collision, stick }: the names of the bodies drawn
// each way. `size` (metres) sets the sticks' thickness.
export function drawStandIns(model, robot, size) {
  const drawn = { visual: [], collision: [], stick: [] };
  const r = 0.008 * size;
  const addShapes = (name, group) => {
    for (const shape of model.collision.filter((s) => s.body === name)) {
      const geometry = shapeGeometry(shape);
      if (!geometry) continue;
      const mesh = new THREE.Mesh(geometry, collisionMaterial);
      mesh.position.copy(vector(shape.p));
      mesh.quaternion.copy(quaternionWxyz(...shape.q));
      group.add(mesh);
    }
  };
  for (const body of model.bodies) {
    drawn[body.drawn].push(body.name);
    const link = robot.links[body.name];
    if (!link || body.drawn === 'visual') continue;
    const group = new THREE.Group();
    group.name = `abdyn stand-in of ${body.name}`;
    link.add(group);
    if (body.drawn === 'collision') {
      addShapes(body.name, group);
      continue;
    }
    const origin = new THREE.Vector3();
    const ends = model.bodies.filter((child) => child.parent === body.name).map((child) => vector(child.joint_p));
    for (const loop of model.loops) {
      if (loop.link_a === body.name) ends.push(vector(loop.p_a));
      if (loop.link_b === body.name) ends.push(vector(loop.p_b));
    }
    if (ends.length === 0) ends.push(vector(body.com));
    for (const end of ends) {
      const s = stick(origin, end, r);
      if (s) group.add(s);
    }
    group.add(new THREE.Mesh(new THREE.SphereGeometry(2.5 * r, 16, 12), jointMaterial));
    if (body.box) {
      // a body as thin as a rod or a point mass still gets a box one stick wide
      const [x, y, z] = body.box.map((e) => Math.max(e, 2 * r));
      const box = new THREE.Mesh(new THREE.BoxGeometry(x, y, z), inertiaMaterial);
      box.position.copy(vector(body.com));
      box.quaternion.copy(quaternionWxyz(...body.box_q));
      group.add(box);
    }
  }
  // The world (a fixed base's root link) without a visual: its collision shapes (the ones the contacts collide
  // with), and sticks to the joints and loop ends on it.
  if (!model.world_visual && model.collision.some((s) => s.body === 'world')) {
    const group = new THREE.Group();
    group.name = 'abdyn collision shapes of the world';
    addShapes('world', group);
    robot.add(group);
    drawn.collision.push('world');
  }
  if (!model.world_visual) {
    const ends = model.bodies.filter((b, k) => b.parent === 'world' && model.joints[k].type !== 'floating').map((b) => vector(b.joint_p));
    for (const loop of model.loops) {
      if (loop.link_a === 'world') ends.push(vector(loop.p_a));
      if (loop.link_b === 'world') ends.push(vector(loop.p_b));
    }
    if (ends.length) {
      const group = new THREE.Group();
      group.name = 'abdyn stand-in of the world';
      for (const end of ends) {
        const s = stick(new THREE.Vector3(), end, r);
        if (s) group.add(s);
      }
      group.add(new THREE.Mesh(new THREE.SphereGeometry(2.5 * r, 16, 12), jointMaterial));
      robot.add(group);
    }
  }
  return drawn;
}

// One sentence for the page: what stands in for bodies without visual shapes; empty when all have one.
export function describeStandIns(drawn) {
  const parts = [];
  if (drawn.collision.length) parts.push(`by their collision shapes (blue): ${drawn.collision.join(', ')}`);
  if (drawn.stick.length) {
    parts.push('as a stick figure (red balls at the joints, grey links, yellow boxes of the same mass and inertia ' +
               `at the centres of mass): ${drawn.stick.join(', ')}`);
  }
  return parts.length ? `Bodies without a visual shape are drawn ${parts.join('; and ')}.` : '';
}

// The size of the robot from its link frames and centres of mass, in metres (1 when it is a point):
// the scale of the stick figure, known before anything is drawn.
export function kinematicSize(model, robot, world) {
  const box = new THREE.Box3();
  robot.updateMatrixWorld(true);
  for (const body of model.bodies) {
    const link = robot.links[body.name];
    if (!link) continue;
    box.expandByPoint(world.worldToLocal(link.localToWorld(new THREE.Vector3())));
    box.expandByPoint(world.worldToLocal(link.localToWorld(vector(body.com))));
  }
  const size = box.isEmpty() ? 0 : box.getSize(new THREE.Vector3()).length();
  return size > 0 ? size : 1;
}
