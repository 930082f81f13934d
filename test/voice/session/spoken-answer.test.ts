import { describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/host/router/index.js';
import { createAssistantBus } from '../../../src/events/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { confirmationPrompt, spokenAnswer } from '../../../src/voice/session/spoken-answer.js';
import { voiceConfirmation } from '../../../src/voice/session/voice-confirmation.js';
import { recordingOutput, recordingTts, scriptedStt } from './voice-fakes.js';

describe('spokenAnswer', () => {
  it.each([
    ['Yes.', 'yes'],
    ['yeah go ahead', 'yes'],
    ['OK', 'yes'],
    ['Sì, certo', 'yes'],
    ['si', 'yes'],
    ['va bene', 'yes'],
    ['No.', 'no'],
    ["don't", 'no'],
    ['cancel that', 'no'],
    ['No, annulla', 'no'],
    ['non farlo', 'no'],
    ['no yes', undefined],
    ['what was the question', undefined],
    ['', undefined],
    ['yesterday', undefined],
    ['nothing', undefined],
  ])('%j -> %s', (text, expected) => {
    expect(spokenAnswer(text)).toBe(expected);
  });

  it('asks in the question’s language, saying when the content is sensitive', () => {
    expect(confirmationPrompt('memory_save', 'it would store sensitive content: iban', 'en')).toBe('May I use memory save? It would store sensitive content. Say yes or no.');
    expect(confirmationPrompt('note', undefined, 'it')).toBe('Posso usare note? Rispondi sì o no.');
  });
});

describe('voiceConfirmation', () => {
  const request: ConfirmationRequest = { callId: 'c', turnId: 't', entry: 'voice', tool: 'note', server: 'tools', risk: 'write', argsSummary: '{}' };

  async function answerWith(heard: string | undefined): Promise<{ answer: string; asked: string[] }> {
    const tts = recordingTts();
    const speaker = new Speaker({ tts, output: recordingOutput(), bus: createAssistantBus(), sanitize: (t) => t });
    const stt = scriptedStt(heard === undefined ? [] : [{ text: heard, final: true }]);
    const channel = voiceConfirmation({
      speaker,
      listen: async () => {
        if (heard === undefined) return undefined;
        const recognition = stt.startUtterance();
        recognition.push(new Int16Array(320));
        return { samples: new Int16Array(320), recognition };
      },
      language: () => 'en',
    });
    const result = await channel.confirm(request, { signal: new AbortController().signal });
    return { answer: result.answer, asked: tts.said.map((s) => s.text) };
  }

  it('asks aloud and takes a spoken yes', async () => {
    expect(await answerWith('yes please')).toEqual({ answer: 'approved', asked: ['May I use note? Say yes or no.'] });
  });

  it('takes no, unclear words and silence as no', async () => {
    expect((await answerWith('no')).answer).toBe('denied');
    expect((await answerWith('hmm')).answer).toBe('denied');
    expect((await answerWith(undefined)).answer).toBe('denied');
  });
});
