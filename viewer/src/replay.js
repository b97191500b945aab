// The replay controls (play/pause, the time slider, speed, the space bar) over the trajectory's rows.
// `show(row)` poses the robot and redraws; the returned object moves the replay from code.

export function replayControls(trajectory, show, idleText) {
  const rows = trajectory ? trajectory.t.length : 0;
  const playButton = document.getElementById('play');
  const slider = document.getElementById('time');
  const clock = document.getElementById('clock');
  const speed = document.getElementById('speed');
  slider.max = String(Math.max(0, rows - 1));
  let playing = false;
  let row = 0;
  let replayTime = rows ? trajectory.t[0] : 0;
  let last = performance.now();

  function showRow(r) {
    row = Math.min(Math.max(0, r), Math.max(0, rows - 1));
    if (rows) {
      slider.value = String(row);
      clock.textContent = `t = ${trajectory.t[row].toFixed(3)} s / ${trajectory.t[rows - 1].toFixed(3)} s`;
    } else {
      clock.textContent = idleText;
    }
    show(row);
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
  function frame(now) {
    if (playing) {
      replayTime += ((now - last) / 1000) * Number(speed.value);
      if (replayTime > trajectory.t[rows - 1]) replayTime = trajectory.t[0];
      showRow(rowAt(replayTime));
    }
    last = now;
    requestAnimationFrame(frame);
  }
  const jump = (r) => {
    setPlaying(false);
    showRow(r);
    replayTime = rows ? trajectory.t[row] : 0;
  };
  playButton.addEventListener('click', () => setPlaying(!playing));
  slider.addEventListener('input', () => {
    showRow(Number(slider.value));
    replayTime = rows ? trajectory.t[row] : 0;
  });
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space') {
      setPlaying(!playing);
      e.preventDefault();
    }
  });
  playButton.disabled = rows < 2;
  slider.disabled = rows < 2;

  showRow(0);
  setPlaying(rows > 1 && !/[?&]paused\b/.test(location.search));
  requestAnimationFrame(frame);
  return {
    rows,
    row: () => row,
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    setRow: jump,
    setTime: (t) => jump(rows ? rowAt(t) : 0),
  };
}
