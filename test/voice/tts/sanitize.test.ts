import { describe, expect, it } from 'vitest';
import { sanitizeForSpeech } from '../../../src/voice/tts/index.js';

const CASES: Array<[string, string, string]> = [
  ['plain text is unchanged', 'The weather in Rome is sunny today.', 'The weather in Rome is sunny today.'],
  ['Italian accents are kept', 'Domani a Milano farà più freddo, già.', 'Domani a Milano farà più freddo, già.'],
  ['bold', 'This is **very** important.', 'This is very important.'],
  ['italic with asterisks', 'It is *quite* warm.', 'It is quite warm.'],
  ['bold with underscores', 'Use __this__ one.', 'Use this one.'],
  ['italic underscores, snake_case kept', 'The _file_ is my_config_file.toml.', 'The file is my_config_file.toml.'],
  ['struck-through text is dropped', 'It costs ~~ten~~ five euros.', 'It costs five euros.'],
  ['header', '## Summary', 'Summary'],
  ['header with closing hashes', '# Title #', 'Title'],
  ['list items become sentences', '- apples\n- pears\n- figs', 'apples. pears. figs'],
  ['numbered list', '1. Open the door\n2) Close it', 'Open the door. Close it'],
  ['task list', '- [x] done item\n- [ ] open item', 'done item. open item'],
  ['block quote', '> To be or not to be.', 'To be or not to be.'],
  ['image with alt text', 'Look: ![a red cat](https://x.org/cat.png) here.', 'Look: a red cat here.'],
  ['image without alt text', 'Here ![](https://x.org/cat.png) it is.', 'Here it is.'],
  ['link keeps its text', 'See [the docs](https://example.com/docs) for more.', 'See the docs for more.'],
  ['reference link', 'Read [the guide][1] first.', 'Read the guide first.'],
  ['URL becomes its site', 'Go to https://www.example.com/path?x=1 now.', 'Go to example.com now.'],
  ['URL at the end of a sentence keeps the full stop', 'The page is http://docs.python.org/3/library.', 'The page is docs.python.org.'],
  ['bare www URL', 'Visit www.wikipedia.org/wiki/Rome, it is good.', 'Visit wikipedia.org, it is good.'],
  ['URL with port and credentials', 'The server is http://user:pw@localhost:8181/v1 today.', 'The server is localhost today.'],
  ['URL with balanced parentheses', 'Visit https://it.wikipedia.org/wiki/Roma_(città).', 'Visit it.wikipedia.org.'],
  ['URL inside parentheses', 'More (see https://example.com/a) later.', 'More (see example.com) later.'],
  ['abbreviations keep their punctuation', 'E.g., this: 1,000 items.', 'E.g., this: 1,000 items.'],
  ['autolink', 'Mail <https://example.org/a> now.', 'Mail example.org now.'],
  ['link whose text is a URL', '[https://example.com/x](https://example.com/x)', 'example.com'],
  ['inline code keeps its content', 'Run `npm test` now.', 'Run npm test now.'],
  ['fenced code is dropped', 'Here it is:\n```js\nconsole.log(1);\n```\nDone.', 'Here it is: Done.'],
  ['unclosed fence drops the rest', 'Try this:\n```\nrm -rf /tmp/x', 'Try this:'],
  ['emoji', 'Great job 🎉 see you 👋!', 'Great job see you!'],
  ['emoji with skin tone and ZWJ family', 'Hi 👍🏽 from 👨‍👩‍👧 us.', 'Hi from us.'],
  ['flags and keycaps', 'Italy 🇮🇹 wins 1️⃣ time.', 'Italy wins time.'],
  ['pictographs and dingbats', 'Done ✅ ☀️ ❤️ ok.', 'Done ok.'],
  ['text emoticons', 'That is fine :) really ;-) yes :D', 'That is fine really yes'],
  ['colon in text is not an emoticon', 'Time: 10:30 (local).', 'Time: 10:30 (local).'],
  ['only emoji: nothing to say', '😀🎉👍', ''],
  ['only markdown: nothing to say', '---', ''],
  ['only a code block: nothing to say', '```\ncode\n```', ''],
  ['table', '| City | Temp |\n|---|---|\n| Rome | 20 |', 'City, Temp. Rome, 20'],
  ['HTML tags', 'Line one<br>line <b>two</b>.', 'Line one line two.'],
  ['whitespace collapses', '  Many   spaces\n\n\nand\tlines  ', 'Many spaces and lines'],
  ['a product between numbers stays', 'It is 2 * 3 = 6.', 'It is 2 * 3 = 6.'],
  ['negative number at the start', '-5 degrees outside.', '-5 degrees outside.'],
  ['ellipsis stays', 'Well... maybe.', 'Well... maybe.'],
  ['footnote', 'As said[^1] before.', 'As said before.'],
];

describe('sanitizeForSpeech', () => {
  it.each(CASES)('%s', (_name, input, expected) => {
    expect(sanitizeForSpeech(input)).toBe(expected);
  });

  it('says a phrase for a code block when the caller gives one, in the reply language', () => {
    expect(sanitizeForSpeech('Ecco:\n```\nls\n```\nFatto.', { codeBlock: 'codice omesso.' })).toBe('Ecco: codice omesso. Fatto.');
  });
});
