// Browser test of the viewer page (viewer/, app/view.cpp), in Debian's headless Chromium driven by
// playwright-core. Run by CTest (tests/viewer/CMakeLists.txt):
//   node viewer.test.mjs --abdyn PATH --fk PATH --modules NODE_MODULES --source REPO --out DIR
// Exits 77 (CTest's skip) with a message when Chromium or a recent enough Node.js is missing.
//
// Checks, for the double pendulum (2 s) and the humanoid dropped on the ground (floating base, 2 s):
// no console errors and no request leaving the machine; the robot is drawn (screenshots with and without
// it differ); the first and last rows give different pictures; every link pose the page reports matches
// abdyn's forward kinematics of the same CSV row (viewer_fk_reference) to 1e-6 m and 1e-6 in each
// rotation-matrix entry; each plot has one point per CSV row, the joint plots name every coordinate and
// hold the CSV's values. Then: the four-bar's loop joint drawn closed, bodies without visuals drawn (the
// four-bar, the delta robot: stick figures; tests/viewer/collision_robot.urdf: collision shapes),
// a model with missing meshes shows the note listing them, malformed CSVs show a message naming the line,
// and the server refuses what it must refuse. Screenshots go to DIR.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

const SKIP = 77;
const opt = {};
for (let k = 2; k < process.argv.length; k += 2) opt[process.argv[k].replace(/^--/, '')] = process.argv[k + 1];
const chromiumPath = process.env.ABDYN_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(`SKIP: no Chromium at ${chromiumPath} (scripts/install-deps.sh installs Debian's chromium; ABDYN_CHROMIUM names another)`);
  process.exit(SKIP);
}
if (Number(process.versions.node.split('.')[0]) < 20) {
  console.log(`SKIP: Node.js ${process.versions.node} is older than 20, which playwright-core needs`);
  process.exit(SKIP);
}
const { chromium } = createRequire(join(opt.modules, 'x.js'))('playwright-core');

const started = performance.now();
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what} [${((performance.now() - started) / 1000).toFixed(1)} s]`);
  if (!ok) failures += 1;
}

const work = join(opt.out, 'work');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const src = (p) => join(opt.source, p);
const abdyn = (...args) => execFileSync(opt.abdyn, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const csvRows = (file) => readFileSync(file, 'utf8').trim().split('\n').length - 1;

// ---- PNG screenshots compared pixel by pixel (8-bit RGB or RGBA, not interlaced: what Chromium writes)
function decodePng(buffer) {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const chunks = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('ascii', offset + 4, offset + 8);
    const body = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error('unexpected PNG bit depth or interlace');
      channels = { 2: 3, 6: 4 }[body[9]];
    } else if (type === 'IDAT') {
      chunks.push(body);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; ++x) {
      const value = raw[y * (stride + 1) + 1 + x];
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + x] = (value + predictor) & 255;
    }
  }
  return { width, height, channels, pixels };
}
// Pixels whose colour differs by more than 16 in some channel.
function differingPixels(pngA, pngB) {
  const a = decodePng(pngA);
  const b = decodePng(pngB);
  if (a.width !== b.width || a.height !== b.height) return Infinity;
  let count = 0;
  for (let i = 0; i < a.width * a.height; ++i) {
    for (let ch = 0; ch < 3; ++ch) {
      if (Math.abs(a.pixels[i * a.channels + ch] - b.pixels[i * b.channels + ch]) > 16) {
        count += 1;
        break;
      }
    }
  }
  return count;
}

// ---- the pages
const Z30 = Array(30).fill(0).join(',');
abdyn('simulate', src('models/double_pendulum.urdf'), '--q0', '1.5,-0.5', '--duration', '2', '--html', join(work, 'pendulum'));
// Dropped from 1 m, tilted 0.2 rad about x so that it falls over; 4 sub-steps keep the contacts stable.
abdyn('simulate', src('models/humanoid.urdf'), '--floating', '--ground', '0', '--duration', '2', '--substeps', '4',
      '--q0', `0,0,1,0.995,0.0998,0,0,${Z30}`, '--html', join(work, 'humanoid'));
abdyn('simulate', src('models/four_bar.urdf'), '--q0', '0.7,-0.3,1.1', '--duration', '0.5', '--html', join(work, 'four_bar'));
// the feet welded to the world: loop joints whose predecessor is the world, in a file whose comments
// hold "--", which XML forbids and the page must get past
abdyn('simulate', src('models/humanoid_welded.urdf'), '--duration', '0.2', '--html', join(work, 'humanoid_welded'));

// The double pendulum through the server (--port 0: any free port), the others from file://.
const server = spawn(opt.abdyn, ['view', src('models/double_pendulum.urdf'), '--csv', join(work, 'pendulum', 'trajectory.csv'),
  '--out', join(work, 'pendulum-served'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const address = await new Promise((resolve, reject) => {
  let text = '';
  server.stdout.on('data', (chunk) => {
    text += chunk;
    const m = text.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`abdyn view exited with ${code} before serving`)));
  setTimeout(() => reject(new Error('abdyn view printed no address within 20 s')), 20000);
});

const browser = await chromium.launch({
  executablePath: chromiumPath,
  // playwright-core starts it with --headless and a new, empty --user-data-dir of its own. Without a GPU,
  // WebGL runs on SwiftShader, which newer Chromium versions allow only when asked.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader'],
});

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file://') && !r.url().startsWith(address)) errors.push(`request leaving the page's folder: ${r.url()}`);
  });
  await page.goto(url + '?paused');
  await page.waitForFunction(() => window.abdynViewer?.ready, null, { timeout: 20000 });
  return { page, errors };
}
const fileUrl = (dir) => 'file://' + join(dir, 'index.html');
const canvasShot = (page) => page.locator('#scene').screenshot();

