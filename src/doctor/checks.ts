import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assistantMode, expandHome, type Config } from '../config/index.js';
import { messageOf } from '../errors/index.js';
import { memoryEnabled } from '../memory/index.js';
import { checkCanceller, chooseDevice, loadPocketsphinxAddon, loadPortAudio, measureRoomEcho, PortAudioInput, PortAudioOutput, roomProblems, sileroModelPath } from '../voice/index.js';
import { failed, passed, skipped, type CheckResult } from './check.js';
import { lastExitCheck, serviceCheck } from './daemon-checks.js';
import { findProgram } from './programs.js';

const SETUP = 'run `bash scripts/setup.sh` in the checkout (it installs the Debian packages and builds what is native)';
const LLM_TIMEOUT_MS = 3000;
const requireHere = createRequire(import.meta.url);

export interface DoctorContext {
  config: Config;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Whether the voice is meant to run (`[voice] enabled`): audio checks fail only then. */
  voice: boolean;
  /** Whether the doctor may play a test sound (full duplex: the room's echo is measured); default true. */
  sound?: boolean;
}

export async function llmCheck({ config }: DoctorContext): Promise<CheckResult> {
  const url = `${config.llm.replace(/\/+$/, '')}/models`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(LLM_TIMEOUT_MS) });
    if (!response.ok) return failed('LLM', `${url} answered HTTP ${response.status}`, 'check that `llm` in config.toml is the server\'s /v1 URL');
    return passed('LLM', `${config.llm} answers`);
  } catch (error) {
    return failed(
      'LLM',
      `cannot reach ${url}: ${messageOf(error)}`,
      `start an OpenAI-compatible server there, e.g. \`llama-server -m MODEL.gguf --jinja --port 8181\`, or set \`llm\` in config.toml`,
    );
  }
}

export async function sttCheck({ config, env }: DoctorContext): Promise<CheckResult> {
  const { engine, grammar } = config.stt;
  if (engine === 'pocketsphinx' || engine === 'pocketsphinx_continuous') {
    const name = `STT (${engine})`;
    const model = '/usr/share/pocketsphinx/model/en-us/en-us';
    let program: string | undefined;
    if (engine === 'pocketsphinx') {
      try {
        loadPocketsphinxAddon();
      } catch (error) {
        return failed(name, messageOf(error), SETUP);
      }
    } else {
      program = findProgram('pocketsphinx_continuous', env);
      if (!program) return failed(name, 'pocketsphinx_continuous is not on PATH', `\`sudo apt-get install pocketsphinx pocketsphinx-en-us\`, or ${SETUP}`);
    }
    if (!existsSync(model)) return failed(name, `no acoustic model at ${model}`, '`sudo apt-get install pocketsphinx-en-us`');
    if (grammar !== '' && !existsSync(expandHome(grammar))) {
      return failed(name, `the grammar ${grammar} does not exist`, 'fix `[stt] grammar` or set it to ""');
    }
    return passed(name, `${program ?? 'resident decoder (native/pocketsphinx)'}, model ${model}`);
  }
  const { url, binary, model } = config.whisper;
  if (url !== '') {
    try {
      await fetch(url, { signal: AbortSignal.timeout(LLM_TIMEOUT_MS) });
      return passed('STT (whisper)', `${url} answers`);
    } catch (error) {
      return failed('STT (whisper)', `cannot reach ${url}: ${messageOf(error)}`, 'start whisper-server there, or empty `[whisper] url` to let the assistant start it');
    }
  }
  if (!findProgram(binary, env)) {
    return failed('STT (whisper)', `${binary} is not on PATH`, 'build whisper.cpp and put its `whisper-server` on PATH, or set `[whisper] binary` to its path (or use `[stt] engine = "pocketsphinx"`)');
  }
  if (!existsSync(expandHome(model))) {
    return failed('STT (whisper)', `no whisper model at ${expandHome(model)}`, 'download a ggml model (e.g. ggml-large-v3-turbo-q5_0.bin) there, or set `[whisper] model`');
  }
  return passed('STT (whisper)', `${binary}, model ${expandHome(model)}`);
}

export function ttsCheck({ config, env }: DoctorContext): CheckResult {
  if (config.tts.engine === 'espeak') {
    const program = findProgram('espeak-ng', env);
    return program ? passed('TTS (espeak-ng)', program) : failed('TTS (espeak-ng)', 'espeak-ng is not on PATH', `\`sudo apt-get install espeak-ng\`, or ${SETUP}`);
  }
  for (const path of [config.kokoro.model, config.kokoro.voices].map(expandHome)) {
    if (!existsSync(path)) return failed('TTS (kokoro)', `missing ${path}`, 'put the Kokoro model files there (see `[kokoro]`), or use `[tts] engine = "espeak"`');
  }
  return passed('TTS (kokoro)', expandHome(config.kokoro.model));
}

export function vadCheck(): CheckResult {
  try {
    requireHere('onnxruntime-node');
    const model = sileroModelPath();
    if (!existsSync(model)) return failed('VAD (Silero)', `no model at ${model}`, SETUP);
    return passed('VAD (Silero)', model);
  } catch (error) {
    return failed('VAD (Silero)', `onnxruntime-node or the Silero weights cannot be found: ${messageOf(error)}`, SETUP);
  }
}

export function audioCheck({ config, voice }: DoctorContext): CheckResult {
  const name = 'audio devices';
  if (!voice) return skipped(name, 'the voice is off ([voice] enabled = false)');
  try {
    const binding = loadPortAudio();
    // The same choice the voice makes: an exact name, else a unique part of one, else the host's default.
    const input = chooseDevice(binding, config.audio.input, 'input');
    const output = chooseDevice(binding, config.audio.output, 'output');
    return passed(name, `input "${input.name}", output "${output.name}"`);
  } catch (error) {
    return failed(name, messageOf(error), 'plug in a microphone and speakers, or set `[audio] input` and `output` to device names listed in the message (or run with --no-voice)');
  }
}

