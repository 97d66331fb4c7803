// The write-port operation of a proposed workspace step: shared by the propose_* tools (to preview it) and by the
// applier (to run it), so what was judged and what runs are built by the same code.
import type { WorkspaceStep } from '../core/index.js';
import type { Identity, WriteOp } from '../workspace/writes.js';

/**
 * The author workspace commits had before agent ids (issue 23). A proposal made then was fingerprinted with it, so
 * approving one checks its fingerprint with this author (and commits with the anonymous agent's).
 */
export const LEGACY_WORKSPACE_AUTHOR: Identity = { name: 'git-blinder agent', email: 'agent@git-blinder.invalid' };

/**
 * The write-port operation of one step. A commit is authored by `author` (the agent's one author form, see
 * core/agents.ts; the committer is git-blinder) with the message `message` makes.
 */
export function writeOpOf(
  s: WorkspaceStep,
  id: string,
  message: (m: string, id: string) => string,
  author: Identity,
): WriteOp {
  switch (s.kind) {
    case 'commit':
      return { kind: 'commit', message: message(s.message, id), paths: s.paths, author };
    case 'patch':
      return { kind: 'patch', patch: new TextEncoder().encode(s.patch) };
    case 'discard':
      return { kind: 'discard', paths: s.paths };
    case 'merge':
      return { kind: 'merge', from: s.from };
    case 'rebase':
      return { kind: 'rebase', onto: s.onto };
    case 'reset':
      return { kind: 'reset', mode: s.mode, to: s.to };
    case 'branch':
      return { kind: 'branch', name: s.name, from: s.from };
    case 'push':
      return { kind: 'push' };
    default: {
      const never: never = s;
      throw new Error(`unexpected workspace step ${JSON.stringify(never)}`);
    }
  }
}
