// The trajectory CSV that `abdyn simulate --csv` writes, read and checked against the model.
//
// Layout (app/main.cpp): a header line, then one row per step:
//   t, q:<joint>..., v:<joint>..., kinetic, potential
//   [, iterations, residual, constraint_error, contacts]   (with --ground or --limits)
//   [, constraint_error]                                    (models with loop joints)
// A joint with one coordinate is labelled <joint>, a joint with several <joint>[k] (k from 0).
// The file is plain numbers and names without quotes, so a split on commas reads it; anything that does
// not fit the model is reported with the line it is on (lines count from 1, the header is line 1).

export class TrajectoryError extends Error {}

// The q and v column labels the model expects, in its coordinate order.
export function coordinateLabels(joints) {
  const q = [];
  const v = [];
  for (const j of joints) {
    for (let k = 0; k < j.nq; ++k) q.push('q:' + (j.nq === 1 ? j.name : `${j.name}[${k}]`));
    for (let k = 0; k < j.nv; ++k) v.push('v:' + (j.nv === 1 ? j.name : `${j.name}[${k}]`));
  }
  return { q, v };
}

const OPTIONAL = ['iterations', 'residual', 'constraint_error', 'contacts'];

// Returns { t, q and v (one Float64Array of nq, nv per row), series: { kinetic, potential, total, ...optional } }
// or throws TrajectoryError naming the file and line.
export function parseTrajectory(text, model, fileName) {
  const fail = (line, message) => {
    throw new TrajectoryError(`${fileName} line ${line}: ${message}`);
  };
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) fail(1, 'the file is empty (expected a header line starting with t)');

  const header = lines[0].split(',').map((s) => s.trim());
  if (header[0] !== 't') fail(1, `the first column is '${header[0]}', expected 't'`);
  const index = new Map();
  header.forEach((name, c) => {
    if (index.has(name) && name !== 'constraint_error') fail(1, `column '${name}' appears twice`);
    if (!index.has(name)) index.set(name, c);
  });

  const labels = coordinateLabels(model.joints);
  const dims = `model '${model.name}' has nq = ${model.nq}, nv = ${model.nv}`;
  const required = ['t', ...labels.q, ...labels.v, 'kinetic', 'potential'];
  const missing = required.filter((name) => !index.has(name));
  const foreign = header.filter((name) => /^[qv]:/.test(name) && !required.includes(name));
  if (missing.length || foreign.length) {
    const floatingHint = !model.floating && header.some((name) => name.startsWith('q:root_joint['))
      ? ' (the file was written for a floating base: give --floating)'
      : model.floating && !header.some((name) => name.startsWith('q:root_joint['))
        ? ' (the file has no floating base: leave out --floating)'
        : '';
    const parts = [];
    if (missing.length) parts.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}`);
    if (foreign.length) parts.push(`column${foreign.length > 1 ? 's' : ''} ${foreign.map((m) => `'${m}'`).join(', ')} not in the model`);
    fail(1, `${parts.join('; ')}: the ${dims}, so the header needs t, ${labels.q.length} q and ` +
            `${labels.v.length} v columns, kinetic and potential${floatingHint}`);
  }
  const optional = OPTIONAL.filter((name) => index.has(name));

  const rows = lines.length - 1;
  if (rows === 0) fail(1, 'the header is not followed by any rows');
  const t = new Float64Array(rows);
  const q = [];
  const v = [];
  const series = { kinetic: new Float64Array(rows), potential: new Float64Array(rows), total: new Float64Array(rows) };
  for (const name of optional) series[name] = new Float64Array(rows);
  const qColumns = labels.q.map((name) => index.get(name));
  const vColumns = labels.v.map((name) => index.get(name));

  for (let r = 0; r < rows; ++r) {
    const line = r + 2;
    const fields = lines[r + 1].split(',');
    if (fields.length !== header.length) {
      fail(line, `${fields.length} value${fields.length === 1 ? '' : 's'}, but the header (line 1) has ${header.length} columns`);
    }
    const value = (c) => {
      const s = fields[c].trim();
      const x = s === '' ? NaN : Number(s);
      if (!Number.isFinite(x)) fail(line, `column '${header[c]}' holds '${s}', which is not a finite number`);
      return x;
    };
    t[r] = value(0);
    if (r > 0 && !(t[r] > t[r - 1])) fail(line, `time ${t[r]} does not come after the previous row's ${t[r - 1]}`);
    const qr = new Float64Array(qColumns.length);
    qColumns.forEach((c, k) => { qr[k] = value(c); });
    q.push(qr);
    const vr = new Float64Array(vColumns.length);
    vColumns.forEach((c, k) => { vr[k] = value(c); });
    v.push(vr);
    series.kinetic[r] = value(index.get('kinetic'));
    series.potential[r] = value(index.get('potential'));
    series.total[r] = series.kinetic[r] + series.potential[r];
    for (const name of optional) series[name][r] = value(index.get(name));
  }
  return { t, q, v, series };
}
