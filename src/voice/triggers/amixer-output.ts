/**
 * What amixer (alsa-utils 1.2.8) prints, parsed. Pure functions.
 *
 * `amixer -c CARD events` prints one `event add:` line per control while it
 * loads the card, `Ready to listen...`, then for every change a
 * `Poll ok: N` line and one line per changed control, which names the
 * control but not its value:
 *
 *   event value: numid=2,iface=MIXER,name='Mic Capture Switch'
 *
 * The id is alsa-lib's snd_ctl_ascii_elem_id_get: numid, iface and the name
 * in single quotes (not escaped), then `,index=`, `,device=`,
 * `,subdevice=` when not 0. `amixer controls` prints the same ids, one a
 * line; `amixer cget ID` prints the id, a `; type=...` line and
 * `  : values=on,off` (one value per channel).
 */

export interface ControlId {
  numid: number;
  iface: string;
  name: string;
  index: number;
  device: number;
  subdevice: number;
}

export type AmixerLine =
  | { kind: 'ready' }
  | { kind: 'poll' }
  | { kind: 'event'; action: 'add' | 'remove' | 'info' | 'value'; control: ControlId }
  | { kind: 'other'; text: string };

// Greedy name: a quote inside a name still ends at the last quote before the optional fields.
const CONTROL_ID = /^numid=(\d+),iface=(\w+),name='(.*)'((?:,(?:index|device|subdevice)=\d+)*)$/;
const EVENT = /^event (add|remove|info|value): (.*)$/;

export function parseControlId(text: string): ControlId | undefined {
  const match = CONTROL_ID.exec(text.trim());
  if (!match) return undefined;
  const extra = Object.fromEntries([...match[4]!.matchAll(/,(\w+)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return {
    numid: Number(match[1]),
    iface: match[2]!,
    name: match[3]!,
    index: extra.index ?? 0,
    device: extra.device ?? 0,
    subdevice: extra.subdevice ?? 0,
  };
}

/** One line of `amixer events`. */
export function parseEventLine(line: string): AmixerLine {
  const text = line.trimEnd();
  if (text === 'Ready to listen...') return { kind: 'ready' };
  if (/^Poll ok: \d+$/.test(text)) return { kind: 'poll' };
  const event = EVENT.exec(text);
  const control = event ? parseControlId(event[2]!) : undefined;
  if (event && control) return { kind: 'event', action: event[1] as 'add' | 'remove' | 'info' | 'value', control };
  return { kind: 'other', text };
}

/** The controls of `amixer controls` (lines that are not ids are skipped). */
export function parseControls(output: string): ControlId[] {
  return output.split('\n').flatMap((line) => {
    const control = parseControlId(line);
    return control ? [control] : [];
  });
}

/** The values of `amixer cget` (`on`/`off` for a switch, numbers for a volume); undefined without a values line. */
export function parseCgetValues(output: string): string[] | undefined {
  const line = output.split('\n').find((l) => /^\s*: values=/.test(l));
  return line?.replace(/^\s*: values=/, '').trim().split(',');
}

/** A capture switch is on (the microphone unmuted) when any of its channels is. */
export function switchIsOn(values: string[]): boolean {
  return values.some((value) => value === 'on');
}

/**
 * The capture switch to watch: the one `wanted` names (`numid=N`, or its
 * name in any case), else the first mixer control named `... Capture
 * Switch` (USB microphones have one: 'Mic Capture Switch').
 */
export function findCaptureSwitch(controls: ControlId[], wanted?: string): ControlId | undefined {
  if (wanted) {
    const numid = /^numid=(\d+)$/.exec(wanted.trim());
    if (numid) return controls.find((c) => c.numid === Number(numid[1]));
    return controls.find((c) => c.name.toLowerCase() === wanted.trim().toLowerCase());
  }
  return controls.find((c) => c.iface === 'MIXER' && / ?Capture Switch$/i.test(c.name));
}

/** How a control is named in messages and to `amixer cget`. */
export function describeControl(control: ControlId): string {
  return `numid=${control.numid},iface=${control.iface},name='${control.name}'`;
}
