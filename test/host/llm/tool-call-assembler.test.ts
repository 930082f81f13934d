import { describe, expect, it } from 'vitest';
import { ToolCallAssembler, type ToolCallFragment } from '../../../src/host/llm/index.js';

/** Feeds each element as one chunk's `delta.tool_calls`. */
function assemble(chunks: ToolCallFragment[][]) {
  const assembler = new ToolCallAssembler();
  for (const fragments of chunks) assembler.add(fragments);
  return assembler.result();
}

describe('ToolCallAssembler', () => {
  it('puts one call together the way llama-server streams it', () => {
    // First fragment: id, type, name and the first argument piece; then argument pieces only.
    const calls = assemble([
      [{ index: 0, id: 'q3Zk8v1T', type: 'function', function: { name: 'weather', arguments: '{' } }],
      [{ index: 0, function: { arguments: '"place' } }],
      [{ index: 0, function: { arguments: '":"Ro' } }],
      [{ index: 0, function: { arguments: 'me"}' } }],
    ]);
    expect(calls).toEqual([{ index: 0, id: 'q3Zk8v1T', name: 'weather', arguments: '{"place":"Rome"}' }]);
  });

  it('takes an empty first arguments piece', () => {
    const calls = assemble([
      [{ index: 0, id: 'a1', type: 'function', function: { name: 'now', arguments: '' } }],
      [{ index: 0, function: { arguments: '{}' } }],
    ]);
    expect(calls).toEqual([{ index: 0, id: 'a1', name: 'now', arguments: '{}' }]);
  });

  it('keeps interleaved calls apart by index and returns them in index order', () => {
    const calls = assemble([
      [{ index: 1, id: 'id-b', type: 'function', function: { name: 'search', arguments: '{"q":' } }],
      [{ index: 0, id: 'id-a', type: 'function', function: { name: 'weather', arguments: '{"place":' } }],
      [{ index: 1, function: { arguments: '"pizza"}' } }],
      [
        { index: 0, function: { arguments: '"Roma"' } },
        { index: 0, function: { arguments: '}' } },
      ],
    ]);
    expect(calls).toEqual([
      { index: 0, id: 'id-a', name: 'weather', arguments: '{"place":"Roma"}' },
      { index: 1, id: 'id-b', name: 'search', arguments: '{"q":"pizza"}' },
    ]);
  });

  it('leaves the id empty for a call that has none', () => {
    const calls = assemble([
      [{ index: 0, type: 'function', function: { name: 'now', arguments: '{"tz":' } }],
      [{ index: 0, function: { arguments: '"UTC"}' } }],
    ]);
    expect(calls).toEqual([{ index: 0, id: '', name: 'now', arguments: '{"tz":"UTC"}' }]);
  });

  it('takes id and name from the first fragment that has them, ignoring later repeats and nulls', () => {
    const calls = assemble([
      [{ index: 0, id: null, function: { name: null, arguments: null } }],
      [{ index: 0, id: 'late-id', function: { name: 'weather', arguments: '{"a":' } }],
      [{ index: 0, id: 'other', function: { name: 'other', arguments: '1}' } }],
    ]);
    expect(calls).toEqual([{ index: 0, id: 'late-id', name: 'weather', arguments: '{"a":1}' }]);
  });

  it('keeps the arguments exactly as streamed, even when they are not valid JSON', () => {
    const calls = assemble([[{ index: 0, id: 'x', function: { name: 'weather', arguments: '{"place": "Ro' } }]]);
    expect(calls[0]?.arguments).toBe('{"place": "Ro');
  });

  it('without indexes, a new id starts the next call and argument pieces continue the last', () => {
    const calls = assemble([
      [{ id: 'a', function: { name: 'one', arguments: '{"x":' } }],
      [{ function: { arguments: '1}' } }],
      [{ id: 'b', function: { name: 'two', arguments: '{}' } }],
    ]);
    expect(calls).toEqual([
      { index: 0, id: 'a', name: 'one', arguments: '{"x":1}' },
      { index: 1, id: 'b', name: 'two', arguments: '{}' },
    ]);
  });

  it('has no calls when nothing was added, and ignores empty deltas', () => {
    const assembler = new ToolCallAssembler();
    assembler.add(undefined);
    assembler.add([]);
    expect(assembler.result()).toEqual([]);
    expect(assembler.size).toBe(0);
  });

  it('returns copies: a caller changing the result does not change the assembler', () => {
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 0, id: 'a', function: { name: 'n', arguments: '{}' } }]);
    const first = assembler.result();
    (first[0] as { name: string }).name = 'changed';
    expect(assembler.result()[0]?.name).toBe('n');
  });
});
