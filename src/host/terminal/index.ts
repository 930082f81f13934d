export { LineInput } from './line-input.js';
export { terminalConfirmation } from './confirmation.js';
export { describe as describeEvent, reportToTerminal } from './reporter.js';
export { describeProgress, progressLine, type ProgressLine } from './progress-line.js';
