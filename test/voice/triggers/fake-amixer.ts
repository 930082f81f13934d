/**
 * A stand-in `amixer` on PATH, for a card "Microphone" whose switch is
 * 'Mic Capture Switch' (numid=2). It prints what amixer 1.2.8 prints; its
 * switch state and its event stream are files next to it that the test
 * writes, so the test moves the switch as a finger would.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const CONTROLS = `numid=3,iface=CARD,name='Keep Interface'
numid=2,iface=MIXER,name='Mic Capture Switch'
numid=1,iface=MIXER,name='Mic Capture Volume'
`;

const SCRIPT = `#!/bin/sh
dir=$(dirname "$0")
if [ "$1" != "-c" ]; then echo "fake amixer: expected -c CARD" >&2; exit 2; fi
if [ "$2" != "Microphone" ]; then echo "Invalid card number '$2'." >&2; exit 1; fi
case "$3" in
  controls) cat "$dir/controls.txt" ;;
  cget)
    echo "$4" >> "$dir/cget.log"
    echo "numid=2,iface=MIXER,name='Mic Capture Switch'"
    echo "  ; type=BOOLEAN,access=rw------,values=1"
    echo "  : values=$(cat "$dir/state")" ;;
  events)
    sed 's/^/event add: /' "$dir/controls.txt"
    echo "Ready to listen..."
    echo $$ >> "$dir/events.pid"
    exec tail -n +1 -f "$dir/events.log" ;;
  *) echo "fake amixer: unknown command $3" >&2; exit 1 ;;
esac
`;

export class FakeAmixer {
  private constructor(private readonly dir: TempDir) {}

  static async create(initial: 'on' | 'off'): Promise<FakeAmixer> {
    const dir = await makeTempDir('da-amixer-');
    await dir.write('amixer', SCRIPT, 0o755);
    await dir.write('controls.txt', CONTROLS);
    await dir.write('state', `${initial}\n`);
    await dir.write('events.log', '');
    return new FakeAmixer(dir);
  }

  /** An environment whose PATH finds this amixer first (stdbuf too must find it). */
  get env(): NodeJS.ProcessEnv {
    return { PATH: `${this.dir.path}:${process.env.PATH ?? '/usr/bin:/bin'}` };
  }

  /** The switch moves: the state changes, then amixer reports the control. */
  async flip(state: 'on' | 'off'): Promise<void> {
    await writeFile(join(this.dir.path, 'state'), `${state}\n`);
    await this.event('value', 2, 'Mic Capture Switch');
  }

  async event(action: 'value' | 'remove' | 'info', numid: number, name: string): Promise<void> {
    await appendFile(join(this.dir.path, 'events.log'), `Poll ok: 1\nevent ${action}: numid=${numid},iface=MIXER,name='${name}'\n`);
  }

  /** Starts the next `amixer events` afresh (as after a replug). */
  async resetEvents(): Promise<void> {
    await writeFile(join(this.dir.path, 'events.log'), '');
  }

  async cgets(): Promise<number> {
    return (await readFile(join(this.dir.path, 'cget.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  }

  async eventPids(): Promise<number[]> {
    return (await readFile(join(this.dir.path, 'events.pid'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
  }

  remove(): Promise<void> {
    return this.dir.remove();
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
