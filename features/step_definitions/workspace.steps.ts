// Issue 13: the workspace tools at a perimeter, on real linked worktrees of the scenario's repository.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Given, Then } from '@cucumber/cucumber';
import { gitIn } from '../../test/support/gitdir.js';
import type { BlinderWorld } from '../support/world.js';

const WS_TOOLS = [
  'workspace_brief',
  'workspace_status',
  'workspace_diff',
  'conflict_preflight',
  'conflict_read',
  'submodule_status',
  'scope_summary',
  'integrity_check',
];

/** Where `git-blinder worktree add` put a branch by default: beside the repository. */
async function treeOf(w: BlinderWorld, branch: string): Promise<string> {
  assert.ok(w.repo);
  const out = await gitIn(w.repo.dir, ['worktree', 'list', '--porcelain']);
  const block = out.split('\n\n').find((b) => b.includes(`branch refs/heads/${branch}`));
  const line = block?.split('\n').find((l) => l.startsWith('worktree '));
  assert.ok(line, `no worktree for ${branch}:\n${out}`);
  return line.slice('worktree '.length);
}

Given(
  'the worktree of {string} has local changes in and out of the window',
  async function (this: BlinderWorld, branch: string) {
    const tree = await treeOf(this, branch);
    const put = async (p: string, text: string) => {
      await mkdir(join(tree, p, '..'), { recursive: true });
      await writeFile(join(tree, p), text);
    };
    await put('infra/aws/main.tf', 'resource "aws_s3_bucket" "logs" { versioning = false }\n');
    await put('secrets/prod.env', 'DB_PASSWORD=hunter3\n');
    await gitIn(tree, ['add', 'secrets/prod.env']);
    await put('apps/landing/index.html', '<h1>edited out of the window</h1>\n');
    await put('infra/aws/new.tf', 'resource "x" "y" {}\n');
    await put('infra/.env', 'TOKEN=hunter4\n');
    // A rename across the boundary: README.md (hidden for infra) becomes infra/gcp/moved.tf.
    await gitIn(tree, ['mv', 'README.md', 'infra/gcp/moved.tf']);
  },
);

const call = async (w: BlinderWorld, name: string, tool: string, args: Record<string, unknown> = {}) => {
  const a = await w.agent(name).call(tool, args);
  const all = (w.memo.get(`ws:${name}`) as string[] | undefined) ?? [];
  all.push(`${a.text}\n${JSON.stringify(a.raw)}`);
  w.memo.set(`ws:${name}`, all);
  return a;
};

Then('agent {word} lists the workspace tools', async function (this: BlinderWorld, name: string) {
  const tools = await this.agent(name).tools();
  for (const t of WS_TOOLS) assert.ok(tools.includes(t), `${t} missing from ${tools.join(', ')}`);
});

Then(
  "agent {word}'s workspace status lists only {string}",
  async function (this: BlinderWorld, name: string, expected: string) {
    const a = await call(this, name, 'workspace_status');
    assert.ok(!a.isError, a.text);
    const s = a.structured as {
      staged: { path: string }[];
      unstaged: { path: string }[];
      untracked: string[];
      conflicted: { path: string }[];
    };
    const paths = [
      ...new Set([
        ...s.staged.map((e) => e.path),
        ...s.unstaged.map((e) => e.path),
        ...s.untracked,
        ...s.conflicted.map((e) => e.path),
      ]),
    ].sort();
    assert.deepEqual(
      paths,
      expected
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .sort(),
    );
  },
);

Then(
  "agent {word}'s workspace answers never mention {string}",
  async function (this: BlinderWorld, name: string, words: string) {
    for (const tool of WS_TOOLS.filter((t) => t !== 'conflict_preflight' && t !== 'conflict_read'))
      await call(this, name, tool);
    await call(this, name, 'workspace_diff', { staged: true });
    const disk = await call(this, name, 'get_files', {
      paths: ['infra/aws/main.tf', 'infra/aws/new.tf'],
      source: 'worktree',
    });
    assert.equal((disk.structured as { found: number }).found, 2, disk.text);
    const seen = ((this.memo.get(`ws:${name}`) as string[] | undefined) ?? []).join('\n');
    for (const w of words.split(',').map((x) => x.trim())) assert.ok(!seen.includes(w), `an answer mentions ${w}`);
  },
);

Then(
  "agent {word}'s workspace diff narrowed to {string} answers like one narrowed to {string}",
  async function (this: BlinderWorld, name: string, hidden: string, missing: string) {
    const a = await call(this, name, 'workspace_diff', { path: hidden });
    const b = await call(this, name, 'workspace_diff', { path: missing });
    assert.equal(JSON.stringify(a.structured), JSON.stringify(b.structured));
    assert.equal(a.text.split(hidden).join('P'), b.text.split(missing).join('P'));
  },
);
