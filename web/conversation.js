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
    /** @type {Map<string, { assistant: HTMLElement, text: HTMLElement, meta: HTMLElement, notes: HTMLElement, sentences: string[], ended: boolean }>} */
    this.turns = new Map();
  }

  started(event) {
    if (this.turns.has(event.turnId)) return;
    this.#addUser(event.turnId, event.text, event.entry, event.atMs);
    this.#addAssistant(event.turnId);
  }

  sentence(event) {
    const turn = this.#turn(event.turnId);
    if (turn.ended) return;
    turn.sentences.push(event.text);
    this.#update(() => {
      turn.text.textContent = turn.sentences.join(' ');
    });
  }

  announcement(event) {
    const turn = this.#turn(event.turnId);
    this.#update(() => {
      turn.notes.append(h('p', { class: 'msg-note' }, event.text));
    });
  }

  ended(event) {
    const turn = this.#turn(event.turnId);
    turn.ended = true;
    this.#update(() => {
      const reply = event.reply || turn.sentences.join(' ');
      turn.text.textContent = reply || (event.status === 'ok' ? '(no reply)' : '');
      turn.assistant.dataset.status = event.status;
      const status = STATUS_LABELS[event.status];
      turn.meta.textContent = ['Assistant', status, formatMs(event.durationMs)].filter(Boolean).join(' · ');
    });
  }

  /** An `error` event, or a failed request of the page's own. */
  error({ code, message, turnId, recoverable }) {
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
    if (!turn.ended) this.ended({ turnId: body.turnId, reply: body.reply, status: body.status });
    if (body.error) this.error({ ...body.error, turnId: body.turnId });
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
    this.turns.set(turnId, { assistant, text, meta, notes, sentences: [], ended: false });
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
