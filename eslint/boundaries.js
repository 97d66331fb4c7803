// Turns the room table (rooms.js) into flat-config blocks: for each room an allow-list written as one
// `no-restricted-imports` regex (an import that matches none of the room's allowed forms is reported) and a
// `no-restricted-syntax` list refusing the globals the room does not list. A file of src/ that no row names gets a
// block that fails it whatever it contains: a new folder is closed until the table lists it.
//
// The regex works on the import text as written, so relative imports are resolved here, at config time: a room's
// files at each folder depth below the room get their own block, where "../" counts are known. An import is allowed
// only in its normal form (`./x.js`, `../../core/index.js`): a path with `.` or `..` in the middle is refused.
import { posix } from 'node:path';
import { ROOMS } from './rooms.js';

/** Folder depth below a room that the generated blocks reach; a deeper file falls to the closed block. */
const MAX_DEPTH = 6;

const GLOBALS = {
  console: [
    {
      selector: "MemberExpression[object.name='console']",
      message: 'Only src/cli writes to the console: take a log function.',
    },
  ],
  'process.exit': [
    {
      selector: "MemberExpression[object.name='process'][property.name='exit']",
      message: 'Only src/cli exits the process.',
    },
  ],
  'process.env': [
    {
      selector: "MemberExpression[object.name='process'][property.name='env']",
      message: 'Only src/cli reads the environment: take the value as an argument.',
    },
  ],
  // A dynamic import would pass beside the import rule, which sees only static ones. (A type-position `import('…')`
  // is refused everywhere by @typescript-eslint/consistent-type-imports.)
  'import()': [
    {
      selector: 'ImportExpression',
      message: 'No dynamic import() here: the room table (eslint/rooms.js) checks static imports only.',
    },
  ],
};

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** One path segment that is not `.` or `..`. */
const SEG = '[\\w@-][\\w.@-]*';
const REST = `${SEG}(?:/${SEG})*`;

const isSrc = (entry) => entry === 'src' || entry.startsWith('src/');
const isFile = (p) => p.endsWith('.ts');
const isGlobal = (entry) => Object.hasOwn(GLOBALS, entry);

/** The regex alternative for a package or built-in entry. */
function packageForm(entry) {
  if (entry === 'node:*') return 'node:(?!child_process(?:/|$))[\\w/]+';
  if (entry.startsWith('node:')) return esc(entry);
  if (entry.endsWith('/*')) return `${esc(entry.slice(0, -1))}[^/]+(?:/.*)?`;
  return `${esc(entry)}(?:/.*)?`;
}

/** The folders above `dir`, nearest first, ending at the project root ('.'). */
function ancestors(dir) {
  const out = [];
  for (let d = dir; d !== '.';) out.push((d = posix.dirname(d)));
  return out;
}

/** How an import names `target` from `from` (a folder), after `ups` `../` (0 = `./`); undefined when it cannot. */
function relativeForm(from, target, ups) {
  if (from !== '.' && target !== from && !target.startsWith(`${from}/`)) return undefined;
  const prefix = ups === 0 ? '\\./' : `(?:\\.\\./){${ups}}`;
  const rel = posix.relative(from, target);
  if (isFile(target)) return `${prefix}${esc(rel.replace(/\.ts$/, ''))}\\.js`;
  return rel === '' ? `${prefix}${REST}` : `${prefix}${esc(rel)}/${REST}`;
}

/** Every allowed import form for a file `depth` folders below a folder room, or in the folder of a file room. */
function allowedForms(row, depth) {
  const srcTargets = row.may.filter(isSrc);
  const forms = row.may.filter((e) => !isSrc(e) && !isGlobal(e)).map(packageForm);
  if (isFile(row.room)) {
    const dir = posix.dirname(row.room);
    [dir, ...ancestors(dir)].forEach((from, ups) => srcTargets.forEach((t) => forms.push(relativeForm(from, t, ups))));
  } else {
    // Its own folder, from anywhere below it: up to `depth` levels of `../` stay inside the room.
    forms.push(depth === 0 ? `\\./${REST}` : `(?:\\./|(?:\\.\\./){1,${depth}})${REST}`);
    ancestors(row.room).forEach((from, i) => {
      for (const t of [row.room, ...srcTargets]) forms.push(relativeForm(from, t, depth + i + 1));
    });
  }
  return forms.filter((f) => f !== undefined);
}

/** The file globs of a room at one depth below it. */
const filesAt = (row, depth) => (isFile(row.room) ? [row.room] : [`${row.room}/${'*/'.repeat(depth)}*.ts`]);

/** What the room may import, as a reader of a lint message wants it. */
function describe(row) {
  const list = row.may.filter((e) => !isGlobal(e));
  return `${row.room} may import only ${isFile(row.room) ? '' : 'its own folder, '}${list.join(', ') || 'nothing else'}`;
}

/**
 * The flat-config blocks of the room table. `always` are the `no-restricted-syntax` entries every src file keeps
 * (the rule has one list per file, so each block repeats them).
 */
export function boundaries({ always = [] } = {}) {
  const closed = {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '.*', message: 'this file is in no room of eslint/rooms.js.' }] },
      ],
      'no-restricted-syntax': [
        'error',
        ...always,
        {
          selector: 'Program',
          message: `This folder of src/ is in no room of eslint/rooms.js (or nested deeper than ${MAX_DEPTH} folders): add its row, saying what it may import.`,
        },
      ],
    },
  };
  // Last block matching a file wins: less specific rooms first, so src/http/web overrides src/http.
  const rows = [...ROOMS].sort((a, b) => a.room.split('/').length - b.room.split('/').length);
  const blocks = rows.flatMap((row) => {
    const syntax = Object.entries(GLOBALS).flatMap(([name, rules]) => (row.may.includes(name) ? [] : rules));
    const depths = isFile(row.room) ? [0] : Array.from({ length: MAX_DEPTH + 1 }, (_, d) => d);
    return depths.map((depth) => ({
      files: filesAt(row, depth),
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(?!(?:${allowedForms(row, depth).join('|')})$)`,
                caseSensitive: true,
                message: `${describe(row)} (eslint/rooms.js; a boundary failure is a design conversation: move the code or widen the table).`,
              },
            ],
          },
        ],
        'no-restricted-syntax': ['error', ...always, ...syntax],
      },
    }));
  });
  return [closed, ...blocks];
}
