import type { Response } from 'express';
import { html, type Html, type Part } from './escape.js';

// No script at all, styles only from our own file, forms only to ourselves, never framed, never cached.
const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers every /ui answer carries, pages and the stylesheet alike. */
export function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Not `no-referrer`: with it Chrome sends `Origin: null` on our own form posts, which the Origin check refuses.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

/** What the page frame needs to know about the viewer. */
export interface Frame {
  readonly title: string;
  /** The signed-in session's CSRF token (for the sign-out form); absent on the sign-in page. */
  readonly csrf?: string;
  readonly notice?: string;
}

/** A whole document around `body`. */
export function page(frame: Frame, body: Html): Html {
  const nav: Part = frame.csrf
    ? html`<nav><a href="/ui/proposals">Pending proposals</a> <a href="/ui/console">Console</a>
<form method="post" action="/ui/signout" class="inline"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form></nav>`
    : undefined;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · git-blinder</title>
<link rel="stylesheet" href="/ui/static/app.css"></head>
<body><header><strong>git-blinder</strong> operator ${nav}</header>
${frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : undefined}
<main>${body}</main></body></html>
`;
}

/** Sends a page with the room's headers. */
export function sendPage(res: Response, status: number, doc: Html): void {
  securityHeaders(res);
  res.status(status).type('text/html; charset=utf-8').send(doc.toString());
}

/** Sends a short error page (no detail beyond `message`, which must already be fit for the operator). */
export function sendError(res: Response, status: number, title: string, message: string, csrf?: string): void {
  sendPage(res, status, page({ title, ...(csrf ? { csrf } : {}) }, html`<h1>${title}</h1><p>${message}</p>`));
}

/** A 303 to a page of this room (after a POST, so a reload never re-submits). */
export function seeOther(res: Response, location: string): void {
  securityHeaders(res);
  res.redirect(303, location);
}
