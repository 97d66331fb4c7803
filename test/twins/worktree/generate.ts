// The working-tree twins: two non-bare repositories, each with `main` checked out, whose visible history, visible files
// and visible working-tree state are identical byte for byte (same authors, dates, messages, contents), and whose
// hidden parts differ. "Visible" is what the perimeter (spec.ts `perimeterOf`) may read: `app/**` on `main` and `other`,
// minus the privacy zones (`app/.env*`). Everything else (secret/, wo/ which is write-only, .gitmodules, the branch
// `hid`, the stash, app/.env*) is drawn per twin.
//
// History is written in one `git fast-import` stream per twin (fixed dates, so visible commits differ only by the hidden
// trees they hash; the driver maps their ids by label), then the working tree is dirtied with fs writes and a few git
// commands (stash, a stopped merge, staging).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitIn } from '../../support/gitdir.js';
import type { Hidden, Shared, Twin, TwinSpec } from './spec.js';

// ---- contents ------------------------------------------------------------------------------------------------------

const lines = (prefix: string, n: number, edit: Record<number, string> = {}): string =>
  Array.from(
    { length: n },
    (_, i) => edit[i + 1] ?? `${prefix} line ${i + 1} of a file long enough to be paired by similarity`,
  ).join('\n') + '\n';
const MOVED = lines('moved', 10);
const OUT = lines('out', 10);
const R_THEIRS = lines('r', 10, { 5: 'theirs changed line five', 9: 'theirs changed line nine' });
const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
/**
 * Where the pairing, huge and non-UTF-8 variations put their hidden files: under secret/ (outside every read prefix),
 * or in privacy zones inside the read prefix app/ (git then sees them whatever pathspec the server narrows to).
 * Non-UTF-8 names (Latin-1 bytes) are binary strings: one char per byte.
 */
function hiddenPaths(h: Hidden) {
  return h.zone
    ? {
        s: 'app/.env.s',
        out: 'app/.env.out',
        huge: 'app/.env.huge',
        oldName: 'app/.env.caf\xe9',
        newName: 'app/.env.\xff\xfe-new',
        newGlob: ':(glob)app/.env.*-new',
      }
    : {
        s: 'secret/s.ts',
        out: 'secret/out.ts',
        huge: 'secret/huge.txt',
        oldName: 'secret/caf\xe9.txt',
        newName: 'secret/\xff\xfe-new.txt',
        newGlob: ':(glob)secret/*-new.txt',
      };
}

/** Hidden files every root commit of this twin carries. */
function hiddenBase(h: Hidden, s: Shared): Record<string, Content> {
  const v = `v${h.seed}`;
  const at = hiddenPaths(h);
  const files: Record<string, Content> = {
    'secret/k.txt': h.keyIsSecret ? `const key = "${TOKEN}";\n` : `key ${v}\n`,
    'secret/c.txt': `base ${v}\n`,
    'secret/stashed.txt': `stash base ${v}\n`,
    [at.huge]: `small ${v}\n`,
    'secret/h.txt': `h ${v}\n`,
    'wo/w.txt': `write-only ${v}\n`,
    'wo/c.txt': `base ${v}\n`,
    'app/.env.local': `TOKEN=base-${v}\n`,
  };
  if (h.linkCommitted) files['app/link-c'] = { link: '../secret/k.txt' };
  if (h.renameIn === 'similar') files[at.s] = lines('moved', 10, { 3: `hidden ${v}` });
  if (h.renameIn === 'dissimilar') files[at.s] = `nothing alike ${v}\n`;
  if (h.nonUtf8) files[at.oldName] = `caf ${v}\n`;
  if (h.submodule) {
    files['.gitmodules'] = `[submodule "sub"]\n\tpath = secret/sub\n\turl = ./nowhere-${v}\n`;
    files['secret/sub'] = { gitlink: `${'5'.repeat(39)}${h.seed}` };
  }
  if (s.renameConflict) files['secret/r.txt'] = lines('r', 10, { 9: `hidden base nine ${v}` });
  return files;
}

// ---- history -------------------------------------------------------------------------------------------------------

type Content = string | { link: string } | { gitlink: string };

interface Commit {
  readonly ref: string;
  readonly label?: string;
  readonly parent?: string;
  readonly message: string;
  readonly time: number;
  readonly files: Record<string, Content | null>;
}

const T0 = Date.UTC(2026, 0, 1) / 1000;
const HOUR = 3600;

