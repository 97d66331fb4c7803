/** Where the URL points, without credentials: for messages. */
export function describeStore(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'the PostgreSQL store';
  }
}
