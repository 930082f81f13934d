import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssistantEvent } from '../src/events/index.js';
import { noConfirmationChannel } from '../src/host/router/index.js';
import { startHost } from '../src/host/runtime.js';
import { WavFileInput } from '../src/voice/audio/index.js';
import { NullOutput } from '../test/support/null-output.js';
import { detectorFromConfig, sttFromConfig, transcriptCheck, ttsFromConfig } from '../src/voice/engines.js';
import { Speaker } from '../src/voice/session/speaker.js';
import { VoiceSession } from '../src/voice/session/voice-session.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from '../src/voice/tts/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { startBenchLlm } from './lib/scripted-llm.js';
import { librivoxClips, withTrailingSilence } from './lib/speech-clips.js';
import { distribution } from '../test/support/stats.js';

const ROUNDS = 3;
/** The shorter end silence tried when recognition hears a finished sentence (`[vad] sentence_end_silence_ms`). */
const SENTENCE_END_SILENCE_MS = 250;
/** Both pocketsphinx engines, and the resident one with the sentence-end rule, clip by clip in turn. */
const ARMS = [
  { name: 'pocketsphinx', engine: 'pocketsphinx', sentenceEndSilenceMs: 0 },
  { name: 'pocketsphinx_continuous', engine: 'pocketsphinx_continuous', sentenceEndSilenceMs: 0 },
  { name: 'pocketsphinx_sentence_end', engine: 'pocketsphinx', sentenceEndSilenceMs: SENTENCE_END_SILENCE_MS },
] as const;
const REPLY = 'It is sunny in Rome today. Expect about twenty degrees by noon.';
const TRAILING_SILENCE_MS = 1500;

/**
 * One voice turn, stage by stage, with real audio in real time: each
 * LibriVox clip (plus 1.5 s of silence) is played into the pipeline at 16
 * kHz wall-clock pace as a microphone would deliver it, through Silero VAD,
 * pocketsphinx, the conversation with a scripted LLM (streamed at once, so
 * the figures are the pipeline's own), espeak-ng, to a null output. From
 * the end of speech in the audio: when the VAD called it, the final
 * transcript, the LLM's first token and first sentence, the first audio out.
 * The resident decoder and the spawned pocketsphinx_continuous side by side.
 */
export const turn: Benchmark = {
  name: 'turn',
  description: 'per-stage latency of a voice turn on real speech played in real time (VAD, resident pocketsphinx vs pocketsphinx_continuous, scripted LLM, espeak-ng)',
  run: runTurn,
};

async function runTurn(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const llm = await startBenchLlm(REPLY);
  const root = await mkdtemp(join(tmpdir(), 'bench-turn-'));
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  await writeFile(join(configDir, 'config.toml'), `llm = "${llm.url}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n`);
  const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') } });
  const arms = await Promise.all(
    ARMS.map(async (arm) => {
      const config = { ...host.config, stt: { ...host.config.stt, engine: arm.engine }, vad: { ...host.config.vad, sentence_end_silence_ms: arm.sentenceEndSilenceMs } };
      return { ...arm, stt: await sttFromConfig(config), detector: await detectorFromConfig(config), utterances: 0 };
    }),
  );
  const tts = await ttsFromConfig(host.config);
  const stages: Record<string, number[]> = {};
  const record = (engine: string, stage: string, ms: number): void => {
    (stages[`${engine}_${stage}`] ??= []).push(ms);
  };
  try {
    const clips = await librivoxClips();
    for (let round = 0; round < ROUNDS; round++) {
      for (const clip of clips) {
        for (const arm of arms) {
          const { name: engine, stt, detector } = arm;
          options.signal?.throwIfAborted();
          const events: AssistantEvent[] = [];
          const stop = host.bus.subscribe((e) => events.push(e));
          const session = new VoiceSession({
            input: new WavFileInput(clip.name, withTrailingSilence(clip.samples, TRAILING_SILENCE_MS), { realtime: true }),
            detector,
            stt,
            speaker: new Speaker({ tts, output: new NullOutput(), bus: host.bus, sanitize: (t) => sanitizeForSpeech(t) }),
            conversation: host.newConversation(),
            bus: host.bus,
            checkTranscript: transcriptCheck(host.config),
            languages: ['en', 'it'],
            defaultLanguage: 'en',
            confirmation: noConfirmationChannel('bench'),
            sentenceLanguage: sentenceLanguagePicker(['en', 'it']),
          });
          const results = await session.answerAll('file', options.signal);
          const [result] = results;
          const requestAtMs = llm.chatRequestsAtMs.at(-results.length);
          arm.utterances += results.length;
          stop();
          if (!result?.outcome) throw new Error(`${clip.name} (${engine}): no turn (${result?.dropped ?? 'no utterance'})`);
          // Frame n of a real-time input arrives (n + 1) x 20 ms after listening began.
          const started = events.find((e) => e.type === 'voice.listening')?.atMs ?? 0;
          const speechEnd = events.find((e) => e.type === 'voice.speech' && e.phase === 'end');
          const audioEnd = started + ((speechEnd?.type === 'voice.speech' ? speechEnd.frame : 0) + 1) * 20;
          const at = (type: AssistantEvent['type']): number | undefined => events.find((e) => e.type === type)?.atMs;
          record(engine, 'vad_end_after_speech', result.timings.speechEndMs - audioEnd);
          record(engine, 'stt_final_after_speech', result.timings.sttFinalMs - audioEnd);
          record(engine, 'stt_final_after_vad_end', result.timings.sttFinalMs - result.timings.speechEndMs);
          // The host's own time: memory recall, model lookup, request set-up (bench/host-turn.ts has the stages).
          record(engine, 'llm_request_after_final', (requestAtMs ?? Number.NaN) - result.timings.sttFinalMs);
          record(engine, 'llm_first_token_after_speech', (at('llm.first_token') ?? Number.NaN) - audioEnd);
          record(engine, 'llm_first_sentence_after_speech', (at('llm.sentence') ?? Number.NaN) - audioEnd);
          record(engine, 'first_audio_after_speech', (result.timings.firstAudioMs ?? Number.NaN) - audioEnd);
          process.stderr.write(`turn ${clip.name} ${engine}: final ${Math.round(result.timings.sttFinalMs - result.timings.speechEndMs)} ms after the VAD's end, first audio ${Math.round((result.timings.firstAudioMs ?? Number.NaN) - audioEnd)} ms after speech\n`);
        }
      }
    }
  } finally {
    await Promise.allSettled([...arms.flatMap(({ stt, detector }) => [stt.close(), detector.close()]), tts.close()]);
    await host.close();
    await llm.close();
    await rm(root, { recursive: true, force: true });
  }
  const figures: Figures = { turns_per_arm: ROUNDS * 5, silence_ms: host.config.vad.silence_ms, sentence_end_silence_ms: SENTENCE_END_SILENCE_MS };
  // Each clip is one utterance by the 500 ms rule; more means the sentence-end rule split one.
  for (const arm of arms) figures[`${arm.name}_utterances`] = arm.utterances;
  for (const [name, samples] of Object.entries(stages)) Object.assign(figures, distribution(name, samples));
  return figures;
}