/** The commits of one twin, in stream order; visible ones carry their label, hidden ones an H or B label. */
function history(s: Shared, h: Hidden): Commit[] {
  const out: Commit[] = [];
  const hiddenAfter = (i: number, count: number, base: number) => {
    for (let j = 0; j < count; j++) {
      const zone = (i + j) % 2 === 1;
      out.push({
        ref: 'main',
        label: `H${out.filter((c) => c.label?.startsWith('H')).length}`,
        message: `hidden ${i}.${j} ${h.seed}`,
        time: base + (j + 1) * 60,
        files: zone
          ? { 'app/.env.local': `TOKEN=${i}-${j}-${h.seed}\n` }
          : { 'secret/h.txt': `h ${i}-${j}-${h.seed}\n` },
      });
    }
  };
  out.push({
    ref: 'main',
    label: 'V0',
    message: 'root: the app and its neighbours',
    time: T0,
    files: {
      'app/a.ts': 'export const a = 0;\n',
      'app/b.ts': 'export const b = 0;\n',
      'app/c.txt': 'base\n',
      'app/out.ts': OUT,
      'app/readme.md': '# app\n',
      '.gitignore': '*.log\n',
      ...hiddenBase(h, s),
    },
  });
  hiddenAfter(0, h.commitsAfter[0] ?? 0, T0);
  for (let i = 1; i <= s.visible; i++) {
    const last = i === s.visible;
    if (last && h.many) {
      for (let j = 0; j < 110; j++)
        out.push({
          ref: 'main',
          message: `zone churn ${j}`,
          time: T0 + i * HOUR - 1800 + j,
          files: { 'app/.env.local': `TOKEN=churn-${j}-${h.seed}\n` },
        });
    }
    out.push({
      ref: 'main',
      label: `V${i}`,
      message: `app: step ${i}`,
      time: T0 + i * HOUR,
      files:
        last && s.visibleConflict
          ? { 'app/c.txt': 'ours\n' }
          : { 'app/a.ts': `export const a = ${i};\n`, [`app/doc-${i}.md`]: `step ${i}\n` },
    });
    if (last) {
      // main's side of the hidden conflicts, after the fork.
      const t = T0 + i * HOUR;
      if (h.conflict !== 'none')
        out.push({
          ref: 'main',
          label: 'Hlast',
          message: `hidden ours ${h.seed}`,
          time: t + 10,
          files: { [conflictPath(h)]: conflictBody(h, 'ours') },
        });
      if (s.renameConflict)
        out.push({
          ref: 'main',
          message: `hidden r ${h.seed}`,
          time: t + 20,
          files: {
            'secret/r.txt': lines('r', 10, { 5: `hidden ours five ${h.seed}`, 9: `hidden base nine v${h.seed}` }),
          },
        });
    }
    hiddenAfter(i, h.commitsAfter[i] ?? 0, T0 + i * HOUR + 30);
  }
  // other forks from the visible commit before main's last one.
  const fork = `V${s.visible - 1}`;
  const otherFiles: Record<string, Content | null> = { 'app/o.ts': 'export const o = 1;\n' };
  if (s.visibleConflict) otherFiles['app/c.txt'] = 'theirs\n';
  if (h.conflict !== 'none') otherFiles[conflictPath(h)] = conflictBody(h, 'theirs');
  if (s.renameConflict) {
    otherFiles['secret/r.txt'] = null;
    otherFiles['app/r.txt'] = R_THEIRS;
  }
  out.push({
    ref: 'other',
    label: 'O1',
    parent: fork,
    message: 'other: its side',
    time: T0 + (s.visible + 1) * HOUR,
    files: otherFiles,
  });
  for (let j = 1; j <= h.hidBranch; j++) {
    out.push({
      ref: 'hid',
      label: `B${j}`,
      ...(j === 1 ? { parent: fork } : {}),
      message: `hid: ${j} ${h.seed}`,
      time: T0 + (s.visible + 2) * HOUR + j * 60,
      files: { 'app/a.ts': `export const a = "hid ${j} ${h.seed}";\n`, 'secret/k.txt': `hid ${j}\n` },
    });
  }
  return out;
}

function conflictPath(h: Hidden): string {
  return h.conflict === 'wo' ? 'wo/c.txt' : h.conflict === 'zone' ? 'app/.env.local' : 'secret/c.txt';
}
function conflictBody(h: Hidden, side: string): string {
  return h.conflict === 'zone' ? `TOKEN=${side}-${h.seed}\n` : `${side} ${h.seed}\n`;
}

/** A path for fast-import: C-quoted, bytes above 0x7f as octal (the path is a binary string). */
function fiPath(p: string): string {
  if (/^[\x21-\x7e]+$/.test(p) && !p.startsWith('"')) return p;
  let q = '"';
  for (const ch of p) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') q += `\\${ch}`;
    else if (c < 0x20 || c > 0x7e) q += `\\${c.toString(8).padStart(3, '0')}`;
    else q += ch;
  }
  return `${q}"`;
}

