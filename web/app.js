// The page: asks for the token once, reads GET /state, then follows
// GET /events live and draws every panel from the events.

import { api, forgetToken, loadToken, onUnauthorized, saveToken } from './api.js';
import { Conversation } from './conversation.js';
import { byTestId } from './dom.js';
import { followEvents } from './sse.js';
import { Header, Inventory, Latency, MissingNotice, resumedLine } from './status.js';
import { Confirmations, ToolCalls } from './tools.js';

const el = {
  app: byTestId('app'),
  tokenView: byTestId('token-view'),
  tokenForm: byTestId('token-form'),
  tokenInput: byTestId('token-input'),
  tokenError: byTestId('token-error'),
  forget: byTestId('forget-token'),
  turnForm: byTestId('turn-form'),
  turnInput: byTestId('turn-input'),
  turnSend: byTestId('turn-send'),
  turnError: byTestId('turn-error'),
  interrupt: byTestId('interrupt'),
  listen: byTestId('listen'),
  voiceOff: byTestId('voice-off'),
  serverProgress: byTestId('server-progress'),
  partial: byTestId('partial-transcript'),
};

const header = new Header();
const latency = new Latency();
const llmNotice = new MissingNotice('llm-missing', 'Model waiting');
const storageNotice = new MissingNotice('storage-missing', 'Waiting for');
const conversation = new Conversation(byTestId('messages'));
const calls = new ToolCalls(byTestId('tool-calls'));
const confirmations = new Confirmations(byTestId('confirmations'), (id, approve) => api.answer(id, approve));
const inventory = new Inventory(async (name) => {
  await api.approveTool(name);
  await refreshState();
});

let follower = null;
let voiceEnabled = false;

// ---- Token -----------------------------------------------------------------

function askForToken(message) {
  follower?.stop();
  follower = null;
  header.connection('stopped');
  el.app.hidden = true;
  el.forget.hidden = true;
  el.tokenView.hidden = false;
  el.tokenError.textContent = message ?? '';
  el.tokenError.hidden = !message;
  el.tokenInput.value = '';
  el.tokenInput.focus();
}

/** A 401 from any request or the event stream: forget the token, ask again. */
function tokenRefused() {
  const hadToken = loadToken() !== null;
  // Parallel requests all get the 401: the first one asks, with its message.
  if (!hadToken && !el.tokenView.hidden) return;
  forgetToken();
  askForToken(hadToken ? 'The assistant did not accept that token. Print the current one with desktop-assistant token.' : undefined);
}
onUnauthorized(tokenRefused);

el.tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const token = el.tokenInput.value.trim();
  if (!token) return;
  saveToken(token);
  start();
});

el.forget.addEventListener('click', () => {
  forgetToken();
  askForToken();
});

// ---- Start -----------------------------------------------------------------

async function start() {
  el.tokenView.hidden = true;
  el.app.hidden = false;
  el.forget.hidden = false;
  // The state first, so the page is whole before the live events arrive.
  const ok = await refresh();
  if (!ok && loadToken() === null) return;
  follower?.stop();
  follower = followEvents({
    url: '/events',
    token: loadToken,
    onEvent: handleMessage,
    onOpen: ({ reconnected }) => {
      // Events missed past the server's replay window are lost; the state is not.
      if (reconnected) void refresh();
    },
    onStatus: (status, detail) => header.connection(status, detail),
    onUnauthorized: tokenRefused,
  });
}

/** GET /state and GET /confirmations; false when either failed. */
async function refresh() {
  const results = await Promise.allSettled([refreshState(), refreshConfirmations()]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && failed.reason?.status !== 401) showTurnError(`Could not read the assistant's state: ${failed.reason?.message ?? failed.reason}`, 'state');
  else if (!failed && el.turnError.dataset.kind === 'state') showTurnError('');
  return !failed;
}

// Counts state.changed events, so that a GET /state answer older than the
// last of them does not put back a state that has already moved on.
let stateChanges = 0;
/** The voice runs in full duplex (from GET /state). */
let duplex = false;

