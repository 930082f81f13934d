import { dataDir as resolveDataDir } from '../config/index.js';
import { AppError, messageOf } from '../errors/index.js';
import { watchExits, type ExitInfo } from '../exit-record/index.js';
import { logEvent } from '../log/index.js';
import { ActivityTracker, type Conversation } from './conversation/index.js';
import {
  createApiApp,
  EventLog,
  HttpConfirmations,
  listen,
  LlmHealth,
  loadOrCreateToken,
  loadStaticFiles,
  Metrics,
  tokenPath,
  TurnRunner,
  webDir,
  type ApiDeps,
  type VoiceControl,
} from './http/index.js';
import { LLM_PROBE_TIMEOUT_MS } from './llm/index.js';
import { startHost, type Host, type HostOptions } from './runtime.js';
import { PACKAGE_VERSION } from '../package-root.js';

/** The voice, started by whoever assembles the daemon (the `run` command): the host does not know audio. */
export type StartVoice = (host: Host, conversation: Conversation, confirmations: HttpConfirmations) => Promise<StartedVoice>;

export interface StartedVoice {
  control: VoiceControl;
  /** The voice reports the activity states itself (the full-duplex state machine); the daemon only follows them. */
  reportsActivity?: boolean;
  close(): Promise<void>;
}

export interface DaemonOptions extends HostOptions {
  /** False: no audio device is touched (`run --no-voice`); otherwise `[voice] enabled` decides. */
  voice?: boolean;
  startVoice?: StartVoice;
  /** Overrides `[http] port` (0: any free port). */
  port?: number;
  sse?: ApiDeps['sse'];
  /**
   * Keep the data folder's record of how the daemon last exited (`doctor`
   * shows it): `desktop-assistant run` does. It watches the whole process
   * (uncaught errors, fatal signals, exit), so one such daemon a process.
   */
  recordExits?: boolean;
}

export interface Daemon {
  host: Host;
  url: string;
  tokenFile: string;
  deps: ApiDeps;
  /** How the previous run ended, when exits are recorded and one was. */
  previousExit?: ExitInfo;
  /** `reason`: why it stops, for the exit record (default "stopped"). */
  close(reason?: string): Promise<void>;
}

/** `desktop-assistant run`: the host, the hub, the HTTP API and the voice. */
export async function startDaemon(options: DaemonOptions = {}): Promise<Daemon> {
  const env = options.env ?? process.env;
  const exits = options.recordExits ? watchExits(resolveDataDir(env), { env }) : undefined;
  const previous = exits?.previous;
  if (previous && !previous.clean) {
    // Under systemd this is the service's restart (Restart=on-failure): the journal says why.
    logEvent('warn', 'daemon.restarted', { lastExitAt: previous.atMs === undefined ? 'unknown' : new Date(previous.atMs).toISOString(), lastExit: previous.reason });
  }
  try {
    const daemon = await startParts(options);
    return {
      ...daemon,
      ...(previous ? { previousExit: previous } : {}),
      close: async (reason = 'stopped') => {
        await daemon.close();
        exits?.ended(reason, true);
      },
    };
  } catch (error) {
    exits?.ended(`could not start: ${messageOf(error)}`, false);
    throw error;
  }
}

async function startParts(options: DaemonOptions): Promise<Daemon> {
  const env = options.env ?? process.env;
  const host = await startHost(options);
  const conversation = host.newConversation();
  // One place where the web page and the API answer confirmations: text turns and the full-duplex voice ask there.
  const confirmations = new HttpConfirmations();
  const { voice, voiceOff } = await startVoiceAsConfigured(host, conversation, confirmations, options);
  try {
    const parts = await startApi(host, conversation, confirmations, voice, voiceOff, env, options);
    return {
      host,
      ...parts,
      close: async () => {
        await voice?.close();
        await parts.close();
        await host.close();
      },
    };
  } catch (error) {
    await voice?.close();
    await host.close();
    throw error;
  }
}

