export { CheckedStdioTransport, type CheckedStdioOptions } from './checked-transport.js';
export { serveOverStdio } from './serve-stdio.js';
