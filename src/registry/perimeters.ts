import {
  agentOf,
  describeIssues,
  materialize,
  PerimeterSpec,
  pullBases,
  pullsProblem,
  type AgentKey,
  validateBranchName,
  type Perimeter,
  type PerimeterOrigin,
  type Result,
} from '../core/index.js';
import type { UpstreamFor } from '../upstream/types.js';
import { ALL_TOOLS } from './index.js';
import type { PerimeterStore } from '../state/types.js';

/** Why an operator change was refused; the HTTP layer maps each to one status code. */
export type ChangeError = 'invalid' | 'not_found' | 'exists' | 'conflict' | 'upstream';

export interface PerimeterService {
  /**
   * `dryRun` runs every check (schema, tools, upstream, branches) and writes nothing: `serve` checks its whole boot
   * config before it binds. `origin` is recorded on the perimeter (default `runtime`: made through `/api`).
   */
  create(
    input: unknown,
    opts?: { replace?: boolean; dryRun?: boolean; origin?: PerimeterOrigin },
  ): Promise<Result<Perimeter, ChangeError>>;
  remove(id: string): Promise<Result<true, ChangeError>>;
  /**
   * Removes, in one change, every perimeter that came from the config and is not in `declared` (the ids the config
   * declares now), with its keys; runtime perimeters are kept. Returns what was removed.
   */
  pruneConfig(declared: readonly string[]): Promise<Result<readonly Perimeter[], ChangeError>>;
  addBranch(id: string, branch: unknown): Promise<Result<Perimeter, ChangeError>>;
  removeBranch(id: string, branch: string): Promise<Result<Perimeter, ChangeError>>;
  /**
   * Stores an agent key's hash (the key itself is never stored); refused when another key of the perimeter already
   * stands for the same agent (agent ids are unique within a perimeter).
   */
  addKey(id: string, key: AgentKey): Promise<Result<Perimeter, ChangeError>>;
  /** Revokes one key, named by its key id or by its agent id; answers the key revoked. */
  revokeKey(id: string, keyOrAgent: string): Promise<Result<{ perimeter: Perimeter; key: AgentKey }, ChangeError>>;
}

const err = (code: ChangeError, message: string) => ({ ok: false as const, code, message });

