import type { AssistantBus, AssistantEvent } from '../../events/index.js';

/**
 * The terminal's view of a turn, derived from events only: tool calls with
 * their decisions and durations, latencies, errors, server trouble.
 */
export function reportToTerminal(bus: AssistantBus, output: NodeJS.WritableStream): () => void {
  // A streaming recognizer revises its partials many times a second: the terminal shows one when its stable words grew.
  let shownStable: string | undefined;
  return bus.subscribe((event) => {
    if (event.type === 'voice.transcript') {
      if (!event.final && event.stable === shownStable) return;
      shownStable = event.final ? undefined : event.stable;
    }
    const line = describe(event);
    if (line) output.write(`${line}\n`);
  });
}

const END_RULES = { complete: 'a finished sentence', silence: 'the whole silence', stopped: 'the recording stopped' } as const;

/** `; a finished sentence after 250 ms of silence`: what ended a spoken turn. */
function endOfTurn(event: Extract<AssistantEvent, { type: 'voice.speech' }>): string {
  if (!event.endRule) return '';
  return event.endRule === 'stopped' ? `; ${END_RULES.stopped}` : `; ${END_RULES[event.endRule]} after ${event.silenceMs ?? 0} ms of silence`;
}

function speculation(event: Extract<AssistantEvent, { type: 'llm.speculation' }>): string {
  if (event.phase === 'started') return '[llm] a reply asked ahead while you paused';
  if (event.phase === 'used') return '[llm] the reply asked ahead is used';
  const wasted = event.wastedPieces ? `, ${event.wastedPieces} pieces thrown away` : '';
  return `[llm] the reply asked ahead is dropped: ${event.reason ?? 'discarded'}${wasted}`;
}

export function describe(event: AssistantEvent): string | undefined {
  switch (event.type) {
    case 'tool.started':
      return `[tool] ${event.tool} ${event.argsSummary}`;
    case 'tool.decision':
      return event.decidedBy === 'policy' && event.approved ? undefined : `[tool] ${event.tool}: ${event.approved ? 'allowed' : 'not allowed'} (${event.decidedBy})`;
    case 'tool.ended':
      return `[tool] ${event.tool}: ${event.status}, ${Math.round(event.durationMs)} ms, ${event.outputChars} chars${event.truncated ? ' (truncated)' : ''}`;
    case 'llm.first_token':
      return `[llm] first token after ${Math.round(event.latencyMs)} ms`;
    case 'announcement':
      return `[say] ${event.text}`;
    case 'turn.ended':
      return `[turn] ${event.status} in ${Math.round(event.durationMs)} ms`;
    case 'error':
      return `[error] ${event.code}: ${event.message}`;
    case 'voice.listening':
      return `[voice] listening (${event.trigger})`;
    case 'voice.speech':
      return event.phase === 'end' ? `[voice] speech ended (${event.durationMs ?? 0} ms of audio${endOfTurn(event)})` : undefined;
    case 'llm.speculation':
      return speculation(event);
    case 'llm.server':
      // The message names the server and says what happened (lost) or how long it was away (restored).
      return `[llm] ${event.message}`;
    case 'voice.device':
      return event.status === 'lost' ? `[voice] the ${event.device === 'input' ? 'microphone' : 'speaker'} is gone: ${event.message}` : `[voice] the ${event.device === 'input' ? 'microphone' : 'speaker'} is back`;
    case 'voice.transcript':
      // A partial: what is being heard, for the eye only (the LLM gets the final one).
      if (!event.final) return `[hearing] ${event.text}`;
      return event.dropped ? `[heard] (nothing to answer: ${event.dropped})` : `[heard] ${event.text}${event.language ? ` (${event.language})` : ''}`;
    case 'voice.interrupted':
      if (event.source !== 'barge_in') return `[voice] interrupted (${event.source === 'api' ? 'POST /interrupt' : 'the interrupt key'}): playback stopped`;
      return `[voice] interrupted: playback stopped ${Math.round(event.latencyMs)} ms after the speech began`;
    case 'voice.room': {
      if (!event.heard) return `[voice] the room test sound was not heard at the microphone (noise ${event.noiseDbfs.toFixed(0)} dBFS): is the speaker on?`;
      const measured = `[voice] room: echo after ${Math.round(event.delayMs ?? 0)} ms at ${(event.echoDb ?? 0).toFixed(0)} dB, noise ${event.noiseDbfs.toFixed(0)} dBFS`;
      return event.problems.length === 0 ? measured : `${measured}; ${event.problems.join('; ')}`;
    }
    case 'voice.resumed':
      if (event.backchannel !== undefined) return `[voice] "${event.backchannel}" is a backchannel: the reply goes on where it stopped`;
      return `[voice] no words came: the reply goes on from sentence ${event.sentence + 1}`;
    case 'state.changed':
      return `[state] ${event.state}`;
    case 'progress':
      // The page shows every step; the terminal the start and the end.
      if (event.done === 0) return `[server] ${event.server}: ${event.task} ${event.total} records...`;
      return event.done >= event.total ? `[server] ${event.server}: ${event.task} ${event.total} records done` : undefined;
    case 'server.state':
      return event.state === 'ready' || event.state === 'starting' ? undefined : `[server] ${event.server} ${event.state}${event.detail ? `: ${event.detail}` : ''}`;
    default:
      return undefined;
  }
}
