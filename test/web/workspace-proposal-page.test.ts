// The approval page for workspace proposals: a patch is the agent's text, cut per file and escaped line by line; other
// operations list the preview's paths. Rendered from a stored proposal with hostile content; the HTML must stay inert.
import { describe, expect, it } from 'vitest';
import { ProposalChange, type Proposal } from '../../src/core/index.js';
import { patchDiffs, previewDiffs } from '../../src/http/web/patchdiffs.js';
import { diffOf } from '../../src/http/web/filediffs.js';
import { proposalPage } from '../../src/http/web/pages/proposal.js';
import { riskFlags } from '../../src/http/web/risk.js';

const at = '2026-12-02T00:00:00.000Z';
const proposal = (change: ProposalChange, paths: string[]): Proposal => ({
  id: 'p' + 'a'.repeat(24),
  perimeter: 'app',
  repo: '/r',
  branch: 'work',
  base: 'b'.repeat(40),
  agent: 'test',
  agent_reason: 'because <b>',
  hash: 'sha256:' + '0'.repeat(64),
  summary: 'patch on work',
  facts: { paths, protected_paths: [] },
  change: ProposalChange.parse(change),
  created_at: at,
  updated_at: at,
  expires_at: at,
  status: 'pending',
});

describe('workspace proposal page', () => {
  it('shows a hostile patch escaped, per file, with its diffstat', () => {
    const patch =
      'diff --git a/app/<script>.ts b/app/<script>.ts\n--- a/app/<script>.ts\n+++ b/app/<script>.ts\n@@ -1 +1,2 @@\n-old\n+<script>alert(1)</script>\n+\u202Eevil\n';
    const p = proposal({ kind: 'patch', patch, fingerprint: 'f' }, ['app/<script>.ts']);
    const files = patchDiffs(patch, p.facts.paths);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ path: 'app/<script>.ts', added: 2, removed: 1 });
    const html = proposalPage({ proposal: p, files, all: [p], csrf: 'c', now: Date.parse(at) }).toString();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('⟨U+202E⟩');
  });

  it('lists the paths of other operations and flags a hard reset', () => {
    const p = proposal({ kind: 'reset', mode: 'hard', to: 'c'.repeat(40), fingerprint: 'f' }, ['app/a.ts', 'app/b.ts']);
    const html = proposalPage({
      proposal: p,
      files: previewDiffs(p.facts.paths),
      all: [p],
      csrf: 'c',
      now: Date.parse(at),
    }).toString();
    expect(html).toContain('app/a.ts');
    expect(html).toContain('reset --hard to ' + 'c'.repeat(40));
    expect(riskFlags(p, [p]).map((f) => f.label)).toContain('hard reset');
  });

  it('a delete of a path the base does not have is a no-op, never an added file', () => {
    expect(diffOf('gone.txt', { kind: 'absent' }, { kind: 'absent' }, [], false)).toMatchObject({
      change: 'no-op delete',
      added: 0,
      removed: 0,
    });
  });
});
