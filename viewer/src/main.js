// abdyn's viewer page: the robot of a URDF file (three.js, urdf-loader), the replay of a trajectory
// written by `abdyn simulate --csv`, and plots of its energy, joint coordinates and constraint statistics
// (uPlot).
//
// Everything comes from data.js, which `abdyn view` writes next to this bundle (app/page.cpp):
//   window.ABDYN_DATA = { model: { name, urdf, floating, nq, nv, neutral, ground, joints, loops, bodies,
//                                  world_visual, collision, meshes, missing_meshes },
//                         trajectory: { name, text } | null }
// joints lists abdyn's joints in q order with their type, sizes, offsets, axis (unit, joint frame) and,
// for planar joints, the in-plane direction t1; bodies (in the same order) says what stands in for a
// body without visual shapes (stand_ins.js). abdyn computed them, so the page follows abdyn's model, not
// its own reading of the URDF. The page never fetches anything, so it opens from file:// as well.
//
// The modules: scene.js (renderer, camera, ground), meshes.js (the URDF's robot and its meshes),
// kinematics.js (abdyn's coordinates on the robot), stand_ins.js (bodies without visuals), loops.js,
// plots.js, replay.js, trajectory.js (the CSV), messages.js.

import * as THREE from 'three';
import './style.css';
import { applyConfiguration, jointTargets } from './kinematics.js';
import { drawLoops } from './loops.js';
import { messages, say } from './messages.js';
import { loadRobot } from './meshes.js';
import { drawPlots } from './plots.js';
import { replayControls } from './replay.js';
import { createScene, frameView, replayBounds } from './scene.js';
import { describeStandIns, drawStandIns, kinematicSize } from './stand_ins.js';
import { parseTrajectory, TrajectoryError } from './trajectory.js';

function readTrajectory(data) {
  if (!data.trajectory) return null;
  try {
    return parseTrajectory(data.trajectory.text, data.model, data.trajectory.name);
  } catch (e) {
    if (!(e instanceof TrajectoryError)) throw e;
    say('error', e.message + ' \u2014 showing the model in its neutral configuration');
    return null;
  }
}

// What the browser test reads (tests/viewer/).
function testInterface({ world, scene, robot, loops, plots, replay, drawn, render }) {
  const toWorld = new THREE.Matrix4();
  return {
    ready: true,
    rows: () => replay.rows,
    play: replay.play,
    pause: replay.pause,
    // show row r (0-based) / the last row at or before time t
    setRow: replay.setRow,
    setTime: replay.setTime,
    row: replay.row,
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
    loopEnds: loops.ends,
    plotPoints: () => Object.fromEntries(Object.entries(plots).map(([k, p]) => [k, p.data.slice(1).map((s) => s.length)])),
    plotSeries: (key, k) => Array.from(plots[key].data[k + 1]),
    plotLabels: () => Object.fromEntries(Object.entries(plots).map(([k, p]) => [k, p.series.slice(1).map((s) => s.label)])),
    // the names of the bodies drawn by their visuals, collision shapes, or as a stick figure
    drawn: () => drawn,
    messages: () => messages.slice(),
    setRobotVisible: (on) => { robot.visible = on; loops.setVisible(on); render(); },
  };
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
  const trajectory = readTrajectory(data);

  const canvas = document.getElementById('scene');
  const view = createScene(canvas, say);
  const robot = loadRobot(model, say);
  if (!robot) return;
  view.world.add(robot);
  const targets = jointTargets(model, robot, say);
  const loops = drawLoops(model, robot, view.world);
  const setConfiguration = (q) => {
    applyConfiguration(targets, q);
    view.scene.updateMatrixWorld(true);
    loops.update();
  };

  const neutral = new Float64Array(model.neutral);
  const rows = trajectory ? trajectory.t.length : 0;
  setConfiguration(rows ? trajectory.q[0] : neutral);
  const drawn = drawStandIns(model, robot, kinematicSize(model, robot, view.world));
  document.getElementById('drawn').textContent = describeStandIns(drawn);

  // the camera framed on the robot over the whole replay
  const box = replayBounds(robot, (add) => {
    add();
    for (let r = 0; r < rows; r += Math.max(1, Math.floor(rows / 50))) {
      setConfiguration(trajectory.q[r]);
      add();
    }
    if (rows) setConfiguration(trajectory.q[0]);
  });
  const { render, size } = frameView(view, canvas, box, model.ground);
  loops.setDotRadius(0.01 * size);

  const cursor = { time: rows ? trajectory.t[0] : 0 };
  const plots = rows ? drawPlots(document.getElementById('plots'), model, trajectory, cursor) : {};
  const replay = replayControls(trajectory, (row) => {
    if (rows) {
      setConfiguration(trajectory.q[row]);
      cursor.time = trajectory.t[row];
      for (const p of Object.values(plots)) p.redraw(false, false);
    }
    render();
  }, data.trajectory ? 'no trajectory' : 'no trajectory (give --csv)');

  window.abdynViewer = testInterface({ world: view.world, scene: view.scene, robot, loops, plots, replay, drawn, render });
}

try {
  start();
} catch (e) {
  say('error', 'the viewer failed: ' + e.message);
  throw e;
}
