import type { AssistantBus } from '../../events/index.js';
import type { ActivityTracker } from '../conversation/index.js';
import type { ToolHub } from '../hub/index.js';
import type { ToolRouter } from '../router/index.js';
import type { AuditLog } from '../store/index.js';
import type { EventLog } from './event-log.js';
import type { HttpConfirmations } from './http-confirmation.js';
import type { LlmHealth } from './llm-health.js';
import type { Metrics } from './metrics.js';
import type { StaticFile } from './static-files.js';
import type { TurnRunner } from './turn-runner.js';

import type { VoiceControl } from '../../voice/index.js';

/** The voice as the HTTP API drives it: the voice's own control surface. */
export type { VoiceControl };

/** What the HTTP API works with; built by the daemon, or by a test. */
export interface ApiDeps {
  version: string;
  token: string;
  bound: () => { host: string; port: number };
  bus: AssistantBus;
  router: ToolRouter;
  hub: ToolHub;
  audit: AuditLog;
  events: EventLog;
  activity: ActivityTracker;
  metrics: Metrics;
  llmHealth: LlmHealth;
  confirmations: HttpConfirmations;
  turns: TurnRunner;
  voiceEnabled: boolean;
  /** Present when the daemon runs the voice. */
  voice?: VoiceControl;
  /** Why the voice is not running, for `/state` and the page (absent when it runs). */
  voiceOff?: string;
  /** The data folder (memory, audit), whose disk `/state` reports on. */
  dataDir?: string;
  staticFiles: Map<string, StaticFile>;
  sse: { heartbeatMs: number; replayCount: number };
  /** Request bodies larger than this are refused with 413. */
  maxBodyBytes: number;
}