/** The fast-import stream of `commits`; marks are 1-based commit positions. */
function stream(commits: readonly Commit[]): Buffer {
  const parts: Buffer[] = [];
  const put = (s: string | Buffer) => parts.push(typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
  const data = (b: Buffer) => {
    put(`data ${b.length}\n`);
    put(b);
    put('\n');
  };
  const marks = new Map<string, number>();
  const tips = new Map<string, number>();
  commits.forEach((c, i) => {
    const mark = i + 1;
    put(`commit refs/heads/${c.ref}\nmark :${mark}\n`);
    put(`author Test Author <author@example.test> ${c.time} +0000\n`);
    put(`committer Test Committer <committer@example.test> ${c.time} +0000\n`);
    data(Buffer.from(c.message + '\n'));
    const parent = c.parent !== undefined ? marks.get(c.parent) : tips.get(c.ref);
    if (c.parent !== undefined && parent === undefined) throw new Error(`unknown parent ${c.parent}`);
    if (parent !== undefined) put(`from :${parent}\n`);
    for (const [path, content] of Object.entries(c.files)) {
      const p = Buffer.from(fiPath(path), 'latin1');
      if (content === null) put(Buffer.concat([Buffer.from('D '), p, Buffer.from('\n')]));
      else if (typeof content === 'string') {
        put(Buffer.concat([Buffer.from('M 100644 inline '), p, Buffer.from('\n')]));
        data(Buffer.from(content));
      } else if ('link' in content) {
        put(Buffer.concat([Buffer.from('M 120000 inline '), p, Buffer.from('\n')]));
        data(Buffer.from(content.link));
      } else put(Buffer.concat([Buffer.from(`M 160000 ${content.gitlink} `), p, Buffer.from('\n')]));
    }
    put('\n');
    if (c.label !== undefined) marks.set(c.label, mark);
    tips.set(c.ref, mark);
  });
  put('done\n');
  return Buffer.concat(parts);
}

function runWithInput(cwd: string, args: string[], input: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('git', args, {
      cwd,
      env: { ...process.env, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')}: ${err}`))));
    p.stdin.end(input);
  });
}

// ---- working tree --------------------------------------------------------------------------------------------------

const WT_TIME = T0 + 100 * HOUR;
const dated = { GIT_AUTHOR_DATE: `@${WT_TIME} +0000`, GIT_COMMITTER_DATE: `@${WT_TIME} +0000` };

/** Options of the builder. */
export interface BuildOptions {
  /** Size of the hidden file rewritten past the diff cap (bytes). */
  readonly hugeBytes: number;
  /** Changes a built twin (the self-test plants a visible difference to show the check can fail). */
  readonly plant?: (dir: string, twin: 'a' | 'b') => Promise<void>;
}

/** Builds one twin: shared history and state with this twin's hidden part. */
export async function buildTwin(s: Shared, h: Hidden, opts: BuildOptions): Promise<Twin> {
  const root = await mkdtemp(join(tmpdir(), 'gb-twin-'));
  const dir = join(root, 'work');
  await mkdir(dir);
  const git = (...args: string[]) => gitIn(dir, args, dated);
  await git('init', '-q', '-b', 'main');
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgSign', 'false'],
    ['core.autocrlf', 'false'],
    ['user.name', 'Test Committer'],
    ['user.email', 'committer@example.test'],
    ['core.quotePath', 'true'],
  ] as const) {
    await git('config', k, v);
  }
  const commits = history(s, h);
  const marksFile = join(root, 'marks');
  await runWithInput(dir, ['fast-import', '--quiet', '--done', `--export-marks=${marksFile}`], stream(commits));
  const byMark = new Map<number, string>();
  for (const line of (await readFile(marksFile, 'utf8')).split('\n')) {
    const m = /^:(\d+) ([0-9a-f]{40})$/.exec(line);
    if (m) byMark.set(Number(m[1]), m[2]!);
  }
  const visible = new Map<string, string>();
  const hidden = new Map<string, string>();
  commits.forEach((c, i) => {
    if (c.label === undefined) return;
    const id = byMark.get(i + 1)!;
    if (/^(V|O)\d+$/.test(c.label)) visible.set(c.label, id);
    else hidden.set(c.label, id);
  });
  await git('reset', '-q', '--hard', 'main');

  const w = (p: string, body: string | Buffer) => writeAt(dir, p, body);
  if (h.stash) {
    await w('secret/stashed.txt', `stashed ${h.seed}\n`);
    await git('stash', 'push', '-q', '-m', `wip ${h.seed}`, '--', 'secret/stashed.txt');
    hidden.set('S0', (await git('rev-parse', 'refs/stash')).trim());
  }
  if (s.mergeStopped) {
    await git('merge', '-q', '--no-edit', 'other').then(
      () => {
        throw new Error('twin: the merge was meant to stop');
      },
      () => undefined,
    );
    if (s.renameConflict) await w('app/r.txt', 'resolved by hand\n');
  }
  // Visible dirt, identical in both twins.
  if (s.modified) await w('app/a.ts', 'export const a = "on disk";\n');
  if (s.staged) {
    await w('app/b.ts', 'export const b = "staged";\n');
    await git('add', '--', 'app/b.ts');
  }
  if (s.untracked) await w('app/new.ts', 'export const fresh = true;\n');
  if (s.ignored) await w('app/debug.log', 'ignored\n');
  if (s.renameIn) {
    await w('app/moved.ts', MOVED);
    await git('add', '--', 'app/moved.ts');
  }
  if (s.renameOut) await git('rm', '-q', '--', 'app/out.ts');
  // Hidden dirt, this twin's own.
  const v = `v${h.seed}`;
  if (h.modified) await w('secret/k.txt', h.keyIsSecret ? `const key = "${TOKEN}"; // edited\n` : `key edited ${v}\n`);
  if (h.staged) {
    await w('secret/st.txt', `staged ${v}\n`);
    await git('add', '--', 'secret/st.txt');
  }
  for (let i = 0; i < h.untracked; i++) await w(`secret/u${i}.txt`, `untracked ${i} ${v}\n`);
  if (h.manyUntracked) {
    const long = 'x'.repeat(150);
    await mkdir(join(dir, 'secret/many'), { recursive: true });
    await Promise.all(
      Array.from({ length: 240 }, (_, i) =>
        writeFile(join(dir, `secret/many/${long}-${String(i).padStart(4, '0')}.txt`), `${i}\n`),
      ),
    );
  }
  if (h.ignored) {
    await w('secret/ignored.log', `ignored ${v}\n`);
    await w('secret/build/out.log', `ignored ${v}\n`);
  }
  if (h.env) await w('app/.env', `TOKEN=untracked-${v}\n`);
  if (h.zoneModified) await w('app/.env.local', `TOKEN=edited-${v}\n`);
  if (h.writeOnly) await w('wo/w.txt', `write-only edited ${v}\n`);
  if (h.linkFile) await symlink('../secret/k.txt', join(dir, 'app/link-file'));
  if (h.linkDir) await symlink('../secret', join(dir, 'app/link-dir'));
  const at = hiddenPaths(h);
  if (h.renameIn !== 'none') await git('rm', '-q', '--', at.s);
  if (h.renameOut !== 'none') {
    await w(at.out, h.renameOut === 'similar' ? lines('out', 10, { 4: `hidden ${v}` }) : `nothing alike ${v}\n`);
    await git('add', '--', at.out);
  }
  if (h.huge !== 'none') {
    const row = `hidden huge row ${v} ${'y'.repeat(60)}\n`;
    await w(at.huge, row.repeat(Math.ceil(opts.hugeBytes / row.length)));
    if (h.huge === 'staged') await git('add', '--', at.huge);
  }
  if (h.nonUtf8) {
    await w(at.oldName, `caf edited ${v}\n`);
    await w(at.newName, `new ${v}\n`);
    await git('add', '--', at.newGlob);
  }
  return { dir, visible, hidden, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Writes `body` at the binary-string path `p` under `dir` (non-UTF-8 names stay bytes). */
async function writeAt(dir: string, p: string, body: string | Buffer): Promise<void> {
  const abs = Buffer.concat([Buffer.from(dir + '/', 'utf8'), Buffer.from(p, 'latin1')]);
  // Only file names are ever non-UTF-8 here; their directories are ASCII.
  await mkdir(join(dir, dirname(p)), { recursive: true });
  await rm(abs, { force: true });
  await writeFile(abs, body);
}

/** Builds both twins of a spec (in parallel; neither is left behind when the other fails). */
export async function buildTwins(spec: TwinSpec, opts: BuildOptions): Promise<readonly [Twin, Twin]> {
  const one = async (h: Hidden, twin: 'a' | 'b') => {
    const t = await buildTwin(spec.shared, h, opts);
    await opts.plant?.(t.dir, twin);
    return t;
  };
  const [a, b] = await Promise.allSettled([one(spec.a, 'a'), one(spec.b, 'b')]);
  if (a.status === 'fulfilled' && b.status === 'fulfilled') return [a.value, b.value];
  for (const t of [a, b]) if (t.status === 'fulfilled') await t.value.cleanup();
  throw a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
}
