// Tool calls as they happen, and the confirmations waiting for the user.

import { formatMs, formatTime, h } from './dom.js';

// The newest calls are what matter; older ones are in GET /audit.
const MAX_CALLS = 100;

// Call ids come from the model and need not be unique across turns.
const keyOf = (turnId, callId) => `${turnId ?? ''} ${callId}`;

const WHO = {
  policy: (approved) => (approved ? 'allowed by policy' : 'denied by policy'),
  user: (approved) => (approved ? 'approved by the user' : 'denied by the user'),
  timeout: () => 'not confirmed in time',
  channel: () => 'could not be asked for confirmation',
};

export class ToolCalls {
  /** @param {HTMLOListElement} list */
  constructor(list) {
    this.list = list;
    /** @type {Map<string, { item: HTMLElement, status: HTMLElement, duration: HTMLElement, args: HTMLElement, decision: HTMLElement, server: HTMLElement, output: HTMLElement, serverName?: string, risk?: string }>} */
    this.calls = new Map();
  }

  /** The server of a call, once tool.started named it. */
  serverOf(turnId, callId) {
    return this.calls.get(keyOf(turnId, callId))?.serverName;
  }

  started(event) {
    const call = this.#call(event);
    call.serverName = event.server;
    call.server.textContent = event.server ? `on ${event.server}` : '';
    call.args.textContent = event.argsSummary || '(no arguments)';
    call.args.title = event.argsSummary;
    this.#status(call, 'running');
  }

  confirmationRequested(event) {
    const call = this.#call(event);
    if (!call.args.textContent) call.args.textContent = event.argsSummary;
    call.decision.textContent = `${event.risk} · waiting for confirmation`;
    this.#status(call, 'waiting');
  }

  decision(event) {
    const call = this.#call(event);
    call.risk = event.risk;
    call.decision.textContent = `${event.risk} · ${(WHO[event.decidedBy] ?? (() => event.decidedBy))(event.approved)}`;
    call.decision.dataset.decidedBy = event.decidedBy;
    call.decision.dataset.approved = String(event.approved);
    if (call.item.dataset.status === 'waiting' || call.item.dataset.status === 'running') this.#status(call, event.approved ? 'running' : 'refused');
  }

  ended(event) {
    const call = this.#call(event);
    this.#status(call, event.status);
    call.duration.textContent = formatMs(event.durationMs);
    call.output.textContent = event.outputChars > 0 ? `${event.outputChars} chars${event.truncated ? ', cut' : ''}` : '';
    // The router reports a turn cancelled during the question as "not approved by the user".
    if (event.status === 'cancelled' && call.decision.dataset.decidedBy === 'user' && call.decision.dataset.approved === 'false') {
      call.decision.textContent = `${call.risk ?? ''} · cancelled with the turn`.replace(/^ · /, '');
    }
  }

  #status(call, status) {
    call.item.dataset.status = status;
    call.status.textContent = status;
  }

  #call(event) {
    const key = keyOf(event.turnId, event.callId);
    let call = this.calls.get(key);
    if (call) return call;
    // Any of the tool.* events can come first: an unknown tool has only tool.ended.
    const status = h('span', { class: 'pill', dataset: { testid: 'tool-call-status' } }, '');
    const server = h('span', { class: 'call-server' });
    const duration = h('span', { class: 'call-duration', dataset: { testid: 'tool-call-duration' } });
    const args = h('code', { class: 'call-args', dataset: { testid: 'tool-call-args' } });
    const decision = h('span', { class: 'call-decision', dataset: { testid: 'tool-call-decision' } });
    const output = h('span', { class: 'call-output' });
    const item = h(
      'li',
      { class: 'call', dataset: { testid: 'tool-call', callId: event.callId, tool: event.tool, turnId: event.turnId } },
      h('div', { class: 'call-head' }, status, h('span', { class: 'call-name', title: event.tool }, event.tool), duration),
      args,
      h('p', { class: 'call-meta' }, server, decision, output),
    );
    call = { item, status, duration, args, decision, server, output };
    this.calls.set(key, call);
    this.list.prepend(item);
    while (this.list.childElementCount > MAX_CALLS) {
      const last = this.list.lastElementChild;
      this.calls.delete(keyOf(last?.dataset.turnId, last?.dataset.callId));
      last?.remove();
    }
    return call;
  }
}