/**
 * `[voice] enabled`: false (or `--no-voice`) touches no audio device; true
 * stops the daemon when the voice cannot start; "auto" (the default) runs
 * without it and says why, so text and the page still work on a machine
 * with no microphone or speaker.
 */
async function startVoiceAsConfigured(
  host: Host,
  conversation: Conversation,
  confirmations: HttpConfirmations,
  options: DaemonOptions,
): Promise<{ voice?: StartedVoice; voiceOff?: string }> {
  const enabled = host.config.voice.enabled;
  if (options.voice === false) return { voiceOff: 'started with --no-voice' };
  if (enabled === false) return { voiceOff: '[voice] enabled = false' };
  try {
    if (!options.startVoice) throw new AppError('VOICE_UNAVAILABLE', 'this daemon was started without a voice');
    return { voice: await options.startVoice(host, conversation, confirmations) };
  } catch (error) {
    if (enabled === true) {
      await host.close();
      const hint = 'start with `desktop-assistant run --no-voice` or set [voice] enabled = false (or "auto"); `desktop-assistant doctor` checks what the voice needs';
      throw new AppError('VOICE_UNAVAILABLE', `the voice cannot start: ${messageOf(error)}; ${hint}`, { cause: error });
    }
    const reason = `${messageOf(error)}; text and the web page work without it. \`desktop-assistant doctor\` lists the sound devices; choose them with [audio] input / output in config.toml, or set [voice] enabled = false to stop trying`;
    host.bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_UNAVAILABLE', message: `the voice is off: ${reason}`, recoverable: true, atMs: Date.now() });
    return { voiceOff: reason };
  }
}

async function startApi(
  host: Host,
  conversation: Conversation,
  confirmations: HttpConfirmations,
  started: StartedVoice | undefined,
  voiceOff: string | undefined,
  env: NodeJS.ProcessEnv,
  options: DaemonOptions,
) {
  const tokenFile = tokenPath(env);
  const token = loadOrCreateToken(tokenFile);
  const voice = started?.control;
  const bound = { host: host.config.http.host, port: options.port ?? host.config.http.port };
  const deps: ApiDeps = {
    version: PACKAGE_VERSION,
    token,
    bound: () => bound,
    bus: host.bus,
    router: host.router,
    hub: host.hub,
    audit: host.audit,
    events: new EventLog(host.bus),
    activity: new ActivityTracker(host.bus, Date.now, { derive: started?.reportsActivity !== true }),
    metrics: new Metrics(host.bus),
    llmHealth: llmHealthOf(host),
    confirmations,
    turns: new TurnRunner(conversation, confirmations),
    voiceEnabled: voice !== undefined,
    ...(voice ? { voice } : {}),
    ...(voiceOff !== undefined ? { voiceOff } : {}),
    dataDir: host.dataDir,
    staticFiles: loadStaticFiles(webDir()),
    sse: options.sse ?? { heartbeatMs: 15_000, replayCount: 100 },
    maxBodyBytes: 64 * 1024,
  };
  const api = createApiApp(deps);
  const listening = await listen(api.app, bound.host, bound.port);
  bound.port = listening.port;
  deps.llmHealth.check();
  return {
    url: listening.url,
    tokenFile,
    deps,
    close: async () => {
      deps.turns.interrupt();
      await api.close();
      await listening.close();
      for (const part of [deps.events, deps.activity, deps.metrics, deps.llmHealth]) part.close();
    },
  };
}

/** The LLM's health, probed (GET /models) while its server is missing when the LLM can be probed. */
function llmHealthOf(host: Host): LlmHealth {
  const llm = host.llm;
  const probe = llm.probe ? (signal: AbortSignal) => llm.probe!({ signal, timeoutMs: LLM_PROBE_TIMEOUT_MS }) : undefined;
  return new LlmHealth(host.bus, host.config.llm, probe ? { probe } : {});
}
