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
import { VoiceSession, type VoiceTurnResult } from '../src/voice/session/voice-session.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from '../src/voice/tts/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { benchLlmProfiles, llmFigures, startBenchLlm } from './lib/scripted-llm.js';
import { turnEventFigures } from './lib/turn-daemon-trials.js';
import { librivoxClips, withTrailingSilence } from '../test/support/speech-clips.js';
import { distribution } from '../test/support/stats.js';

/** Every clip this many times per arm and LLM profile (TURN_ROUNDS=1 for a quick look). */
const ROUNDS = Number(process.env.TURN_ROUNDS ?? 3);
/** The first N LibriVox clips (TURN_CLIPS=1 for a quick look; all five by default). */
const CLIPS = Number(process.env.TURN_CLIPS ?? 5);
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
 * pocketsphinx, the conversation with a scripted LLM, espeak-ng, to a null
 * output. From the end of speech in the audio: when the VAD called it, the
 * final transcript, the LLM's first token and first sentence, the first
 * audio out. The resident decoder and the spawned pocketsphinx_continuous
 * side by side, each with both LLM profiles of bench/lib/scripted-llm.ts:
 * `instant` (the reply at once: the pipeline's own figures) and `realistic`
 * (300 ms to the first piece, 25 ms per piece); keys `<profile>_<arm>_...`.
 * Preemptive generation as `[turn]` configures it (the defaults), as the
 * daemon wires it; its requests and the end-of-turn rules are counted per
 * profile and arm. About 10 minutes: 3 arms x 2 profiles x 15 turns.
 */
export const turn: Benchmark = {
  name: 'turn',
  description: 'per-stage latency of a voice turn on real speech played in real time (VAD, resident pocketsphinx vs pocketsphinx_continuous, scripted LLM instant and realistic, espeak-ng)',
  run: runTurn,
};

async function runTurn(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const profiles = benchLlmProfiles();
  const llm = await startBenchLlm(REPLY, profiles[0]);
  const root = await mkdtemp(join(tmpdir(), 'bench-turn-'));
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  await writeFile(join(configDir, 'config.toml'), `llm = "${llm.url}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n`);
  const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') } });
  const arms = await Promise.all(
    ARMS.map(async (arm) => {
      const config = { ...host.config, stt: { ...host.config.stt, engine: arm.engine }, vad: { ...host.config.vad, sentence_end_silence_ms: arm.sentenceEndSilenceMs } };
      return { ...arm, stt: await sttFromConfig(config), detector: await detectorFromConfig(config) };
    }),
  );
  const tts = await ttsFromConfig(host.config);
  const stages: Record<string, number[]> = {};
  const armEvents = new Map<string, AssistantEvent[]>();
  const utterances = new Map<string, number>();
  try {
    const clips = (await librivoxClips()).slice(0, CLIPS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const clip of clips) {
        // Profiles and arms interleaved, so a busy spell on the machine hits them alike.
        for (const profile of profiles) {
          llm.profile = profile;
          for (const arm of arms) {
            options.signal?.throwIfAborted();
            const key = `${profile.name}_${arm.name}`;
            const events: AssistantEvent[] = [];
            const stop = host.bus.subscribe((e) => events.push(e));
            const requestsBefore = llm.chatRequestsAtMs.length;
            let results: VoiceTurnResult[];
            try {
              results = await oneTurn(clip.name, clip.samples, arm, options.signal);
            } finally {
              stop();
            }
            armEvents.set(key, [...(armEvents.get(key) ?? []), ...events]);
            utterances.set(key, (utterances.get(key) ?? 0) + results.length);
            const measured = measureTurn(results, events, llm.chatRequestsAtMs.slice(requestsBefore));
            if (!measured) throw new Error(`${clip.name} (${key}): no turn (${results[0]?.dropped ?? 'no utterance'})`);
            for (const [stage, ms] of Object.entries(measured)) (stages[`${key}_${stage}`] ??= []).push(ms);
            process.stderr.write(`turn ${clip.name} ${key}: final ${Math.round(measured.stt_final_after_vad_end)} ms after the VAD's end, first audio ${Math.round(measured.first_audio_after_speech)} ms after speech\n`);
          }
        }
      }
    }
  } finally {
    await Promise.allSettled([...arms.flatMap(({ stt, detector }) => [stt.close(), detector.close()]), tts.close()]);
    await host.close();
    await llm.close();
    await rm(root, { recursive: true, force: true });
  }
  const figures: Figures = {
    turns_per_arm_and_profile: ROUNDS * Math.min(CLIPS, 5),
    silence_ms: host.config.vad.silence_ms,
    sentence_end_silence_ms: SENTENCE_END_SILENCE_MS,
    preemptive_pause_ms: host.config.turn.preemptive ? host.config.turn.preemptive_pause_ms : 'off',
    llm_profiles: profiles.map((p) => `${p.name} (first piece ${p.firstPieceMs} ms, then ${p.pieceMs} ms each)`).join(', '),
  };
  for (const profile of profiles) {
    Object.assign(figures, llmFigures(profile.name, llm.stats(profile.name)));
    // Each clip is one utterance by the 500 ms rule; more means the sentence-end rule split one.
    for (const arm of arms) {
      const key = `${profile.name}_${arm.name}`;
      figures[`${key}_utterances`] = utterances.get(key) ?? 0;
      Object.assign(figures, turnEventFigures(key, armEvents.get(key) ?? []));
    }
  }
  for (const [name, samples] of Object.entries(stages)) Object.assign(figures, distribution(name, samples));
  return figures;

  /** One clip (plus trailing silence) played in real time through a new session of the arm's engines. */
  function oneTurn(name: string, samples: Int16Array, arm: (typeof arms)[number], signal: AbortSignal | undefined): Promise<VoiceTurnResult[]> {
    const session = new VoiceSession({
      input: new WavFileInput(name, withTrailingSilence(samples, TRAILING_SILENCE_MS), { realtime: true }),
      detector: arm.detector,
      stt: arm.stt,
      speaker: new Speaker({ tts, output: new NullOutput(), bus: host.bus, sanitize: (t) => sanitizeForSpeech(t) }),
      conversation: host.newConversation(),
      bus: host.bus,
      checkTranscript: transcriptCheck(host.config),
      languages: ['en', 'it'],
      defaultLanguage: 'en',
      confirmation: noConfirmationChannel('bench'),
      sentenceLanguage: sentenceLanguagePicker(['en', 'it']),
      ...(host.config.turn.preemptive ? { preemptivePauseMs: host.config.turn.preemptive_pause_ms } : {}),
    });
    return session.answerAll('file', signal);
  }
}

