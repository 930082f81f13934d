import { existsSync } from 'node:fs';
import { defaultConfig, expandHome } from '../src/config/index.js';
import { RedecodingStt } from '../src/voice/streaming/index.js';
import { transcribeWhole } from '../test/support/transcribe-whole.js';
import { PocketsphinxStt, RESIDENT_DEFAULTS, ResidentPocketsphinxStt } from '../src/voice/stt/index.js';
import type { StreamingStt } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { partialsFigures, utteranceFrom, type Trial, type Utterance } from '../test/support/partials-utterances.js';
import { cpuSeconds, LoopDelay } from './lib/process-load.js';
import { cardsClips, librivoxClips } from '../test/support/speech-clips.js';
import { elapsedMs, now, round } from '../test/support/stats.js';

/** The spawned engine at its best interval of the last run (BENCHMARKS.md, partials: 500 ms). */
const SPAWNED_INTERVAL_MS = 500;
/** Each of the 10 clips twice per engine: 20 utterances each. */
const ROUNDS = 2;
/** The endpointer's defaults (`src/voice/vad/endpointer-config.ts`). */
const PREFIX_MS = 300;
const END_SILENCE_MS = 500;
/** The LibriVox clips run 3-7 s of unbroken reading; a spoken request is shorter. */
const LIBRIVOX_MAX_MS = 4000;
/** The seed's goal: the first stable transcript within 800 ms (P95) of the user starting to speak. */
const TARGET_MS = 800;
const FRAME = 320;
const FRAME_MS = 20;

interface Engine {
  variant: string;
  stt: StreamingStt;
  cpuS: number;
  speechS: number;
  loop: LoopDelay;
}

/**
 * Streaming recognition as the voice uses it, both engines side by side:
 * each utterance (a cards or LibriVox clip from 300 ms before its voiced
 * onset) is pushed to a recognition session in 20 ms frames at wall-clock
 * pace, as a microphone delivers them; 500 ms after the last voiced audio
 * (the endpointer's end silence) `finish()` is called. The resident decoder
 * (its default hypothesis interval) and pocketsphinx_continuous re-decoded
 * every 500 ms, utterance by utterance in turn. From the onset: the first
 * partial with words and the first with a stable prefix; from the end of
 * speech and from `finish()`: the final. Per engine: CPU seconds per second
 * of speech and the event loop's delay while it decoded.
 */
export const partials: Benchmark = {
  name: 'partials',
  description: 'streaming recognition in real time, resident pocketsphinx vs pocketsphinx_continuous re-decoded: first partial, first stable partial, final, CPU, event-loop delay',
  run: runPartials,
};

