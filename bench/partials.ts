import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig, expandHome } from '../src/config/index.js';
import { RedecodingTranscriber } from '../src/voice/streaming/index.js';
import { PocketsphinxStt } from '../src/voice/stt/pocketsphinx.js';
import type { Stt } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './benchmark.js';
import { loadClip } from './echo-scenes.js';
import { partialsFigures, utteranceFrom, type Trial, type Utterance } from './partials-utterances.js';
import { librivoxClips } from './speech-clips.js';
import { elapsedMs, now } from './stats.js';

const CARDS_DIR = '/usr/share/pocketsphinx/test/data/cards';
const CARDS = ['001', '002', '003', '004', '005'];
const INTERVALS_MS = [300, 500, 1000];
/** Each of the 10 clips twice per interval: 20 utterances each, about 5 minutes in all. */
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

/**
 * Streaming recognition as the full-duplex voice uses it: each utterance
 * (a cards or LibriVox clip from 300 ms before its voiced onset) is pushed
 * to a RedecodingTranscriber over pocketsphinx in 20 ms frames at wall-clock
 * pace, as a microphone delivers them; 500 ms after the last voiced audio
 * (the endpointer's end silence) `finish()` is called. From the onset: the
 * first partial with words and the first with a stable prefix; from the
 * end of speech: the final transcript. Re-decode intervals 300, 500, 1000 ms.
 */
export const partials: Benchmark = {
  name: 'partials',
  description: 'streaming recognition in real time (pocketsphinx re-decoded every 300/500/1000 ms): first partial, first stable partial, final',
  run: runPartials,
};

async function runPartials(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const utterances = await loadUtterances();
  const stt = new PocketsphinxStt();
  try {
    // The first run reads the model from a cold disk; in use it stays in the page cache.
    for await (const _ of stt.transcribe(utterances[0]!.samples, { signal: options.signal }));
    const trials: Trial[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const utterance of utterances) {
        // Intervals interleaved, so a busy spell on the machine hits all three alike.
        for (const intervalMs of INTERVALS_MS) {
          options.signal?.throwIfAborted();
          const trial = await play(stt, utterance, intervalMs, options.signal);
          trials.push(trial);
          const ms = (value: number | undefined) => (value === undefined ? '-' : Math.round(value));
          process.stderr.write(
            `partials ${trials.length}/${ROUNDS * utterances.length * INTERVALS_MS.length}: ${utterance.name} every ${intervalMs} ms, ` +
              `first partial ${ms(trial.firstPartialMs)}, stable ${ms(trial.firstStableMs)}, final ${ms(trial.finalMs)} ms after onset\n`,
          );
        }
      }
    }
    return {
      engine: 'pocketsphinx (pocketsphinx_continuous per decode, -fwdflat no)',
      whisper_server: whisperNote(),
      clips: `cards 001-005 whole, LibriVox 0870-0930 first ${LIBRIVOX_MAX_MS} ms`,
      prefix_ms: PREFIX_MS,
      end_silence_ms: END_SILENCE_MS,
      ...partialsFigures(trials, TARGET_MS),
    };
  } finally {
    await stt.close();
  }
}

interface NamedUtterance extends Utterance {
  name: string;
}

async function loadUtterances(): Promise<NamedUtterance[]> {
  const shape = { prefixMs: PREFIX_MS, endSilenceMs: END_SILENCE_MS };
  const cards = await Promise.all(CARDS.map(async (name) => ({ name, ...utteranceFrom(await loadClip(join(CARDS_DIR, `${name}.wav`)), shape) })));
  const books = (await librivoxClips()).map((clip) => ({ name: clip.name, ...utteranceFrom(clip.samples, { ...shape, maxMs: LIBRIVOX_MAX_MS }) }));
  return [...cards, ...books];
}

/** One utterance into a fresh transcriber, frame n pushed (n + 1) x 20 ms after the start. */
async function play(stt: Stt, utterance: Utterance, intervalMs: number, signal?: AbortSignal): Promise<Trial> {
  const start = now();
  const transcriber = new RedecodingTranscriber(stt, { intervalMs }, signal);
  const trial: Trial = { intervalMs, finalMs: 0, speechEndMs: utterance.speechEndMs - utterance.onsetMs, finishCalledMs: 0 };
  const sinceOnset = () => elapsedMs(start) - utterance.onsetMs;
  transcriber.onPartial((partial) => {
    if (partial.text.trim() !== '') trial.firstPartialMs ??= sinceOnset();
    if (partial.stable !== '') trial.firstStableMs ??= sinceOnset();
  });
  try {
    for (let frame = 0; frame * FRAME < utterance.samples.length; frame++) {
      const wait = (frame + 1) * FRAME_MS - elapsedMs(start);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      transcriber.push(utterance.samples.subarray(frame * FRAME, (frame + 1) * FRAME));
    }
    trial.finishCalledMs = sinceOnset();
    await transcriber.finish();
    trial.finalMs = sinceOnset();
    return trial;
  } finally {
    transcriber.stop();
  }
}

function whisperNote(): string {
  const model = expandHome(defaultConfig().whisper.model);
  if (!existsSync(model)) return `not measured: no whisper.cpp model on this machine (${model})`;
  return 'not measured: this bench runs pocketsphinx only';
}
