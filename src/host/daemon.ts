import { AppError, messageOf } from '../errors/index.js';
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
  /** False: no audio device is touched (`run --no-voice`, `[voice] enabled = false`). */
  voice?: boolean;
  startVoice?: StartVoice;
  /** Overrides `[http] port` (0: any free port). */
  port?: number;
  sse?: ApiDeps['sse'];
}

export interface Daemon {
  host: Host;
  url: string;
  tokenFile: string;
  deps: ApiDeps;
  close(): Promise<void>;
}

/** `desktop-assistant run`: the host, the hub and the HTTP API (and, later, the voice). */
export async function startDaemon(options: DaemonOptions = {}): Promise<Daemon> {
  const env = options.env ?? process.env;
  const host = await startHost(options);
  const conversation = host.newConversation();
  // One place where the web page and the API answer confirmations: text turns and the full-duplex voice ask there.
  const confirmations = new HttpConfirmations();
  const voice = (options.voice ?? true) && host.config.voice.enabled ? await startVoiceOrExplain(host, conversation, confirmations, options.startVoice) : undefined;
  try {
    const parts = await startApi(host, conversation, confirmations, voice, env, options);
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

async function startVoiceOrExplain(host: Host, conversation: Conversation, confirmations: HttpConfirmations, startVoice: StartVoice | undefined): ReturnType<StartVoice> {
  const hint = 'start with `desktop-assistant run --no-voice` or set [voice] enabled = false; `desktop-assistant doctor` checks what the voice needs';
  try {
    if (!startVoice) throw new AppError('VOICE_UNAVAILABLE', 'this daemon was started without a voice');
    return await startVoice(host, conversation, confirmations);
  } catch (error) {
    await host.close();
    throw new AppError('VOICE_UNAVAILABLE', `the voice cannot start: ${messageOf(error)}; ${hint}`, { cause: error });
  }
}

async function startApi(host: Host, conversation: Conversation, confirmations: HttpConfirmations, started: StartedVoice | undefined, env: NodeJS.ProcessEnv, options: DaemonOptions) {
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
    llmHealth: new LlmHealth(host.bus, host.config.llm),
    confirmations,
    turns: new TurnRunner(conversation, confirmations),
    voiceEnabled: voice !== undefined,
    ...(voice ? { voice } : {}),
    staticFiles: loadStaticFiles(webDir()),
    sse: options.sse ?? { heartbeatMs: 15_000, replayCount: 100 },
    maxBodyBytes: 64 * 1024,
  };
  const api = createApiApp(deps);
  const listening = await listen(api.app, bound.host, bound.port);
  bound.port = listening.port;
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
