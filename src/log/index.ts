export { logEvent } from './log-event.js';
export {
  isLogFormat,
  isLogLevel,
  LOG_FORMATS,
  LOG_LEVELS,
  logOutputFor,
  setLogOutput,
  type LogFormat,
  type LogLevel,
  type LogOutput,
  type LogSink,
} from './log-output.js';
