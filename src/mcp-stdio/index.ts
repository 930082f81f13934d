export { CheckedStdioTransport, MAX_LINE_BYTES, type CheckedStdioOptions } from './checked-transport.js';
export { serveOverStdio } from './serve-stdio.js';
