// The conversation panel: one user item and one assistant item per turn, the
// assistant's text built from llm.sentence events and replaced by the reply
// in turn.ended; errors as their own items.

import { formatMs, formatTime, h, keepScrolledToBottom } from './dom.js';

const ENTRY_LABELS = { voice: 'voice', text: 'terminal', http: 'web', mcp: 'MCP client' };
const STATUS_LABELS = { error: 'failed', cancelled: 'stopped' };
// Enough history to scroll back through without the page growing forever.
const MAX_ITEMS = 300;

export class Conversation {
  /** @param {HTMLOListElement} list */
  constructor(list) {
    this.list = list;
    /** @type {Map<string, { assistant: HTMLElement, text: HTMLElement, meta: HTMLElement, notes: HTMLElement, segments: { note: boolean, text: string }[], ended: boolean, errored: boolean }>} */
    this.turns = new Map();
  }

  started(event) {
    if (this.turns.has(event.turnId)) return;
    this.#addUser(event.turnId, event.text, event.entry, event.atMs);
    this.#addAssistant(event.turnId);
  }

  sentence(event) {
    this.#segment(event.turnId, { note: false, text: event.text });
  }

  /** What the assistant says before a tool runs ("Let me check the calendar"). */
  announcement(event) {
    this.#segment(event.turnId, { note: true, text: event.text });
  }

  #segment(turnId, segment) {
    const turn = this.#turn(turnId);
    if (turn.ended) return;
    turn.segments.push(segment);
    this.#update(() => turn.text.replaceChildren(...render(turn.segments)));
  }

  ended(event) {
    const turn = this.#turn(event.turnId);
    turn.ended = true;
    this.#update(() => {
      // The reply replaces what the sentences built; the announcements stay above it.
      const said = turn.segments.filter((x) => !x.note).map((x) => x.text).join(' ');
      turn.notes.replaceChildren(...turn.segments.filter((x) => x.note).map((x) => h('p', { class: 'msg-note' }, x.text)));
      turn.text.textContent = event.reply || said;
      turn.assistant.dataset.status = event.status;
      const status = STATUS_LABELS[event.status];
      const took = typeof event.durationMs === 'number' ? formatMs(event.durationMs) : '';
      turn.meta.textContent = ['Assistant', status, took].filter(Boolean).join(' · ');
    });
  }

  /** An `error` event, or a failed request of the page's own. */
  error({ code, message, turnId, recoverable }) {
    const turn = turnId ? this.turns.get(turnId) : undefined;
    if (turn) turn.errored = true;
    this.#update(() => {
      this.list.append(
        h(
          'li',
          { class: 'msg msg-error', role: 'alert', dataset: { testid: 'message-error', code, turnId } },
          h('p', { class: 'msg-meta' }, `Error · ${code}${recoverable === false ? ' · not recoverable' : ''}`),
          h('p', { class: 'msg-text' }, message),
        ),
      );
    });
    this.#trim();
  }

  /**
   * The JSON answer to the page's own POST /turns. Normally the events have
   * drawn the turn already; when the event stream was down, this fills it in.
   */
  answered(text, body) {
    if (!this.turns.has(body.turnId)) {
      this.#addUser(body.turnId, text, 'http', Date.now());
      this.#addAssistant(body.turnId);
    }
    const turn = this.#turn(body.turnId);
    if (turn.ended) return;
    this.ended({ turnId: body.turnId, reply: body.reply, status: body.status });
    if (body.error && !turn.errored) this.error({ ...body.error, turnId: body.turnId });
  }

  #turn(turnId) {
    // Events of a turn that started before the page connected still get a place.
    if (!this.turns.has(turnId)) this.#addAssistant(turnId);
    return this.turns.get(turnId);
  }

  #addUser(turnId, text, entry, atMs) {
    const label = ENTRY_LABELS[entry] ?? entry;
    this.#update(() => {
      this.list.append(
        h(
          'li',
          { class: 'msg msg-user', dataset: { testid: 'message-user', turnId, entry } },
          h('p', { class: 'msg-meta' }, `You · ${label} · ${formatTime(atMs)}`),
          h('p', { class: 'msg-text' }, text),
        ),
      );
    });
  }

  #addAssistant(turnId) {
    const meta = h('p', { class: 'msg-meta' }, 'Assistant');
    const notes = h('div', { class: 'msg-notes' });
    const text = h('p', { class: 'msg-text', dataset: { testid: 'message-text' } });
    const assistant = h('li', { class: 'msg msg-assistant', dataset: { testid: 'message-assistant', turnId, status: 'pending' } }, meta, notes, text);
    this.turns.set(turnId, { assistant, text, meta, notes, segments: [], ended: false, errored: false });
    this.#update(() => this.list.append(assistant));
    this.#trim();
  }

  #update(change) {
    keepScrolledToBottom(this.list, change);
  }

  #trim() {
    while (this.list.childElementCount > MAX_ITEMS) {
      const first = this.list.firstElementChild;
      const turnId = first?.dataset.turnId;
      first?.remove();
      if (turnId && first?.dataset.testid === 'message-assistant') this.turns.delete(turnId);
    }
  }
}

/** Sentences run together as one paragraph; announcements break it, in order. */
function render(segments) {
  const nodes = [];
  let run = [];
  const flush = () => {
    if (run.length > 0) nodes.push(h('span', { class: 'msg-said' }, run.join(' ')));
    run = [];
  };
  for (const segment of segments) {
    if (!segment.note) {
      run.push(segment.text);
      continue;
    }
    flush();
    nodes.push(h('span', { class: 'msg-note' }, segment.text));
  }
  flush();
  return nodes;
}
