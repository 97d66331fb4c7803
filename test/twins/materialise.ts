// Builds one twin of a plan as a bare repository, in one `git fast-import` stream: every commit is written with its
// own author, committer and dates (the shared clock of test/support/gitdir.ts would give twins different dates), paths
// are bytes (hidden names that are not UTF-8), and each commit lists its whole tree, so a visible commit's visible
// files are those of the plan whatever the twin hides beside them.
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gitIn } from '../support/gitdir.js';
import {
  EXTRA_LINKS,
  HIDDEN_BRANCH,
  lines,
  PLAN_LINKS,
  type HiddenOption,
  type Plan,
  type PlanFile,
  type TwinHidden,
  type VisibleCommit,
} from './generate.js';
import { Rng } from './rng.js';

type Entry = string | { symlink: string };
type Tree = Map<string, Entry>;

/** One twin as served: where it lives and which commit ids stand for which visible commit. */
export interface TwinRepo {
  readonly dir: string;
  /** Visible label → this twin's commit id. */
  readonly labels: ReadonlyMap<string, string>;
  /** Commits on allowlisted branches that touch only hidden files. */
  readonly hiddenOnly: readonly string[];
  /** Commits only on the hidden branch. */
  readonly hiddenBranch: readonly string[];
}

interface CommitOut {
  readonly mark: number;
  readonly branch: string;
  readonly parent: number | undefined;
  readonly author: string;
  readonly epoch: number;
  readonly message: string;
  readonly tree: Tree;
}

/** Plan dates: visible commit k at BASE_EPOCH + k hours (hidden ones between, late ones after). */
export const BASE_EPOCH = Date.UTC(2020, 0, 1) / 1000;
export const HOUR = 3600;
const COMMITTER = 'Twin Committer <committer@example.test>';
const HIDDEN_AUTHOR = 'Hidden Person <hidden@example.test>';

/** The bytes of a plan path (`%xx` spells a raw byte). */
export function pathBytes(p: string): Buffer {
  const parts: Buffer[] = [];
  let text = '';
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '%' && /^[0-9a-f]{2}$/i.test(p.slice(i + 1, i + 3))) {
      parts.push(Buffer.from(text, 'utf8'), Buffer.from([parseInt(p.slice(i + 1, i + 3), 16)]));
      text = '';
      i += 2;
    } else text += p[i];
  }
  parts.push(Buffer.from(text, 'utf8'));
  return Buffer.concat(parts);
}