type Stage = 'vad_end_after_speech' | 'stt_final_after_speech' | 'stt_final_after_vad_end' | 'llm_request_after_final' | 'llm_first_token_after_speech' | 'llm_first_sentence_after_speech' | 'first_audio_after_speech';

/**
 * The stages of one turn, ms after the end of speech in the audio (or
 * between events); undefined when no turn came. `requestsAtMs`: the chat
 * requests the server got during the turn; the last is the one answered
 * (a speculative one, sent before the final, when it was used).
 */
function measureTurn(results: readonly VoiceTurnResult[], events: readonly AssistantEvent[], requestsAtMs: readonly number[]): Record<Stage, number> | undefined {
  const [result] = results;
  if (!result?.outcome) return undefined;
  // Frame n of a real-time input arrives (n + 1) x 20 ms after listening began.
  const started = events.find((e) => e.type === 'voice.listening')?.atMs ?? 0;
  const speechEnd = events.find((e) => e.type === 'voice.speech' && e.phase === 'end');
  const audioEnd = started + ((speechEnd?.type === 'voice.speech' ? speechEnd.frame : 0) + 1) * 20;
  const at = (type: AssistantEvent['type']): number => events.find((e) => e.type === type)?.atMs ?? Number.NaN;
  const { timings } = result;
  return {
    vad_end_after_speech: timings.speechEndMs - audioEnd,
    stt_final_after_speech: timings.sttFinalMs - audioEnd,
    stt_final_after_vad_end: timings.sttFinalMs - timings.speechEndMs,
    // The host's own time: memory recall, model lookup, request set-up (bench/host-turn.ts has the stages).
    llm_request_after_final: (requestsAtMs.at(-1) ?? Number.NaN) - timings.sttFinalMs,
    llm_first_token_after_speech: at('llm.first_token') - audioEnd,
    llm_first_sentence_after_speech: at('llm.sentence') - audioEnd,
    first_audio_after_speech: (timings.firstAudioMs ?? Number.NaN) - audioEnd,
  };
}
