export { AudioRingBuffer, type BufferedFrame, type FrameInput, type OverrunReport, type RingBufferOptions } from './ring-buffer.js';
export { APM_FRAME_MS, RenderReference, type AlignedFrame, type CaptureInput, type RenderReferenceOptions } from './render-reference.js';
export { DriftTracker, type DriftReport, type DriftSide, type DriftState, type DriftTrackerOptions } from './drift.js';
export { overrunEvent } from './overrun-event.js';
