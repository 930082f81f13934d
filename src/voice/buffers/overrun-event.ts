import type { AssistantEvent } from '../../events/index.js';
import type { OverrunReport } from './ring-buffer.js';

/** A ring buffer's overrun as the bus's `audio.buffer_overrun` event. */
export function overrunEvent(report: OverrunReport, atMs: number): Extract<AssistantEvent, { type: 'audio.buffer_overrun' }> {
  return {
    type: 'audio.buffer_overrun',
    stage: 'audio',
    buffer: report.buffer === 'capture' ? 'capture' : 'render',
    dropped: report.dropped,
    fromFrameId: report.fromId,
    toFrameId: report.toId,
    fromMs: report.fromMs,
    toMs: report.toMs,
    droppedMs: report.droppedMs,
    totalDropped: report.totalDropped,
    capacity: report.capacity,
    atMs,
  };
}
