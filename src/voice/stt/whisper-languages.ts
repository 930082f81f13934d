/**
 * whisper.cpp's languages, code and name, in its own order (`g_lang` in
 * whisper.cpp). whisper-server's verbose_json names the language ("english",
 * from whisper_lang_str_full) where the rest of the voice wants the code.
 * Codes are whisper's: ISO 639-1 where one exists ("haw", "yue" otherwise,
 * and "jw" for Javanese as whisper spells it).
 */
const TABLE =
  'en english,zh chinese,de german,es spanish,ru russian,ko korean,fr french,ja japanese,pt portuguese,tr turkish,' +
  'pl polish,ca catalan,nl dutch,ar arabic,sv swedish,it italian,id indonesian,hi hindi,fi finnish,vi vietnamese,' +
  'he hebrew,uk ukrainian,el greek,ms malay,cs czech,ro romanian,da danish,hu hungarian,ta tamil,no norwegian,' +
  'th thai,ur urdu,hr croatian,bg bulgarian,lt lithuanian,la latin,mi maori,ml malayalam,cy welsh,sk slovak,' +
  'te telugu,fa persian,lv latvian,bn bengali,sr serbian,az azerbaijani,sl slovenian,kn kannada,et estonian,mk macedonian,' +
  'br breton,eu basque,is icelandic,hy armenian,ne nepali,mn mongolian,bs bosnian,kk kazakh,sq albanian,sw swahili,' +
  'gl galician,mr marathi,pa punjabi,si sinhala,km khmer,sn shona,yo yoruba,so somali,af afrikaans,oc occitan,' +
  'ka georgian,be belarusian,tg tajik,sd sindhi,gu gujarati,am amharic,yi yiddish,lo lao,uz uzbek,fo faroese,' +
  'ht haitian creole,ps pashto,tk turkmen,nn nynorsk,mt maltese,sa sanskrit,lb luxembourgish,my myanmar,bo tibetan,tl tagalog,' +
  'mg malagasy,as assamese,tt tatar,haw hawaiian,ln lingala,ha hausa,ba bashkir,jw javanese,su sundanese,yue cantonese';

const CODE_BY_NAME = new Map<string, string>();
const CODES = new Set<string>();
for (const entry of TABLE.split(',')) {
  const space = entry.indexOf(' ');
  const code = entry.slice(0, space);
  CODE_BY_NAME.set(entry.slice(space + 1), code);
  CODES.add(code);
}

/** The code for whisper's language name, or a code passed through; undefined for anything else. */
export function whisperLanguageCode(language: unknown): string | undefined {
  if (typeof language !== 'string') return undefined;
  const key = language.trim().toLowerCase();
  if (CODES.has(key)) return key;
  return CODE_BY_NAME.get(key);
}
