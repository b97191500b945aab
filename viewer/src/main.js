// abdyn's viewer page: the robot of a URDF file (three.js, urdf-loader), the replay of a trajectory
// written by `abdyn simulate --csv`, and plots of its energy and constraint statistics (uPlot).
//
// Everything comes from data.js, which `abdyn view` writes next to this bundle:
//   window.ABDYN_DATA = { model: { name, urdf, floating, nq, nv, joints, loops, meshes, missing_meshes,
//                                  ground }, trajectory: { name, text } | null }
// joints lists abdyn's joints in q order with their type, sizes, axis (unit, joint frame) and, for
// planar joints, the in-plane direction t1; abdyn computed them, so the page follows abdyn's model, not
// its own reading of the URDF. The page never fetches anything, so it opens from file:// as well.
//
// Conventions where data crosses from abdyn to three.js:
// - abdyn is z-up like URDF; three.js is y-up. The robot hangs in a group `world` turned -90 degrees
//   about x, and every pose the page reports is taken in that group's (abdyn's world) coordinates.
// - abdyn stores quaternions (w, x, y, z); THREE.Quaternion takes (x, y, z, w).
// - Joint motions are set on urdf-loader's joint objects directly from abdyn's coordinates (pose of the
//   joint's child frame = origin * motion), not through setJointValue: urdf-loader's floating joints take
//   roll-pitch-yaw, and a floating base added by --floating (`root_joint`) is not in the URDF at all,
//   so its q (x, y, z, qw, qx, qy, qz) is the root link's pose in the world, set on the robot itself.

import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { ColladaLoader } from 'three/examples/jsm/loaders/ColladaLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import URDFLoader from 'urdf-loader';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { parseTrajectory, TrajectoryError } from './trajectory.js';

const messages = [];
function say(kind, text) {
  messages.push({ kind, text });
  const box = document.getElementById('messages');
  const div = document.createElement('div');
  div.className = kind;
  div.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  div.textContent = text;
  box.appendChild(div);
}

// Quaternion from abdyn's (w, x, y, z) storage.
const quaternionWxyz = (w, x, y, z) => new THREE.Quaternion(x, y, z, w).normalize();
const vector = (a) => new THREE.Vector3(a[0], a[1], a[2]);

function decodeBase64(text) {
  const bytes = atob(text);
  const out = new Uint8Array(bytes.length);
  for (let k = 0; k < bytes.length; ++k) out[k] = bytes.charCodeAt(k);
  return out.buffer;
}

// Meshes arrive base64-encoded in data.js under the filename written in the URDF; urdf-loader hands
// that filename to this callback unchanged (see `packages` and `workingPath` below).
function meshLoader(meshes, unsupported) {
  return (path, manager, material, done) => {
    const entry = meshes[path];
    if (!entry) {
      done(null);  // abdyn view could not find it; the note lists it
      return;
    }
    const buffer = decodeBase64(entry.base64);
    const ext = path.split('.').pop().toLowerCase();
    if (ext === 'stl') {
      done(new THREE.Mesh(new STLLoader().parse(buffer), material || new THREE.MeshPhongMaterial()));
    } else if (ext === 'dae') {
      done(new ColladaLoader().parse(new TextDecoder().decode(buffer), '').scene);
    } else if (ext === 'obj') {
      const group = new OBJLoader().parse(new TextDecoder().decode(buffer));
      if (material) group.traverse((o) => { if (o.isMesh) o.material = material; });
      done(group);
    } else {
      unsupported.push(path);
      done(null);
    }
  };
}

// Pose of a joint's child frame relative to its predecessor frame for abdyn's coordinates qj of the
// joint (joint.hpp's table): returns [position, quaternion].
function jointMotion(joint, qj) {
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

// Tick labels that stay readable from 1e-12 (constraint errors) to 1e3 (energies).
const tickLabel = (v) => (v === 0 ? '0' : Math.abs(v) < 1e-2 || Math.abs(v) >= 1e5 ? v.toExponential(1) : String(+v.toPrecision(4)));

function makePlot(parent, title, x, series, cursor) {
  const box = document.createElement('div');
  box.className = 'plot';
  parent.appendChild(box);
  const colors = ['#d1495b', '#00798c', '#30343f', '#edae49'];
  const opts = {
    title,
    width: 400,
    height: 170,
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false } },
    axes: [{ label: 't (s)', size: 30, labelSize: 14 }, { size: 60, values: (u, ticks) => ticks.map(tickLabel) }],
    series: [{ label: 't' }, ...series.map((s, k) => ({ label: s.label, stroke: colors[k % colors.length], width: 1.5 }))],
    hooks: {
      // the replay cursor: a vertical line at the current time
      draw: [(u) => {
        const left = u.valToPos(cursor.time, 'x', true);
        const ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = '#222';
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(left, u.bbox.top);
        ctx.lineTo(left, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      }],
    },
  };
  return new uPlot(opts, [x, ...series.map((s) => s.values)], box);
}

