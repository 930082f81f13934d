import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { throttledProgress, timedProgress, type ProgressListener } from '../../src/memory/index.js';
import { LOGGER_PROGRESS, type ProgressData } from '../../src/tool-meta/index.js';

/** Twice a second is enough for a line on the page. */
const NOTIFY_MS = 500;

/**
 * The store's long work as `notifications/message` (logger
 * LOGGER_PROGRESS) to the client: the hub makes `progress` events of them
 * for the page. Sent at once: the stdio transport writes to a pipe, which
 * takes the write synchronously, so reports get out during the index
 * build too.
 */
export function progressNotifications(server: Server): ProgressListener {
  return throttledProgress(
    timedProgress((progress) => {
      const data: ProgressData = { task: progress.task, done: progress.done, total: progress.total, ratePerS: Math.round(progress.ratePerS), remainingS: progress.remainingS === undefined ? null : Math.round(progress.remainingS) };
      // Before the client connected, or after it left: nobody to tell.
      server.sendLoggingMessage({ level: 'info', logger: LOGGER_PROGRESS, data }).catch(() => undefined);
    }),
    NOTIFY_MS,
  );
}
