/**
 * What /proc says of the daemon from outside: its pid (found by its command
 * line), resident memory, open descriptors and descendants. Linux only, as
 * the soak is.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
}

export interface Descendant {
  pid: number;
  /** The program's name, with " (zombie)" for one that exited and was not reaped. */
  name: string;
}

/** The child of `parentPid` whose command line holds `argument` (the daemon's own config folder), or undefined. */
export function findChildPid(parentPid: number, argument: string): number | undefined {
  for (const entry of processes()) {
    if (entry.ppid !== parentPid) continue;
    const argv = readQuietly(`/proc/${entry.pid}/cmdline`)?.split('\0') ?? [];
    if (argv.includes(argument)) return entry.pid;
  }
  return undefined;
}

/** VmRSS of /proc/<pid>/status, bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(match[1]) * 1024;
}

/** Entries of /proc/<pid>/fd: every open descriptor (files, pipes, sockets, the audio devices). */
export function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Ports that name a TCP socket's role in a census. */
export interface KnownPorts {
  /** The daemon's HTTP port: a socket on it is a client's connection (or the listener). */
  http: number;
  /** The LLM server's port: a socket to it is the daemon's request. */
  llm: number;
}

/**
 * What the descriptors are, by kind (`socket x20, pipe x8, /dev/null x2, ...`): pipes as `pipe`, files by
 * their path, TCP sockets by role (`http listen`, `http client`, `to the LLM`, `tcp to :PORT`), Unix ones as
 * `unix` (PulseAudio's among them).
 */
export function describeDescriptors(pid: number, ports: KnownPorts): string {
  const tcp = tcpSockets(pid);
  const kinds = readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return []; // Closed while we looked.
    }
    const socket = /^socket:\[(\d+)\]$/.exec(target);
    if (!socket) return [target.replace(/^pipe:\[\d+\]$/, 'pipe')];
    const ends = tcp.get(socket[1]!);
    if (!ends) return ['unix or other socket'];
    if (ends.listening) return [ends.local === ports.http ? 'http listen' : `tcp listen :${ends.local}`];
    if (ends.local === ports.http) return ['http client'];
    return [ends.remote === ports.llm ? 'to the LLM' : `tcp to :${ends.remote}`];
  });
  return countNames(kinds);
}

/** The process's TCP sockets (IPv4 and IPv6) by inode: local and remote port, and whether it listens. */
function tcpSockets(pid: number): Map<string, { local: number; remote: number; listening: boolean }> {
  const sockets = new Map<string, { local: number; remote: number; listening: boolean }>();
  for (const table of ['tcp', 'tcp6']) {
    const lines = readQuietly(`/proc/${pid}/net/${table}`)?.split('\n').slice(1) ?? [];
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const port = (address: string): number => parseInt(address.split(':').at(-1) ?? '0', 16);
      // st 0A is LISTEN; field 9 is the inode.
      sockets.set(fields[9]!, { local: port(fields[1]!), remote: port(fields[2]!), listening: fields[3] === '0A' });
    }
  }
  return sockets;
}

/** Every process below `pid` (children, their children, ...), by walking the parent links of /proc. */
export function descendants(pid: number): Descendant[] {
  const byParent = new Map<number, ProcEntry[]>();
  for (const entry of processes()) {
    const siblings = byParent.get(entry.ppid) ?? [];
    siblings.push(entry);
    byParent.set(entry.ppid, siblings);
  }
  const found: Descendant[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of byParent.get(pending.pop()!) ?? []) {
      found.push({ pid: child.pid, name: child.state === 'Z' ? `${child.comm} (zombie)` : child.comm });
      pending.push(child.pid);
    }
  }
  return found;
}

/** `name xN` per program, sorted: a census short enough for a table cell or a log line. */
export function describeDescendants(list: readonly Descendant[]): string {
  return countNames(list.map((d) => d.name));
}

function countNames(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => (n === 1 ? name : `${name} x${n}`))
    .join(', ');
}

function processes(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readQuietly(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const [state = '?', ppid = '0'] = stat.slice(close + 2).split(' ');
    entries.push({ pid: Number(name), ppid: Number(ppid), comm: stat.slice(open + 1, close), state });
  }
  return entries;
}

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // The process ended while we looked.
  }
}
