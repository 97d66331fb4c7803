import { html, type Html } from '../escape.js';
import type { RiskFlag } from '../risk.js';

/** "5 min", "3 h", "2 d": how long ago an ISO time was, for lists. */
export function age(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/** Risk flags as pills. */
export function flags(list: readonly RiskFlag[]): Html {
  return html`${list.map((f) => html`<span class="flag${f.bad ? ' bad' : ''}">${f.label}</span>`)}`;
}

/** A short commit id for tables, the whole id in the title. */
export function shortSha(sha: string): Html {
  return html`<code title="${sha}">${sha.slice(0, 12)}</code>`;
}
