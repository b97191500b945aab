// The three.js scene: renderer, lights, the z-up `world` group, and the camera and ground framed on the
// robot.
//
// abdyn is z-up like URDF; three.js is y-up. The robot hangs in a group `world` turned -90 degrees about
// x, and every pose the page reports is taken in that group's (abdyn's world) coordinates.

import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

// { renderer (null when the browser has no WebGL), scene, world }.
export function createScene(canvas, say) {
  let renderer = null;
  try {
    renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
  } catch (e) {
    say('error', 'this browser cannot draw WebGL, so the robot is not shown: ' + e.message);
  }
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f4f2);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(3, 6, 4);
  scene.add(sun);
  const world = new THREE.Group();
  world.rotation.x = -Math.PI / 2;  // z-up (abdyn, URDF) inside three.js's y-up scene
  scene.add(world);
  return { renderer, scene, world };
}

// The box (three.js axes) holding `robot` over the configurations `poses` calls back with.
export function replayBounds(robot, poses) {
  const box = new THREE.Box3();
  poses(() => box.union(new THREE.Box3().setFromObject(robot)));
  if (box.isEmpty()) box.setFromCenterAndSize(new THREE.Vector3(), new THREE.Vector3(1, 1, 1));
  return box;
}

// Adds the ground grid and returns { camera, controls, render } looking at `box` (three.js axes).
export function frameView({ renderer, scene, world }, canvas, box, groundHeight) {
  const size = box.getSize(new THREE.Vector3()).length();
  const center = box.getCenter(new THREE.Vector3());
  const extent = Math.max(2, Math.ceil(1.5 * size));
  const ground = new THREE.GridHelper(extent, 4 * extent, 0x999999, 0xcccccc);
  ground.rotation.x = Math.PI / 2;  // into the z = ground plane of `world`
  // the given ground, else z = 0 when the robot stays above it, else under the robot's lowest point
  // (a pendulum hangs below its support at z = 0); box is in three.js axes, where z-up is y
  ground.position.z = groundHeight ?? Math.min(0, box.min.y);
  world.add(ground);

  const camera = new THREE.PerspectiveCamera(40, 1, 0.01 * size, 100 * size);
  // from the front right and a little above (abdyn's -y, +x, +z), i.e. three.js's +z, +x, +y
  camera.position.copy(center).add(new THREE.Vector3(0.45, 0.3, 1).normalize().multiplyScalar(1.3 * size));
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(center);
  controls.update();

  function render() {
    if (!renderer) return;
    const view = document.getElementById('view');
    const w = view.clientWidth;
    const h = view.clientHeight;
    if (canvas.width !== Math.floor(w * devicePixelRatio) || canvas.height !== Math.floor(h * devicePixelRatio)) {
      renderer.setPixelRatio(devicePixelRatio);
      renderer.setSize(w, h, false);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
    }
    renderer.render(scene, camera);
  }
  controls.addEventListener('change', render);
  window.addEventListener('resize', render);
  return { camera, controls, render, size };
}