/** A full-duplex check's result when the voice is not full duplex (skipped), or the mode is not valid (failed); undefined in full duplex. */
function unlessFullDuplex(name: string, { config, env, voice }: DoctorContext): CheckResult | undefined {
  let mode: string;
  try {
    mode = assistantMode(config, env);
  } catch (error) {
    return failed(name, messageOf(error), 'set OWNER_ASSISTANT_MODE to turn_based or full_duplex_agent, or unset it');
  }
  return !voice || mode !== 'full_duplex_agent' ? skipped(name, 'the voice is turn-based') : undefined;
}

/** The configured echo canceller (`[duplex] canceller`): full duplex does not start without it. */
export function echoCancellerCheck(context: DoctorContext): CheckResult {
  const name = 'echo canceller (full duplex)';
  const notFullDuplex = unlessFullDuplex(name, context);
  if (notFullDuplex) return notFullDuplex;
  const canceller = context.config.duplex.canceller;
  try {
    return passed(name, `${checkCanceller(canceller)} runs ([duplex] canceller = "${canceller}")`);
  } catch (error) {
    const fix = canceller === 'aec3'
      ? 'run `npm ci` in the checkout (it installs @livekit/rtc-ffi-bindings), or set `[duplex] canceller = "legacy"`'
      : `${SETUP}; it builds native/webrtc-apm against Debian's libwebrtc-audio-processing-dev`;
    return failed(name, messageOf(error), fix);
  }
}

/**
 * Full duplex: plays a one-second chirp through the configured speaker and
 * measures, at the configured microphone, the echo's delay and level and
 * the room's noise; fails when the room is too loud for barge-in to be
 * reliable.
 */
export async function roomEchoCheck(context: DoctorContext): Promise<CheckResult> {
  const name = 'room echo (full duplex)';
  const notFullDuplex = unlessFullDuplex(name, context);
  // A mode that is not valid is the echo canceller check's failure, not a second one.
  if (notFullDuplex) return notFullDuplex.ok ? notFullDuplex : skipped(name, 'the mode is not valid (see the echo canceller check)');
  const { config, sound = true } = context;
  if (!sound) return skipped(name, 'no test sound (--no-sound)');
  let input: PortAudioInput;
  let output: PortAudioOutput;
  try {
    input = PortAudioInput.open({ device: config.audio.input });
    output = PortAudioOutput.open({ device: config.audio.output });
  } catch (error) {
    return skipped(name, `no test sound without the audio devices: ${messageOf(error)}`);
  }
  try {
    const echo = await measureRoomEcho({ input, output, signal: AbortSignal.timeout(10_000) });
    const noise = `steady noise ${echo.noiseDbfs.toFixed(0)} dBFS`;
    const found = echo.heard ? `echo after ${Math.round(echo.delayMs!)} ms at ${echo.echoDb!.toFixed(1)} dB of what was played, ${noise}` : `the microphone did not hear the test sound (${noise})`;
    const problems = roomProblems(echo);
    if (problems.length > 0) return failed(name, `${found}: ${problems.join('; ')}`, 'turn the speaker down or move the microphone away from it, quieten the room (a fan, a window), or use the turn-based mode');
    return passed(name, found);
  } catch (error) {
    return failed(name, `the test sound could not be measured: ${messageOf(error)}`, 'check the devices with `desktop-assistant doctor` (audio devices) and `[audio] input` / `output`');
  } finally {
    await Promise.allSettled([input.close(), output.close()]);
  }
}

export function chromiumCheck({ config }: DoctorContext): CheckResult {
  const browser = config.adapters.browser;
  if (!browser.enabled) return skipped('Chromium', 'the browser adapter is off');
  return existsSync(browser.chromium) ? passed('Chromium', browser.chromium) : failed('Chromium', `no browser at ${browser.chromium}`, `\`sudo apt-get install chromium\`, or set \`[adapters.browser] chromium\``);
}

export function faissCheck({ config, env }: DoctorContext): CheckResult {
  if (!memoryEnabled(config, env)) return skipped('FAISS (memory)', 'memory is off');
  try {
    requireHere('faiss-node');
    return passed('FAISS (memory)', 'faiss-node loads');
  } catch (error) {
    return failed('FAISS (memory)', `faiss-node does not load: ${messageOf(error)}`, `${SETUP}; it builds faiss-node against Debian's libfaiss-dev`);
  }
}

export function dataFolderCheck({ dataDir }: DoctorContext): CheckResult {
  // Looks without creating: a missing folder is fine when the first existing one above it is writable.
  let dir = dataDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return passed('data folder', dir === dataDir ? `${dataDir} is writable` : `${dataDir} will be created (in ${dir}, writable)`);
  } catch (error) {
    return failed('data folder', `${dir}: ${messageOf(error)}`, `make it writable by you (\`chmod u+w ${dir}\`), or point DESKTOP_ASSISTANT_DATA_DIR elsewhere`);
  }
}

export async function runChecks(context: DoctorContext): Promise<CheckResult[]> {
  return [
    await llmCheck(context),
    await sttCheck(context),
    ttsCheck(context),
    vadCheck(),
    audioCheck(context),
    echoCancellerCheck(context),
    await roomEchoCheck(context),
    chromiumCheck(context),
    faissCheck(context),
    dataFolderCheck(context),
    lastExitCheck(context),
    await serviceCheck(context),
  ];
}
