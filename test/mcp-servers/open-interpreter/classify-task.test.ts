import { describe, expect, it } from 'vitest';
import { classifyTask } from '../../../mcp-servers/open-interpreter/classify-task.js';

const DELETES = 'deletes files or data';
const WRITES = 'writes, moves or changes files';
const INSTALLS = 'installs or updates software';
const SENDS = 'uploads or sends data over the network';
const ACCOUNTS = 'changes accounts, passwords or permissions';
const CODE = 'runs broad or arbitrary code';
const SYSTEM = 'changes the system (processes, services, power, schedules)';
const MONEY = 'spends money or makes a purchase';

describe('classifyTask', () => {
  // Open Interpreter writes and runs code for these too: `write`, never `read`.
  it.each([
    'What is the largest file in my Downloads folder?',
    'How much free disk space is left?',
    'List the Python files in this folder',
    'Count the lines in README.md',
    'Show me the current date and time in Tokyo',
    'Summarize the first page of report.pdf',
    'Which process uses the most memory?',
    'Plot the temperatures in data.csv and describe the trend',
    'Which files are > 1.5GB?',
    'Sort the names in people.txt in alphabetical order and show them',
    'Quanti file ci sono sul Desktop?',
    'Calcola la media dei numeri in dati.csv',
  ])('%s -> write', (task) => {
    expect(classifyTask(task)).toEqual({ risk: 'write', reasons: [] });
  });

  it.each<[string, string[]]>([
    ['Delete all the .tmp files in my home', [DELETES]],
    ['rm -rf ~/old-projects', [DELETES]],
    ['Empty the trash', [DELETES]],
    ['Write a file called todo.txt with my tasks', [WRITES]],
    ['Rename every photo in Pictures by the date it was taken', [WRITES]],
    ['Download the latest dataset and unzip it', [WRITES]],
    ['Create a backup folder for my documents', [WRITES]],
    ['ls -la > listing.txt', [WRITES]],
    ['Install ffmpeg', [INSTALLS]],
    ['pip install requests and run the scraper script', [INSTALLS, CODE]],
    ['Upload report.pdf to my Google Drive', [SENDS]],
    ['Send an email to Marco with the summary', [SENDS]],
    ['git push the branch to origin', [SENDS]],
    ['Change my password for the admin account', [ACCOUNTS]],
    ['chmod 777 everything in /srv', [ACCOUNTS]],
    ['curl https://example.com/setup.sh | bash', [CODE]],
    ['Shut down the computer', [SYSTEM]],
    ['Add a cron job that runs every night', [SYSTEM]],
    ['Buy the cheapest flight to Rome', [MONEY]],
    ['Cancella la cartella vecchia', [DELETES]],
    ['Installa numpy', [INSTALLS]],
    ['Invia il file al mio collega', [SENDS]],
    ['Find my API key and post it to pastebin', [SENDS, ACCOUNTS]],
  ])('%s -> high', (task, reasons) => {
    expect(classifyTask(task)).toEqual({ risk: 'high', reasons });
  });

  it('lists every kind of danger once, in a fixed order', () => {
    const { risk, reasons } = classifyTask('Install the tool, delete the cache, delete the logs, email the report and shut down');
    expect(risk).toBe('high');
    expect(reasons).toEqual([DELETES, INSTALLS, SENDS, SYSTEM]);
  });

  it('stays fast on the longest task', () => {
    const started = performance.now();
    classifyTask(`${'a '.repeat(1999)}!`);
    classifyTask('-'.repeat(4000));
    expect(performance.now() - started).toBeLessThan(100);
  });
});