function start() {
  const data = window.ABDYN_DATA;
  if (!data) {
    say('error', 'data.js is missing: open a page written by `abdyn view` or `abdyn simulate --html`');
    return;
  }
  const model = data.model;
  document.getElementById('title').textContent =
    `${model.name}${model.floating ? ' (floating base)' : ''}` + (data.trajectory ? ` \u2014 ${data.trajectory.name}` : '');

  // ---- trajectory
  let trajectory = null;
  if (data.trajectory) {
    try {
      trajectory = parseTrajectory(data.trajectory.text, model, data.trajectory.name);
    } catch (e) {
      if (!(e instanceof TrajectoryError)) throw e;
      say('error', e.message + ' \u2014 showing the model in its neutral configuration');
    }
  }

  // ---- scene
  const canvas = document.getElementById('scene');
  let renderer;
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

  const unsupported = [];
  const loader = new URDFLoader();
  loader.workingPath = '';
  loader.packages = (pkg) => 'package://' + pkg;  // hands the URDF's filename to meshLoader unchanged
  loader.loadMeshCb = meshLoader(model.meshes, unsupported);
  // Comments carry nothing of the model, and urdfdom accepts some that XML forbids (a "--" inside):
  // drop them before the browser's strict parser sees the text.
  const urdf = new DOMParser().parseFromString(model.urdf.replace(/<!--[\s\S]*?-->/g, ''), 'text/xml');
  const xmlError = urdf.querySelector('parsererror');
  if (xmlError || !urdf.querySelector('robot')) {
    say('error', `the browser cannot read the URDF text as XML: ${xmlError ? xmlError.textContent : 'no <robot> element'}`);
    return;
  }
  const robot = loader.parse(urdf);
  world.add(robot);
  if (model.missing_meshes.length) {
    say('note', `meshes not found (drawn without them): ${model.missing_meshes.join(', ')}`);
  }
  if (unsupported.length) say('note', `mesh formats the viewer cannot read (STL, DAE and OBJ only): ${unsupported.join(', ')}`);

  // Joint targets: the object whose local pose is origin * motion(q).
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

  // ---- loop joints: a line between the two frames Fa and Fb, and a dot on each
  const linkObject = (name) => robot.links[name] || world;
  const loopDrawings = model.loops.map((loop) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
    const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: 0xff7f00 }));
    const dotGeometry = new THREE.SphereGeometry(1, 16, 12);
    const dotMaterial = new THREE.MeshBasicMaterial({ color: 0xff7f00 });
    const dots = [new THREE.Mesh(dotGeometry, dotMaterial), new THREE.Mesh(dotGeometry, dotMaterial)];
    world.add(line, ...dots);
    return { loop, line, dots };
  });
  const worldPoint = (link, p) => world.worldToLocal(linkObject(link).localToWorld(vector(p)));

  function updateLoops() {
    for (const { loop, line, dots } of loopDrawings) {
      const a = worldPoint(loop.link_a, loop.p_a);
      const b = worldPoint(loop.link_b, loop.p_b);
      const pos = line.geometry.attributes.position;
      pos.setXYZ(0, a.x, a.y, a.z);
      pos.setXYZ(1, b.x, b.y, b.z);
      pos.needsUpdate = true;
      dots[0].position.copy(a);
      dots[1].position.copy(b);
    }
  }

  function setConfiguration(q) {
    for (const { joint, object, origin } of targets) {
      const [p, R] = jointMotion(joint, q.subarray(joint.idx_q, joint.idx_q + joint.nq));
      object.position.copy(p.applyQuaternion(origin[1]).add(origin[0]));
      object.quaternion.copy(origin[1]).multiply(R);
    }
    scene.updateMatrixWorld(true);
    updateLoops();
  }

  const neutral = new Float64Array(model.neutral);
  const rows = trajectory ? trajectory.t.length : 0;
  let row = 0;
  setConfiguration(rows ? trajectory.q[0] : neutral);

  // ---- camera: framed on the robot over the whole replay
  const box = new THREE.Box3().setFromObject(robot);
  for (let r = 0; r < rows; r += Math.max(1, Math.floor(rows / 50))) {
    setConfiguration(trajectory.q[r]);
    box.union(new THREE.Box3().setFromObject(robot));
  }
  if (rows) setConfiguration(trajectory.q[0]);
  if (box.isEmpty()) box.setFromCenterAndSize(new THREE.Vector3(), new THREE.Vector3(1, 1, 1));
  const size = box.getSize(new THREE.Vector3()).length();
  const center = box.getCenter(new THREE.Vector3());
  const dotRadius = 0.01 * size;
  for (const { dots } of loopDrawings) dots.forEach((d) => d.scale.setScalar(dotRadius));

  const extent = Math.max(2, Math.ceil(1.5 * size));
  const ground = new THREE.GridHelper(extent, 4 * extent, 0x999999, 0xcccccc);
  ground.rotation.x = Math.PI / 2;  // into the z = ground plane of `world`
  // the given ground, else z = 0 when the robot stays above it, else under the robot's lowest point
  // (a pendulum hangs below its support at z = 0); box is in three.js axes, where z-up is y
  ground.position.z = model.ground ?? Math.min(0, box.min.y);
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

  // ---- plots
  const cursor = { time: rows ? trajectory.t[0] : 0 };
  const plots = {};
  if (rows) {
    const aside = document.getElementById('plots');
    const s = trajectory.series;
    plots.energy = makePlot(aside, 'Energy (J)', trajectory.t, [
      { label: 'kinetic', values: s.kinetic }, { label: 'potential', values: s.potential }, { label: 'total', values: s.total }], cursor);
    if (s.constraint_error) {
      plots.constraint_error = makePlot(aside, 'Constraint error', trajectory.t, [{ label: 'error', values: s.constraint_error }], cursor);
    }
    if (s.contacts) plots.contacts = makePlot(aside, 'Contacts', trajectory.t, [{ label: 'contacts', values: s.contacts }], cursor);
    if (s.iterations) {
      plots.iterations = makePlot(aside, 'Solver iterations', trajectory.t, [{ label: 'iterations', values: s.iterations }], cursor);
    }
  }

  // ---- replay
  const playButton = document.getElementById('play');
  const slider = document.getElementById('time');
  const clock = document.getElementById('clock');
  const speed = document.getElementById('speed');
  slider.max = String(Math.max(0, rows - 1));
  let playing = false;
  let replayTime = cursor.time;

  function showRow(r) {
    row = Math.min(Math.max(0, r), Math.max(0, rows - 1));
    if (rows) {
      setConfiguration(trajectory.q[row]);
      cursor.time = trajectory.t[row];
      slider.value = String(row);
      clock.textContent = `t = ${trajectory.t[row].toFixed(3)} s / ${trajectory.t[rows - 1].toFixed(3)} s`;
      for (const p of Object.values(plots)) p.redraw(false, false);
    } else {
      clock.textContent = data.trajectory ? 'no trajectory' : 'no trajectory (give --csv)';
    }
    render();
  }
  // The last row at or before time t.
  function rowAt(t) {
    let lo = 0;
    let hi = rows - 1;
    if (t <= trajectory.t[0]) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (trajectory.t[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  function setPlaying(on) {
    playing = on && rows > 1;
    playButton.textContent = playing ? 'Pause' : 'Play';
    last = performance.now();
  }
  let last = performance.now();
  function frame(now) {
    if (playing) {
      replayTime += ((now - last) / 1000) * Number(speed.value);
      if (replayTime > trajectory.t[rows - 1]) replayTime = trajectory.t[0];
      showRow(rowAt(replayTime));
    }
    last = now;
    requestAnimationFrame(frame);
  }
  playButton.addEventListener('click', () => setPlaying(!playing));
  slider.addEventListener('input', () => {
    showRow(Number(slider.value));
    replayTime = cursor.time;
  });
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space') {
      setPlaying(!playing);
      e.preventDefault();
    }
  });
  window.addEventListener('resize', render);
  playButton.disabled = rows < 2;
  slider.disabled = rows < 2;

  showRow(0);
  setPlaying(rows > 1 && !/[?&]paused\b/.test(location.search));
  requestAnimationFrame(frame);

  // ---- what the browser test reads (tests/viewer/)
  const toWorld = new THREE.Matrix4();
  window.abdynViewer = {
    ready: true,
    rows: () => rows,
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    // show row r (0-based) / the last row at or before time t
    setRow: (r) => { setPlaying(false); showRow(r); replayTime = cursor.time; },
    setTime: (t) => { setPlaying(false); showRow(rows ? rowAt(t) : 0); replayTime = cursor.time; },
    row: () => row,
    // every URDF link's pose in abdyn's world: position and quaternion (w, x, y, z)
    linkPoses: () => {
      scene.updateMatrixWorld(true);
      toWorld.copy(world.matrixWorld).invert();
      const out = {};
      for (const [name, link] of Object.entries(robot.links)) {
        const m = new THREE.Matrix4().multiplyMatrices(toWorld, link.matrixWorld);
        const p = new THREE.Vector3();
        const r = new THREE.Quaternion();
        m.decompose(p, r, new THREE.Vector3());
        out[name] = { p: [p.x, p.y, p.z], q: [r.w, r.x, r.y, r.z] };
      }
      return out;
    },
    // the two ends of each loop joint in abdyn's world
    loopEnds: () => model.loops.map((loop) => ({
      name: loop.name, a: worldPoint(loop.link_a, loop.p_a).toArray(), b: worldPoint(loop.link_b, loop.p_b).toArray() })),
    plotPoints: () => Object.fromEntries(Object.entries(plots).map(([k, p]) => [k, p.data.slice(1).map((s) => s.length)])),
    messages: () => messages.slice(),
    setRobotVisible: (on) => { robot.visible = on; loopDrawings.forEach((d) => { d.line.visible = on; d.dots.forEach((x) => { x.visible = on; }); }); render(); },
  };
}

try {
  start();
} catch (e) {
  say('error', 'the viewer failed: ' + e.message);
  throw e;
}
