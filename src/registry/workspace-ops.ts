// The write-port operation of a proposed workspace step: shared by the propose_* tools (to preview it) and by the
// applier (to run it), so what was judged and what runs are built by the same code.
import type { WorkspaceStep } from '../core/index.js';
import type { Identity, WriteOp } from '../workspace/writes.js';

/** The author of commits an approved workspace proposal makes (the committer is git-blinder). */
export const WORKSPACE_AUTHOR: Identity = { name: 'git-blinder agent', email: 'agent@git-blinder.invalid' };

/** The write-port operation of one step. */
export function writeOpOf(s: WorkspaceStep, id: string, message: (m: string, id: string) => string): WriteOp {
  switch (s.kind) {
    case 'commit':
      return { kind: 'commit', message: message(s.message, id), paths: s.paths, author: WORKSPACE_AUTHOR };
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
