/** Where an MCP request is addressed: the operator surface or one perimeter, optionally on a branch. */
export type Endpoint = { kind: 'root' } | { kind: 'perimeter'; id: string; branch: string | undefined };

/**
 * Reads the endpoint from the path below `/mcp/` (raw, still percent-encoded). Each segment is decoded on its own,
 * so `feature%2Fx` and `feature/x` name the same branch. Undecodable input is no endpoint at all.
 */
export function parseEndpoint(rawPath: string): Endpoint | undefined {
  const rest = rawPath.replace(/^\/mcp\//, '');
  if (rest === rawPath || rest === '') return undefined;
  let segments: string[];
  try {
    segments = rest.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  const [id, ...branchParts] = segments;
  if (!id) return undefined;
  if (id === 'root') return branchParts.length === 0 ? { kind: 'root' } : undefined;
  const branch = branchParts.length > 0 ? branchParts.join('/') : undefined;
  if (branch === '') return undefined;
  return { kind: 'perimeter', id, branch };
}

/** A stable key binding a session to the URL it was created on. */
export function endpointKey(ep: Endpoint): string {
  return ep.kind === 'root' ? 'root' : `p:${ep.id}\u0000${ep.branch ?? ''}`;
}