async function refreshState() {
  const changesBefore = stateChanges;
  const state = await api.state();
  if (stateChanges === changesBefore) header.state(state.state);
  voiceEnabled = Boolean(state.voice?.enabled);
  duplex = state.mode === 'full_duplex_agent';
  header.mode(state.mode, voiceEnabled);
  el.listen.hidden = !voiceEnabled;
  const off = !voiceEnabled && typeof state.voice?.off === 'string' ? state.voice.off : '';
  // A device gone now (the sound server restarted, a headset unplugged): what is missing, in words, until it is back.
  const missing = Array.isArray(state.voice?.missing) ? state.voice.missing.map((device) => device.message).join('; ') : '';
  el.voiceOff.textContent = off ? `Voice off: ${off}` : missing ? `Voice waiting: ${missing}` : '';
  el.voiceOff.hidden = !off && !missing;
  el.voiceOff.dataset.missing = missing ? 'true' : 'false';
  showListening(Boolean(state.voice?.listening));
  if (!voiceEnabled) showPartialTranscript('');
  llmNotice.show(state.llm?.missing?.message);
  storageNotice.show(state.storage?.missing);
  inventory.providers(state.providers ?? []);
  inventory.servers(state.servers ?? []);
  inventory.tools(state.tools ?? []);
  latency.stages(state.latency);
}

async function refreshConfirmations() {
  const before = confirmations.shown();
  const body = await api.confirmations();
  confirmations.replace(Array.isArray(body) ? body : (body?.confirmations ?? []), before);
}

// GET /state after a burst of hub events, not once per event.
let stateTimer;
function refreshStateSoon() {
  clearTimeout(stateTimer);
  stateTimer = setTimeout(() => refreshState().catch(() => undefined), 250);
}

// ---- Events ----------------------------------------------------------------

let lastSeq = 0;
let lastAtMs = 0;

/** False for an event already shown: a replay after a reconnect repeats some. */
function isNew(event) {
  if (typeof event.seq === 'number') {
    if (event.seq <= lastSeq && event.atMs <= lastAtMs) return false;
    // A smaller seq with a later time is a restarted server counting from 1 again.
    if (event.seq <= lastSeq) void refresh();
    lastSeq = event.seq;
  }
  lastAtMs = Math.max(lastAtMs, event.atMs ?? 0);
  return true;
}

function handleMessage(message) {
  let event;
  try {
    event = JSON.parse(message.data);
  } catch {
    console.warn('event with data that is not JSON', message.type);
    return;
  }
  if (typeof event !== 'object' || event === null) return;
  if (typeof event.seq !== 'number' && /^\d+$/.test(message.lastEventId)) event.seq = Number(message.lastEventId);
  if (!isNew(event)) return;
  handle(event);
}

const TASK_WORDS = { embedding: 'computing vectors', indexing: 'building the index' };

/** `memory: building the index, 12,288 of 100,000 records (410/s, about 3 min left)`; gone once done. */
function showServerProgress(event) {
  const done = event.done >= event.total;
  const count = (n) => Math.round(n).toLocaleString('en-US');
  const left = event.remainingS === null ? '' : event.remainingS >= 90 ? `, about ${Math.round(event.remainingS / 60)} min left` : `, ${Math.round(event.remainingS)} s left`;
  const rate = event.ratePerS > 0 ? ` (${count(event.ratePerS)}/s${left})` : '';
  el.serverProgress.textContent = `${event.server}: ${TASK_WORDS[event.task] ?? event.task}, ${count(event.done)} of ${count(event.total)} records${rate}`;
  el.serverProgress.hidden = done;
}

