/**
 * Makes one sentence of an LLM reply speakable. The system prompt asks for
 * plain sentences, but models still write markdown, emoji and links, and a
 * TTS engine reads them out ("asterisk asterisk", "h t t p s colon slash").
 * What carries meaning is kept (link text, image alt text, inline code, a
 * URL's site name); what is only decoration goes.
 */

export interface SanitizeOptions {
  /**
   * What a fenced code block becomes. The default, '', drops it: a fixed
   * phrase ("code omitted") would be in one language while the reply may be
   * in another, so a caller that wants one passes it in the reply's language.
   */
  codeBlock?: string;
}

const FENCED_CODE = /(`{3,}|~{3,})[\s\S]*?(?:\1|$)/g;
const INLINE_CODE = /`([^`\n]+)`/g;
const AUTOLINK = /<((?:https?|ftp|mailto):[^>\s]+)>/gi;
const IMAGE = /!\[([^\]]*)\]\([^)]*\)/g;
const LINK = /\[([^\]]+)\]\([^)]*\)/g;
const REFERENCE_LINK = /\[([^\]]+)\]\[[^\]]*\]/g;
const FOOTNOTE = /\[\^[^\]]*\]/g;
/** Parentheses only when balanced inside the URL (Wikipedia's "Roma_(città)"), so "(see https://x.org)" ends at the x.org. */
const URL = /\b(?:(?:https?|ftp):\/\/|www\.)(?:[^\s<>"'`()]|\([^\s()<>]*\))+/gi;
/** Characters that end a sentence or wrap a URL rather than belong to it. */
const URL_TRAIL = /[.,;:!?\]}'"*_]+$/;
const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g;

const KEYCAP = /[#*0-9]\uFE0F?\u20E3/gu;
/** Pictographs, flags (regional indicators, tag sequences), skin tones and the joiners and selectors that glue emoji together. */
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}\p{Emoji_Modifier}\u{E0020}-\u{E007F}\uFE0E\uFE0F\u200D]/gu;
/** Text emoticons, only as whole words so "a:b" or "(see 3)" survive. */
const EMOTICON = /(^|\s)(?:[:;=][-']?[)(\]\[DPpOo3|/\\*]+|[xX]D+|<3+|\^_?\^)(?=\s|$|[.,!?])/g;

/** Returns the speakable text, or '' when nothing speakable is left. */
export function sanitizeForSpeech(text: string, options: SanitizeOptions = {}): string {
  const codeBlock = options.codeBlock ?? '';
  let out = text.replace(/\r\n?/g, '\n');
  out = out.replace(FENCED_CODE, codeBlock === '' ? '\n' : `\n${codeBlock}\n`);
  out = out.replace(INLINE_CODE, '$1').replace(/`+/g, '');
  out = out.replace(AUTOLINK, '$1');
  out = out.replace(IMAGE, '$1').replace(LINK, '$1').replace(REFERENCE_LINK, '$1').replace(FOOTNOTE, '');
  out = out.replace(URL, speakUrl);
  out = out.replace(HTML_TAG, ' ');
  out = stripLineMarkers(out);
  out = stripEmphasis(out);
  out = out.replace(KEYCAP, '').replace(EMOJI, '').replace(EMOTICON, '$1');
  out = tidy(out);
  return /[\p{L}\p{N}]/u.test(out) ? out : '';
}

/** "https://www.example.com/path?x" -> "example.com": the site is what a listener can use. */
function speakUrl(match: string): string {
  const trail = URL_TRAIL.exec(match)?.[0] ?? '';
  const url = match.slice(0, match.length - trail.length);
  const host = url
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/[/?#].*$/, '')
    .replace(/^[^@]*@/, '')
    .replace(/:\d+$/, '')
    .replace(/^www\./i, '')
    .toLowerCase();
  return host + trail;
}

/** Headers, quotes, list markers, rules and tables; a header or list item ends like a sentence so the voice pauses. */
function stripLineMarkers(text: string): string {
  const lines: Array<{ text: string; block: boolean }> = [];
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    let block = false;
    if (/^([-*_]\s*){3,}$/.test(line) || /^\|?[\s:|-]*-{2,}[\s:|-]*\|?$/.test(line)) continue;
    while (/^>\s?/.test(line)) line = line.replace(/^>\s?/, '');
    if (/^#{1,6}\s/.test(line)) {
      line = line.replace(/^#{1,6}\s+/, '').replace(/\s+#+$/, '');
      block = true;
    }
    if (/^(?:[-*+•]|\d{1,3}[.)])\s+/.test(line)) {
      line = line.replace(/^(?:[-*+•]|\d{1,3}[.)])\s+/, '').replace(/^\[[ xX]\]\s+/, '');
      block = true;
    }
    if (line.startsWith('|')) {
      line = line.replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim()).filter(Boolean).join(', ');
      block = true;
    }
    if (line !== '') lines.push({ text: line, block });
  }
  return lines
    .map((line, i) => (line.block && i < lines.length - 1 && !/[.!?;:,…]$/.test(line.text) ? `${line.text}.` : line.text))
    .join(' ');
}

function stripEmphasis(text: string): string {
  return text
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    // Struck-through text is what the writer took back: saying it would say the opposite.
    .replace(/~~(?=\S)[\s\S]*?\S~~/g, '')
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*\n]*?\S)\*(?![\p{L}\p{N}*])/gu, '$1$2')
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_\n]*?\S)_(?![\p{L}\p{N}_])/gu, '$1$2')
    // A stray asterisk is markdown noise, except as a product between numbers ("2 * 3").
    .replace(/(?<!\d\s?)\*+|\*+(?!\s?\d)/g, '');
}

function tidy(text: string): string {
  return text
    .replace(/\(\s*\)|\[\s*\]/g, ' ')
    .replace(/\s+/g, ' ')
    // What removals leave behind: "done ." for "done 🎉.".
    .replace(/ ([.,!?;:…])/g, '$1')
    .replace(/^[\s.,;:!?…]+/, '')
    .trim();
}
