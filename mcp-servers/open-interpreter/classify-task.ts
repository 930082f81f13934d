/**
 * How dangerous a task for Open Interpreter looks from its words. Open
 * Interpreter writes and runs code for any task, so nothing it does is
 * read-only: the floor is `write`. A task that reads as deleting, writing,
 * installing, uploading, changing accounts or permissions, changing the
 * system, spending money or running code of its own is `high`.
 *
 * A heuristic on free text, in English and Italian (the assistant's spoken
 * languages): it errs toward `high`, and a task it calls `write` can still do
 * anything. The tool itself is declared `high`; this only explains a call.
 */
export interface TaskRisk {
  risk: 'write' | 'high';
  /** Why the task is `high`, one line per kind of danger, in a fixed order; empty for `write`. */
  reasons: string[];
}

interface Rule {
  reason: string;
  patterns: RegExp[];
}

// Each pattern is a handful of alternatives between word boundaries, so a
// 4000-character task cannot make a regex backtrack for long.
const RULES: readonly Rule[] = [
  {
    reason: 'deletes files or data',
    patterns: [
      /\b(delet|remov|eras|wip|purg|destroy|shred|uninstall)\w*/i,
      /\b(rm|rmdir|unlink)\s+\S/i,
      /\b(clear|empty|clean)\s+(up\s+)?(the\s+|my\s+|all\s+)?(cache|history|trash|bin|logs?|downloads?|folders?|director(y|ies)|disk|inbox)\b/i,
      /\bdrop\s+(the\s+)?(table|database|schema)\b/i,
      /\b(cancell|elimin|rimuov|svuot|distrugg)\w*/i,
    ],
  },
  {
    reason: 'writes, moves or changes files',
    patterns: [
      /\b(write|writes|writing|written|save[sd]?|saving|overwrit\w*|modif(y|ies|ied|ying)|edit(s|ed|ing)?|renam\w*|mov(e|es|ed|ing)|cop(y|ies|ied|ying)|append\w*|touch|mkdir|replac\w*|unzip|untar|compress\w*|encrypt\w*|decrypt\w*)\b/i,
      /\b(creat\w*|generat(e|es|ed|ing))\s+(\w+\s+){0,3}(file|folder|director(y|ies)|document|spreadsheet|backup|archive|image|report|script|project)/i,
      /\bdownload(ed|ing)?\b/i,
      /\bconvert\w*\b[^.\n]{0,60}\b(to|into)\s+(an?\s+)?(pdf|png|jpe?g|gif|mp3|mp4|wav|csv|docx?|xlsx?|json|markdown|html|file)\b/i,
      /\bgit\s+(commit|checkout|reset|rebase|merge|stash|clean|add)\b/i,
      /\b(scriv|salv|cre[ai]|modific|rinomin|spost|copi|scaric|sostituisc)\w*/i,
      /\s>>?\s*[~./\w-]*\.[a-z]{1,5}\b/i,
    ],
  },
  {
    reason: 'installs or updates software',
    patterns: [
      /\b(install|reinstall)\w*/i,
      /\b(pip3?|npm|pnpm|yarn|apt(-get)?|dnf|yum|brew|snap|flatpak|cargo|gem|conda)\s+(install|add|i|upgrade|update)\b/i,
      /\b(upgrade|update)\s+(\w+\s+){0,2}(packages?|system|software|drivers?|os|dependencies|firmware|kernel)\b/i,
      /\b(installa|aggiorna)\w*/i,
    ],
  },
  {
    reason: 'uploads or sends data over the network',
    patterns: [
      /\b(upload\w*|sen(d|ds|ding|t)|e-?mail\w*|post(s|ed|ing)?|tweet\w*|publish\w*|shar(e|es|ed|ing)|sync\w*|push(es|ed|ing)?|transmit\w*|forward(s|ed|ing)?)\b/i,
      /\b(scp|rsync|ftp|sftp|webhook)\b/i,
      /\bcurl\b[^\n]*\s-(X\s*(POST|PUT|PATCH|DELETE)|d|F|T)\b/i,
      /\b(invi(a|are|ato|ami|o)|caric(a|are|ato|ami)|mand(a|are|ato|ami)|pubblic(a|are|ato|ami)|condivid\w*|inoltr(a|are|ato|ami))\b/i,
    ],
  },
  {
    reason: 'changes accounts, passwords or permissions',
    patterns: [
      /\b(password|passwd|passphrase|account|login|log\s+in|sign\s+(in|up)|credential|ssh\s+key|2fa|permission)\w*/i,
      /\b(api|access|auth|github|bearer)\s+(key|token)s?\b/i,
      /\b(sudo|chmod|chown|chgrp|setfacl|useradd|usermod|userdel|visudo)\b|\bsu\s+(-|root\b)/i,
      /\b(firewall|iptables|ufw)\b/i,
      /\b(permess|utent|credenzial)\w*/i,
    ],
  },
  {
    reason: 'runs broad or arbitrary code',
    patterns: [
      /\b(run|execute|exec|eval|launch)\s+(\S+\s+){0,3}(script|code|program|command|binary|payload)s?\b/i,
      /\b(run|execute|exec)\s+(\.{0,2}\/|~\/)\S+/i,
      /\|\s*(sh|bash|zsh|python3?|node|perl)\b/i,
      /\b(bash|sh|python3?|node|perl)\s+-c\b/i,
      /\b(any|all|every)\s+(command|code|script)s?\b/i,
      /\b(esegu|lanci)\w*/i,
    ],
  },
  {
    reason: 'changes the system (processes, services, power, schedules)',
    patterns: [
      /\b(kill|pkill|killall|shut\s*down|reboot|restart|poweroff|halt|suspend|hibernate)\b/i,
      /\b(systemctl|crontab|cron|launchctl|mkfs|fdisk|parted|mount|umount|modprobe|sysctl)\b/i,
      /\b(schedul(e|ed|ing)|set\s+up)\s+(an?\s+|the\s+)?\w*\s*(job|task|service|daemon|timer)\b/i,
      /\b(startup|autostart|environment\s+variables?|\.bashrc|\.profile|registry)\b/i,
      /\b(riavvi\w*|spegn\w*|termin(a|are|ato|ami))\b/i,
    ],
  },
  {
    reason: 'spends money or makes a purchase',
    patterns: [
      /\b(buy|buys|bought|purchas\w*|pay|pays|paid|paying|payment\w*|checkout|subscrib\w*|donat\w*)\b/i,
      /\b(place|make)\s+an?\s+order\b|\border\s+(a|an|some|me|\d+)\b|\b(transfer|wire|send)\s+(\S+\s+)?(money|funds|euros?|dollars?)\b/i,
      /\b(compr(a|are|ato|ami|o)|pag(a|are|ato|ami|o|amento)|acquist\w*|ordin(a|are|ato|ami|e)|bonific\w*)\b/i,
    ],
  },
];

export function classifyTask(task: string): TaskRisk {
  const reasons = RULES.filter((rule) => rule.patterns.some((pattern) => pattern.test(task))).map((rule) => rule.reason);
  return { risk: reasons.length > 0 ? 'high' : 'write', reasons };
}
