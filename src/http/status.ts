import type { ChangeError } from '../registry/perimeters.js';

/** The one place HTTP status codes are chosen for operator API failures. */
export function statusFor(code: ChangeError | 'unauthorized' | 'bad_request'): number {
  switch (code) {
    case 'invalid':
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'not_found':
      return 404;
    case 'exists':
    case 'conflict':
      return 409;
    case 'upstream':
      return 502;
  }
}

/** JSON-RPC error body for MCP routes (id null: the request may not even have been parsed). */
export function rpcError(code: number, message: string): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** The single answer for an unknown perimeter, a branch outside the allowlist, or a disabled surface. */
export const NOT_FOUND_BODY = rpcError(-32001, 'Not found');
