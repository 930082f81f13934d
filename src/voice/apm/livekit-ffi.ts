/**
 * Loads LiveKit's native FFI library (the npm package
 * @livekit/rtc-ffi-bindings, whose linux-x64 binary comes in the optional
 * dependency @livekit/rtc-ffi-bindings-linux-x64-gnu) lazily, the first time
 * an AEC3 canceller is created, so that importing the voice never needs it.
 * Requests are protobuf messages; only the audio-processing ones are used.
 */
import { createRequire } from 'node:module';
import { AppError } from '../../errors/index.js';
import { loadNativeAddon } from '../../native-addon/index.js';

/** The package, pinned in package.json: the FFI's requests change between releases. */
export const LIVEKIT_FFI_PACKAGE = '@livekit/rtc-ffi-bindings';

const FIX = `run \`npm ci\` (it installs ${LIVEKIT_FFI_PACKAGE} and its binary for this platform, e.g. ${LIVEKIT_FFI_PACKAGE}-linux-x64-gnu), or set [duplex] canceller = "legacy"`;

/** A protobuf message class of the package, as far as it is used here. */
interface MessageClass<T> {
  new (fields: Record<string, unknown>): T & { toBinary(): Uint8Array };
  fromBinary(bytes: Uint8Array): T;
}

/** The request and response oneofs: `case` names the message, `value` is it. */
export type FfiRequestMessage =
  | { case: 'newApm'; value: unknown }
  | { case: 'apmProcessStream'; value: unknown }
  | { case: 'apmProcessReverseStream'; value: unknown }
  | { case: 'apmSetStreamDelay'; value: unknown };

export interface FfiResponseMessage {
  case: string | undefined;
  value?: { error?: string; apm?: { handle?: { id?: bigint } } };
}

/** What this project uses of the package's exports. */
export interface LiveKitFfi {
  livekitFfiRequest(data: Uint8Array): Uint8Array;
  /** The address of a buffer's first byte, for requests that read or write it in place. */
  livekitRetrievePtr(data: Uint8Array): bigint;
  FfiHandle: new (id: bigint) => { dispose(): void };
  FfiRequest: MessageClass<object>;
  FfiResponse: MessageClass<{ message: FfiResponseMessage }>;
  NewApmRequest: MessageClass<object>;
  ApmProcessStreamRequest: MessageClass<object>;
  ApmProcessReverseStreamRequest: MessageClass<object>;
  ApmSetStreamDelayRequest: MessageClass<object>;
}

const EXPORTS = [
  'livekitFfiRequest',
  'livekitRetrievePtr',
  'FfiHandle',
  'FfiRequest',
  'FfiResponse',
  'NewApmRequest',
  'ApmProcessStreamRequest',
  'ApmProcessReverseStreamRequest',
  'ApmSetStreamDelayRequest',
] as const;

/**
 * The package (or, for tests, a module at `path`), loaded once. Throws
 * AppError AUDIO_APM_UNAVAILABLE, naming the fix, when it is not installed,
 * its binary is missing or does not load, or it lacks the audio processing.
 */
export function loadLiveKitFfi(path?: string): LiveKitFfi {
  return loadNativeAddon<LiveKitFfi>(path ?? resolvePackage(), {
    what: `the AEC3 echo canceller (${LIVEKIT_FFI_PACKAGE})`,
    code: 'AUDIO_APM_UNAVAILABLE',
    fix: FIX,
    notIt: (module) => {
      const missing = EXPORTS.filter((name) => typeof module?.[name] !== 'function');
      return missing.length === 0 ? undefined : `no ${missing.join(', ')}`;
    },
  });
}

function resolvePackage(): string {
  try {
    return createRequire(import.meta.url).resolve(LIVEKIT_FFI_PACKAGE);
  } catch (error) {
    throw new AppError('AUDIO_APM_UNAVAILABLE', `the AEC3 echo canceller (${LIVEKIT_FFI_PACKAGE}) is not installed: ${FIX}`, { cause: error });
  }
}
