export { EXIT_RECORD_FILE, exitRecordPath, readExitRecord, writeExitRecord, type ExitInfo, type ExitRecord } from './record.js';
export { TEST_CRASH_ENV, watchExits, type ExitWatch, type ExitWatchOptions } from './watch.js';