async function runPartials(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const utterances = await loadUtterances();
  const engines: Engine[] = [
    { variant: 'resident', stt: await ResidentPocketsphinxStt.create(), cpuS: 0, speechS: 0, loop: new LoopDelay() },
    { variant: `spawned_${SPAWNED_INTERVAL_MS}`, stt: new RedecodingStt(new PocketsphinxStt(), { partialIntervalMs: SPAWNED_INTERVAL_MS }), cpuS: 0, speechS: 0, loop: new LoopDelay() },
  ];
  try {
    // The first run reads the model from a cold disk; in use it stays in the page cache.
    for (const engine of engines) await transcribeWhole(engine.stt, utterances[0]!.samples);
    const trials: Trial[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const utterance of utterances) {
        // Engines interleaved, so a busy spell on the machine hits both alike.
        for (const engine of engines) {
          options.signal?.throwIfAborted();
          const trial = await measured(engine, utterance, options.signal);
          trials.push(trial);
          const ms = (value: number | undefined) => (value === undefined ? '-' : Math.round(value));
          process.stderr.write(
            `partials ${trials.length}/${ROUNDS * utterances.length * engines.length}: ${utterance.name} ${engine.variant}, ` +
              `first partial ${ms(trial.firstPartialMs)}, stable ${ms(trial.firstStableMs)}, final ${ms(trial.finalMs)} ms after onset\n`,
          );
        }
      }
    }
    const load: Figures = {};
    for (const engine of engines) {
      Object.assign(load, {
        [`${engine.variant}_cpu_s_per_speech_s`]: round(engine.cpuS / engine.speechS),
        [`${engine.variant}_event_loop_delay_p99_ms`]: round(engine.loop.percentileMs(99)),
        [`${engine.variant}_event_loop_delay_max_ms`]: round(engine.loop.maxMs()),
      });
    }
    return {
      resident: `pocketsphinx 0.8 resident (native/pocketsphinx), a hypothesis every ${RESIDENT_DEFAULTS.partialIntervalMs} ms of audio, a word stable after ${RESIDENT_DEFAULTS.innerStableAfterMs} ms (${RESIDENT_DEFAULTS.stableAfterMs} ms as the last word)`,
      spawned: `pocketsphinx_continuous per decode, re-decoded every ${SPAWNED_INTERVAL_MS} ms (-fwdflat no)`,
      whisper_server: whisperNote(),
      clips: `cards 001-005 whole, LibriVox 0870-0930 first ${LIBRIVOX_MAX_MS} ms`,
      prefix_ms: PREFIX_MS,
      end_silence_ms: END_SILENCE_MS,
      ...partialsFigures(trials, TARGET_MS),
      ...load,
    };
  } finally {
    await Promise.allSettled(engines.map((engine) => engine.stt.close()));
  }
}

/** One trial, with the CPU it took and the event loop's delay while it ran counted to its engine. */
async function measured(engine: Engine, utterance: NamedUtterance, signal?: AbortSignal): Promise<Trial> {
  const cpuBefore = cpuSeconds();
  engine.loop.start();
  try {
    return await play(engine, utterance, signal);
  } finally {
    engine.loop.stop();
    engine.cpuS += cpuSeconds() - cpuBefore;
    engine.speechS += (utterance.speechEndMs - utterance.onsetMs) / 1000;
  }
}

interface NamedUtterance extends Utterance {
  name: string;
}

async function loadUtterances(): Promise<NamedUtterance[]> {
  const shape = { prefixMs: PREFIX_MS, endSilenceMs: END_SILENCE_MS };
  const cards = (await cardsClips()).map((clip) => ({ name: clip.name, ...utteranceFrom(clip.samples, shape) }));
  const books = (await librivoxClips()).map((clip) => ({ name: clip.name, ...utteranceFrom(clip.samples, { ...shape, maxMs: LIBRIVOX_MAX_MS }) }));
  return [...cards, ...books];
}

/** One utterance into a new recognition session, frame n pushed (n + 1) x 20 ms after the start. */
async function play(engine: Engine, utterance: Utterance, signal?: AbortSignal): Promise<Trial> {
  const start = now();
  const session = engine.stt.startUtterance(signal ? { signal } : {});
  const trial: Trial = { variant: engine.variant, finalMs: 0, speechEndMs: utterance.speechEndMs - utterance.onsetMs, finishCalledMs: 0 };
  const sinceOnset = () => elapsedMs(start) - utterance.onsetMs;
  session.onPartial((partial) => {
    if (partial.text.trim() !== '') trial.firstPartialMs ??= sinceOnset();
    if (partial.stable !== '') trial.firstStableMs ??= sinceOnset();
  });
  try {
    for (let frame = 0; frame * FRAME < utterance.samples.length; frame++) {
      const wait = (frame + 1) * FRAME_MS - elapsedMs(start);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      session.push(utterance.samples.subarray(frame * FRAME, (frame + 1) * FRAME));
    }
    trial.finishCalledMs = sinceOnset();
    await session.finish();
    trial.finalMs = sinceOnset();
    return trial;
  } finally {
    session.cancel();
  }
}

function whisperNote(): string {
  const model = expandHome(defaultConfig().whisper.model);
  if (!existsSync(model)) return `not measured: no whisper.cpp model on this machine (${model})`;
  return 'not measured: this bench runs pocketsphinx only';
}
