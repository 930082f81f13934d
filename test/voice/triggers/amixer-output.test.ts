/**
 * The amixer parsers on recorded output. PULSE_EVENTS was recorded here from
 * `stdbuf -oL amixer -D pulse events` (alsa-utils 1.2.8) while
 * `pactl set-source-mute` muted and unmuted the source; the USB lines follow
 * the same format (alsa-lib's snd_ctl_ascii_elem_id_get) for a typical USB
 * microphone, whose switch the predecessor read as numid=2.
 */
import { describe, expect, it } from 'vitest';
import {
  findCaptureSwitch,
  parseCgetValues,
  parseControlId,
  parseControls,
  parseEventLine,
  switchIsOn,
} from '../../../src/voice/triggers/index.js';

const PULSE_EVENTS = `event add: numid=4,iface=MIXER,name='Master Playback Switch'
event add: numid=3,iface=MIXER,name='Master Playback Volume'
event add: numid=2,iface=MIXER,name='Capture Switch'
event add: numid=1,iface=MIXER,name='Capture Volume'
Ready to listen...
Poll ok: 1
event value: numid=1,iface=MIXER,name='Capture Volume'
event value: numid=2,iface=MIXER,name='Capture Switch'
event value: numid=3,iface=MIXER,name='Master Playback Volume'
Poll ok: 1
event value: numid=2,iface=MIXER,name='Capture Switch'`;

const USB_CONTROLS = `numid=3,iface=CARD,name='Keep Interface'
numid=4,iface=MIXER,name='Auto Gain Control'
numid=2,iface=MIXER,name='Mic Capture Switch'
numid=1,iface=MIXER,name='Mic Capture Volume'
numid=5,iface=PCM,name='Capture Channel Map',device=0
numid=6,iface=PCM,name='Playback Channel Map',device=1,subdevice=2`;

const USB_CGET_ON = `numid=2,iface=MIXER,name='Mic Capture Switch'
  ; type=BOOLEAN,access=rw------,values=1
  : values=on`;

const STEREO_CGET = `numid=9,iface=MIXER,name='Capture Switch'
  ; type=BOOLEAN,access=rw------,values=2
  : values=off,on`;

describe('amixer output', () => {
  it('parses every line of a recorded events session', () => {
    const lines = PULSE_EVENTS.split('\n').map(parseEventLine);
    expect(lines.map((l) => (l.kind === 'event' ? `${l.action}:${l.control.numid}` : l.kind))).toEqual([
      'add:4', 'add:3', 'add:2', 'add:1', 'ready', 'poll', 'value:1', 'value:2', 'value:3', 'poll', 'value:2',
    ]);
    expect(lines[7]).toEqual({ kind: 'event', action: 'value', control: { numid: 2, iface: 'MIXER', name: 'Capture Switch', index: 0, device: 0, subdevice: 0 } });
  });

  it('reads the optional index, device and subdevice fields', () => {
    expect(parseControlId("numid=6,iface=PCM,name='Playback Channel Map',device=1,subdevice=2")).toMatchObject({ device: 1, subdevice: 2, index: 0 });
    expect(parseControlId("numid=12,iface=MIXER,name='Capture Switch',index=1")).toMatchObject({ name: 'Capture Switch', index: 1 });
  });

  it('keeps a name with commas and quotes whole', () => {
    expect(parseControlId("numid=7,iface=MIXER,name='Mic Boost (+20dB), Rear's'")?.name).toBe("Mic Boost (+20dB), Rear's");
  });

  it('leaves lines that are not events alone', () => {
    expect(parseEventLine('event value: garbage')).toEqual({ kind: 'other', text: 'event value: garbage' });
    expect(parseEventLine("amixer: Control hw:1 open error: No such device")).toMatchObject({ kind: 'other' });
    expect(parseEventLine('event remove: numid=2,iface=MIXER,name=\'Mic Capture Switch\'')).toMatchObject({ kind: 'event', action: 'remove' });
  });

  it('reads cget values; a switch is on when any channel is', () => {
    expect(parseCgetValues(USB_CGET_ON)).toEqual(['on']);
    expect(parseCgetValues(STEREO_CGET)).toEqual(['off', 'on']);
    expect(switchIsOn(['off', 'on'])).toBe(true);
    expect(switchIsOn(['off', 'off'])).toBe(false);
    expect(parseCgetValues('numid=2,iface=MIXER,name=\'Mic Capture Switch\'\n')).toBeUndefined();
  });

  it('finds the capture switch by default, by name or by numid', () => {
    const controls = parseControls(USB_CONTROLS);
    expect(controls).toHaveLength(6);
    expect(findCaptureSwitch(controls)?.numid).toBe(2);
    expect(findCaptureSwitch(controls, 'auto gain control')?.numid).toBe(4);
    expect(findCaptureSwitch(controls, 'numid=1')?.name).toBe('Mic Capture Volume');
    expect(findCaptureSwitch(controls, 'Front Mic Capture Switch')).toBeUndefined();
    expect(findCaptureSwitch(parseControls(PULSE_EVENTS.replaceAll('event add: ', '')))?.name).toBe('Capture Switch');
  });
});
