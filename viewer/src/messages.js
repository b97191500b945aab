// Messages above the scene: errors (something is not shown) and notes (something is shown differently).
// The browser test reads them back through window.abdynViewer.messages().

export const messages = [];

export function say(kind, text) {
  messages.push({ kind, text });
  const box = document.getElementById('messages');
  const div = document.createElement('div');
  div.className = kind;
  div.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  div.textContent = text;
  box.appendChild(div);
}