/** Operator changes to perimeters: validated, checked against the upstream, then persisted. */
export function perimeterService(store: PerimeterStore, upstreamFor: UpstreamFor): PerimeterService {
  const known = new Set(ALL_TOOLS.map((t) => t.name));
  /** One perimeter changed from its current value, read and written under the store's write queue. */
  const edit = (id: string, change: (p: Perimeter) => Result<Perimeter, ChangeError>) =>
    store.modify<Perimeter, ChangeError>((draft) => {
      const p = draft.get(id);
      if (!p) return err('not_found', `No perimeter "${id}".`);
      const next = change(p);
      if (next.ok) draft.set(id, next.value);
      return next;
    });
  return {
    async create(input, opts = {}) {
      const parsed = PerimeterSpec.safeParse(input);
      if (!parsed.success) return err('invalid', describeIssues(parsed.error));
      const spec = parsed.data;
      const unknownTools = (spec.tools ?? []).filter((t) => !known.has(t));
      if (unknownTools.length > 0)
        return err(
          'invalid',
          `tools: unknown tool(s) ${unknownTools.join(', ')}. Run "git-blinder tools" for the list.`,
        );
      const existing = store.get(spec.id);
      if (existing && !opts.replace)
        return err('exists', `Perimeter "${spec.id}" already exists. Delete it first or choose another id.`);
      const upstream = upstreamFor(spec.repo);
      if (!upstream)
        return err(
          'invalid',
          `repo: "${spec.repo}" is neither a local repository path nor served by a GitHub token on this server.`,
        );
      const def = await upstream.defaultBranch(spec.repo);
      if (!def.ok) {
        return def.error.code === 'not_found'
          ? err('invalid', `repo: repository "${spec.repo}" was not found (or this server's credential cannot see it).`)
          : err('upstream', `repo: ${def.error.message}`);
      }
      for (const b of spec.branches ?? []) {
        if (b === def.value) continue;
        const head = await upstream.branchHead(spec.repo, b);
        if (!head.ok)
          return err(
            head.error.code === 'not_found' ? 'invalid' : 'upstream',
            `branches: branch "${b}" does not exist in ${spec.repo}; create it first.`,
          );
      }
      const build = (current: Perimeter | undefined): Result<Perimeter, ChangeError> => {
        if (current && !opts.replace)
          return err('exists', `Perimeter "${spec.id}" already exists. Delete it first or choose another id.`);
        // Keep allowlist additions and agent keys made at runtime when a boot config re-declares a perimeter.
        const same = current !== undefined && current.repo === spec.repo;
        const kept = same ? current.branches : [];
        const perimeter = materialize({ ...spec, branches: [...(spec.branches ?? []), ...kept] }, def.value);
        if (same && current.keys) perimeter.keys = current.keys;
        perimeter.origin = opts.origin ?? 'runtime';
        const pulls = pullsProblem(perimeter);
        if (pulls !== undefined) return err('invalid', pulls);
        return { ok: true, value: perimeter };
      };
      if (opts.dryRun) return build(store.get(spec.id));
      // Re-read under the store's write queue: the upstream checks above awaited, and another change (a key issued,
      // a branch added, the same id created) may have landed meanwhile.
      return store.modify<Perimeter, ChangeError>((draft) => {
        const built = build(draft.get(spec.id));
        if (built.ok) draft.set(built.value.id, built.value);
        return built;
      });
    },

    async remove(id) {
      return store.modify<true, ChangeError>((draft) =>
        draft.delete(id) ? { ok: true, value: true } : err('not_found', `No perimeter "${id}".`),
      );
    },

    async pruneConfig(declared) {
      const keep = new Set(declared);
      const stale = (p: Perimeter) => p.origin === 'config' && !keep.has(p.id);
      // Nothing to prune (the usual start): no write, no revision bump for the other instances.
      if (!store.list().some(stale)) return { ok: true, value: [] };
      return store.modify<readonly Perimeter[], ChangeError>((draft) => {
        const gone = [...draft.values()].filter(stale);
        for (const p of gone) draft.delete(p.id);
        return { ok: true, value: gone };
      });
    },

    async addBranch(id, branch) {
      const p = store.get(id);
      if (!p) return err('not_found', `No perimeter "${id}".`);
      const name = validateBranchName(branch);
      if (!name.ok) return err('invalid', name.message);
      if (p.branches.includes(name.value)) return { ok: true, value: p };
      const upstream = upstreamFor(p.repo);
      if (!upstream) return err('upstream', `Repository "${p.repo}" is not served by this process any more.`);
      const head = await upstream.branchHead(p.repo, name.value);
      if (!head.ok) {
        return head.error.code === 'not_found'
          ? err('invalid', `Branch "${name.value}" does not exist in ${p.repo}. Create it there first, then add it.`)
          : err('upstream', head.error.message);
      }
      return store.modify<Perimeter, ChangeError>((draft) => {
        const now = draft.get(id);
        if (!now) return err('not_found', `No perimeter "${id}".`);
        // The branch was checked in p.repo; a perimeter re-pointed meanwhile must be checked again by the operator.
        if (now.repo !== p.repo)
          return err('conflict', `Perimeter "${id}" changed repository while the branch was checked; try again.`);
        if (now.branches.includes(name.value)) return { ok: true, value: now };
        const next: Perimeter = { ...now, branches: [...now.branches, name.value] };
        draft.set(id, next);
        return { ok: true, value: next };
      });
    },

    async removeBranch(id, branch) {
      return edit(id, (p) => {
        if (branch === p.default_branch)
          return err(
            'conflict',
            `"${branch}" is the default branch of ${id}; it cannot be removed from the allowlist.`,
          );
        if (!p.branches.includes(branch))
          return err('not_found', `Branch "${branch}" is not in the allowlist of ${id}.`);
        if (pullBases(p).includes(branch))
          return err('conflict', `"${branch}" is a pull-request base of ${id} (pulls); remove it from pulls first.`);
        return { ok: true, value: { ...p, branches: p.branches.filter((b) => b !== branch) } };
      });
    },

    async addKey(id, key) {
      return edit(id, (p) => {
        const agent = agentOf(key);
        if ((p.keys ?? []).some((k) => agentOf(k) === agent))
          return err(
            'exists',
            `Perimeter ${id} already has an agent "${agent}". Choose another name, or revoke that agent's key first.`,
          );
        return { ok: true, value: { ...p, keys: [...(p.keys ?? []), key] } };
      });
    },

    async revokeKey(id, keyOrAgent) {
      let revoked: AgentKey | undefined;
      const out = await edit(id, (p) => {
        revoked =
          (p.keys ?? []).find((k) => k.id === keyOrAgent) ?? (p.keys ?? []).find((k) => agentOf(k) === keyOrAgent);
        if (revoked === undefined) return err('not_found', `No key or agent "${keyOrAgent}" on perimeter ${id}.`);
        const gone = revoked;
        return { ok: true, value: { ...p, keys: (p.keys ?? []).filter((k) => k.id !== gone.id) } };
      });
      if (!out.ok) return out;
      if (revoked === undefined) throw new Error('a revocation succeeded without a key');
      return { ok: true, value: { perimeter: out.value, key: revoked } };
    },
  };
}
