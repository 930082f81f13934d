// The header (state, mode, connection), the latency figures, and the
// servers, tools and providers from GET /state.

import { byTestId, formatMs, h } from './dom.js';

const STATE_LABELS = {
  idle: 'Idle',
  listening: 'Listening',
  thinking: 'Thinking',
  speaking: 'Speaking',
  interrupted: 'Interrupted',
  tool_running: 'Running a tool',
  recovering: 'Recovering',
};
const MODE_LABELS = { text: 'Text only', turn_based: 'Voice, turn by turn', full_duplex_agent: 'Voice, full duplex' };
const CONNECTION_LABELS = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting', stopped: 'Not connected' };

export class Header {
  constructor() {
    this.stateEl = byTestId('state');
    this.modeEl = byTestId('mode');
    this.connectionEl = byTestId('connection');
  }

  state(state) {
    this.stateEl.dataset.state = state;
    this.stateEl.textContent = STATE_LABELS[state] ?? state;
  }

  mode(mode, voiceEnabled) {
    this.modeEl.dataset.mode = mode;
    this.modeEl.dataset.voice = String(Boolean(voiceEnabled));
    this.modeEl.textContent = MODE_LABELS[mode] ?? mode;
  }

  /** @param {'connecting' | 'live' | 'reconnecting' | 'stopped'} status */
  connection(status, detail = {}) {
    this.connectionEl.dataset.status = status;
    let text = CONNECTION_LABELS[status] ?? status;
    if (status === 'reconnecting' && detail.retryInMs !== undefined) text = `Reconnecting in ${Math.max(1, Math.round(detail.retryInMs / 1000))} s`;
    this.connectionEl.textContent = text;
    this.connectionEl.title = detail.reason ? `Last drop: ${detail.reason}` : '';
  }
}

export class Latency {
  constructor() {
    this.firstTokenEl = byTestId('latency-first-token');
    this.turnEl = byTestId('latency-turn');
    this.toolEl = byTestId('latency-tool');
    this.toolNameEl = byTestId('latency-tool-name');
    this.stagesEl = byTestId('latency-stages');
  }

  firstToken(latencyMs) {
    set(this.firstTokenEl, latencyMs);
  }

  turn(durationMs) {
    set(this.turnEl, durationMs);
  }

  tool(name, durationMs) {
    set(this.toolEl, durationMs);
    this.toolNameEl.textContent = name;
  }

  /** `latency` from GET /state: p50 and p95 per stage, when the server sends them. */
  stages(latency) {
    const rows = latency && typeof latency === 'object' ? Object.entries(latency) : [];
    const body = this.stagesEl.querySelector('tbody');
    body.replaceChildren(
      ...rows.map(([stage, q]) => h('tr', { dataset: { stage } }, h('th', { scope: 'row' }, stage), h('td', {}, formatMs(q.p50)), h('td', {}, formatMs(q.p95)), h('td', {}, String(q.count ?? '')))),
    );
    this.stagesEl.hidden = rows.length === 0;
  }
}

function set(el, ms) {
  el.textContent = formatMs(ms);
  el.dataset.ms = String(ms);
}

export class Inventory {
  /** @param {(name: string) => Promise<void>} approveTool */
  constructor(approveTool) {
    this.serversEl = byTestId('servers');
    this.toolsEl = byTestId('tools');
    this.providersEl = byTestId('providers');
    this.toolCountEl = byTestId('tool-count');
    this.approveTool = approveTool;
  }

  servers(servers) {
    this.serversEl.replaceChildren(...servers.map((s) => this.#server(s)));
  }

  /** A server.state event: updated in place until the next GET /state. */
  serverState(event) {
    const existing = this.serversEl.querySelector(`[data-server="${CSS.escape(event.server)}"]`);
    const item = this.#server({ name: event.server, state: event.state, error: event.detail, toolCount: undefined });
    if (existing) {
      const count = existing.querySelector('.count');
      if (count) item.querySelector('.count')?.replaceWith(count);
      existing.replaceWith(item);
    } else this.serversEl.append(item);
  }

  #server(s) {
    return h(
      'li',
      { class: 'row', dataset: { testid: 'server', server: s.name, state: s.state } },
      h('span', { class: 'name' }, s.name),
      h('span', { class: `pill state-${s.state}` }, s.state),
      h('span', { class: 'muted count' }, s.toolCount === undefined ? '' : `${s.toolCount} tool${s.toolCount === 1 ? '' : 's'}`),
      s.error ? h('p', { class: 'row-detail' }, s.error) : null,
    );
  }

  tools(tools) {
    this.toolCountEl.textContent = String(tools.length);
    const sorted = [...tools].sort((a, b) => a.name.localeCompare(b.name));
    this.toolsEl.replaceChildren(...sorted.map((t) => this.#tool(t)));
  }

  #tool(t) {
    const approve = t.quarantined
      ? h('button', { type: 'button', class: 'btn btn-small', 'aria-label': `Approve the changed ${t.name}`, dataset: { testid: 'tool-approve' } }, 'Approve changes')
      : null;
    approve?.addEventListener('click', async () => {
      approve.disabled = true;
      try {
        await this.approveTool(t.name);
      } catch {
        approve.disabled = false;
      }
    });
    return h(
      'li',
      { class: 'row', dataset: { testid: 'tool', tool: t.name, status: t.status }, title: t.description },
      h('span', { class: 'name' }, t.name),
      h('span', { class: `risk risk-${t.risk}` }, t.risk),
      h('span', { class: 'muted' }, `${t.server} · ${t.decision}${t.status === 'ready' ? '' : ` · ${t.status}`}`),
      t.quarantined && t.changes?.length ? h('p', { class: 'row-detail' }, `Changed: ${t.changes.join('; ')}`) : null,
      approve,
    );
  }

  providers(providers) {
    this.providersEl.replaceChildren(
      ...providers.map((p) =>
        h(
          'li',
          { class: 'row', dataset: { testid: 'provider', provider: p.name, health: p.health }, title: p.detail },
          h('span', { class: 'name' }, p.name),
          h('span', { class: `pill health-${p.health}` }, p.health),
          p.detail && p.health === 'error' ? h('p', { class: 'row-detail' }, p.detail) : null,
        ),
      ),
    );
  }
}