async function robotIsDrawn(name, page) {
  await page.evaluate(() => window.abdynViewer.setRobotVisible(false));
  const empty = await canvasShot(page);
  await page.evaluate(() => window.abdynViewer.setRobotVisible(true));
  const drawn = differingPixels(empty, await canvasShot(page));
  check(drawn > 300, `${name}: the robot is drawn (${drawn} pixels differ from the empty scene)`);
}

// The joint plots: one per unit, every coordinate of the CSV's q and v with a unit (all but the floating
// base's quaternion), labelled by joint name, values those of the CSV; `expected` gives some labels.
async function checkJointPlots(name, page, csv, floating, expected) {
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  const header = lines[0].split(',');
  const labels = await page.evaluate(() => window.abdynViewer.plotLabels());
  const count = (units) => units.reduce((n, u) => n + (labels[`joints ${u}`]?.length ?? 0), 0);
  const nq = header.filter((h) => h.startsWith('q:')).length;
  const nv = header.filter((h) => h.startsWith('v:')).length;
  check(count(['rad', 'm']) === nq - (floating ? 4 : 0) && count(['rad/s', 'm/s']) === nv,
        `${name}: the joint plots show ${count(['rad', 'm'])} coordinates and ${count(['rad/s', 'm/s'])} velocities (CSV: ${nq} q, ${nv} v)`);
  for (const [key, want] of Object.entries(expected)) {
    check(JSON.stringify(labels[key]) === JSON.stringify(want), `${name}: plot '${key}' is labelled ${JSON.stringify(labels[key])}`);
  }
  // the last series of each joint plot against its CSV column
  let worst = 0;
  for (const [key, names] of Object.entries(labels).filter(([k]) => k.startsWith('joints '))) {
    const k = names.length - 1;
    const column = header.indexOf(`${key.endsWith('/s') ? 'v' : 'q'}:${names[k]}`);
    const values = await page.evaluate(([plot, series]) => window.abdynViewer.plotSeries(plot, series), [key, k]);
    lines.slice(1).forEach((line, r) => { worst = Math.max(worst, Math.abs(values[r] - Number(line.split(',')[column]))); });
  }
  check(worst === 0, `${name}: the joint plots hold the CSV's values (worst difference ${worst})`);
}

