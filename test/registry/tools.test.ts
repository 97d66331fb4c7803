// Invariants over the whole tool table, and the published schemas under review (__toolsnaps__).
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { AGENT_CATALOGUE, ALL_TOOLS } from '../../src/registry/index.js';

// Names as they were listed in core/binding.ts before exposure moved onto the tools (issue 22).
const ROOT_ONLY_TOOLS = ['list_branches', 'compare'];
const WORKSPACE_PROPOSE_TOOLS = [
  'propose_commit',
  'propose_patch',
  'propose_discard',
  'propose_merge',
  'propose_rebase',
  'propose_reset',
  'propose_branch',
  'propose_push',
  'propose_plan',
];

describe('every tool', () => {
  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))('%s declares everything the policy needs', (_name, tool) => {
    expect(tool.description.length).toBeGreaterThan(20);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof tool.annotations[hint]).toBe('boolean');
    }
    expect(tool.annotations.readOnlyHint).toBe(tool.access === 'read');
    expect(tool.annotations.openWorldHint).toBe(false);
    expect(typeof tool.paths).toBe('function');
    expect(typeof tool.filter).toBe('function');
    expect(typeof tool.notFound).toBe('function');
    expect(typeof tool.render).toBe('function');
    expect(['all', 'each']).toContain(tool.pathMode);
  });

  it('keeps ref discovery off the agent catalogue', () => {
    for (const name of ROOT_ONLY_TOOLS) {
      expect(AGENT_CATALOGUE).not.toContain(name);
      expect(ALL_TOOLS.find((t) => t.name === name)?.surfaces).toEqual(['root']);
    }
    expect(AGENT_CATALOGUE).toEqual([
      'get_tree',
      'get_file',
      'get_files',
      'search_code',
      'changes_since',
      'push_files',
      'edit_file',
      'edit_files',
      'proposal_status',
      'proposal_cancel',
      'list_commits',
      'get_commit',
      'workspace_brief',
      'workspace_status',
      'workspace_diff',
      'conflict_preflight',
      'conflict_read',
      'submodule_status',
      'scope_summary',
      'integrity_check',
      'propose_commit',
      'propose_patch',
      'propose_discard',
      'propose_merge',
      'propose_rebase',
      'propose_reset',
      'propose_branch',
      'propose_push',
      'propose_plan',
      'activity',
      'lease_acquire',
      'lease_release',
      'create_pull_request',
      'list_pull_requests',
      'get_pull_request',
      'get_pull_request_files',
      'list_pull_request_comments',
      'get_pull_request_status',
    ]);
  });

  it('never lets an agent name a repository, ref or branch', () => {
    for (const tool of ALL_TOOLS.filter((t) => t.surfaces.includes('agent'))) {
      const schema = z.toJSONSchema(tool.agentInput) as {
        properties?: Record<string, unknown>;
        additionalProperties?: unknown;
      };
      for (const key of ['repo', 'ref', 'branch', 'owner', 'sha_ref'])
        expect(Object.keys(schema.properties ?? {})).not.toContain(key);
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it('extracts every path argument, so decide judges them all', () => {
    const paths = (name: string, args: unknown) =>
      ALL_TOOLS.find((t) => t.name === name)!
        .paths(args)
        .map((p) => `${p.role}:${String(p.path)}`);
    expect(paths('get_file', { path: 'a' })).toEqual(['file:a']);
    expect(paths('get_files', { paths: ['a', 'b'] })).toEqual(['file:a', 'file:b']);
    expect(paths('get_tree', {})).toEqual(['dir:']);
    expect(paths('search_code', { query: 'q', path: 'infra' })).toEqual(['dir:infra']);
    expect(paths('search_code', { query: 'q' })).toEqual(['dir:']);
    expect(paths('changes_since', { cursor: 'x' })).toEqual([]);
    expect(paths('list_commits', { path: 'd' })).toEqual(['dir:d']);
    expect(paths('push_files', { message: 'm', files: [{ path: 'w', content: '' }], delete: ['x'] })).toEqual([
      'write:w',
      'write:x',
    ]);
    expect(paths('workspace_diff', { path: 'd' })).toEqual(['dir:d']);
    expect(paths('workspace_diff', {})).toEqual([]);
    expect(paths('conflict_read', { path: 'c' })).toEqual(['file:c']);
    expect(paths('scope_summary', {})).toEqual(['dir:']);
    expect(paths('scope_summary', { path: 's' })).toEqual(['dir:s']);
    for (const t of [
      'workspace_brief',
      'workspace_status',
      'conflict_preflight',
      'submodule_status',
      'integrity_check',
    ])
      expect(paths(t, { with: 'main' })).toEqual([]);
  });

  it('lists the workspace tools only on bindings whose branch is checked out', () => {
    const ws = ALL_TOOLS.filter((t) => t.requires === 'worktree').map((t) => t.name);
    expect(ws).toHaveLength(17);
    // The readers are read-only; the propose_* tools write nothing themselves (a person approves), but are not hints of reads.
    for (const t of ALL_TOOLS.filter((x) => x.requires === 'worktree'))
      expect(t.annotations.readOnlyHint).toBe(!t.name.startsWith('propose_'));
    expect(ws.filter((n) => n.startsWith('propose_')).sort()).toEqual([...WORKSPACE_PROPOSE_TOOLS].sort());
  });
});

describe('published schemas', () => {
  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))('%s matches its reviewed snapshot', async (name, tool) => {
    const published = {
      name,
      description: tool.description,
      annotations: tool.annotations,
      // What tools/list shows (compact, src/registry/publish.ts), not zod's full conversion.
      agentInput: tool.surfaces.includes('agent') ? tool.published.agentInput['~standard'].jsonSchema.input() : null,
      rootInput: tool.published.rootInput['~standard'].jsonSchema.input(),
      ...(tool.published.worktreeInput
        ? { worktreeInput: tool.published.worktreeInput['~standard'].jsonSchema.input() }
        : {}),
      output: tool.published.output['~standard'].jsonSchema.output(),
    };
    await expect(JSON.stringify(published, null, 2) + '\n').toMatchFileSnapshot(`__toolsnaps__/${name}.json`);
  });
});
