// The one perimeter change a proposal makes: an approved propose_branch adds its new branch to the allowlist.
import type { PerimeterStore } from '../state/types.js';

/** Adds a branch an approved propose_branch created to the perimeter's allowlist (atomically, on the store). */
export function allowBranchIn(perimeters: PerimeterStore) {
  return async (id: string, branch: string): Promise<void> => {
    const r = await perimeters.modify<true, 'not_found'>((draft) => {
      const p = draft.get(id);
      if (p === undefined) return { ok: false, code: 'not_found', message: `No perimeter "${id}".` };
      if (!p.branches.includes(branch)) draft.set(id, { ...p, branches: [...p.branches, branch] });
      return { ok: true, value: true };
    });
    if (!r.ok) throw new Error(r.message);
  };
}
