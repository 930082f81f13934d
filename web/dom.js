// Small DOM helpers. Everything from the server goes in as text (textContent),
// never as HTML: replies, tool arguments and errors are untrusted.

/**
 * Makes an element: h('li', { class: 'x', dataset: { testid: 'y' } }, 'text', child).
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') {
      for (const [name, v] of Object.entries(value)) if (v !== undefined && v !== null) el.dataset[name] = String(v);
    }
    else if (key === 'onclick') el.addEventListener('click', value);
    else if (key === 'text') el.textContent = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** The element with `data-testid`, which the page is built to have. */
export function byTestId(id, root = document) {
  const el = root.querySelector(`[data-testid="${id}"]`);
  if (!el) throw new Error(`the page has no [data-testid="${id}"]`);
  return el;
}

/** 840 ms, 1.2 s, 2 min 5 s */
export function formatMs(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Local wall-clock time, 14:03:07. */
export function formatTime(atMs) {
  if (typeof atMs !== 'number') return '';
  return new Date(atMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

/** Keeps a scrolled list at the bottom when it was there before `change` ran. */
export function keepScrolledToBottom(container, change) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  change();
  if (atBottom) container.scrollTop = container.scrollHeight;
}
