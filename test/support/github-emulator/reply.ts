// What a route hands back, GitHub's error body, and the pagination/Link rules shared by every list endpoint.

/** A route's answer: JSON, raw bytes, or no body. */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'raw'; status: number; body: Buffer; contentType: string; headers?: Record<string, string> }
  | { kind: 'empty'; status: number; headers?: Record<string, string> };

/** A GitHub-shaped failure; thrown by routes and turned into a reply in one place (the dispatcher). */
export class GitHubError extends Error {
  readonly status: number;
  readonly docs: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    message: string,
    docs = 'https://docs.github.com/rest',
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.docs = docs;
    this.extra = extra;
    this.headers = headers;
  }
}

/** The JSON body GitHub sends with an error: message, documentation_url, status as a string. */
export function errorBody(e: GitHubError): Record<string, unknown> {
  return { message: e.message, ...e.extra, documentation_url: e.docs, status: String(e.status) };
}

/** JSON reply helper. */
export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { kind: 'json', status, body, headers } : { kind: 'json', status, body };
}

/** Page selection parsed from `page`/`per_page` (default 30, silently capped at `max`). */
export interface PageParams {
  page: number;
  perPage: number;
}

/** Reads `page` and `per_page` the way GitHub does: junk falls back to the default, too large is capped. */
export function pageParams(
  query: URLSearchParams,
  defaults: { perPage: number; max: number } = { perPage: 30, max: 100 },
): PageParams {
  const int = (v: string | null): number | null => (v !== null && /^\d+$/.test(v.trim()) ? Number(v.trim()) : null);
  const rawPer = int(query.get('per_page'));
  const perPage = rawPer === null || rawPer < 1 ? defaults.perPage : Math.min(rawPer, defaults.max);
  const rawPage = int(query.get('page'));
  const page = rawPage === null || rawPage < 1 ? 1 : rawPage;
  return { page, perPage };
}

/**
 * Absolute Link header for `page` of `lastPage`, carrying the request's other query parameters; undefined for a single
 * page. Relations in GitHub's recorded order: next,last / prev,next,last,first / prev,first.
 */
export function linkHeader(
  base: string,
  rawPath: string,
  query: URLSearchParams,
  page: number,
  lastPage: number,
): string | undefined {
  if (lastPage <= 1) return undefined;
  const at = (n: number): string => {
    const q = new URLSearchParams(query);
    q.set('page', String(n));
    return `<${base}${rawPath}?${q.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${at(Math.min(page - 1, lastPage))}; rel="prev"`);
  if (page < lastPage) parts.push(`${at(page + 1)}; rel="next"`, `${at(lastPage)}; rel="last"`);
  if (page > 1) parts.push(`${at(1)}; rel="first"`);
  return parts.length ? parts.join(', ') : undefined;
}

/** Slices one page out of a full list and builds its Link header. */
export function paginate<T>(
  items: readonly T[],
  p: PageParams,
  link: (page: number, lastPage: number) => string | undefined,
): { items: T[]; headers: Record<string, string> } {
  const lastPage = Math.max(1, Math.ceil(items.length / p.perPage));
  const slice = items.slice((p.page - 1) * p.perPage, p.page * p.perPage);
  const l = link(p.page, lastPage);
  return { items: slice, headers: l ? { link: l } : {} };
}
