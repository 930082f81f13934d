export { runChecks, type DoctorContext } from './checks.js';
export type { CheckResult } from './check.js';
