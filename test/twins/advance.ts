// History moving on while the agent holds a cursor: one commit added to a twin's branch on top of whatever it holds
// now (pushes included), with fixed author and dates, written with git plumbing so hidden paths stay bytes.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gitIn } from '../support/gitdir.js';
import { lines, type HiddenOption, type Plan, type PlanFile, type TwinHidden } from './generate.js';
import { BASE_EPOCH, HOUR, pathBytes } from './materialise.js';
import { Rng } from './rng.js';

/** Runs git with `input` on stdin (bytes: paths that are not UTF-8); returns stdout. */
function gitStdin(dir: string, args: string[], input: Buffer, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: dir,
      env: { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`git ${args[0]} failed (${code}): ${err}`)),
    );
    child.stdin.end(input);
  });
}

/** The hidden side of late commit `n` for a twin: what its options change while the agent holds a cursor. */
export function lateHidden(twin: TwinHidden, n: number): Record<string, PlanFile> {
  const rng = new Rng(twin.seed + 7919 * n);
  const has = (o: HiddenOption): boolean => twin.options.includes(o);
  const out: Record<string, PlanFile> = {};
  if (has('outside')) out['secret/key.txt'] = lines(rng, 2);
  if (has('privacy')) out['app/.env'] = `API_TOKEN=${rng.int(1e6, 9e6)}\n`;
  if (has('privacy-gap')) out[`app/credentials.csv`] = lines(rng, 2);
  if (has('write-only')) out[`out/late-${n}.txt`] = lines(rng, 2);
  if (has('extra-link')) out[`app/hl-late${n}`] = { symlink: '../secret/key.txt' };
  if (has('non-utf8')) out[`secret/late%ff${n}.txt`] = lines(rng, 1);
  if (has('link-targets')) out['secret/dir/inner.txt'] = lines(rng, 2);
  return out;
}

/** The visible side of late commit `n` (the same in both twins). */
export function lateVisible(plan: Plan, n: number): Record<string, PlanFile> {
  const rng = new Rng(plan.callSeed + 104_729 * n);
  return { [`app/late/l${n}.ts`]: lines(rng, 3), 'docs/guide.md': lines(rng, 4) };
}

/**
 * Moves `branch` on by one commit made of `changes` (on top of whatever the branch holds now, pushes included), with
 * a fixed author and date: history moving on while the agent holds a cursor. Returns the new commit id.
 */
export async function advance(
  dir: string,
  branch: string,
  changes: Readonly<Record<string, PlanFile>>,
  meta: { author: string; epoch: number; message: string },
): Promise<string> {
  const index = join(dir, 'twins-advance.index');
  const env = { GIT_INDEX_FILE: index };
  const parent = (await gitIn(dir, ['rev-parse', `refs/heads/${branch}`])).trim();
  await gitIn(dir, ['read-tree', parent], env);
  const records: Buffer[] = [];
  for (const [p, f] of Object.entries(changes)) {
    if (f === null) {
      records.push(Buffer.from(`0 ${'0'.repeat(40)}\t`), pathBytes(p), Buffer.from([0]));
      continue;
    }
    const link = typeof f !== 'string';
    const sha = (
      await gitStdin(dir, ['hash-object', '-w', '--stdin'], Buffer.from(link ? f.symlink : f, 'utf8'))
    ).trim();
    records.push(Buffer.from(`${link ? '120000' : '100644'} ${sha}\t`), pathBytes(p), Buffer.from([0]));
  }
  await gitStdin(dir, ['update-index', '-z', '--index-info'], Buffer.concat(records), env);
  const tree = (await gitIn(dir, ['write-tree'], env)).trim();
  const [, name, email] = /^(.*) <(.*)>$/.exec(meta.author) ?? ['', 'Late Author', 'late@example.test'];
  const date = `${meta.epoch} +0000`;
  const commit = (
    await gitStdin(dir, ['commit-tree', tree, '-p', parent], Buffer.from(meta.message, 'utf8'), {
      GIT_AUTHOR_NAME: name ?? '',
      GIT_AUTHOR_EMAIL: email ?? '',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: 'Twin Committer',
      GIT_COMMITTER_EMAIL: 'committer@example.test',
      GIT_COMMITTER_DATE: date,
    })
  ).trim();
  await gitIn(dir, ['update-ref', `refs/heads/${branch}`, commit, parent]);
  return commit;
}

/** The epoch of late commit `n` (after every planned commit). */
export const lateEpoch = (n: number): number => BASE_EPOCH + 100 * HOUR + n * HOUR;