export class Confirmations {
  /**
   * @param {HTMLUListElement} list
   * @param {(id: string, approve: boolean) => Promise<void>} answer
   */
  constructor(list, answer) {
    this.list = list;
    this.answer = answer;
    /** @type {Map<string, HTMLElement>} */
    this.items = new Map();
    // Calls already decided: a GET /confirmations answer that left before the
    // decision must not bring them back.
    this.settled = new Set();
  }

  /** A PendingConfirmation from GET /confirmations, or a tool.confirmation_requested event. */
  add(c) {
    const id = c.id ?? c.callId;
    const key = keyOf(c.turnId, id);
    if (this.items.has(key) || this.settled.has(key)) return;
    const error = h('p', { class: 'confirm-error', role: 'alert', hidden: true });
    const approve = h('button', { type: 'button', class: 'btn btn-primary', 'aria-label': `Approve ${c.tool}`, dataset: { testid: 'confirmation-approve' } }, 'Approve');
    const deny = h('button', { type: 'button', class: 'btn btn-danger', 'aria-label': `Deny ${c.tool}`, dataset: { testid: 'confirmation-deny' } }, 'Deny');
    const item = h(
      'li',
      { class: 'confirm', dataset: { testid: 'confirmation', callId: id, tool: c.tool } },
      h('p', { class: 'confirm-title' }, h('strong', {}, c.tool), ' ', h('span', { class: `risk risk-${c.risk}` }, c.risk), c.server ? ` on ${c.server}` : ''),
      h('code', { class: 'call-args', title: c.argsSummary }, c.argsSummary || '(no arguments)'),
      c.reason ? h('p', { class: 'confirm-reason', dataset: { testid: 'confirmation-reason' } }, c.reason) : null,
      h('p', { class: 'confirm-meta' }, `asked ${formatTime(c.askedAtMs ?? c.atMs)}`),
      h('div', { class: 'confirm-actions' }, approve, deny),
      error,
    );
    const respond = async (yes) => {
      approve.disabled = deny.disabled = true;
      error.hidden = true;
      try {
        await this.answer(id, yes);
        this.remove(c.turnId, id);
      } catch (e) {
        // Answered elsewhere, timed out, or its turn was stopped meanwhile.
        if (e?.code === 'CONFIRMATION_UNKNOWN') return this.remove(c.turnId, id);
        error.textContent = `Could not send the answer: ${e?.message ?? e}`;
        error.hidden = false;
        approve.disabled = deny.disabled = false;
      }
    };
    approve.addEventListener('click', () => respond(true));
    deny.addEventListener('click', () => respond(false));
    this.items.set(key, item);
    this.list.append(item);
    this.#changed();
  }

  /** The ids shown now: pass them to `replace` with the answer of a GET /confirmations sent after. */
  shown() {
    return new Set(this.items.keys());
  }

  /**
   * The list from GET /confirmations. Only calls shown before the request
   * went out can be dropped for missing from it: one that an event added
   * meanwhile may be newer than the answer.
   */
  replace(list, shownBefore) {
    const keys = new Set(list.map((c) => keyOf(c.turnId, c.id)));
    for (const key of shownBefore) if (!keys.has(key)) this.#drop(key);
    for (const c of list) this.add(c);
  }

  remove(turnId, id) {
    this.#drop(keyOf(turnId, id));
  }

  #drop(key) {
    this.settled.add(key);
    this.items.get(key)?.remove();
    this.items.delete(key);
    this.#changed();
  }

  #changed() {
    this.list.closest('section')?.classList.toggle('has-items', this.items.size > 0);
  }
}
