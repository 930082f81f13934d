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

/** A reply that went on after an interruption (voice.resumed), in one line: a backchannel's words, or none heard. */
export const resumedLine = (event) => (typeof event.backchannel === 'string' ? `“${event.backchannel}”: a backchannel, the reply goes on` : 'No words heard: the reply goes on');

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
    clearInterval(this.countdown);
    this.connectionEl.dataset.status = status;
    this.connectionEl.textContent = CONNECTION_LABELS[status] ?? status;
    this.connectionEl.title = detail.reason ? `Last drop: ${detail.reason}` : '';
    if (status === 'reconnecting' && detail.retryInMs !== undefined) {
      const until = Date.now() + detail.retryInMs;
      const tick = () => {
        const s = Math.ceil((until - Date.now()) / 1000);
        this.connectionEl.textContent = s > 0 ? `Reconnecting in ${s} s` : 'Reconnecting…';
      };
      tick();
      this.countdown = setInterval(tick, 1000);
    }
  }
}

/**
 * A dependency gone now, in words, until it is back (from GET /state): the LLM server
 * (`llm.missing`: restarted, crashed) or room on the data folder's disk (`storage.missing`).
 */
export class MissingNotice {
  /** @param {string} testId @param {string} label */
  constructor(testId, label) {
    this.el = byTestId(testId);
    this.label = label;
  }

  /** @param {string | undefined} message */
  show(message) {
    const text = typeof message === 'string' ? message : '';
    this.el.textContent = text ? `${this.label}: ${text}` : '';
    this.el.hidden = !text;
    this.el.dataset.missing = text ? 'true' : 'false';
  }
}

export class Latency {
  constructor() {
    this.firstTokenEl = byTestId('latency-first-token');
    this.turnEl = byTestId('latency-turn');
    this.toolEl = byTestId('latency-tool');
    this.toolNameEl = byTestId('latency-tool-name');
    this.stagesEl = byTestId('latency-stages');
    this.endOfTurnEl = byTestId('latency-end-of-turn');
    this.endRuleEl = byTestId('latency-end-rule');
    this.speculationEl = byTestId('latency-speculation');
    this.speculationDetailEl = byTestId('latency-speculation-detail');
  }

  /** A spoken turn's end (a voice.speech end event): the silence waited, and the rule that fired. */
  endOfTurn(event) {
    if (typeof event.silenceMs === 'number') set(this.endOfTurnEl, event.silenceMs);
    this.endRuleEl.textContent = END_RULES[event.endRule] ?? '';
    this.endRuleEl.dataset.rule = event.endRule ?? '';
  }

  /** Preemptive generation (llm.speculation events): asked while the user paused, then used or discarded. */
  speculation(event) {
    this.speculationEl.textContent = SPECULATION_PHASES[event.phase] ?? event.phase;
    this.speculationEl.dataset.phase = event.phase;
    const wasted = typeof event.wastedPieces === 'number' && event.wastedPieces > 0 ? ` (${event.wastedPieces} pieces thrown away)` : '';
    this.speculationDetailEl.textContent = event.phase === 'discarded' ? `${event.reason ?? ''}${wasted}` : '';
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
    this.toolNameEl.title = name;
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

const END_RULES = { complete: 'a finished sentence', silence: 'the whole silence', stopped: 'the recording stopped' };
const SPECULATION_PHASES = { started: 'asked', used: 'used', discarded: 'discarded' };

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
    if (!existing) return this.serversEl.append(this.#server({ name: event.server, state: event.state, error: event.detail }));
    existing.dataset.state = event.state;
    const pill = existing.querySelector('.pill');
    pill.className = `pill state-${event.state}`;
    pill.textContent = event.state;
    existing.querySelector('.row-detail')?.remove();
    if (event.detail) existing.append(h('p', { class: 'row-detail' }, event.detail));
  }

  #server(s) {
    return h(
      'li',
      { class: 'row', dataset: { testid: 'server', server: s.name, state: s.state } },
      h('span', { class: 'name', title: s.commandLine }, s.name),
      h('span', { class: 'muted count' }, s.toolCount === undefined ? '' : `${s.toolCount} tool${s.toolCount === 1 ? '' : 's'}`),
      h('span', { class: `pill state-${s.state}` }, s.state),
      s.error ? h('p', { class: 'row-detail' }, s.error) : null,
    );
  }

  /** Grouped by server, each group sorted by name. */
  tools(tools) {
    this.toolCountEl.textContent = `(${tools.length})`;
    const byServer = new Map();
    for (const t of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
      if (!byServer.has(t.server)) byServer.set(t.server, []);
      byServer.get(t.server).push(t);
    }
    this.toolsEl.replaceChildren(
      ...[...byServer].map(([server, list]) =>
        h('li', { class: 'tool-group', dataset: { server } }, h('p', { class: 'group-name' }, `on ${server}`), h('ul', { class: 'rows' }, ...list.map((t) => this.#tool(t)))),
      ),
    );
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
      { class: 'row', dataset: { testid: 'tool', tool: t.name, server: t.server, status: t.status }, title: `${t.name}: ${t.description}` },
      h('span', { class: 'name' }, t.name),
      h('span', { class: 'muted' }, t.status === 'ready' ? t.decision : t.status),
      h('span', { class: `risk risk-${t.risk}` }, t.risk),
      t.quarantined && t.changes?.length ? h('p', { class: 'row-detail' }, `Changed: ${t.changes.join('; ')}`) : null,
      approve ? h('p', { class: 'row-detail' }, approve) : null,
    );
  }

  providers(providers) {
    this.providersEl.replaceChildren(
      ...providers.map((p) =>
        h(
          'li',
          { class: 'row', dataset: { testid: 'provider', provider: p.name, health: p.health }, title: p.detail },
          h('span', { class: 'name', title: p.name }, p.name),
          h('span', {}),
          h('span', { class: `pill health-${p.health}` }, p.health),
          p.detail && p.health === 'error' ? h('p', { class: 'row-detail' }, p.detail) : null,
        ),
      ),
    );
  }
}
