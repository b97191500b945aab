// The plots beside the scene (uPlot): energy, joint coordinates and velocities by unit, constraint error,
// contacts and solver iterations, each with a vertical line at the replay's current time.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { coordinateUnits } from './kinematics.js';

// Tick labels that stay readable from 1e-12 (constraint errors) to 1e3 (energies).
const tickLabel = (v) => (v === 0 ? '0' : Math.abs(v) < 1e-2 || Math.abs(v) >= 1e5 ? v.toExponential(1) : String(+v.toPrecision(4)));
const colors = ['#d1495b', '#00798c', '#30343f', '#edae49', '#66a182', '#8d6a9f', '#2e4057', '#c3423f', '#9bc53d', '#5bc0eb'];

function makePlot(parent, title, x, series, cursor) {
  const box = document.createElement('div');
  box.className = 'plot';
  parent.appendChild(box);
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

// The joints' coordinates of `kind` ('q' or 'v') grouped by unit: { unit: [{ label, values }] } in the
// model's coordinate order, labelled with the joint's name (and [k] for a joint with several).
function jointSeries(model, trajectory, kind) {
  const groups = {};
  const rows = trajectory[kind];
  for (const joint of model.joints) {
    const units = coordinateUnits(joint)[kind];
    const start = kind === 'q' ? joint.idx_q : joint.idx_v;
    units.forEach((unit, k) => {
      if (!unit) return;
      const label = units.length === 1 ? joint.name : `${joint.name}[${k}]`;
      const values = Float64Array.from(rows, (row) => row[start + k]);
      (groups[unit] ||= []).push({ label, values });
    });
  }
  return groups;
}

const jointTitles = { rad: 'Joint angles (rad)', m: 'Joint positions (m)', 'rad/s': 'Joint velocities (rad/s)', 'm/s': 'Joint velocities (m/s)' };

// Draws every plot the trajectory has data for into `aside`; returns them by name (the browser test
// counts their points).
export function drawPlots(aside, model, trajectory, cursor) {
  const plots = {};
  const s = trajectory.series;
  const t = trajectory.t;
  plots.energy = makePlot(aside, 'Energy (J)', t, [
    { label: 'kinetic', values: s.kinetic }, { label: 'potential', values: s.potential }, { label: 'total', values: s.total }], cursor);
  for (const kind of ['q', 'v']) {
    for (const [unit, series] of Object.entries(jointSeries(model, trajectory, kind))) {
      plots[`joints ${unit}`] = makePlot(aside, jointTitles[unit], t, series, cursor);
    }
  }
  if (s.constraint_error) plots.constraint_error = makePlot(aside, 'Constraint error', t, [{ label: 'error', values: s.constraint_error }], cursor);
  if (s.contacts) plots.contacts = makePlot(aside, 'Contacts', t, [{ label: 'contacts', values: s.contacts }], cursor);
  if (s.iterations) plots.iterations = makePlot(aside, 'Solver iterations', t, [{ label: 'iterations', values: s.iterations }], cursor);
  return plots;
}
