import { bindAgent, ROOT_BINDING, type Binding, type ServerPolicy } from '../core/index.js';
import type { PerimeterStore } from '../state/types.js';
import type { Endpoint } from './endpoint.js';

/**
 * Resolves endpoints to bindings, compiling each perimeter's globs once per store revision
 * (decide runs per call; glob compilation must not).
 */
export function bindingResolver(
  store: PerimeterStore,
  opts: { rootEnabled: boolean; policy: ServerPolicy },
): (ep: Endpoint) => Binding | undefined {
  let revision = -1;
  const cache = new Map<string, Binding | undefined>();
  return (ep) => {
    if (ep.kind === 'root') return opts.rootEnabled ? ROOT_BINDING : undefined;
    if (store.revision() !== revision) {
      cache.clear();
      revision = store.revision();
    }
    const key = `${ep.id}\u0000${ep.branch ?? ''}`;
    if (cache.has(key)) return cache.get(key);
    const p = store.get(ep.id);
    const bound = p ? bindAgent(p, ep.branch, opts.policy) : undefined;
    const binding = bound?.ok ? bound.value : undefined;
    cache.set(key, binding);
    return binding;
  };
}