function handle(event) {
  switch (event.type) {
    case 'state.changed':
      stateChanges += 1;
      // Full duplex listens all the time: the button mutes, whatever the state.
      if (!duplex) showListening(event.state === 'listening');
      return header.state(event.state);
    case 'voice.transcript':
      // Partials while the user speaks; the final one becomes the turn's message.
      return showPartialTranscript(event.final ? '' : event.text);
    case 'voice.resumed':
      return showPartialTranscript(resumedLine(event));
    case 'turn.started':
      return conversation.started(event);
    case 'llm.sentence':
      return conversation.sentence(event);
    case 'announcement':
      return conversation.announcement(event);
    case 'llm.first_token':
      return latency.firstToken(event.latencyMs);
    case 'llm.speculation':
      return latency.speculation(event);
    case 'llm.server':
    case 'voice.device':
      // /state says what is missing (voice.missing, llm.missing) while it is missing.
      return refreshStateSoon();
    case 'voice.speech':
      return event.phase === 'end' && event.endRule ? latency.endOfTurn(event) : undefined;
    case 'turn.ended':
      conversation.ended(event);
      latency.turn(event.durationMs);
      // The model's health and the per-stage figures in /state move with each turn.
      return refreshStateSoon();
    case 'tool.started':
      return calls.started(event);
    case 'tool.confirmation_requested':
      calls.confirmationRequested(event);
      return confirmations.add({ ...event, id: event.callId, server: calls.serverOf(event.turnId, event.callId) });
    case 'tool.decision':
      calls.decision(event);
      return confirmations.remove(event.turnId, event.callId);
    case 'tool.ended':
      calls.ended(event);
      confirmations.remove(event.turnId, event.callId);
      // Refused and cancelled calls never ran: their few milliseconds say nothing.
      if (['ok', 'error', 'timeout'].includes(event.status)) latency.tool(event.tool, event.durationMs);
      return undefined;
    case 'server.state':
      inventory.serverState(event);
      return refreshStateSoon();
    case 'tools.changed':
      return refreshStateSoon();
    case 'progress':
      return showServerProgress(event);
    case 'error':
      // A full disk shows in /state (storage.missing) until there is room.
      if (/DISK_FULL|AUDIT_UNWRITABLE/.test(event.code)) refreshStateSoon();
      return conversation.error(event);
    default:
      // llm.delta and llm.request: the reply is drawn from whole sentences.
      return undefined;
  }
}

/**
 * Partial transcripts while the user speaks: the voice issues' events call
 * this with the words so far, and with '' when the utterance ends.
 */
function showPartialTranscript(text) {
  el.partial.textContent = text;
  el.partial.hidden = !text;
}

// ---- Sending ---------------------------------------------------------------

function showTurnError(message, kind = 'turn') {
  el.turnError.textContent = message;
  el.turnError.hidden = !message;
  el.turnError.dataset.kind = kind;
}

el.turnForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = el.turnInput.value.trim();
  if (!text || el.turnSend.disabled) return;
  showTurnError('');
  el.turnSend.disabled = true;
  el.turnSend.textContent = 'Working…';
  el.turnInput.value = '';
  try {
    const body = await api.sendTurn(text);
    conversation.answered(text, body);
  } catch (error) {
    if (error.status === 401) return;
    // Refused before it started: give the text back to edit and resend.
    if (error.status !== 0 && !el.turnInput.value) el.turnInput.value = text;
    showTurnError(`The turn failed: ${error.message} (${error.code})`);
  } finally {
    el.turnSend.disabled = false;
    el.turnSend.textContent = 'Send';
  }
});

el.turnInput.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    el.turnForm.requestSubmit();
  }
});

/**
 * Turn-based, the Talk button starts a recording (the voice ends it at the
 * end of speech) and, while one goes on, stops it. Full duplex always
 * listens: the button mutes and unmutes the microphone.
 */
function showListening(listening) {
  el.listen.dataset.listening = String(listening);
  if (duplex) el.listen.textContent = listening ? 'Mute' : 'Unmute';
  else el.listen.textContent = listening ? 'Done' : 'Talk';
}

el.listen.addEventListener('click', async () => {
  const listening = el.listen.dataset.listening === 'true';
  try {
    if (listening) await api.stopListening();
    else await api.startListening();
    showListening(!listening);
  } catch (error) {
    if (error.status !== 401) showTurnError(`Could not ${listening ? 'stop' : 'start'} listening: ${error.message} (${error.code})`);
  }
});

el.interrupt.addEventListener('click', async () => {
  try {
    await api.interrupt();
  } catch (error) {
    if (error.status !== 401) showTurnError(`Could not stop: ${error.message}`);
  }
});

// A page coming back to the front, or a network coming back, retries at once.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') follower?.reconnectNow();
});
window.addEventListener('online', () => follower?.reconnectNow());

if (loadToken()) start();
else askForToken();