async function checkTrajectoryPage(name, url, model, csv, floating, jointLabels) {
  const { page, errors } = await open(url);
  const rows = csvRows(csv);
  await checkJointPlots(name, page, csv, floating, jointLabels);
  const viewer = await page.evaluate(() => ({ rows: window.abdynViewer.rows(), plots: window.abdynViewer.plotPoints(),
    messages: window.abdynViewer.messages() }));
  check(viewer.rows === rows, `${name}: the page replays ${viewer.rows} rows, the CSV has ${rows}`);
  check(viewer.plots.energy?.length === 3 && viewer.plots.energy.every((n) => n === rows),
        `${name}: the energy plot's kinetic, potential and total have ${JSON.stringify(viewer.plots.energy)} points, one per row`);
  for (const [plot, counts] of Object.entries(viewer.plots)) {
    check(counts.every((n) => n === rows), `${name}: plot ${plot} has one point per row`);
  }
  check(!viewer.messages.some((m) => m.kind === 'error'), `${name}: no error message on the page ${JSON.stringify(viewer.messages)}`);

  await page.evaluate(() => window.abdynViewer.setRow(0));
  await robotIsDrawn(name, page);
  const first = await canvasShot(page);
  await page.evaluate((r) => window.abdynViewer.setRow(r), rows - 1);
  const last = await canvasShot(page);
  const moved = differingPixels(first, last);
  check(moved > 100, `${name}: t = 0 and t = T look different (${moved} pixels)`);

  const wanted = [0, Math.floor(rows / 2), rows - 1];
  const reference = JSON.parse(execFileSync(opt.fk, [model, csv, ...(floating ? ['--floating'] : []), ...wanted.map(String)],
    { encoding: 'utf8' }));
  let worstP = 0;
  let worstR = 0;
  let compared = 0;
  for (const r of wanted) {
    const poses = await page.evaluate((row) => { window.abdynViewer.setRow(row); return window.abdynViewer.linkPoses(); }, r);
    const expected = reference[String(r)];
    const names = Object.keys(poses).filter((n) => n !== 'world').sort();
    check(JSON.stringify(names) === JSON.stringify(Object.keys(expected).sort()), `${name}: row ${r}: the page's links are abdyn's links`);
    for (const link of names) {
      if (!expected[link]) continue;
      const { p, q: [w, x, y, z] } = poses[link];
      // rotation matrix of the unit quaternion (w, x, y, z), row-major
      const R = [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
      for (let k = 0; k < 3; ++k) worstP = Math.max(worstP, Math.abs(p[k] - expected[link].p[k]));
      for (let k = 0; k < 9; ++k) worstR = Math.max(worstR, Math.abs(R[k] - expected[link].R[k]));
      compared += 1;
    }
  }
  // Both sides compute in double precision from the same CSV numbers: they differ by rounding only
  // (about 1e-15 m); 1e-6 is the bar, far above rounding and far below anything visible.
  check(compared > 0 && worstP < 1e-6, `${name}: ${compared} link positions match abdyn's forward kinematics (worst ${worstP.toExponential(2)} m)`);
  check(compared > 0 && worstR < 1e-6, `${name}: link orientations match (worst rotation-matrix entry ${worstR.toExponential(2)})`);

  await page.evaluate((r) => window.abdynViewer.setRow(r), Math.floor(rows * 0.45));
  await page.screenshot({ path: join(opt.out, `${name}.png`) });
  check(errors.length === 0, `${name}: no console errors or outside requests ${JSON.stringify(errors)}`);
  await page.close();
}

await checkTrajectoryPage('pendulum', address, src('models/double_pendulum.urdf'), join(work, 'pendulum', 'trajectory.csv'), false,
                          { 'joints rad': ['joint1', 'joint2'], 'joints rad/s': ['joint1', 'joint2'] });
await checkTrajectoryPage('humanoid', fileUrl(join(work, 'humanoid')), src('models/humanoid.urdf'),
                          join(work, 'humanoid', 'trajectory.csv'), true,
                          { 'joints m': ['root_joint[0]', 'root_joint[1]', 'root_joint[2]'],
                            'joints m/s': ['root_joint[3]', 'root_joint[4]', 'root_joint[5]'] });

// `simulate --html` wrote the same pendulum page the server served
{
  const { page, errors } = await open(fileUrl(join(work, 'pendulum')));
  const rows = await page.evaluate(() => window.abdynViewer.rows());
  check(rows === csvRows(join(work, 'pendulum', 'trajectory.csv')) && errors.length === 0,
        `simulate --html: the page opens from file:// and replays ${rows} rows ${JSON.stringify(errors)}`);
  await page.close();
}

// ---- loop joints are drawn, and closed at every row (the CSV's closure errors are below 1e-10)
for (const [name, count] of [['four_bar', 1], ['humanoid_welded', 2]]) {
  const { page, errors } = await open(fileUrl(join(work, name)));
  const rows = await page.evaluate(() => window.abdynViewer.rows());
  let gap = 0;
  let loops = 0;
  for (const r of [0, Math.floor(rows / 2), rows - 1]) {
    const ends = await page.evaluate((row) => { window.abdynViewer.setRow(row); return window.abdynViewer.loopEnds(); }, r);
    loops = ends.length;
    for (const { a, b } of ends) gap = Math.max(gap, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
  }
  check(loops === count && gap < 1e-6, `${name}: ${loops} loop joint(s) drawn, their two frames ${gap.toExponential(2)} m apart at most`);
  check(errors.length === 0, `${name}: no console errors ${JSON.stringify(errors)}`);
  await page.close();
}

// ---- bodies without visuals: their collision shapes, else a stick figure, and the page says which
abdyn('view', src('models/delta_robot.urdf'), '--out', join(work, 'delta_robot'));
abdyn('view', src('tests/viewer/collision_robot.urdf'), '--out', join(work, 'collision_robot'));
for (const [name, collision, stick] of [['four_bar', [], ['crank', 'coupler', 'rocker']], ['delta_robot', [], null],
  ['collision_robot', ['upper', 'fore', 'hand'], ['finger']]]) {
  const { page, errors } = await open(fileUrl(join(work, name)));
  const drawn = await page.evaluate(() => window.abdynViewer.drawn());
  check(drawn.visual.length === 0 && JSON.stringify(drawn.collision) === JSON.stringify(collision) &&
        (stick ? JSON.stringify(drawn.stick) === JSON.stringify(stick) : drawn.stick.length > 0),
        `${name}: bodies drawn by their collision shapes ${JSON.stringify(drawn.collision)}, as a stick figure ${JSON.stringify(drawn.stick)}`);
  const text = await page.locator('#drawn').innerText();
  check((collision.length === 0 || text.includes(`collision shapes (blue): ${collision.join(', ')}`)) && text.includes('stick figure'),
        `${name}: the page says what is drawn: ${text}`);
  await robotIsDrawn(name, page);
  await page.screenshot({ path: join(opt.out, `${name}.png`) });
  check(errors.length === 0, `${name}: no console errors ${JSON.stringify(errors)}`);
  await page.close();
}

// ---- the world's collision shapes (a table on a fixed base's root link without a visual) are drawn
abdyn('view', src('tests/models/world_table.urdf'), '--out', join(work, 'world_table'));
{
  const { page, errors } = await open(fileUrl(join(work, 'world_table')));
  const drawn = await page.evaluate(() => window.abdynViewer.drawn());
  check(JSON.stringify(drawn.collision) === JSON.stringify(['post', 'arm', 'world']),
        `world_table: drawn by their collision shapes ${JSON.stringify(drawn.collision)}, the world's among them`);
  check(errors.length === 0, `world_table: no console errors ${JSON.stringify(errors)}`);
  await page.close();
}

// ---- missing meshes: the note lists them, and the rest of the robot is drawn
{
  const out = abdyn('view', src('tests/viewer/mesh_robot.urdf'), '--out', join(work, 'mesh'));
  check(out.includes('meshes/absent.stl') && out.includes('package://no_such_package/meshes/hand.dae'),
        'meshes: abdyn view names the meshes it could not find');
  const { page, errors } = await open(fileUrl(join(work, 'mesh')));
  const notes = (await page.evaluate(() => window.abdynViewer.messages())).filter((m) => m.kind === 'note');
  const text = await page.locator('#messages').innerText();
  check(notes.length === 1 && text.includes('meshes/absent.stl') && text.includes('package://no_such_package/meshes/hand.dae') &&
        !text.includes('wedge'), `meshes: the page's note lists the two missing meshes and not the found ones: ${text}`);
  await robotIsDrawn('meshes', page);
  check(errors.length === 0, `meshes: no console errors ${JSON.stringify(errors)}`);
  await page.close();
}

// ---- malformed trajectories: a message naming the line, and the model still shown
{
  const good = readFileSync(join(work, 'pendulum', 'trajectory.csv'), 'utf8').trim().split('\n');
  const dropColumn = (line, c) => line.split(',').filter((_, k) => k !== c).join(',');
  const cases = [
    ['missing column', good.map((l) => dropColumn(l, 2)), ['line 1', "'q:joint2'"]],
    ['NaN', good.map((l, k) => (k === 5 ? l.replace(/^([^,]*),[^,]*/, '$1,nan') : l)), ['line 6', "'q:joint1'", "'nan'"]],
    ['short row', good.map((l, k) => (k === 10 ? l.split(',').slice(0, -1).join(',') : l)), ['line 11', 'header (line 1) has 7 columns']],
    ['another model', readFileSync(join(work, 'humanoid', 'trajectory.csv'), 'utf8').trim().split('\n').slice(0, 5),
      ['line 1', 'nq = 2', '--floating']],
  ];
  // The program refuses a trajectory that does not fit the model before writing a page: exit 1, the
  // file and the line named on stderr.
  for (const [what, lines, expected] of cases) {
    const dir = join(work, `bad-${what.replace(/ /g, '-')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bad.csv'), lines.join('\n') + '\n');
    let status = 0, stderr = '';
    try {
      execFileSync(opt.abdyn, ['view', src('models/double_pendulum.urdf'), '--csv', join(dir, 'bad.csv'), '--out', dir],
                   { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      status = e.status;
      stderr = String(e.stderr);
    }
    check(status === 1 && stderr.includes('bad.csv') && stderr.includes(expected[0]),
          `malformed CSV (${what}): exit ${status}, stderr ${JSON.stringify(stderr)}`);
  }
}
await browser.close();

// ---- the server: only GET (and HEAD) of the folder's own files
// The path goes out as written (an options object, not a URL, which would resolve the '..').
function request(method, path) {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}
writeFileSync(join(work, 'secret.txt'), 'outside the served folder\n');  // the served folder is work/pendulum-served
for (const [method, path, status] of [['GET', '/', 200], ['GET', '/data.js', 200], ['HEAD', '/viewer.js', 200],
  ['GET', '/no-such-file', 404], ['GET', '/../secret.txt', 403], ['GET', '/%2e%2e/secret.txt', 403],
  ['GET', '/..%2fsecret.txt', 403], ['GET', '/./../secret.txt', 403], ['POST', '/index.html', 405]]) {
  const got = await request(method, path);
  check(got === status, `server: ${method} ${path} answers ${got} (expected ${status})`);
}
server.kill();

console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
