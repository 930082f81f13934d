/** One thing `desktop-assistant doctor` looked at. */
export interface CheckResult {
  name: string;
  ok: boolean;
  /** What was found: the URL that answered, the file that is there, or what is wrong. */
  detail: string;
  /** On failure: the exact thing to do. */
  fix?: string;
  /** Not needed with this config (shown, never a failure). */
  skipped?: boolean;
}

export function passed(name: string, detail: string): CheckResult {
  return { name, ok: true, detail };
}

export function failed(name: string, detail: string, fix: string): CheckResult {
  return { name, ok: false, detail, fix };
}

export function skipped(name: string, detail: string): CheckResult {
  return { name, ok: true, detail, skipped: true };
}