/** A C-style quoted path for fast-import (octal escapes for every byte outside printable ASCII). */
function quoted(p: string): string {
  let out = '"';
  for (const b of pathBytes(p)) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

const big = (rng: Rng, bytes: number): string => {
  const chunk = lines(rng, 200);
  return chunk.repeat(Math.ceil(bytes / chunk.length));
};

const bomb = (): string => `${'a'.repeat(30_000)}\ntoken=${'a'.repeat(8_000)}!\n${'ab'.repeat(5000)}\n`;

/** The hidden files an option contributes at the start of history (links and pairings are placed by the builder). */
function hiddenFiles(option: HiddenOption, rng: Rng): Record<string, Entry> {
  switch (option) {
    case 'outside':
      return {
        'secret/key.txt': lines(rng, 3),
        'secret/dir/notes.md': lines(rng, 5),
        'lib/internal.ts': lines(rng, 8),
        'README.md': lines(rng, 4),
        'app2/x.ts': lines(rng, 2),
      };
    case 'privacy':
      return {
        'app/.env': `API_TOKEN=${rng.int(1e6, 9e6)}\n${lines(rng, 4)}`,
        'app/config/secrets.yml': lines(rng, 3),
        'app/keys/id_rsa': lines(rng, 2),
        'docs/.envrc': lines(rng, 2),
        'app/db/local.sqlite': lines(rng, 2),
        'docs/Prod.DB': lines(rng, 2),
      };
    case 'privacy-gap':
      return {
        'app/credentials.csv': lines(rng, 2),
        'app/.aws/sso/cache/x.json': lines(rng, 2),
        'app/app.sqlite.bak': lines(rng, 2),
      };
    case 'write-only':
      return { 'out/report.txt': lines(rng, 4), 'out/deep/y.txt': lines(rng, 2) };
    case 'link-targets':
      return { 'secret/key.txt': lines(rng, 2), 'secret/dir/inner.txt': lines(rng, 2), 'app/.env': lines(rng, 2) };
    case 'large':
      return { 'secret/big.log': big(rng, 1_200_000), 'app/.env.big': big(rng, 1_100_000) };
    case 'non-utf8':
      return {
        'secret/%ff%fe.txt': lines(rng, 2),
        'app/%ff.env': lines(rng, 2),
        'app/%c3%28.pem': lines(rng, 2),
        'secret/%fe/x.txt': lines(rng, 2),
      };
    case 'bomb':
      return { 'app/.env.bomb': bomb(), 'secret/bomb.txt': bomb() };
    case 'extra-link':
    case 'hidden-commits':
    case 'hidden-branch':
    case 'rename-in':
    case 'copy-in':
    case 'rename-out':
      return {};
    default: {
      const never: never = option;
      throw new Error(`hiddenFiles: ${String(never)}`);
    }
  }
}

const applyChanges = (tree: Tree, changes: Readonly<Record<string, PlanFile>>): Tree => {
  const next = new Map(tree);
  for (const [p, f] of Object.entries(changes)) {
    if (f === null) next.delete(p);
    else next.set(p, f);
  }
  return next;
};

/** The visible tree after each visible commit, by label. */
export function visibleTrees(plan: Plan): Map<string, Tree> {
  const out = new Map<string, Tree>();
  let main: Tree = new Map();
  let feature: Tree | undefined;
  for (const c of plan.visible) {
    if (c.branch === 'main') {
      main = applyChanges(main, c.changes);
      if (c.label === 'c1' && plan.links) main = applyChanges(main, PLAN_LINKS);
      out.set(c.label, main);
    } else {
      feature = applyChanges(feature ?? out.get(plan.featureFrom ?? 'c1') ?? new Map(), c.changes);
      out.set(c.label, feature);
    }
  }
  return out;
}

/** Changes one hidden text file (a large one wholesale: a large hidden diff), or adds a log file when there is none. */
function mutateHidden(hidden: Tree, rng: Rng, n: number): Tree {
  const next = new Map(hidden);
  const texts = [...hidden.entries()].filter(([p, e]) => typeof e === 'string' && !p.startsWith('app/h'));
  if (texts.length === 0 || rng.chance(0.3)) {
    next.set(`secret/log-${n}.txt`, lines(rng, 3));
    return next;
  }
  const [p, e] = rng.pick(texts);
  next.set(p, typeof e === 'string' && e.length > 500_000 ? big(rng, e.length + 1000) : lines(rng, rng.int(1, 8)));
  return next;
}

const merged = (visible: Tree, hidden: Tree): Tree => new Map([...hidden, ...visible]);

/** The visible commits where cross-boundary pairings are placed: the first main add after c1, the first main delete. */
export function pairingPoints(plan: Plan): { addAt: VisibleCommit | undefined; delAt: VisibleCommit | undefined } {
  const mains = plan.visible.filter((c) => c.branch === 'main');
  return {
    addAt: mains.find((c) => c.label !== 'c1' && Object.values(c.changes).some((f) => typeof f === 'string')),
    delAt: mains.find((c) => Object.values(c.changes).some((f) => f === null)),
  };
}

/** The commits of one twin, in stream order (main, feature, hidden branch). */
function commitsOf(
  plan: Plan,
  twin: TwinHidden,
): { commits: CommitOut[]; labels: Map<number, string>; hiddenOnly: number[]; hiddenBranch: number[] } {
  const rng = new Rng(twin.seed);
  const has = (o: HiddenOption): boolean => twin.options.includes(o);
  const trees = visibleTrees(plan);
  let hidden: Tree = new Map();
  for (const o of twin.options)
    for (const [p, e] of Object.entries(hiddenFiles(o, rng.fork(o.length)))) hidden.set(p, e);
  if (twin.canary) hidden.set('app/canary.ts', 'canary\n');

  const commits: CommitOut[] = [];
  const labels = new Map<number, string>();
  const hiddenOnly: number[] = [];
  const hiddenBranch: number[] = [];
  const markOf = new Map<string, number>();
  let mark = 0;
  let n = 0;
  const push = (c: Omit<CommitOut, 'mark'>): number => {
    commits.push({ ...c, mark: ++mark });
    return mark;
  };
  const hiddenRun = (branch: string, parent: number | undefined, visible: Tree, epoch: number): number | undefined => {
    let p = parent;
    const count = has('hidden-commits') ? rng.int(0, 2) : 0;
    for (let i = 0; i < count; i++) {
      hidden = mutateHidden(hidden, rng, ++n);
      p = push({
        branch,
        parent: p,
        author: HIDDEN_AUTHOR,
        epoch: epoch + 60 * (i + 1),
        message: `hidden ${n}\n`,
        tree: merged(visible, hidden),
      });
      hiddenOnly.push(p);
    }
    return p;
  };

  // Cross-boundary pairings target the first main commit after c1 that adds (rename-in, copy-in) or deletes (rename-out).
  const mains = plan.visible.filter((c) => c.branch === 'main');
  const { addAt, delAt } = pairingPoints(plan);
  const added = addAt
    ? Object.entries(addAt.changes).find(([p, f]) => typeof f === 'string' && p.startsWith('app/gen/'))
    : undefined;

  let parent: number | undefined = hiddenRun('main', undefined, new Map(), BASE_EPOCH - HOUR);
  let slot = 0;
  for (const c of plan.visible) {
    slot += 1;
    const epoch = BASE_EPOCH + slot * HOUR;
    const branch = c.branch;
    if (branch === 'feature' && !markOf.has('feature')) {
      parent = markOf.get(plan.featureFrom ?? 'c1');
      markOf.set('feature', 0);
    }
    if (c.label === 'c1' && has('extra-link')) for (const [p, e] of Object.entries(EXTRA_LINKS)) hidden.set(p, e);
    if (added && addAt && (has('rename-in') || has('copy-in'))) {
      const [addPath, addText] = added as [string, string];
      const src = `secret/was-${basename(addPath)}`;
      // Before the add: the hidden source exists (similar: the same text but one line; dissimilar: unrelated text).
      if (c.label === 'c1') hidden.set(src, twin.similar ? `${addText}extra line\n` : lines(rng, 6));
      if (c.label === addAt.label && has('rename-in') && !has('copy-in')) hidden.delete(src);
    }
    if (delAt && c.label === delAt.label && has('rename-out')) {
      const before = trees.get(mains[mains.indexOf(delAt) - 1]?.label ?? '') ?? new Map<string, Entry>();
      for (const [p, f] of Object.entries(delAt.changes)) {
        const old = before.get(p);
        if (f === null && typeof old === 'string')
          hidden.set(`secret/moved/${basename(p)}`, twin.similar ? old : lines(rng, 4));
      }
    }
    const visible = trees.get(c.label) ?? new Map<string, Entry>();
    if (has('large') && c.label !== 'c1') hidden = mutateHiddenLarge(hidden, rng);
    const m = push({ branch, parent, author: c.author, epoch, message: c.message, tree: merged(visible, hidden) });
    labels.set(m, c.label);
    markOf.set(c.label, m);
    parent = hiddenRun(branch, m, visible, epoch) ?? m;
  }

  if (has('hidden-branch')) {
    const from = rng.pick(mains).label;
    let p = markOf.get(from);
    const base = trees.get(from) ?? new Map<string, Entry>();
    const epoch = BASE_EPOCH + (mains.indexOf(mains.find((c) => c.label === from) ?? mains[0]!) + 1) * HOUR + 1800;
    const v1 = applyChanges(base, { 'app/main.ts': lines(rng, 4), 'app/wip.ts': lines(rng, 3) });
    hidden = mutateHidden(hidden, rng, ++n);
    p = push({
      branch: HIDDEN_BRANCH,
      parent: p,
      author: HIDDEN_AUTHOR,
      epoch,
      message: 'wip: visible paths on a hidden branch\n',
      tree: merged(v1, hidden),
    });
    hiddenBranch.push(p);
    hidden = mutateHidden(hidden, rng, ++n);
    p = push({
      branch: HIDDEN_BRANCH,
      parent: p,
      author: HIDDEN_AUTHOR,
      epoch: epoch + 60,
      message: 'wip: hidden only\n',
      tree: merged(v1, hidden),
    });
    hiddenBranch.push(p);
  }
  return { commits, labels, hiddenOnly, hiddenBranch };
}

/** Rewrites the large hidden files between visible commits (diffs past every cap). */
function mutateHiddenLarge(hidden: Tree, rng: Rng): Tree {
  const next = new Map(hidden);
  for (const [p, e] of hidden) if (typeof e === 'string' && e.length > 500_000) next.set(p, big(rng, e.length + 17));
  return next;
}

function stream(commits: readonly CommitOut[]): Buffer {
  const parts: Buffer[] = [];
  const put = (s: string | Buffer): void => {
    parts.push(typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
  };
  const data = (b: Buffer): void => {
    put(`data ${b.length}\n`);
    put(b);
    put('\n');
  };
  for (const c of commits) {
    put(`commit refs/heads/${c.branch}\nmark :${c.mark}\n`);
    put(`author ${c.author} ${c.epoch} +0000\ncommitter ${COMMITTER} ${c.epoch} +0000\n`);
    data(Buffer.from(c.message, 'utf8'));
    if (c.parent !== undefined) put(`from :${c.parent}\n`);
    put('deleteall\n');
    for (const [p, e] of [...c.tree.entries()].sort(([x], [y]) => (x < y ? -1 : 1))) {
      const link = typeof e !== 'string';
      put(`M ${link ? '120000' : '100644'} inline ${quoted(p)}\n`);
      data(Buffer.from(link ? e.symlink : e, 'utf8'));
    }
  }
  put('done\n');
  return Buffer.concat(parts);
}

async function fastImport(dir: string, input: Buffer, marks: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet', '--done', `--export-marks=${marks}`], {
      cwd: dir,
      env: { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import failed (${code}): ${err}`)),
    );
    child.stdin.end(input);
  });
}

/** Writes twin `which` of `plan` as a bare repository under `root`. */
export async function materialise(plan: Plan, which: 'a' | 'b', root: string): Promise<TwinRepo> {
  const dir = join(root, which, 'repo.git');
  await mkdir(dir, { recursive: true });
  await gitIn(dir, ['init', '-q', '--bare', '-b', 'main']);
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['core.autocrlf', 'false'],
  ] as const)
    await gitIn(dir, ['config', k, v]);
  const { commits, labels, hiddenOnly, hiddenBranch } = commitsOf(plan, plan[which]);
  const marksFile = join(root, `${which}.marks`);
  await fastImport(dir, stream(commits), marksFile);
  const ids = new Map<number, string>();
  for (const line of (await readFile(marksFile, 'utf8')).split('\n')) {
    const m = /^:(\d+) ([0-9a-f]{40})$/.exec(line);
    if (m) ids.set(Number(m[1]), m[2] as string);
  }
  const id = (mark: number): string => {
    const v = ids.get(mark);
    if (!v) throw new Error(`materialise: no id for mark ${mark}`);
    return v;
  };
  return {
    dir,
    labels: new Map([...labels].map(([mark, label]) => [label, id(mark)])),
    hiddenOnly: hiddenOnly.map(id),
    hiddenBranch: hiddenBranch.map(id),
  };
}
